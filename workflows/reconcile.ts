import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ParentClosePolicy, patched, proxyActivities, startChild } from '@temporalio/workflow';
import { enrichCompanyWorkflow } from './enrich-company';
import type { Activities } from '../activities';
import { processSignalWorkflow } from './process-signal';
import { dbActivityOptions } from './retry';
import { searchAttributes, workflowIds } from './search-attributes';
import { resumeStage } from '../domain/signals/pipeline-stages';

export interface ReconcileSignalsInput {
  /** A signal left ingested or mid-pipeline longer than this is picked up. */
  stuckAfterSeconds: number;
  /** At most this many per run (the next run takes the rest). */
  limit?: number;
  retryInitialIntervalMs?: number;
}

export interface ReconcileSignalsResult {
  found: number;
  /** Signals whose processing this run started. */
  started: string[];
  /** Signals that already had a run in progress: left to it. */
  running: string[];
  /** Companies left enriching: those whose enrichment this run started again, and those whose run was still going. */
  enrichments?: { found: number; started: string[]; running: string[] };
}

const CHILD_START_BATCH = 100;

/**
 * The scheduled reconcile (Temporal Schedule `reconcile/signals`): every signal, in any organization,
 * left `ingested` or mid-pipeline (classified, scored, qualified or ready without having finished)
 * for longer than stuckAfterSeconds gets a processSignalWorkflow from the stage it stopped at. A
 * signal whose run is still going (for instance waiting out a provider's retries) is left to it. So
 * does every company left enriching that long: its enrichCompanyWorkflow starts again (the new run
 * marks the run its lost workflow left `running` as failed), or is found still going.
 */
export async function reconcileSignalsWorkflow(input: ReconcileSignalsInput): Promise<ReconcileSignalsResult> {
  const { findStuckSignals, findStuckEnrichments } = proxyActivities<Activities>(dbActivityOptions(input.retryInitialIntervalMs));
  const stuck = await findStuckSignals({ stuckAfterSeconds: input.stuckAfterSeconds, limit: input.limit ?? 1000 });
  const result: ReconcileSignalsResult = { found: stuck.length, started: [], running: [] };
  for (let i = 0; i < stuck.length; i += CHILD_START_BATCH) {
    await Promise.all(
      stuck.slice(i, i + CHILD_START_BATCH).map(async (s) => {
        const fromStage = resumeStage(s.status);
        if (!fromStage) return;
        try {
          await startChild(processSignalWorkflow, {
            workflowId: workflowIds.processSignal(s.signalId),
            args: [{ organizationId: s.organizationId, signalId: s.signalId, fromStage, retryInitialIntervalMs: input.retryInitialIntervalMs }],
            parentClosePolicy: ParentClosePolicy.ABANDON,
            typedSearchAttributes: searchAttributes({ OrganizationId: s.organizationId, SourceId: s.sourceId, SignalId: s.signalId }),
          });
          result.started.push(s.signalId);
        } catch (err) {
          if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
          result.running.push(s.signalId);
        }
      }),
    );
  }
  // Companies left `enrichment_status = running` (their workflow ended without finishing: terminated, lost)
  // get their enrichment again; histories recorded before this did not look.
  if (patched('reconcile-enrichments')) {
    const companies = await findStuckEnrichments({ stuckAfterSeconds: input.stuckAfterSeconds, limit: input.limit ?? 1000 });
    const enrichments = { found: companies.length, started: [] as string[], running: [] as string[] };
    for (let i = 0; i < companies.length; i += CHILD_START_BATCH) {
      await Promise.all(
        companies.slice(i, i + CHILD_START_BATCH).map(async (c) => {
          try {
            await startChild(enrichCompanyWorkflow, {
              workflowId: workflowIds.enrichCompany(c.companyId),
              args: [{ organizationId: c.organizationId, companyId: c.companyId, retryInitialIntervalMs: input.retryInitialIntervalMs }],
              parentClosePolicy: ParentClosePolicy.ABANDON,
              typedSearchAttributes: searchAttributes({ OrganizationId: c.organizationId, CompanyId: c.companyId }),
            });
            enrichments.started.push(c.companyId);
          } catch (err) {
            if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
            enrichments.running.push(c.companyId);
          }
        }),
      );
    }
    result.enrichments = enrichments;
  }
  return result;
}
