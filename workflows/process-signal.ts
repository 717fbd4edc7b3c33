import { ActivityFailure, ApplicationFailure, log, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { StageOutcome } from '../activities/signal-stages';
import { PIPELINE_STAGES, PipelineStage, STAGE_ACTIVITY } from './stages';

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
    } catch (err) {
      const cause = err instanceof ActivityFailure && err.cause ? err.cause : err;
      const reason = cause instanceof Error ? cause.message : String(cause);
      await activities.markSignalFailed({ ...ref, stage, reason });
      throw ApplicationFailure.nonRetryable(`stage ${stage} failed: ${reason}`, 'StageFailed');
    }
  }
  return result;
}
