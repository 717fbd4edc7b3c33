import type { ActivityOptions } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { providerTaskQueue } from './task-queues';

/** Business failures that no retry can heal: the activity throws them non-retryable or by these types. */
export const NON_RETRYABLE_STAGE_ERRORS = [
  'SignalNotFound',
  'StagePrecondition',
  'CompanyNotFound',
  'EnrichmentNotConfigured',
  'EnrichmentRejected',
  'ClassifierRejected',
];

/**
 * How long a running activity may go without a heartbeat before the server gives it up and retries it.
 * The worker heartbeats every running activity for it (apps/worker/liveness.ts), so this is how soon an
 * activity whose worker died (SIGKILL, out of memory, a lost machine) or whose completion never reached
 * the server is tried again, instead of after its start-to-close timeout (2-3 minutes; the production
 * topology test's tail after a worker kill was that wait). An activity that heartbeats with progress of
 * its own sets its own, longer timeout.
 */
export const LIVENESS_TIMEOUT = '20 seconds';

/** The activities whose heartbeats report progress of their own (a page stored, a delivery made): the worker never beats for them, which would hide a hang. */
export const SELF_HEARTBEATING_ACTIVITIES: ReadonlySet<string> = new Set(['ingestSource', 'deliverDueWebhooks'] as const satisfies ReadonlyArray<
  keyof Activities
>);

/**
 * Database work: retried without an attempt cap for hours (a failover, a full pool), backing off to
 * one attempt every five minutes; a business failure ends it at once.
 */
export function dbActivityOptions(retryInitialIntervalMs = 2000): ActivityOptions {
  return {
    startToCloseTimeout: '2 minutes',
    heartbeatTimeout: LIVENESS_TIMEOUT,
    scheduleToCloseTimeout: '6 hours',
    retry: { initialInterval: retryInitialIntervalMs, backoffCoefficient: 2, maximumInterval: '5 minutes', nonRetryableErrorTypes: NON_RETRYABLE_STAGE_ERRORS },
  };
}

/**
 * Model and provider calls: on the providers task queue of the workflow's own queue, which its
 * worker serves with a rate limit and bounded concurrency; retried for hours (a burst of 429s
 * waits), the budget including the time queued behind the rate limit.
 */
export function providerActivityOptions(taskQueue: string, retryInitialIntervalMs = 2000): ActivityOptions {
  return {
    taskQueue: providerTaskQueue(taskQueue),
    startToCloseTimeout: '2 minutes',
    heartbeatTimeout: LIVENESS_TIMEOUT,
    scheduleToCloseTimeout: '6 hours',
    retry: {
      initialInterval: retryInitialIntervalMs,
      backoffCoefficient: 2,
      maximumInterval: '10 minutes',
      nonRetryableErrorTypes: NON_RETRYABLE_STAGE_ERRORS,
    },
  };
}
