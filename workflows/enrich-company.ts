import { ActivityFailure, log, patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { dbActivityOptions, NON_RETRYABLE_STAGE_ERRORS, providerActivityOptions } from './retry';
import type { ProviderOutcome } from '../activities/enrichment';
import { verifyUnchecked } from './verify-contacts';

export interface EnrichCompanyInput {
  organizationId: string;
  companyId: string;
  /** Stop the waterfall once the company has this many contacts. */
  minContacts?: number;
  retryInitialIntervalMs?: number;
}

export interface EnrichCompanyResult {
  status: 'done' | 'failed';
  providers: ProviderOutcome[];
  errors: string[];
}

/**
 * The enrichment waterfall: each provider in turn until the company has enough contacts. A
 * provider that fails is recorded and the next one tried; the run ends `done`, or `failed` with
 * the reasons when no provider succeeded. A done run starts the check of the company's addresses
 * never checked.
 */
export async function enrichCompanyWorkflow(input: EnrichCompanyInput): Promise<EnrichCompanyResult> {
  const db = proxyActivities<Activities>(dbActivityOptions(input.retryInitialIntervalMs ?? 5000));
  // A provider call runs on the rate-limited providers queue. Its attempts stay bounded: the waterfall
  // moves on to the next provider rather than waiting hours for one that is down.
  const providers = proxyActivities<Activities>({
    ...providerActivityOptions(workflowInfo().taskQueue, input.retryInitialIntervalMs ?? 5000),
    startToCloseTimeout: '5 minutes',
    scheduleToCloseTimeout: '30 minutes',
    retry: {
      initialInterval: input.retryInitialIntervalMs ?? 5000,
      backoffCoefficient: 2,
      maximumInterval: '1 minute',
      maximumAttempts: 5,
      nonRetryableErrorTypes: NON_RETRYABLE_STAGE_ERRORS,
    },
  });
  const a = { enrichmentPlan: db.enrichmentPlan, finishEnrichment: db.finishEnrichment, enrichFromProvider: providers.enrichFromProvider };
  const ref = { organizationId: input.organizationId, companyId: input.companyId };
  const minContacts = input.minContacts ?? 3;
  const result: EnrichCompanyResult = { status: 'done', providers: [], errors: [] };
  let plan: string[] = [];
  try {
    plan = await a.enrichmentPlan(ref);
  } catch (err) {
    result.errors.push(messageOf(err));
  }
  for (const provider of plan) {
    try {
      const outcome = await a.enrichFromProvider({ ...ref, provider });
      result.providers.push(outcome);
      if (outcome.contacts >= minContacts) break;
    } catch (err) {
      result.errors.push(`${provider}: ${messageOf(err)}`);
      log.warn('enrichment provider failed', { provider });
    }
  }
  if (plan.length === 0 && result.errors.length === 0)
    result.errors.push('no enrichment provider applies: the company has no website or domain and no enrichment integration is configured');
  result.status = result.providers.length > 0 ? 'done' : 'failed';
  await a.finishEnrichment({ ...ref, status: result.status, error: result.status === 'failed' ? result.errors.join('; ') : null });
  // The addresses found are checked in a run of their own (histories recorded before this patch did not).
  if (result.status === 'done' && patched('verify-found-addresses'))
    await verifyUnchecked(input.organizationId, `enrich-${workflowInfo().runId}`, input.retryInitialIntervalMs, input.companyId);
  return result;
}

function messageOf(err: unknown): string {
  const cause = err instanceof ActivityFailure && err.cause ? err.cause : err;
  return cause instanceof Error ? cause.message : String(cause);
}
