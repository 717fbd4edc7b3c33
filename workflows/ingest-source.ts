import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ActivityFailure, ApplicationFailure, log, ParentClosePolicy, proxyActivities, startChild } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { IngestOutcome, IngestSourceInput } from '../activities/ingest';
import { NON_RETRYABLE_INGEST_ERRORS } from './failure-types';
import { dbActivityOptions } from './retry';
import { processSignalWorkflow } from './process-signal';
import { searchAttributes, workflowIds } from './search-attributes';

export interface IngestSourceWorkflowInput extends IngestSourceInput {
  /** First retry delay of a failed fetch; tests shorten it, production keeps the default. */
  retryInitialIntervalMs?: number;
  /** Start processSignalWorkflow for each new signal (default true). */
  processSignals?: boolean;
}

const CHILD_START_BATCH = 100;

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
  // A fetch that keeps failing ends the run after a few attempts: the next scheduled run fetches again,
  // and whatever an attempt stored is handed on by the next run's result or the reconcile.
  // Recording the failure is database work: retried for hours, not a few seconds.
  const { recordSourceFailure } = proxyActivities<Activities>(dbActivityOptions(1000));
  const target = { organizationId: input.organizationId, sourceId: input.sourceId };
  let outcome: IngestOutcome;
  try {
    outcome = await ingestSource(target);
    log.info('ingest finished', { status: outcome.status, created: outcome.created });
  } catch (err) {
    const cause = err instanceof ActivityFailure && err.cause ? err.cause : err;
    const message = cause instanceof Error ? cause.message : String(cause);
    await recordSourceFailure({ ...target, error: message });
    throw ApplicationFailure.nonRetryable(`ingest of source ${input.sourceId} failed: ${message}`, 'IngestFailed');
  }
  if (input.processSignals !== false) await startSignalProcessing(input, outcome.signalIds);
  return outcome;
}

/** One processSignalWorkflow per new signal; they outlive this run (ABANDON). */
async function startSignalProcessing(input: IngestSourceWorkflowInput, signalIds: string[]): Promise<void> {
  for (let i = 0; i < signalIds.length; i += CHILD_START_BATCH) {
    await Promise.all(
      signalIds.slice(i, i + CHILD_START_BATCH).map((signalId) =>
        startChild(processSignalWorkflow, {
          workflowId: workflowIds.processSignal(signalId),
          args: [{ organizationId: input.organizationId, signalId, retryInitialIntervalMs: input.retryInitialIntervalMs }],
          parentClosePolicy: ParentClosePolicy.ABANDON,
          typedSearchAttributes: searchAttributes({ OrganizationId: input.organizationId, SourceId: input.sourceId, SignalId: signalId }),
        }).catch((err) => {
          // A reprocess of this signal already running is fine: it covers the new signal too.
          if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
        }),
      ),
    );
  }
}
