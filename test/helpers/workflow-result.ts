import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import os from 'node:os';

/** A run that gave no result in time (not the run's own failure). */
export class NoResultInTime extends Error {}

/**
 * A workflow's result, or within `ms` an error that says what the run is waiting for: its status,
 * its pending activities (attempt, last failure, state) and the last events of its history. A test
 * that awaits `handle.result()` alone ends on jest's timeout, which says nothing about why; a file
 * that waits for several runs in one test gives its tests room for each wait (jest.setTimeout).
 */
export async function resultWithin<T = unknown>(handle: WorkflowHandle, ms = 30_000): Promise<T> {
  // The long poll behind result() is aborted when the wait ends: left pending, it retries on a
  // connection the file closes in afterAll, and that failure lands in whichever file runs next.
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
  });
  const result = handle.client.withAbortSignal(abort.signal, () => handle.result() as Promise<T>);
  try {
    const first = await Promise.race([result, late]);
    if (first !== 'late') return first;
  } finally {
    clearTimeout(timer);
    abort.abort();
    result.catch(() => undefined);
  }
  throw new NoResultInTime(`${handle.workflowId} gave no result within ${ms} ms:\n${await whatItWaitsFor(handle)}`);
}

/** Runs `wait` (a poll for what the run should do); if it fails, the error also says what the run is waiting for. */
export async function explainingRun<T>(handle: WorkflowHandle, wait: () => Promise<T>): Promise<T> {
  try {
    return await wait();
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${handle.workflowId}:\n${await whatItWaitsFor(handle)}`, { cause: err });
  }
}

async function whatItWaitsFor(handle: WorkflowHandle): Promise<string> {
  try {
    const d = await handle.describe();
    const pending = (d.raw.pendingActivities ?? []).map((a) =>
      JSON.stringify({
        activity: a.activityType?.name,
        state: a.state,
        attempt: a.attempt,
        lastFailure: a.lastFailure?.message,
        lastWorker: a.lastWorkerIdentity,
        scheduled: a.scheduledTime?.seconds?.toString(),
      }),
    );
    const history = await handle.fetchHistory();
    const events = (history.events ?? [])
      .slice(-12)
      .map((e) => `${e.eventId} ${temporal.api.enums.v1.EventType[e.eventType ?? 0]} at ${eventTime(e)}${eventDetail(e)}`);
    const [load1] = os.loadavg();
    return [
      `status ${d.status.name}, started ${d.startTime.toISOString()}, described at ${new Date().toISOString()} (load ${load1!.toFixed(1)})`,
      'pending activities:',
      ...pending,
      'last events:',
      ...events,
    ].join('\n');
  } catch (err) {
    return `(describing the run failed: ${(err as Error).message})`;
  }
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

function eventTime(e: HistoryEvent): string {
  const seconds = Number(e.eventTime?.seconds ?? 0);
  return seconds ? new Date(seconds * 1000 + Math.floor((e.eventTime?.nanos ?? 0) / 1e6)).toISOString() : '';
}

/** What a timer waits for and which worker ran a task: the two questions a stalled run raises. */
function eventDetail(e: HistoryEvent): string {
  const timer = e.timerStartedEventAttributes?.startToFireTimeout;
  if (timer) return ` (fires after ${Number(timer.seconds ?? 0) + (timer.nanos ?? 0) / 1e9} s)`;
  const activity = e.activityTaskScheduledEventAttributes?.activityType?.name;
  if (activity) return ` ${activity}`;
  const identity = e.workflowTaskStartedEventAttributes?.identity ?? e.activityTaskStartedEventAttributes?.identity;
  return identity ? ` by ${identity}` : '';
}
