import { ActivityFailure, ApplicationFailure, log, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { IngestOutcome, IngestSourceInput } from '../activities/ingest';
import { NON_RETRYABLE_INGEST_ERRORS } from './failure-types';

export interface IngestSourceWorkflowInput extends IngestSourceInput {
  /** First retry delay of a failed fetch; tests shorten it, production keeps the default. */
  retryInitialIntervalMs?: number;
}


/**
 * Fetches a source once and stores its publications as signals. A source that cannot be fetched
 * or parsed ends the run failed, with the error recorded on the source.
 */
export async function ingestSourceWorkflow(input: IngestSourceWorkflowInput): Promise<IngestOutcome> {
  const { ingestSource } = proxyActivities<Activities>({
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: '2 minutes',
    retry: {
      initialInterval: input.retryInitialIntervalMs ?? 5000,
      backoffCoefficient: 2,
      maximumAttempts: 3,
      nonRetryableErrorTypes: NON_RETRYABLE_INGEST_ERRORS,
    },
  });
  const { recordSourceFailure } = proxyActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: 1000, maximumAttempts: 10 },
  });
  const target = { organizationId: input.organizationId, sourceId: input.sourceId };
  try {
    const outcome = await ingestSource(target);
    log.info('ingest finished', { status: outcome.status, created: outcome.created });
    return outcome;
  } catch (err) {
    const cause = err instanceof ActivityFailure && err.cause ? err.cause : err;
    const message = cause instanceof Error ? cause.message : String(cause);
    await recordSourceFailure({ ...target, error: message });
    throw ApplicationFailure.nonRetryable(`ingest of source ${input.sourceId} failed: ${message}`, 'IngestFailed');
  }
}
