import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ActivityFailure, ApplicationFailure, log, ParentClosePolicy, patched, proxyActivities, startChild, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { StageOutcome } from '../activities/signal-stages';
import { enrichCompanyWorkflow } from './enrich-company';
import { strategistWorkflow } from './strategist';
import { dbActivityOptions, providerActivityOptions } from './retry';
import { searchAttributes, workflowIds } from './search-attributes';
import { STAGES } from './stages';
import { PIPELINE_STAGES, type PipelineStage } from '../domain/signals/pipeline-stages';

/**
 * Runs recorded before it stopped only on any `ignored` status (a score's too) and did not mark the
 * signal processed at the end. With it: only a person's ignore stops the run, and a finished run
 * sets processed_at (what the scheduled reconcile looks at).
 */
const PERSON_IGNORE_GATE_PATCH = 'person-ignore-gate';

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

/**
 * classification -> scoring -> opportunity -> enrichment -> drafting -> strategist. Before each
 * stage the signal is read again: a signal a person ignored stops the run there. A stage that fails for good marks the signal failed with the reason, and the run fails.
 */
export async function processSignalWorkflow(input: ProcessSignalInput): Promise<ProcessSignalResult> {
  const gated = patched(PERSON_IGNORE_GATE_PATCH);
  const db = proxyActivities<Activities>(dbActivityOptions(input.retryInitialIntervalMs));
  const providers = proxyActivities<Activities>(providerActivityOptions(workflowInfo().taskQueue, input.retryInitialIntervalMs));
  const ref = { organizationId: input.organizationId, signalId: input.signalId };
  const first = PIPELINE_STAGES.indexOf(input.fromStage ?? 'classification');
  const result: ProcessSignalResult = { stages: [], finalStatus: null };

  for (const stage of PIPELINE_STAGES.slice(first)) {
    const entry = STAGES[stage];
    if (!entry) continue;
    if (entry.patch && !patched(entry.patch)) continue;
    let stop: boolean;
    if (gated) {
      const gate = await db.signalGate(ref);
      result.finalStatus = gate.status;
      stop = gate.stop;
    } else {
      const status = await db.readSignalStatus(ref);
      result.finalStatus = status;
      stop = status === null || status === 'ignored';
    }
    if (stop) {
      result.stoppedAt = stage;
      log.info('signal is ignored: later stages skipped', { stage });
      return result;
    }
    try {
      const outcome = await entry.activity(entry.queue === 'providers' ? providers : db)(ref);
      result.stages.push({ stage, ...outcome });
      result.finalStatus = outcome.status;
      if (stage === 'enrichment' && outcome.detail?.enrich) await startEnrichment(input, outcome.detail.companyId as string);
      if (stage === 'strategist' && outcome.detail?.startStrategist) {
        await startStrategist(input, outcome.detail.opportunityId as string, outcome.detail.companyId as string);
      }
    } catch (err) {
      const cause = err instanceof ActivityFailure && err.cause ? err.cause : err;
      const reason = cause instanceof Error ? cause.message : String(cause);
      await db.markSignalFailed({ ...ref, stage, reason });
      throw ApplicationFailure.nonRetryable(`stage ${stage} failed: ${reason}`, 'StageFailed');
    }
  }
  if (gated) await db.completeSignalPipeline(ref);
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

/**
 * The opportunity's strategist runs on its own (ABANDON): it waits for the company's enrichment and
 * proposes a campaign; a run already in progress for the opportunity is left to it.
 */
async function startStrategist(input: ProcessSignalInput, opportunityId: string, companyId: string): Promise<void> {
  await startChild(strategistWorkflow, {
    workflowId: workflowIds.strategist(opportunityId),
    // It looks at the running enrichment every five retry intervals, at most every minute.
    args: [
      {
        organizationId: input.organizationId,
        opportunityId,
        retryInitialIntervalMs: input.retryInitialIntervalMs,
        enrichmentPollMs: Math.min(60_000, Math.max(500, (input.retryInitialIntervalMs ?? 12_000) * 5)),
      },
    ],
    parentClosePolicy: ParentClosePolicy.ABANDON,
    typedSearchAttributes: searchAttributes({
      OrganizationId: input.organizationId,
      OpportunityId: opportunityId,
      CompanyId: companyId,
      SignalId: input.signalId,
    }),
  }).catch((err) => {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  });
}
