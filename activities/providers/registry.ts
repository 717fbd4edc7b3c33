import { z } from 'zod';
import { OpenAiCompatibleClassifier } from './classification/openai-compatible';
import { HubSpotClient } from './crm/hubspot';
import { SALESFORCE_DEFAULT_TOKEN_URL, SalesforceClient, type SalesforceApp, type SalesforceTokenStore } from './crm/salesforce';
import { ApolloClient } from './enrichment/apollo';
import { DropcontactClient } from './enrichment/dropcontact';
import { HunterClient } from './enrichment/hunter';
import { EnrichmentUnavailableError, type BatchEnrichmentProvider, type EnrichmentProvider } from './enrichment/types';
import { createReacherVerifier } from './verification/reacher';
import { createZeroBounceVerifier, type ZeroBounceVerifier } from './verification/zerobounce';
import { VerifierUnavailableError, type EmailVerifier } from './verification/types';
import { requestJson, ProviderRequestError, VerifyOutcome } from './outcome';

/**
 * The integrations the service can use, by provider_key: which kind each is, what its config
 * holds, and how its credential is checked. A new provider is a row here plus its client module.
 */
const baseUrl = z
  .string()
  .url()
  .refine((v) => /^https?:\/\//.test(v), 'must be an http(s) URL');
const salesforceId = z.string().regex(/^[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?$/, 'must be a Salesforce record id (15 or 18 letters and digits)');
const stageName = z.string().trim().min(1).max(255);

/**
 * A Salesforce integration's mapping: `opportunities` links an opportunity of ours (its id) to a
 * Salesforce Opportunity (its record id); `stages` names the StageName a won or lost outcome sets
 * (default `Closed Won`, `Closed Lost`: Salesforce's standard closed stages).
 */
export const SALESFORCE_MAPPING = z
  .object({
    opportunities: z.record(z.uuid({ message: 'must be an opportunity id (a UUID)' }), salesforceId).optional(),
    stages: z.object({ won: stageName.optional(), lost: stageName.optional() }).strict().optional(),
  })
  .strict()
  .superRefine((m, ctx) => {
    // Stored in lower case (storedMapping): two keys differing only in case would silently become one.
    const seen = new Set<string>();
    for (const id of Object.keys(m.opportunities ?? {})) {
      if (seen.has(id.toLowerCase()))
        ctx.addIssue({ code: 'custom', path: ['opportunities', id], message: 'links an opportunity already linked (ids are matched whatever their case)' });
      seen.add(id.toLowerCase());
    }
  });
export type SalesforceMapping = z.infer<typeof SALESFORCE_MAPPING>;

/**
 * A mapping as it is stored: a Salesforce mapping's opportunity ids in lower case, as PostgreSQL
 * writes UUIDs (the outcome reconcile's SQL matches the keys exactly). Other mappings as given.
 */
export function storedMapping(providerKey: string, mapping: Record<string, unknown>): Record<string, unknown> {
  const links = providerKey === 'salesforce' ? mapping.opportunities : undefined;
  if (!links || typeof links !== 'object') return mapping;
  return { ...mapping, opportunities: Object.fromEntries(Object.entries(links).map(([id, sfId]) => [id.toLowerCase(), sfId])) };
}

/** What an integration is for; integrations.kind holds one of these (migration 0044's CHECK lists the same). */
export const INTEGRATION_KINDS = ['crm', 'calendar', 'enrichment', 'llm', 'verification'] as const;

export const INTEGRATION_PROVIDERS = {
  hubspot: { kind: 'crm', config: z.object({ baseUrl: baseUrl.optional(), autoSync: z.boolean().optional() }).strict() },
  // The secret is the organization's OAuth refresh token for the service's connected app (SALESFORCE_*).
  // mapping (optional): which Salesforce Opportunity each opportunity is linked to, and the stage names of won and lost.
  salesforce: { kind: 'crm', config: z.object({ instanceUrl: baseUrl, autoSync: z.boolean().optional() }).strict(), mapping: SALESFORCE_MAPPING },
  // Booking links: the secret is the webhook's signing secret (deliveries go to /webhooks/<provider>/<integration id>).
  calcom: { kind: 'calendar', config: z.object({ bookingUrl: baseUrl.optional() }).strict() },
  calendly: { kind: 'calendar', config: z.object({ bookingUrl: baseUrl.optional() }).strict() },
  hunter: { kind: 'enrichment', config: z.object({ baseUrl: baseUrl.optional(), minConfidence: z.number().int().min(0).max(100).optional() }).strict() },
  // Dropcontact's batch API; the secret is its API access token (the X-Access-Token header). baseUrl default https://api.dropcontact.com.
  // batch: it answers later (submit, then poll), so the enrichment waterfall waits for it durably.
  dropcontact: { kind: 'enrichment', batch: true, config: z.object({ baseUrl: baseUrl.optional() }).strict() },
  // Apollo's People Enrichment; the secret is an Apollo API key (x-api-key) with access to people/match and auth/health. baseUrl default https://api.apollo.io.
  apollo: { kind: 'enrichment', config: z.object({ baseUrl: baseUrl.optional() }).strict() },
  openai_compatible: { kind: 'llm', config: z.object({ baseUrl, model: z.string().min(1).max(200) }).strict() },
  // A self-hosted Reacher backend; the secret is its x-reacher-secret.
  reacher: { kind: 'verification', config: z.object({ baseUrl }).strict() },
  // ZeroBounce's API; the secret is its API key. baseUrl: a regional host (https://api-eu.zerobounce.net), default https://api.zerobounce.net.
  zerobounce: { kind: 'verification', config: z.object({ baseUrl: baseUrl.optional() }).strict() },
} as const satisfies Record<string, { kind: (typeof INTEGRATION_KINDS)[number]; config: z.ZodType; mapping?: z.ZodType; batch?: true }>;
export type IntegrationProviderKey = keyof typeof INTEGRATION_PROVIDERS;

/** The service's own provider apps (from the configuration): Salesforce's connected app. */
export interface ProviderApps {
  salesforce?: SalesforceApp | null;
}

/** salesforceTokens: where a Salesforce refresh token is kept, so that the check stores a rotated one (else secret is spent). */
export async function verifyIntegration(
  providerKey: string,
  config: Record<string, unknown>,
  secret: string,
  apps: ProviderApps = {},
  salesforceTokens?: SalesforceTokenStore,
): Promise<VerifyOutcome> {
  switch (providerKey as IntegrationProviderKey) {
    case 'salesforce':
      if (!apps.salesforce) return { ok: false, message: 'SALESFORCE_CLIENT_ID and SALESFORCE_CLIENT_SECRET are not configured on this service' };
      return salesforceFrom(config, salesforceTokens ?? secret, apps.salesforce).verify();
    case 'hubspot':
      return new HubSpotClient(secret, config.baseUrl as string | undefined).verify();
    case 'hunter':
      return new HunterClient(secret, config.baseUrl as string | undefined).verify();
    case 'dropcontact':
      // GET /v1/account/credits is free and needs a valid token (401 otherwise).
      return dropcontactFrom(config, secret).verify();
    case 'apollo':
      // GET /api/v1/auth/health costs no credit: is_logged_in says whether the key is known.
      return apolloFrom(config, secret).verify();
    case 'calcom':
    case 'calendly':
      // A webhook signing secret cannot be checked with the provider: a delivery that verifies proves it.
      return {
        ok: true,
        detail: `signing secret stored; point the ${providerKey === 'calcom' ? 'Cal.com' : 'Calendly'} webhook at /webhooks/${providerKey}/<this integration's id>`,
      };
    case 'reacher':
      // Reacher has no account endpoint: a check of an address with no domain is answered without SMTP.
      try {
        await reacherFrom(config, secret).verify('connection-check@invalid');
        return { ok: true, detail: `Reacher answered at ${config.baseUrl}` };
      } catch (err) {
        if (err instanceof VerifierUnavailableError) return { ok: false, message: err.message };
        throw err;
      }
    case 'zerobounce':
      // The credit balance is free to read and needs a valid key; -1 is ZeroBounce's answer for a key it does not know.
      try {
        const credits = await zeroBounceFrom(config, secret).credits();
        if (credits < 0) return { ok: false, message: 'ZeroBounce does not know this API key' };
        return {
          ok: true,
          detail:
            credits > 0
              ? `ZeroBounce: ${credits} credits left`
              : 'ZeroBounce: the key works but no credits are left; checks are refused until credits are bought',
        };
      } catch (err) {
        if (err instanceof VerifierUnavailableError) return { ok: false, message: err.message };
        throw err;
      }
    case 'openai_compatible':
      // OpenAI-compatible servers list their models to any valid key.
      try {
        await requestJson(`${String(config.baseUrl).replace(/\/$/, '')}/models`, {
          headers: { authorization: `Bearer ${secret}` },
          errorMessage: (body, status) => (body?.error?.message ? `LLM ${status}: ${body.error.message}` : undefined),
        });
        return { ok: true, detail: `models listed at ${config.baseUrl}` };
      } catch (err) {
        if (err instanceof ProviderRequestError && !err.tooLarge) return { ok: false, message: err.message };
        throw err;
      }
    default:
      return { ok: false, message: `no verifier for provider "${providerKey}"` };
  }
}

export function hubspotFrom(config: Record<string, unknown>, secret: string): HubSpotClient {
  return new HubSpotClient(secret, config.baseUrl as string | undefined);
}

/** secret: the refresh token, or its store (syncs use the store, so that a rotated token is kept). */
export function salesforceFrom(config: Record<string, unknown>, secret: string | SalesforceTokenStore, app: SalesforceApp): SalesforceClient {
  return new SalesforceClient(String(config.instanceUrl), secret, app);
}

/** The connected app from SALESFORCE_*; null without a client id and secret. */
export function salesforceAppFrom(config: {
  SALESFORCE_CLIENT_ID?: string;
  SALESFORCE_CLIENT_SECRET?: string;
  SALESFORCE_TOKEN_URL?: string;
}): SalesforceApp | null {
  return config.SALESFORCE_CLIENT_ID && config.SALESFORCE_CLIENT_SECRET
    ? {
        clientId: config.SALESFORCE_CLIENT_ID,
        clientSecret: config.SALESFORCE_CLIENT_SECRET,
        tokenUrl: config.SALESFORCE_TOKEN_URL ?? SALESFORCE_DEFAULT_TOKEN_URL,
      }
    : null;
}

export function hunterFrom(config: Record<string, unknown>, secret: string): HunterClient {
  return new HunterClient(secret, config.baseUrl as string | undefined, (config.minConfidence as number | undefined) ?? 50);
}

export function dropcontactFrom(config: Record<string, unknown>, secret: string): DropcontactClient {
  return new DropcontactClient(secret, config.baseUrl as string | undefined);
}

export function apolloFrom(config: Record<string, unknown>, secret: string): ApolloClient {
  return new ApolloClient(secret, config.baseUrl as string | undefined);
}

/** The client for an integration of kind `enrichment`, by its provider_key: Dropcontact answers later (submit, then poll). */
export function enrichmentProviderFrom(providerKey: string, config: Record<string, unknown>, secret: string): EnrichmentProvider | BatchEnrichmentProvider {
  switch (providerKey as IntegrationProviderKey) {
    case 'hunter':
      return hunterFrom(config, secret);
    case 'dropcontact':
      return dropcontactFrom(config, secret);
    case 'apollo':
      return apolloFrom(config, secret);
    default:
      throw new EnrichmentUnavailableError(`no enrichment provider "${providerKey}"`, false);
  }
}

export function reacherFrom(config: Record<string, unknown>, secret: string): EmailVerifier {
  return createReacherVerifier({ baseUrl: String(config.baseUrl), secret: secret || null });
}

export function zeroBounceFrom(config: Record<string, unknown>, secret: string): ZeroBounceVerifier {
  return createZeroBounceVerifier({ apiKey: secret, baseUrl: config.baseUrl as string | undefined });
}

/** The client for an integration of kind `verification`, by its provider_key. */
export function verifierFrom(providerKey: string, config: Record<string, unknown>, secret: string): EmailVerifier {
  switch (providerKey as IntegrationProviderKey) {
    case 'reacher':
      return reacherFrom(config, secret);
    case 'zerobounce':
      return zeroBounceFrom(config, secret);
    default:
      throw new VerifierUnavailableError(`no verifier for provider "${providerKey}"`, false);
  }
}

export function llmClassifierFrom(config: Record<string, unknown>, secret: string): OpenAiCompatibleClassifier {
  return new OpenAiCompatibleClassifier({ baseUrl: String(config.baseUrl), model: String(config.model), apiKey: secret });
}
