import { ApplicationFailure, log } from '@temporalio/activity';
import { usableIntegration } from '../db/queries/integrations';
import { opportunityOutcome, recordOutcomeCrmSync } from '../db/queries/opportunities';
import type { SecretBox } from '../db/secrets';
import { asOrganization } from '../db/tenancy';
import type { DB } from '../db/pool';
import { linkedCrmOpportunity, salesforceStageFor } from '../domain/crm/opportunity-stage';
import { refusedForGood } from './meetings';
import { ProviderRequestError } from './providers/outcome';
import type { SalesforceApp } from './providers/crm/salesforce';
import { dbSalesforceTokenStore } from './providers/crm/salesforce-token-store';
import { salesforceFrom } from './providers/registry';

export interface OpportunityRef {
  organizationId: string;
  opportunityId: string;
}

export type OutcomeSyncResult =
  | { synced: true; crmOpportunityId: string; stage: string }
  | { synced: false; reason: 'no_opportunity' | 'no_crm' | 'auto_sync_off' | 'not_linked' | 'open' | 'rejected'; error?: string };

/**
 * A won or lost outcome to the CRM: with a Salesforce integration that has
 * config.autoSync and links the opportunity in mapping.opportunities, the linked Opportunity's
 * StageName becomes the outcome's stage (mapping.stages, else Closed Won / Closed Lost). It reads the
 * outcome as it is now (a run woken twice writes the latest once more), so it is idempotent: the same
 * PATCH again changes nothing. A 4xx is recorded in the opportunity's crm_error and not retried; an
 * outage or a 429 is thrown (the activity's retries).
 */
export function createCrmOutcomeActivities(deps: { db: DB; secrets: SecretBox | null; salesforce?: SalesforceApp | null }) {
  const { db } = deps;
  return {
    async syncOutcomeToCrm(ref: OpportunityRef): Promise<OutcomeSyncResult> {
      const { opportunity, crm } = await asOrganization(db, ref.organizationId, async (tx) => ({
        opportunity: await opportunityOutcome(tx, ref.opportunityId),
        crm: await usableIntegration(tx, ref.organizationId, 'crm'),
      }));
      if (!opportunity) return { synced: false, reason: 'no_opportunity' };
      if (!crm?.secret_ciphertext || crm.provider_key !== 'salesforce') return { synced: false, reason: 'no_crm' };
      const config = (crm.config ?? {}) as Record<string, unknown>;
      if (config.autoSync !== true) return { synced: false, reason: 'auto_sync_off' };
      const linked = linkedCrmOpportunity(crm.mapping, ref.opportunityId);
      if (!linked) return { synced: false, reason: 'not_linked' };
      const stage = salesforceStageFor(opportunity.outcome, crm.mapping);
      if (!stage) return { synced: false, reason: 'open' };
      if (!deps.secrets) throw ApplicationFailure.nonRetryable('INTEGRATION_SECRET_KEY is not configured', 'CrmNotConfigured');
      if (!deps.salesforce) throw ApplicationFailure.nonRetryable('SALESFORCE_CLIENT_ID and SALESFORCE_CLIENT_SECRET are not configured', 'CrmNotConfigured');
      const sf = salesforceFrom(config, dbSalesforceTokenStore(db, deps.secrets, crm.organization_id, crm.id), deps.salesforce);
      try {
        await sf.updateOpportunityStage(linked, stage);
      } catch (err) {
        if (err instanceof ProviderRequestError && refusedForGood(err)) {
          log.warn('the CRM refused the outcome', { opportunityId: ref.opportunityId, error: err.message });
          await asOrganization(db, ref.organizationId, (tx) => recordOutcomeCrmSync(tx, ref.opportunityId, opportunity.outcome_at, { error: err.message }));
          return { synced: false, reason: 'rejected', error: err.message };
        }
        throw err;
      }
      await asOrganization(db, ref.organizationId, (tx) => recordOutcomeCrmSync(tx, ref.opportunityId, opportunity.outcome_at, { ok: true }));
      return { synced: true, crmOpportunityId: linked, stage };
    },
  };
}
