import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/** A run that gave no result in time (not the run's own failure). */
export class NoResultInTime extends Error {}

/**
 * A workflow's result, or within `ms` an error that says what the run is waiting for: its status,
 * its pending activities (attempt, last failure, state) and the last events of its history. A test
 * that awaits `handle.result()` alone ends on jest's timeout, which says nothing about why; a file
 * that waits for several runs in one test gives its tests room for each wait (jest.setTimeout).
 */
export async function resultWithin<T = unknown>(handle: WorkflowHandle, ms = 30_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
  });
  try {
    const first = await Promise.race([handle.result() as Promise<T>, late]);
    if (first !== 'late') return first;
  } finally {
    clearTimeout(timer);
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
      .map((e) => `${e.eventId} ${temporal.api.enums.v1.EventType[e.eventType ?? 0]} at ${e.eventTime?.seconds ?? ''}`);
    return [`status ${d.status.name}, started ${d.startTime.toISOString()}`, 'pending activities:', ...pending, 'last events:', ...events].join('\n');
  } catch (err) {
    return `(describing the run failed: ${(err as Error).message})`;
  }
}
