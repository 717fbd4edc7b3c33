import { ActivityFailure, log, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ProviderOutcome } from '../activities/enrichment';

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
 * the reasons when no provider succeeded.
 */
export async function enrichCompanyWorkflow(input: EnrichCompanyInput): Promise<EnrichCompanyResult> {
  const a = proxyActivities<Activities>({
    startToCloseTimeout: '5 minutes',
    retry: { initialInterval: input.retryInitialIntervalMs ?? 5000, backoffCoefficient: 2, maximumAttempts: 3, nonRetryableErrorTypes: ['CompanyNotFound', 'EnrichmentNotConfigured', 'EnrichmentRejected'] },
  });
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
  if (plan.length === 0 && result.errors.length === 0) result.errors.push('no enrichment provider applies: the company has no website or domain and no enrichment integration is configured');
  result.status = result.providers.length > 0 ? 'done' : 'failed';
  await a.finishEnrichment({ ...ref, status: result.status, error: result.status === 'failed' ? result.errors.join('; ') : null });
  return result;
}

function messageOf(err: unknown): string {
  const cause = err instanceof ActivityFailure && err.cause ? err.cause : err;
  return cause instanceof Error ? cause.message : String(cause);
}
