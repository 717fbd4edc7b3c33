import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ActivityFailure, ApplicationFailure, log, ParentClosePolicy, patched, proxyActivities, startChild } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { StageOutcome } from '../activities/signal-stages';
import { enrichCompanyWorkflow } from './enrich-company';
import { searchAttributes, workflowIds } from './search-attributes';
import { PIPELINE_STAGES, PipelineStage, STAGE_ACTIVITY } from './stages';

/** Runs recorded before the enrichment stage existed must replay without it. */
const ENRICHMENT_STAGE_PATCH = 'enrichment-stage';

export interface ProcessSignalInput {
  organizationId: string;
  signalId: string;
  fromStage?: PipelineStage;
  /** First retry delay of a failing stage; tests shorten it, production keeps the default. */
  retryInitialIntervalMs?: number;
}

export interface ProcessSignalResult {
  stages: Array<{ stage: PipelineStage } & StageOutcome>;
  stoppedAt?: PipelineStage;
  finalStatus: string | null;
}

const NON_RETRYABLE = ['SignalNotFound', 'StagePrecondition'];

/**
 * classification -> scoring -> opportunity (-> enrichment -> drafting -> strategist, as they
 * arrive). Before each stage the signal is read again: an ignored signal stops the run there. A
 * stage that keeps failing marks the signal failed with the reason, and the run fails.
 */
export async function processSignalWorkflow(input: ProcessSignalInput): Promise<ProcessSignalResult> {
  const activities = proxyActivities<Activities>({
    startToCloseTimeout: '2 minutes',
    retry: { initialInterval: input.retryInitialIntervalMs ?? 2000, backoffCoefficient: 2, maximumAttempts: 4, nonRetryableErrorTypes: NON_RETRYABLE },
  });
  const stageActivities = activities as unknown as Record<string, (ref: { organizationId: string; signalId: string }) => Promise<StageOutcome>>;
  const ref = { organizationId: input.organizationId, signalId: input.signalId };
  const first = PIPELINE_STAGES.indexOf(input.fromStage ?? 'classification');
  const result: ProcessSignalResult = { stages: [], finalStatus: null };

  for (const stage of PIPELINE_STAGES.slice(first)) {
    const activity = STAGE_ACTIVITY[stage];
    if (!activity) continue;
    if (stage === 'enrichment' && !patched(ENRICHMENT_STAGE_PATCH)) continue;
    const status = await activities.readSignalStatus(ref);
    result.finalStatus = status;
    if (status === null || status === 'ignored') {
      result.stoppedAt = stage;
      log.info('signal is ignored: later stages skipped', { stage });
      return result;
    }
    try {
      const outcome = await stageActivities[activity]!(ref);
      result.stages.push({ stage, ...outcome });
      result.finalStatus = outcome.status;
      if (stage === 'enrichment' && outcome.detail?.enrich) await startEnrichment(input, outcome.detail.companyId as string);
    } catch (err) {
      const cause = err instanceof ActivityFailure && err.cause ? err.cause : err;
      const reason = cause instanceof Error ? cause.message : String(cause);
      await activities.markSignalFailed({ ...ref, stage, reason });
      throw ApplicationFailure.nonRetryable(`stage ${stage} failed: ${reason}`, 'StageFailed');
    }
  }
  return result;
}

/** The company's enrichment runs on its own (ABANDON): a signal's run does not wait for it. */
async function startEnrichment(input: ProcessSignalInput, companyId: string): Promise<void> {
  await startChild(enrichCompanyWorkflow, {
    workflowId: workflowIds.enrichCompany(companyId),
    args: [{ organizationId: input.organizationId, companyId, retryInitialIntervalMs: input.retryInitialIntervalMs }],
    parentClosePolicy: ParentClosePolicy.ABANDON,
    typedSearchAttributes: searchAttributes({ OrganizationId: input.organizationId, CompanyId: companyId, SignalId: input.signalId }),
  }).catch((err) => {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  });
}
