import { ApplicationFailure, log } from '@temporalio/activity';
import { sql } from 'kysely';
import type { SecretBox } from '../db/secrets';
import { secretContext } from '../db/secrets';
import { fillCompanyGaps, getCompany, setEnrichmentStatus } from '../db/queries/companies';
import { upsertContact } from '../db/queries/contacts';
import { usableIntegration } from '../db/queries/integrations';
import {
  addressesFoundBy,
  claimBatchSubmit,
  enrichmentSettings,
  finishEnrichmentRun,
  recordBatchRequest,
  releaseBatchClaim,
  startEnrichmentRun,
  updateEnrichmentStep,
  type PlannedStep,
} from '../db/queries/enrichment';
import { ProviderRequestError } from './providers/outcome';
import type { FoundBy } from '../db/queries/contacts';
import type { EnrichmentStopAt } from '../domain/contacts/email-verification';
import { asOrganization } from '../db/tenancy';
import type { DB } from '../db/pool';
import { domainFromAddresses, genericAddressFor } from '../domain/companies/domains';
import { checkEmail, isGenericMailbox, toE164 } from '../domain/companies/identity';
import { linkedinUrl } from '../domain/companies/fields';
import type { FetchLimits } from './providers/http-fetch';
import { BatchEnrichmentProvider, CompanyForEnrichment, EnrichmentProvider, EnrichmentResult, EnrichmentUnavailableError } from './providers/enrichment/types';
import { WebsiteEnrichmentProvider } from './providers/enrichment/website';
import { enrichmentProviderFrom, hunterFrom, INTEGRATION_PROVIDERS } from './providers/registry';

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
  /** The contacts whose address this provider found (created with one, or given one they lacked); at most MAX_FOUND. */
  found?: string[];
  costUnits?: number;
}

/** A step of a waterfall run (the run's id and the step's position) and the integration it calls. */
export interface StepRef extends CompanyRef {
  runId: string;
  position: number;
  provider: string;
  integrationId: string | null;
}

export interface PlannedRun {
  runId: string;
  stopAt: EnrichmentStopAt;
  /** The worker's wait between two polls of a batch provider (the run's input may set its own). */
  batchPollMs?: number;
  steps: Array<PlannedStep & { batch: boolean }>;
}

/** The named contacts without an address a provider may look up, and the found addresses checked per step. */
const MAX_KNOWN_PEOPLE = 25;
const MAX_FOUND = 25;

export interface EnrichmentDeps {
  db: DB;
  limits: FetchLimits;
  secrets: SecretBox | null;
  /** The wait between two polls of a batch provider (ENRICHMENT_BATCH_POLL_SECONDS), given to each run it plans. */
  batchPollMs?: number;
}

export function createEnrichmentActivities(deps: EnrichmentDeps) {
  const { db } = deps;

  /** A provider's client: the website; an integration by its id (a waterfall step; null once deleted); or, for runs planned before the waterfall (undefined), the newest Hunter integration. */
  async function clientFor(ref: CompanyRef, key: string, integrationId?: string | null): Promise<EnrichmentProvider | BatchEnrichmentProvider> {
    if (key === 'website') return new WebsiteEnrichmentProvider(deps.limits);
    // A step whose integration was deleted (its id set null) must not fall back to another integration.
    if (integrationId === null) throw ApplicationFailure.nonRetryable(`the ${key} integration of this step was deleted`, 'EnrichmentNotConfigured');
    const integration = await asOrganization(db, ref.organizationId, (tx) =>
      integrationId
        ? tx
            .selectFrom('integrations')
            .select(['id', 'organization_id', 'provider_key', 'config', 'secret_ciphertext'])
            .where('id', '=', integrationId)
            .where('organization_id', '=', ref.organizationId)
            .where('kind', '=', 'enrichment')
            .executeTakeFirst()
        : usableIntegration(tx, ref.organizationId, 'enrichment'),
    );
    if (!integration?.secret_ciphertext || !deps.secrets || integration.provider_key !== key)
      throw ApplicationFailure.nonRetryable(`no usable ${key} integration (it was deleted, or changed provider)`, 'EnrichmentNotConfigured');
    const secret = deps.secrets.open(integration.secret_ciphertext, secretContext(integration.organization_id, integration.id));
    if (!integrationId) return hunterFrom(integration.config as Record<string, unknown>, secret);
    try {
      return enrichmentProviderFrom(key, integration.config as Record<string, unknown>, secret);
    } catch (err) {
      throw asActivityFailure(err);
    }
  }

  /** The company as providers see it, with its named contacts that have no address (what Dropcontact and Apollo look up). */
  async function companyForEnrichment(ref: CompanyRef): Promise<CompanyForEnrichment> {
    return asOrganization(db, ref.organizationId, async (tx) => {
      const company = await getCompany(tx, ref.companyId);
      if (!company) throw ApplicationFailure.nonRetryable(`company ${ref.companyId} not found`, 'CompanyNotFound');
      const people = await tx
        .selectFrom('contacts')
        .select(['full_name as fullName', 'title', 'linkedin_url as linkedinUrl'])
        .where('company_id', '=', ref.companyId)
        .where('email', 'is', null)
        .where('erased_at', 'is', null)
        .orderBy('created_at')
        .orderBy('id')
        .limit(MAX_KNOWN_PEOPLE)
        .execute();
      return { ...company, people };
    });
  }

  /**
   * One provider's people, upserted under the company's row lock: by e-mail, else name within the
   * company, so a re-run adds no duplicates. Erased people (by address, or by name within the
   * company) are skipped. A company without a domain of its own takes the one most of its
   * published addresses share. With a step, each value found is marked with the run and step.
   */
  async function storePeople(ref: CompanyRef, provider: string, result: EnrichmentResult, step?: StepRef): Promise<ProviderOutcome> {
    const foundBy: FoundBy | undefined = step ? { provider, run_id: step.runId, step: step.position } : undefined;
    return asOrganization(db, ref.organizationId, async (tx) => {
      const company = await tx.selectFrom('companies').select(['id', 'domain', 'country_code']).where('id', '=', ref.companyId).forUpdate().executeTakeFirst();
      if (!company) throw ApplicationFailure.nonRetryable(`company ${ref.companyId} not found`, 'CompanyNotFound');
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
        // A provider's values meet the API's own field rules: a provider (its base URL chosen by the tenant) may answer anything.
        const r = await upsertContact(tx, ref.organizationId, {
          companyId: ref.companyId,
          fullName: p.fullName.slice(0, 200),
          title: typeof p.title === 'string' ? p.title.trim().slice(0, 200) || null : null,
          email,
          phone: typeof p.phone === 'string' ? toE164(p.phone, country) : null,
          linkedinUrl: typeof p.linkedinUrl === 'string' && linkedinUrl.safeParse(p.linkedinUrl).success ? p.linkedinUrl : null,
          sourceDescription: String(p.source).slice(0, 500),
          dataSource: provider,
          foundBy,
        });
        if (!r) skipped++;
        else if (r.created) created++;
        else updated++;
      }
      // What the step found is read back from the marks it left, not counted here: a retry of a step that
      // stored its people already finds them stored (nothing new), and must still answer what the step found.
      const found = step ? await addressesFoundBy(tx, ref.companyId, step.runId, step.position, MAX_FOUND) : { ids: [], total: 0 };
      const { n } = await tx
        .selectFrom('contacts')
        .select(sql<number>`count(*)::int`.as('n'))
        .where('company_id', '=', ref.companyId)
        .where('erased_at', 'is', null)
        .executeTakeFirstOrThrow();
      if (domain) result.notes.push(`${provider}: domain ${domain} taken from the published addresses`);
      const costUnits = result.costUnits ?? 0;
      if (step) await updateEnrichmentStep(tx, step.runId, step.position, { status: 'running', found: found.total, costUnits });
      log.info('enrichment provider done', { provider, created, updated, skipped, found: found.total });
      return { provider, created, updated, skipped, contacts: n, notes: result.notes, found: found.ids, costUnits };
    });
  }

  async function markStep(step: StepRef, s: Parameters<typeof updateEnrichmentStep>[3]) {
    await asOrganization(db, step.organizationId, (tx) => updateEnrichmentStep(tx, step.runId, step.position, s));
  }

  return {
    /** The order of runs planned before the waterfall had runs: the company's own website, then the newest people-search integration. */
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
     * The run of this workflow run and its steps: the company's own website (when it has a website or
     * domain), then the organization's enrichment integrations in its order, leaving out those whose
     * last test failed. A retry answers the run already planned.
     */
    async startEnrichmentRun(ref: CompanyRef & { workflowRunId: string }): Promise<PlannedRun> {
      const run = await asOrganization(db, ref.organizationId, async (tx) => {
        const company = await getCompany(tx, ref.companyId);
        if (!company) throw ApplicationFailure.nonRetryable(`company ${ref.companyId} not found`, 'CompanyNotFound');
        const settings = (await enrichmentSettings(tx, ref.organizationId))!;
        const providers = settings.order.filter((o) => o.status !== 'error' && o.provider_key in INTEGRATION_PROVIDERS);
        const steps: PlannedStep[] = [
          ...(company.website || company.domain ? [{ provider: 'website', integrationId: null }] : []),
          ...providers.map((o) => ({ provider: o.provider_key, integrationId: o.integration_id })),
        ].map((s, position) => ({ ...s, position }));
        return startEnrichmentRun(tx, { ...ref, stopAt: settings.stop_at, steps });
      });
      return { ...run, batchPollMs: deps.batchPollMs, steps: run.steps.map((s) => ({ ...s, batch: isBatchProvider(s.provider) })) };
    },

    /** One provider's people (a direct provider, or the website). With a step, the step records what it found and cost. */
    async enrichFromProvider(ref: CompanyRef & { provider: string; step?: StepRef }): Promise<ProviderOutcome> {
      if (ref.step) await markStep(ref.step, { status: 'running' });
      const client = await clientFor(ref, ref.provider, ref.step ? ref.step.integrationId : undefined);
      if ('submit' in client) throw ApplicationFailure.nonRetryable(`${ref.provider} answers in batches`, 'EnrichmentNotConfigured');
      let result: EnrichmentResult;
      try {
        result = await client.findPeople(await companyForEnrichment(ref));
      } catch (err) {
        throw asActivityFailure(err);
      }
      return storePeople(ref, ref.provider, result, ref.step);
    },

    /**
     * Sends a batch provider the company's named people. A step that already holds a request (a retry
     * after the request was sent and recorded) answers that request rather than paying for another.
     * Nothing to ask: the (empty) outcome at once.
     */
    async submitEnrichmentBatch(step: StepRef): Promise<{ requestId: string } | { outcome: ProviderOutcome }> {
      const claim = await asOrganization(db, step.organizationId, (tx) => claimBatchSubmit(tx, step.runId, step.position));
      if (typeof claim === 'object') return claim;
      if (claim === 'lost')
        throw ApplicationFailure.nonRetryable(
          `${step.provider}: a request was sent but its id was not recorded (it may have been paid for); it is not sent again`,
          'EnrichmentRequestLost',
        );
      const client = await clientFor(step, step.provider, step.integrationId);
      if (!('submit' in client)) throw ApplicationFailure.nonRetryable(`${step.provider} does not answer in batches`, 'EnrichmentNotConfigured');
      let submitted;
      try {
        submitted = await client.submit(await companyForEnrichment(step));
      } catch (err) {
        // A provider's answer refusing the request (401, 429, 5xx) means nothing was taken: the claim is given
        // back so that a retry may send it. A request cut off without an answer keeps its claim.
        if (refusedWithAnswer(err)) await asOrganization(db, step.organizationId, (tx) => releaseBatchClaim(tx, step.runId, step.position));
        throw asActivityFailure(err);
      }
      if ('result' in submitted) return { outcome: await storePeople(step, step.provider, submitted.result, step) };
      const requestId = submitted.requestId;
      if (requestId.length < 1 || requestId.length > 500)
        throw ApplicationFailure.nonRetryable(`${step.provider} answered a request id of ${requestId.length} characters`, 'EnrichmentRejected');
      await asOrganization(db, step.organizationId, (tx) => recordBatchRequest(tx, step.runId, step.position, requestId));
      return { requestId };
    },

    /** The batch's result once the provider has it (null while it works), stored like any provider's people. */
    async pollEnrichmentBatch(step: StepRef & { requestId: string }): Promise<ProviderOutcome | null> {
      const client = await clientFor(step, step.provider, step.integrationId);
      if (!('poll' in client)) throw ApplicationFailure.nonRetryable(`${step.provider} does not answer in batches`, 'EnrichmentNotConfigured');
      let result: EnrichmentResult | null;
      try {
        result = await client.poll(step.requestId);
      } catch (err) {
        throw asActivityFailure(err);
      }
      return result ? storePeople(step, step.provider, result, step) : null;
    },

    /** A step's end: done with how many of its addresses the check made valid, or failed with why. */
    async finishEnrichmentStep(step: StepRef & { status: 'done' | 'failed'; verified?: number; error?: string | null }): Promise<void> {
      await markStep(step, { status: step.status, verified: step.verified, error: step.error ?? null });
    },

    async finishEnrichmentRun(ref: CompanyRef & { runId: string; status: 'done' | 'failed'; stoppedAtStep: number | null }): Promise<void> {
      await asOrganization(db, ref.organizationId, (tx) => finishEnrichmentRun(tx, ref.runId, ref.status, ref.stoppedAtStep));
    },

    async finishEnrichment(ref: CompanyRef & { status: 'done' | 'failed'; error: string | null }): Promise<void> {
      await asOrganization(db, ref.organizationId, (tx) => setEnrichmentStatus(tx, ref.companyId, ref.status, ref.error?.slice(0, 2000) ?? null));
    },
  };
}

/** Whether a provider answers in batches (submit, then poll): a property of its row in the registry. */
export function isBatchProvider(key: string): boolean {
  const row = (INTEGRATION_PROVIDERS as Record<string, { batch?: boolean }>)[key];
  return row?.batch === true;
}

/** The provider answered and refused (an HTTP status), so a request it refused was not taken. */
function refusedWithAnswer(err: unknown): boolean {
  if (err instanceof ProviderRequestError) return err.status !== null && !err.tooLarge;
  return err instanceof EnrichmentUnavailableError && err.answered;
}

/** A provider's refusal as the activity's failure: retried when the provider may answer later, else not. */
function asActivityFailure(err: unknown): unknown {
  if (err instanceof EnrichmentUnavailableError)
    return err.retryable
      ? ApplicationFailure.retryable(err.message, 'EnrichmentUnavailable')
      : ApplicationFailure.nonRetryable(err.message, 'EnrichmentRejected');
  return err;
}
