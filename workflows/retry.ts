import type { ActivityOptions } from '@temporalio/workflow';
import { providerTaskQueue } from './task-queues';

/** Business failures that no retry can heal: the activity throws them non-retryable or by these types. */
export const NON_RETRYABLE_STAGE_ERRORS = ['SignalNotFound', 'StagePrecondition', 'CompanyNotFound', 'EnrichmentNotConfigured', 'EnrichmentRejected', 'ClassifierRejected'];

/**
 * Database work: retried without an attempt cap for hours (a failover, a full pool), backing off to
 * one attempt every five minutes; a business failure ends it at once.
 */
export function dbActivityOptions(retryInitialIntervalMs = 2000): ActivityOptions {
  return {
    startToCloseTimeout: '2 minutes',
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
    scheduleToCloseTimeout: '6 hours',
    retry: { initialInterval: retryInitialIntervalMs, backoffCoefficient: 2, maximumInterval: '10 minutes', nonRetryableErrorTypes: NON_RETRYABLE_STAGE_ERRORS },
  };
}
