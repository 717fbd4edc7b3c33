import { isIP } from 'node:net';
import { IANAZone } from 'luxon';
import { minutesOf } from '../../domain/sending/business-days';
import { isHolidayCountry } from '../../domain/sending/holidays';
import { sendInModes } from '../../domain/sending/recipient-time';
import { CronExpressionParser } from 'cron-parser';
import { z } from 'zod';
import { checkEmail, registrableDomain } from '../../domain/companies/identity';
import { LEGAL_FORM_KEYS, parseLegalForm } from '../../domain/companies/legal-forms';
import { INTEGRATION_PROVIDERS, IntegrationProviderKey } from '../../activities/providers/registry';
import { jsonApiConfigSchema } from '../../activities/providers/sources/json-api';
import { PIPELINE_STAGES } from '../../workflows/stages';
import { BOOKED_VIA, MEETING_OUTCOMES, MEETING_STATUSES } from '../../domain/meetings/meetings';
import { REPLY_INTENTS } from '../../domain/replies/types';
import { ANALYTICS_WINDOWS, DEFAULT_ANALYTICS_WINDOW, DEFAULT_SUGGESTIONS_WINDOW } from '../../domain/analytics/windows';

/**
 * Every request schema of the API, in one place. Request fields are camelCase
 * (shared/api-contract.md); unknown fields are rejected so that typos do not pass silently.
 */
export const uuid = z.string().uuid('must be a UUID');
const name = z.string().trim().min(1, 'must not be empty').max(200);
const countryCode = z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code such as NL');
const jsonObject = z.record(z.string(), z.unknown());
/** An IANA time zone, answered in its canonical spelling (mailboxes, contacts and companies). */
const ianaTimezone = z
  .string()
  .max(100)
  .refine((v) => IANAZone.isValidZone(v), 'is not an IANA time zone (such as Europe/Amsterdam)')
  .transform((v) => new Intl.DateTimeFormat('en', { timeZone: v }).resolvedOptions().timeZone);

export const cronExpression = z
  .string()
  .trim()
  .refine((v) => v.split(/\s+/).length === 5, 'must be a five-field cron expression (minute hour day month weekday)')
  .refine((v) => {
    try {
      CronExpressionParser.parse(v);
      return true;
    } catch {
      return false;
    }
  }, 'is not a valid cron expression');

export const roles = ['owner', 'admin', 'member', 'viewer'] as const;
export type Role = (typeof roles)[number];

// Organizations ---------------------------------------------------------------------------------
export const createOrganizationBody = z.object({ name }).strict();
export const addMemberBody = z.object({ userId: uuid, role: z.enum(roles) }).strict();

// Sources ---------------------------------------------------------------------------------------
export const sourceProviderKeys = ['rss', 'json_api', 'bekendmakingen'] as const;

const httpUrl = z
  .string()
  .url('must be a URL')
  .refine((v) => /^https?:\/\//i.test(v), 'must be an http or https URL');

/** Per-provider config; the provider module owns what it means. */
export const sourceConfigByProvider = {
  rss: z.object({ url: httpUrl, signalType: z.string().min(1).max(50).optional() }).passthrough(),
  json_api: jsonApiConfigSchema.extend({ url: httpUrl }),
  bekendmakingen: z
    .object({ url: httpUrl.optional(), query: z.string().min(1).max(2000).optional(), maximumRecords: z.number().int().min(1).max(1000).optional() })
    .strict(),
} as const;

export const createSourceBody = z
  .object({
    organizationId: uuid,
    providerKey: z.enum(sourceProviderKeys),
    name,
    config: jsonObject,
    enabled: z.boolean().optional(),
    schedule: cronExpression.nullable().optional(),
    countryCode: countryCode.optional(),
    language: z.string().regex(/^[a-z]{2,3}$/, 'must be an ISO 639 language code such as nl').optional(),
  })
  .strict()
  .superRefine((v, ctx) => {
    const parsed = sourceConfigByProvider[v.providerKey].safeParse(v.config);
    if (!parsed.success) for (const i of parsed.error.issues) ctx.addIssue({ code: 'custom', message: i.message, path: ['config', ...i.path] });
  });

export const patchSourceBody = z
  .object({
    name: name.optional(),
    config: jsonObject.optional(),
    enabled: z.boolean().optional(),
    schedule: cronExpression.nullable().optional(),
  })
  .strict();

export const emptyBody = z.object({}).strict();

// Lists -----------------------------------------------------------------------------------------
const listBase = {
  organizationId: uuid,
  limit: z.coerce.number().int().min(1).max(100).default(50),
  before: uuid.optional(),
};
export const listSourcesQuery = z.object(listBase).strict();
export const signalStatuses = ['ingested', 'classified', 'scored', 'ignored', 'qualified', 'ready', 'failed'] as const;
export const listSignalsQuery = z
  .object({
    ...listBase,
    status: z.enum(signalStatuses).optional(),
    projectId: uuid.optional(),
    q: z.string().trim().min(1).max(200).optional(),
  })
  .strict();

// Signals and opportunities ----------------------------------------------------------------------
export const reprocessBody = z.object({ fromStage: z.enum(PIPELINE_STAGES).optional() }).strict();

export const createOpportunityBody = z
  .object({
    organizationId: uuid,
    signalId: uuid.optional(),
    summary: z.string().trim().min(1).max(2000).optional(),
    score: z.number().min(0).max(1000).optional(),
  })
  .strict()
  .refine((v) => v.signalId || v.summary, { message: 'give a signalId, or a summary for a manual opportunity', path: ['summary'] });

export const outcomeBody = z
  .object({ outcome: z.enum(['won', 'lost', 'open']), value: z.number().min(0).max(1e12).optional() })
  .strict()
  .refine((v) => v.value === undefined || v.outcome === 'won', { message: 'a deal value goes only with outcome won', path: ['value'] });

export const listOpportunitiesQuery = z
  .object({ ...listBase, status: z.enum(['ready', 'in_outreach', 'closed']).optional(), outcome: z.enum(['open', 'won', 'lost']).optional() })
  .strict();

// Settings ---------------------------------------------------------------------------------------
const threshold = z.number().int().min(0).max(1000);
export const patchScoringBody = z
  .object({
    organizationId: uuid,
    ignoreBelow: threshold.optional(),
    qualifyAt: threshold.optional(),
    opportunityAt: threshold.optional(),
    homeLat: z.number().min(-90).max(90).nullable().optional(),
    homeLng: z.number().min(-180).max(180).nullable().optional(),
    /** Weights and caps of rules by rule key (for example a learning-loop suggestion an admin applies). */
    rules: z
      .array(
        z
          .object({ ruleKey: z.string().trim().min(1).max(100), weight: z.number().min(0).max(1000).optional(), maxPoints: z.number().min(0).max(1000).optional() })
          .strict(),
      )
      .max(50)
      .refine((rules) => new Set(rules.map((r) => r.ruleKey)).size === rules.length, 'must name each rule key at most once')
      .optional(),
  })
  .strict();

const keywords = z.array(z.string().trim().min(1).max(100)).max(100);
export const patchIndustryProfileBody = z
  .object({
    organizationId: uuid,
    key: z.string().regex(/^[a-z0-9_]{1,50}$/, 'must be lower-case letters, digits and underscores').optional(),
    name: name.optional(),
    description: z.string().max(2000).nullable().optional(),
    propositionText: z.string().max(4000).nullable().optional(),
    personas: z.array(z.object({ segment: z.string().trim().min(1).max(100), titleKeywords: keywords, priority: z.number().int().min(0).max(100) }).strict()).max(50).optional(),
    products: z
      .array(
        z
          .object({
            key: z.string().regex(/^[a-z0-9_]{1,50}$/, 'must be lower-case letters, digits and underscores'),
            name,
            description: z.string().max(2000).nullable().optional(),
            fitKeywords: keywords,
          })
          .strict(),
      )
      .max(50)
      .refine((ps) => new Set(ps.map((p) => p.key)).size === ps.length, 'product keys must be unique')
      .optional(),
  })
  .strict();

export const organizationQuery = z.object({ organizationId: uuid }).strict();

// Analytics and the learning loop -----------------------------------------------------------------
export const analyticsQuery = z
  .object({
    organizationId: uuid,
    window: z
      .enum(ANALYTICS_WINDOWS.map(String) as [string, ...string[]], { message: `must be one of ${ANALYTICS_WINDOWS.join(', ')} (days)` })
      .default(String(DEFAULT_ANALYTICS_WINDOW))
      .transform(Number),
  })
  .strict();
export const scoringSuggestionsQuery = z
  .object({ organizationId: uuid, window: z.coerce.number().int().min(1).max(3650).default(DEFAULT_SUGGESTIONS_WINDOW) })
  .strict();

// Companies and contacts -------------------------------------------------------------------------
/** A legal form as people write it ("B.V.", "b.v.", "GmbH", "Ltd.", "sole trader"), answered as its canonical key ("bv"). */
export const legalForm = z
  .string()
  .max(60)
  .transform((v, ctx) => {
    const row = parseLegalForm(v);
    if (row) return row.key;
    ctx.addIssue({ code: 'custom', message: `is not a known legal form (for example: ${LEGAL_FORM_KEYS.join(', ')})` });
    return z.NEVER;
  });
const kvk = z.string().regex(/^\d{8}$/, 'must be a KvK number of 8 digits');
const optionalText = (max: number) => z.string().trim().min(1).max(max).optional();
export const email = z.string().trim().max(254).superRefine((v, ctx) => {
  const r = checkEmail(v);
  if (!r.ok) ctx.addIssue({ code: 'custom', message: r.reason });
});

export const createCompanyBody = z
  .object({
    organizationId: uuid,
    name,
    domain: z.string().trim().max(253).refine((v) => registrableDomain(v) !== null, 'is not a registrable domain').optional(),
    kvkNumber: kvk.optional(),
    address: optionalText(500),
    website: httpUrl.optional(),
    genericEmail: email.optional(),
    phone: z.string().trim().max(40).optional(),
    countryCode: countryCode.optional(),
    locale: z.string().refine(isBcp47, 'must be a BCP 47 language tag such as nl-NL').optional(),
    legalForm: legalForm.optional(),
    sbiCodes: z.array(z.string().regex(/^\d{2,5}$/, 'must be an SBI code of 2 to 5 digits')).max(20).optional(),
    timezone: ianaTimezone.optional(),
  })
  .strict();

/** PATCH /companies/{companyId}: fields of POST /companies but organizationId and the identity keys (domain, kvkNumber); `null` clears an optional one. */
export const patchCompanyBody = z
  .object({
    name: name.optional(),
    address: z.string().trim().min(1).max(500).nullable().optional(),
    website: httpUrl.nullable().optional(),
    phone: z.string().trim().min(1).max(40).nullable().optional(),
    countryCode: countryCode.nullable().optional(),
    locale: z.string().refine(isBcp47, 'must be a BCP 47 language tag such as nl-NL').nullable().optional(),
    timezone: ianaTimezone.nullable().optional(),
  })
  .strict()
  .refine((v) => Object.values(v).some((x) => x !== undefined), 'must change at least one field');

export const listCompaniesQuery = z.object({ ...listBase, q: z.string().trim().min(1).max(200).optional(), kvkNumber: kvk.optional(), domain: z.string().max(253).optional() }).strict();

export const createContactBody = z
  .object({
    organizationId: uuid,
    companyId: uuid,
    fullName: name,
    title: optionalText(200),
    email: email.optional(),
    phone: z.string().trim().max(40).optional(),
    linkedinUrl: httpUrl.refine((v) => /^https:\/\/([a-z]{2,3}\.)?linkedin\.com\/in\//i.test(v), 'must be a linkedin.com/in/ profile URL').optional(),
    sourceDescription: optionalText(1000),
    timezone: ianaTimezone.optional(),
  })
  .strict();

/** PATCH /contacts/{contactId}: fields of POST /contacts but organizationId, companyId, email and sourceDescription; `null` clears an optional one. */
export const patchContactBody = z
  .object({
    fullName: name.optional(),
    title: z.string().trim().min(1).max(200).nullable().optional(),
    phone: z.string().trim().min(1).max(40).nullable().optional(),
    linkedinUrl: createContactBody.shape.linkedinUrl.unwrap().nullable().optional(),
    timezone: ianaTimezone.nullable().optional(),
  })
  .strict()
  .refine((v) => Object.values(v).some((x) => x !== undefined), 'must change at least one field');

export const listContactsQuery = z.object({ ...listBase, companyId: uuid.optional() }).strict();

// Compliance ---------------------------------------------------------------------------------------
export const suppressionScopes = ['email', 'domain', 'kvk_number'] as const;
export const suppressionReasons = ['unsubscribe', 'bounce', 'complaint', 'objection', 'manual'] as const;
export const createSuppressionBody = z
  .object({ organizationId: uuid, scope: z.enum(suppressionScopes), value: z.string().trim().min(1).max(320), reason: z.enum(suppressionReasons).optional(), note: optionalText(1000) })
  .strict();
export const listSuppressionsQuery = z.object({ ...listBase, scope: z.enum([...suppressionScopes, 'email_hash', 'person_hash']).optional() }).strict();

export const lawfulBasisBody = z
  .object({
    organizationId: uuid,
    basis: z.enum(['legitimate_interest', 'consent']),
    recipient_kind: z.enum(['legal_person', 'natural_person']),
    country: z.string().refine(isIsoCountry, 'must be an ISO 3166-1 alpha-2 country code such as NL'),
    source_description: optionalText(2000),
    assessment: optionalText(4000),
    consent_evidence: optionalText(4000),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.basis === 'consent' && !v.consent_evidence) ctx.addIssue({ code: 'custom', path: ['consent_evidence'], message: 'consent needs consent_evidence' });
    if (v.basis === 'legitimate_interest' && !v.assessment) ctx.addIssue({ code: 'custom', path: ['assessment'], message: 'legitimate_interest needs an assessment (the balancing test)' });
  });

export const patchComplianceSettingsBody = z
  .object({
    organizationId: uuid,
    defaultCountry: z.string().refine(isIsoCountry, 'must be an ISO 3166-1 alpha-2 country code such as NL').optional(),
    defaultLocale: z.string().refine(isBcp47, 'must be a BCP 47 language tag such as nl-NL').optional(),
    defaultFormality: z.enum(['formal', 'informal']).optional(),
    retentionMonths: z.number().int().min(1).max(120).optional(),
    aiDisclosure: z.enum(['footer', 'none']).optional(),
    senderLegalName: z.string().trim().min(1).max(200).nullable().optional(),
    senderAddress: z.string().trim().min(1).max(500).nullable().optional(),
    privacyUrl: z.string().url().refine((v) => v.startsWith('https://'), 'must be an https URL').nullable().optional(),
    unsubscribeMailto: z
      .string()
      .refine((v) => /^mailto:/i.test(v) && checkEmail(percentDecoded(v.slice(7).split('?')[0] ?? '') ?? '').ok, 'must be a mailto: URI with a valid address')
      .refine((v) => !/[\s<>]/.test(v), 'must not contain white space, line breaks or angle brackets (percent-encode them)')
      .nullable()
      .optional(),
  })
  .strict();

export const auditQuery = z.object({ ...listBase, entity: z.string().max(50).optional() }).strict();
export const channelPolicyQuery = z
  .object({ country: z.string().refine(isIsoCountry, 'must be an ISO 3166-1 alpha-2 country code').optional(), recipientKind: z.enum(['legal_person', 'natural_person']).optional() })
  .strict();

// Integrations -------------------------------------------------------------------------------------
export const createIntegrationBody = z
  .object({
    organizationId: uuid,
    providerKey: z.enum(Object.keys(INTEGRATION_PROVIDERS) as [IntegrationProviderKey, ...IntegrationProviderKey[]]),
    kind: z.enum(['crm', 'calendar', 'enrichment', 'llm']),
    config: jsonObject.optional(),
    mapping: jsonObject.optional(),
    secret: z.string().min(1).max(4096),
  })
  .strict()
  .superRefine((v, ctx) => {
    const provider = INTEGRATION_PROVIDERS[v.providerKey];
    if (provider.kind !== v.kind) ctx.addIssue({ code: 'custom', path: ['kind'], message: `provider ${v.providerKey} is a ${provider.kind} integration` });
    const parsed = provider.config.safeParse(v.config ?? {});
    if (!parsed.success) for (const i of parsed.error.issues) ctx.addIssue({ code: 'custom', message: i.message, path: ['config', ...i.path] });
    const mapping = 'mapping' in provider ? provider.mapping.safeParse(v.mapping ?? {}) : null;
    if (mapping && !mapping.success) for (const i of mapping.error.issues) ctx.addIssue({ code: 'custom', message: i.message, path: ['mapping', ...i.path] });
  });
export const listIntegrationsQuery = z.object({ ...listBase, kind: z.enum(['crm', 'calendar', 'enrichment', 'llm']).optional() }).strict();

// Validators never throw: a value that cannot be decoded is invalid, not an error.
function percentDecoded(v: string): string | null {
  try {
    return decodeURIComponent(v);
  } catch {
    return null;
  }
}

function isBcp47(v: string): boolean {
  try {
    return /^[a-z]{2,3}(-[A-Z][a-z]{3})?-[A-Z]{2}$/.test(v) && Intl.getCanonicalLocales(v)[0] === v;
  } catch {
    return false;
  }
}

const REGIONS = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
function isIsoCountry(v: string): boolean {
  return /^[A-Z]{2}$/.test(v) && REGIONS.of(v) !== undefined;
}

// ---- One-click unsubscribe (outreach S2) ----------------------------------------------------------
/** The form a mail client posts to /u/{token} (RFC 8058); an empty body is accepted too. */
export const unsubscribeForm = z.object({ 'List-Unsubscribe': z.literal('One-Click') }).partial();

// Mailboxes (outreach) -------------------------------------------------------------------------------
/** "HH:MM", 00:00 to 24:00 (24:00 only as a window's end). */
const timeOfDay = z.string().refine((v) => minutesOf(v) !== null, 'must be a time of day as HH:MM (00:00 to 24:00)');
const host = z
  .string()
  .trim()
  .min(1)
  .max(253)
  .refine((v) => isIP(v) !== 0 || /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/.test(v), 'must be a host name or an IP address');
const mailServer = z
  .object({
    host,
    port: z.number().int().min(1, 'must be a port 1..65535').max(65535, 'must be a port 1..65535'),
    secure: z.boolean().optional(),
    username: z.string().trim().min(1).max(320).optional(),
  })
  .strict();
/** A sending address: valid (checkEmail), ASCII only; an internationalized domain (IDN, also as xn--) is refused. */
export const mailboxAddress = z
  .string()
  .trim()
  .max(254)
  .superRefine((v, ctx) => {
    // eslint-disable-next-line no-control-regex
    if (/[^\x00-\x7f]/.test(v) || /(^|[@.])xn--/i.test(v)) {
      ctx.addIssue({ code: 'custom', message: 'internationalized (IDN) addresses and domains are not supported: use an ASCII address' });
      return;
    }
    const r = checkEmail(v);
    if (!r.ok) ctx.addIssue({ code: 'custom', message: r.reason });
  });
const timezone = ianaTimezone;
const sendingWindow = z
  .object({ start: timeOfDay, end: timeOfDay })
  .strict()
  .superRefine((w, ctx) => {
    const start = minutesOf(w.start);
    const end = minutesOf(w.end);
    if (start === null || end === null) return;
    if (start >= 24 * 60) ctx.addIssue({ code: 'custom', path: ['start'], message: 'the window cannot start at 24:00' });
    else if (end <= start) ctx.addIssue({ code: 'custom', path: ['end'], message: 'the window must end after it starts' });
  });
const sendingDays = z
  .array(z.number().int().min(1, 'must be an ISO weekday 1 (Monday) to 7 (Sunday)').max(7, 'must be an ISO weekday 1 (Monday) to 7 (Sunday)'))
  .min(1, 'must name at least one day')
  .max(7)
  .refine((days) => new Set(days).size === days.length, 'must not name a day twice');
const holidayCountry = z.string().refine(isHolidayCountry, 'is not a country with known public holidays (ISO 3166-1 alpha-2, such as NL)');
const holidayRegion = z.string().regex(/^[A-Za-z0-9]{1,10}$/, 'must be a region code such as BY or CA');
const mailboxSettings = {
  smtp: mailServer,
  imap: mailServer.optional(),
  secret: z.string().min(1).max(4096),
  timezone: timezone.optional(),
  sendingWindow: sendingWindow.optional(),
  sendingDays: sendingDays.optional(),
  holidayCountry: holidayCountry.optional(),
  dailyCap: z.number().int().min(1, 'must be between 1 and 500').max(500, 'must be between 1 and 500').optional(),
  minGapSeconds: z.number().int().min(0, 'must be between 0 and 3600').max(3600, 'must be between 0 and 3600').optional(),
  // Sending at scale (shared/api-contract.md): ramp-up (null removes it), protection limits, gap jitter.
  rampUp: z
    .object({
      startCap: z.number().int().min(1, 'must be between 1 and 500').max(500, 'must be between 1 and 500'),
      dailyIncrease: z.number().int().min(0, 'must be between 0 and 100').max(100, 'must be between 0 and 100'),
      startsOn: z.iso.date('must be a date (YYYY-MM-DD)').optional(),
    })
    .strict()
    .nullable()
    .optional(),
  protection: z
    .object({
      maxBounceRate: z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1').optional(),
      maxComplaintRate: z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1').optional(),
      minSample: z.number().int().min(1, 'must be between 1 and 100000').max(100000, 'must be between 1 and 100000').optional(),
    })
    .strict()
    .optional(),
  gapJitterSeconds: z.number().int().min(0, 'must be between 0 and 900').max(900, 'must be between 0 and 900').optional(),
};
export const mailboxAuth = z.discriminatedUnion('type', [
  z.object({ type: z.literal('password') }).strict(),
  z.object({ type: z.literal('oauth2'), provider: z.enum(['google', 'microsoft']) }).strict(),
]);
/** POST /mailboxes/{id}/pause. */
export const pauseMailboxBody = z.object({ reason: z.string().trim().min(1).max(500).optional() }).strict();
/** POST /mailboxes/oauth/start. */
export const oauthStartBody = z.object({ organizationId: uuid, provider: z.enum(['google', 'microsoft']) }).strict();
/** GET /mailboxes/oauth/callback (no bearer token: the state authenticates). Not strict: providers add parameters of their own (Google: scope, authuser, prompt). */
export const oauthCallbackQuery = z.object({
  code: z.string().min(1).max(4096).optional(),
  state: z.string().min(1).max(200),
  iss: z.string().url().max(500).optional(),
  error: z.string().max(200).optional(),
  error_description: z.string().max(1000).optional(),
});
const dkimSelector = z.string().regex(/^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,62})$/, 'must be a DKIM selector (letters, digits, dots, dashes)');
export const createMailboxBody = z
  .object({
    organizationId: uuid,
    address: mailboxAddress,
    displayName: optionalText(200),
    ...mailboxSettings,
    smtp: mailServer.optional(),
    auth: mailboxAuth.optional(),
    holidayRegion: holidayRegion.optional(),
    dkimSelector: dkimSelector.optional(),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (!b.smtp && b.auth?.type !== 'oauth2') ctx.addIssue({ code: 'custom', path: ['smtp'], message: 'is required for a password mailbox' });
  });
/** Any field of POST but organizationId and address; null clears an optional one. */
export const patchMailboxBody = z
  .object({
    displayName: z.string().trim().min(1).max(200).nullable().optional(),
    ...mailboxSettings,
    smtp: mailServer.optional(),
    imap: mailServer.nullable().optional(),
    secret: mailboxSettings.secret.optional(),
    holidayRegion: holidayRegion.nullable().optional(),
    dkimSelector: dkimSelector.nullable().optional(),
  })
  .strict();
export const listMailboxesQuery = z.object(listBase).strict();

// Campaigns and enrollments (outreach: the strategist's slice) -----------------------------------
const campaignModes = ['review', 'auto'] as const;
/** Sending in the recipient's time (shared/api-contract.md): the window and sending days read in the recipient's zone. */
const sendIn = z.enum(sendInModes);
export const campaignStatuses = ['proposed', 'active', 'paused', 'completed', 'archived'] as const;
export const enrollmentStatuses = ['active', 'paused', 'stopped', 'completed', 'failed'] as const;
const stepVariantBody = z
  .object({
    key: z.string().trim().min(1).max(40).regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . - only'),
    subject: z.string().trim().min(1).max(200).optional(),
    instructions: z.string().trim().min(1).max(4000).optional(),
  })
  .strict();
const stepBody = z
  .object({
    channel: z.enum(['email', 'phone', 'linkedin']),
    delayDays: z.number().int('must be a whole number of business days').min(0, 'must not be negative').max(365),
    instructions: z.string().trim().min(1).max(4000).optional(),
    variants: z
      .array(stepVariantBody)
      .min(2, 'a step with variants needs 2 to 5')
      .max(5, 'a step with variants needs 2 to 5')
      .refine((vs) => new Set(vs.map((v) => v.key)).size === vs.length, 'variant keys must be unique in the step')
      .optional(),
  })
  .strict();
const reasonBody = z.object({ reason: z.string().trim().min(1).max(500).optional() }).strict();
const contactIdList = z.array(uuid).max(100).refine((ids) => new Set(ids).size === ids.length, 'must not repeat a contact');
const keyList = z.array(z.string().trim().min(1).max(100)).max(50);
/** A campaign's mailbox pool (campaign_mailboxes): 1..50 of the organization's mailboxes, in order; the first is `mailbox_id`. */
const mailboxPool = z.array(uuid).min(1, 'a pool needs at least one mailbox').max(50).refine((ids) => new Set(ids).size === ids.length, 'must not repeat a mailbox');
export const createCampaignBody = z
  .object({
    organizationId: uuid,
    name,
    opportunityId: uuid.optional(),
    mailboxId: uuid.optional(),
    mailboxIds: mailboxPool.optional(),
    mode: z.enum(campaignModes).optional(),
    sendIn: sendIn.optional(),
    goal: z.string().trim().min(1).max(2000).optional(),
    brief: z.string().trim().min(1).max(20000).optional(),
    countryCode: countryCode.optional(),
    personaKeys: keyList.optional(),
    productKeys: keyList.optional(),
    minScore: z.number().int().min(0).max(1000).optional(),
    contactIds: contactIdList.optional(),
    steps: z.array(stepBody).min(1, 'a campaign needs at least one step').max(20),
  })
  .strict();
export const listCampaignsQuery = z.object({ ...listBase, opportunityId: uuid.optional(), status: z.enum(campaignStatuses).optional() }).strict();
export const acceptCampaignBody = z
  .object({ contactIds: contactIdList.optional(), mailboxId: uuid.optional(), mailboxIds: mailboxPool.optional(), mode: z.enum(campaignModes).optional(), sendIn: sendIn.optional() })
  .strict();
export const patchCampaignBody = z
  .object({ name: name.optional(), mailboxIds: mailboxPool.optional(), mode: z.enum(campaignModes).optional(), sendIn: sendIn.optional() })
  .strict()
  .refine((v) => v.name !== undefined || v.mailboxIds !== undefined || v.mode !== undefined || v.sendIn !== undefined, 'must change name, mailboxIds, mode or sendIn');
export const addCampaignContactsBody = z
  .object({ contactIds: z.array(uuid).min(1, 'must name at least one contact').max(1000).refine((ids) => new Set(ids).size === ids.length, 'must not repeat a contact') })
  .strict();
export const dismissCampaignBody = reasonBody;
export const listEnrollmentsQuery = z
  .object({ ...listBase, campaignId: uuid.optional(), contactId: uuid.optional(), status: z.enum(enrollmentStatuses).optional() })
  .strict();
export const stopEnrollmentBody = reasonBody;

// Messages and the approval inbox (outreach) ---------------------------------------------------
export const messageStatuses = ['pending_approval', 'approved', 'scheduled', 'sent', 'failed', 'rejected', 'received', 'task_open', 'task_done', 'skipped'] as const;
export const listMessagesQuery = z
  .object({
    ...listBase,
    status: z.enum(messageStatuses).optional(),
    campaignId: uuid.optional(),
    enrollmentId: uuid.optional(),
    contactId: uuid.optional(),
    direction: z.enum(['outbound', 'inbound']).optional(),
  })
  .strict();
export const approveMessageBody = z
  .object({
    subject: z.string().trim().min(1, 'must not be empty').max(200).optional(),
    body: z.string().trim().min(1, 'must not be empty').max(20000).optional(),
  })
  .strict();
export const rejectMessageBody = z
  .object({ reason: z.string().trim().min(1).max(1000).optional(), redraft: z.boolean().optional() })
  .strict();
export const completeMessageBody = z.object({ note: z.string().trim().min(1).max(2000).optional() }).strict();
// Meetings (issue 9) ----------------------------------------------------------------------------------
export const meetingStatuses = MEETING_STATUSES;
/** An ISO 8601 timestamp with a time zone (Z or an offset), 1970..9999. */
const instant = z
  .string()
  .max(40)
  .refine((v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i.test(v) && !Number.isNaN(Date.parse(v)), 'must be an ISO 8601 timestamp with a time zone, such as 2026-12-01T10:00:00Z')
  .transform((v) => new Date(v));
export const createMeetingBody = z
  .object({
    organizationId: uuid,
    title: z.string().trim().min(1, 'must not be empty').max(500),
    startsAt: instant,
    endsAt: instant,
    contactId: uuid.optional(),
    enrollmentId: uuid.optional(),
    opportunityId: uuid.optional(),
    threadId: uuid.optional(),
    attendeeEmail: email.optional(),
    provider: z.string().regex(/^[a-z0-9][a-z0-9_.-]{0,49}$/, 'must be a provider key such as calcom, calendly, google, microsoft or manual').optional(),
    externalId: z.string().trim().min(1).max(500).optional(),
    joinUrl: httpUrl.optional(),
    bookedVia: z.enum(BOOKED_VIA).optional(),
  })
  .strict()
  .superRefine((v, ctx) => {
    // zod runs this even when a timestamp failed its own check (then it is still the string).
    if (!(v.startsAt instanceof Date) || !(v.endsAt instanceof Date)) return;
    if (v.endsAt.getTime() < v.startsAt.getTime()) ctx.addIssue({ code: 'custom', path: ['endsAt'], message: 'must not be before startsAt' });
  });
export const listMeetingsQuery = z
  .object({ ...listBase, contactId: uuid.optional(), opportunityId: uuid.optional(), enrollmentId: uuid.optional(), status: z.enum(MEETING_STATUSES).optional() })
  .strict();
export const meetingStatusBody = z.object({ status: z.enum(MEETING_OUTCOMES) }).strict();
export const patchMeetingSettingsBody = z
  .object({
    organizationId: uuid,
    reminderLeadMinutes: z.number().int('must be whole minutes').min(0, 'must be between 0 and 20160 (14 days)').max(20160, 'must be between 0 and 20160 (14 days)').optional(),
  })
  .strict();
export const listTasksQuery = z
  .object({ ...listBase, assigneeUserId: uuid.optional(), meetingId: uuid.optional(), status: z.enum(['open', 'done', 'cancelled']).optional() })
  .strict();
/** What the booking webhooks document (the routes verify the raw body first, then read it: domain/meetings/bookings.ts). */
export const calcomWebhookBody = z
  .object({ triggerEvent: z.string().describe('BOOKING_CREATED, BOOKING_RESCHEDULED, BOOKING_CANCELLED; others are ignored'), createdAt: z.string().optional(), payload: jsonObject })
  .passthrough();
export const calendlyWebhookBody = z
  .object({ event: z.string().describe('invitee.created, invitee.canceled; others are ignored'), created_at: z.string().optional(), payload: jsonObject })
  .passthrough();

// Contact import --------------------------------------------------------------------------------
export const createImportQuery = z
  .object({
    organizationId: uuid,
    sourceDescription: z.string().trim().min(1, 'must say where the data comes from (Art. 14 notice)').max(1000),
    dedupe: z.enum(['organization', 'none']).default('organization'),
  })
  .strict();
export const listImportsQuery = z.object(listBase).strict();
/**
 * One imported row, checked field by field with the very schemas of POST /contacts and POST /companies
 * (the import activity runs it; domain/imports/csv.ts names the columns).
 */
export const importRowSchema = z.object({
  full_name: createContactBody.shape.fullName,
  email: createContactBody.shape.email,
  title: createContactBody.shape.title,
  phone: createContactBody.shape.phone,
  linkedin_url: createContactBody.shape.linkedinUrl,
  company: createCompanyBody.shape.name.optional(),
  domain: createCompanyBody.shape.domain,
  website: createCompanyBody.shape.website,
  kvk_number: createCompanyBody.shape.kvkNumber,
  country: createCompanyBody.shape.countryCode,
  timezone: createContactBody.shape.timezone,
});

// Threads ---------------------------------------------------------------------------------------
export const listThreadsQuery = z
  .object({
    ...listBase,
    status: z.enum(['open', 'replied', 'closed']).optional(),
    mailboxId: uuid.optional(),
    assignedTo: uuid.optional(),
    intent: z.enum(REPLY_INTENTS).optional(),
  })
  .strict();
export const patchThreadBody = z
  .object({ status: z.enum(['open', 'closed']).optional(), assignedTo: uuid.nullable().optional().describe("a member's user id, or null to unassign") })
  .strict()
  .refine((v) => v.status !== undefined || v.assignedTo !== undefined, 'must change status or assignedTo');
export const threadReplyBody = z.object({ body: z.string().trim().min(1, 'must not be empty').max(20000), subject: z.string().trim().min(1).max(300).optional() }).strict();
