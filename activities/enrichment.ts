import { ApplicationFailure, log } from '@temporalio/activity';
import { sql } from 'kysely';
import type { SecretBox } from '../db/secrets';
import { secretContext } from '../db/secrets';
import { fillCompanyGaps, getCompany, setEnrichmentStatus } from '../db/queries/companies';
import { upsertContact } from '../db/queries/contacts';
import { usableIntegration } from '../db/queries/integrations';
import { asOrganization } from '../db/tenancy';
import type { DB } from '../db/pool';
import { domainFromAddresses, genericAddressFor } from '../domain/companies/domains';
import { checkEmail, isGenericMailbox, toE164 } from '../domain/companies/identity';
import type { FetchLimits } from './providers/http-fetch';
import { EnrichmentProvider, EnrichmentUnavailableError } from './providers/enrichment/types';
import { WebsiteEnrichmentProvider } from './providers/enrichment/website';
import { hunterFrom } from './providers/registry';

export interface CompanyRef {
  organizationId: string;
  companyId: string;
}

export interface ProviderOutcome {
  provider: string;
  created: number;
  updated: number;
  skipped: number;
  contacts: number;
  notes: string[];
}

export interface EnrichmentDeps {
  db: DB;
  limits: FetchLimits;
  secrets: SecretBox | null;
}

export function createEnrichmentActivities(deps: EnrichmentDeps) {
  const { db } = deps;

  async function provider(ref: CompanyRef, key: string): Promise<EnrichmentProvider> {
    if (key === 'website') return new WebsiteEnrichmentProvider(deps.limits);
    if (key === 'hunter') {
      const integration = await asOrganization(db, ref.organizationId, (tx) => usableIntegration(tx, ref.organizationId, 'enrichment'));
      if (!integration?.secret_ciphertext || !deps.secrets)
        throw ApplicationFailure.nonRetryable('no usable enrichment integration', 'EnrichmentNotConfigured');
      const secret = deps.secrets.open(integration.secret_ciphertext, secretContext(integration.organization_id, integration.id));
      return hunterFrom(integration.config as Record<string, unknown>, secret);
    }
    throw ApplicationFailure.nonRetryable(`unknown enrichment provider ${key}`, 'EnrichmentNotConfigured');
  }

  return {
    /** The waterfall's order: the company's own website, then the organization's people-search integration. */
    async enrichmentPlan(ref: CompanyRef): Promise<string[]> {
      return asOrganization(db, ref.organizationId, async (tx) => {
        const company = await getCompany(tx, ref.companyId);
        if (!company) throw ApplicationFailure.nonRetryable(`company ${ref.companyId} not found`, 'CompanyNotFound');
        const plan: string[] = [];
        if (company.website || company.domain) plan.push('website');
        const people = await usableIntegration(tx, ref.organizationId, 'enrichment');
        if (people?.provider_key === 'hunter') plan.push('hunter');
        return plan;
      });
    },

    /**
     * One provider's people, upserted under the company's row lock: by e-mail, else name within the
     * company, so a re-run adds no duplicates. Erased people (by address, or by name within the
     * company) are skipped. A company without a domain of its own takes the one most of its
     * published addresses share.
     */
    async enrichFromProvider(ref: CompanyRef & { provider: string }): Promise<ProviderOutcome> {
      const company = await asOrganization(db, ref.organizationId, (tx) => getCompany(tx, ref.companyId));
      if (!company) throw ApplicationFailure.nonRetryable(`company ${ref.companyId} not found`, 'CompanyNotFound');
      let result;
      try {
        result = await (await provider(ref, ref.provider)).findPeople(company);
      } catch (err) {
        if (err instanceof EnrichmentUnavailableError) {
          throw err.retryable
            ? ApplicationFailure.retryable(err.message, 'EnrichmentUnavailable')
            : ApplicationFailure.nonRetryable(err.message, 'EnrichmentRejected');
        }
        throw err;
      }
      return asOrganization(db, ref.organizationId, async (tx) => {
        await tx.selectFrom('companies').select('id').where('id', '=', ref.companyId).forUpdate().execute();
        const country = company.country_code ?? 'NL';
        const published = (result.company.publishedAddresses ?? []).map((a) => a.toLowerCase());
        const domain = company.domain ? null : domainFromAddresses([result.company.genericEmail, ...published, ...result.people.map((p) => p.email)]);
        const generic = genericAddressFor(
          [result.company.genericEmail, ...published.filter(isGenericMailbox)].map((a) => (a && checkEmail(a).ok ? a.toLowerCase() : null)),
          company.domain ?? domain,
        );
        await fillCompanyGaps(tx, ref.companyId, {
          genericEmail: generic,
          phone: result.company.phone ? toE164(result.company.phone, country) : null,
          address: result.company.address,
          domain,
        });
        let created = 0;
        let updated = 0;
        let skipped = 0;
        for (const p of result.people) {
          const email = p.email && checkEmail(p.email).ok ? p.email.toLowerCase() : null;
          const r = await upsertContact(tx, ref.organizationId, {
            companyId: ref.companyId,
            fullName: p.fullName.slice(0, 200),
            title: p.title ?? null,
            email,
            phone: p.phone ? toE164(p.phone, country) : null,
            linkedinUrl: p.linkedinUrl ?? null,
            sourceDescription: p.source,
            dataSource: ref.provider,
          });
          if (!r) skipped++;
          else if (r.created) created++;
          else updated++;
        }
        const { n } = await tx
          .selectFrom('contacts')
          .select(sql<number>`count(*)::int`.as('n'))
          .where('company_id', '=', ref.companyId)
          .where('erased_at', 'is', null)
          .executeTakeFirstOrThrow();
        if (domain) result.notes.push(`${ref.provider}: domain ${domain} taken from the published addresses`);
        log.info('enrichment provider done', { provider: ref.provider, created, updated, skipped });
        return { provider: ref.provider, created, updated, skipped, contacts: n, notes: result.notes };
      });
    },

    async finishEnrichment(ref: CompanyRef & { status: 'done' | 'failed'; error: string | null }): Promise<void> {
      await asOrganization(db, ref.organizationId, (tx) => setEnrichmentStatus(tx, ref.companyId, ref.status, ref.error?.slice(0, 2000) ?? null));
    },
  };
}
