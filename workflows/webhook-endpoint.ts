import { condition, continueAsNew, defineSignal, patched, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { dbActivityOptions } from './retry';
import { webhookTaskQueue } from './task-queues';

/** "Deliveries are waiting": sent with signalWithStart by the workers' dispatcher after an event commits. */
export const webhookWakeSignal = defineSignal('webhookWake');

export interface WebhookEndpointInput {
  organizationId: string;
  endpointId: string;
  /** Delays after each failed attempt, in seconds (WEBHOOK_RETRY_SCHEDULE). */
  retryScheduleSeconds: number[];
  retryInitialIntervalMs?: number;
}

/** With nothing pending, a run waits this long for a wake before it ends (the next event starts it again). */
const IDLE_MS = 60 * 60 * 1000;
/** Rounds per run before continuing as new, so the history stays short. */
const ROUNDS_PER_RUN = 200;

/**
 * One endpoint's deliveries (`webhook-endpoint/<id>`): drains what is due, then sleeps until the next
 * retry is due or a wake signal comes. One run per endpoint, so a receiver that is down only delays
 * its own deliveries. The database is the truth: the run holds no event, only the timing.
 */
export async function webhookEndpointWorkflow(input: WebhookEndpointInput): Promise<void> {
  // Deliveries on the webhooks queue (its own slots); a run begun before that queue existed keeps
  // scheduling them where its history says, on the run's own queue (the main Worker serves them too).
  const ownQueue = patched('webhook-deliveries-own-queue');
  const { deliverDueWebhooks } = proxyActivities<Activities>({
    ...dbActivityOptions(input.retryInitialIntervalMs),
    ...(ownQueue ? { taskQueue: webhookTaskQueue(workflowInfo().taskQueue) } : {}),
    // A batch is at most 50 deliveries of at most 10 s each, 8 at a time, with heartbeats between them.
    startToCloseTimeout: '5 minutes',
    heartbeatTimeout: '1 minute',
  });
  let woken = false;
  setHandler(webhookWakeSignal, () => {
    woken = true;
  });
  for (let round = 0; round < ROUNDS_PER_RUN; round++) {
    woken = false;
    const r = await deliverDueWebhooks({
      organizationId: input.organizationId,
      endpointId: input.endpointId,
      retryScheduleSeconds: input.retryScheduleSeconds,
    });
    if (r.stop) return;
    if (r.more || (r.nextDueInMs !== null && r.nextDueInMs === 0)) continue;
    if (r.nextDueInMs === null) {
      if (!(await condition(() => woken, IDLE_MS))) return;
    } else {
      await condition(() => woken, Math.max(r.nextDueInMs, 1000));
    }
  }
  await continueAsNew<typeof webhookEndpointWorkflow>(input);
}
