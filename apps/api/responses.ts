import { z } from 'zod';
import type { getCompany } from '../../db/queries/companies';
import type { complianceSettings, currentLawfulBasis, GateResult, getSuppression, listAudit } from '../../db/queries/compliance';
import type { getContact } from '../../db/queries/contacts';
import type { getIntegration } from '../../db/queries/integrations';
import type { getMailbox } from '../../db/queries/mailboxes';
import type { HealthResult } from '../../domain/deliverability/score';
import type { getOpportunity } from '../../db/queries/opportunities';
import type { addOrChangeMembership } from '../../db/queries/organizations';
import type { industryProfileSettings, scoringSettings } from '../../db/queries/settings';
import type { outreachAnalytics } from '../../db/queries/analytics/outreach';
import type { scoringSuggestions } from '../../db/queries/scoring-suggestions';
import type { getSignal, getSignalDetail } from '../../db/queries/signals';
import type { getSource } from '../../db/queries/sources';
import { CHANNELS } from '../../domain/compliance/channel-policy';
import { INTEGRATION_PROVIDERS, IntegrationProviderKey } from '../../activities/providers/registry';
import { PIPELINE_STAGES } from '../../workflows/stages';
import { BOOKED_VIA, MEETING_STATUSES } from '../../domain/meetings/meetings';
import type { ProblemCode } from './errors';
import { roles, signalStatuses, sourceProviderKeys } from './schemas';

/**
 * Every record the API answers, as zod schemas: the one source of the response half of the OpenAPI
 * document (GET /openapi.json), as schemas.ts is of the request half. Each schema registered in
 * `records` becomes components/schemas/<id>; an operation in openapi.ts names the schema it answers.
 *
 * Fields are snake_case, timestamps ISO 8601 strings, numeric columns numbers, and a field is
 * nullable exactly where its database column is. The type checks at the bottom of this file fail
 * the build when a query's column list and its schema disagree on a field or on its nullability.
 */
export const records = z.registry<{ id: string; description: string }>();
/** Each record's description, by id (components/schemas/<id>.description). */
export const RECORD_DESCRIPTIONS = new Map<string, string>();

function record<S extends z.ZodType>(id: string, description: string, schema: S): S {
  records.add(schema, { id, description });
  RECORD_DESCRIPTIONS.set(id, description);
  return schema;
}

const id = z.uuid();
const timestamp = z.iso.datetime();
const nullable = <S extends z.ZodType>(s: S) => s.nullable();
const jsonObject = z.record(z.string(), z.unknown());
const stamps = { created_at: timestamp, updated_at: timestamp };

const dependencyState = z.enum(['ok', 'down']);

// Problems (RFC 9457) --------------------------------------------------------------------------------
export const PROBLEM_CODES = [
  'VALIDATION_FAILED', 'MALFORMED_JSON', 'UNAUTHENTICATED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE', 'RATE_LIMITED', 'SERVICE_UNAVAILABLE', 'INTERNAL',
  'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_IN_PROGRESS',
] as const satisfies readonly ProblemCode[];
/** Fails to compile, naming it, when errors.ts gains a problem code this list lacks. */
export const PROBLEM_CODES_COMPLETE: Exclude<ProblemCode, (typeof PROBLEM_CODES)[number]> extends never ? true : Exclude<ProblemCode, (typeof PROBLEM_CODES)[number]> = true;

export const Problem = record(
  'Problem',
  'An error, as RFC 9457 application/problem+json with a machine-readable code. Extension members appear where they apply.',
  z
    .object({
      type: z.string().describe('A URI naming the problem type'),
      title: z.string(),
      status: z.number().int(),
      detail: z.string(),
      code: z.enum(PROBLEM_CODES),
      instance: z.string().optional().describe('The request path'),
      request_id: z.string().optional().describe('The X-Request-Id of the request, to find it in the logs'),
      errors: z.array(z.object({ path: z.string(), message: z.string() })).optional().describe('VALIDATION_FAILED: one entry per invalid field'),
      checks: z.record(z.string(), dependencyState).optional().describe('SERVICE_UNAVAILABLE from /readyz: each dependency and its state'),
      scope: z.enum(['user', 'organization', 'address']).optional().describe('RATE_LIMITED: whose allowance ran out (address: the client address, on the public routes)'),
      retry_after: z.number().int().optional().describe('RATE_LIMITED: seconds to wait, as the Retry-After header'),
      company_id: id.optional().describe('CONFLICT: the existing company'),
      contact_id: id.optional().describe('CONFLICT: the existing contact'),
      opportunity_id: id.optional().describe('CONFLICT: the existing open opportunity'),
    })
    .catchall(z.unknown()),
);

// Health and the document itself ----------------------------------------------------------------------
export const Health = record('Health', 'The process answers', z.object({ status: z.literal('ok') }));
export const Readiness = record(
  'Readiness',
  'PostgreSQL and Temporal answer',
  z.object({ status: z.literal('ready'), checks: z.object({ postgres: dependencyState, temporal: dependencyState }).catchall(dependencyState) }),
);
export const OpenApiDocument = record(
  'OpenApiDocument',
  'An OpenAPI 3.1 document',
  z.object({ openapi: z.string(), info: jsonObject, paths: jsonObject }).catchall(z.unknown()),
);

// Organizations -----------------------------------------------------------------------------------------
export const Organization = record(
  'Organization',
  'An organization (tenant) and the caller\'s role in it',
  z.object({ id, name: z.string(), role: z.enum(roles), ...stamps }),
);
export const Membership = record(
  'Membership',
  'A user\'s role in an organization',
  z.object({ organization_id: id, user_id: id, role: z.enum(roles), ...stamps }),
);

// Sources ---------------------------------------------------------------------------------------------
export const Source = record(
  'Source',
  'A signal source and the state of its last run',
  z.object({
    id,
    organization_id: id,
    provider_key: z.enum(sourceProviderKeys),
    name: z.string(),
    config: jsonObject.describe('Provider settings (rss: url; json_api: url and field mapping; bekendmakingen: query)'),
    enabled: z.boolean(),
    schedule: nullable(z.string()).describe('Five-field cron expression, or null for manual runs only'),
    country_code: nullable(z.string()),
    language: nullable(z.string()),
    header_names: z.array(z.string()).describe('json_api: the names of the request headers sent with every fetch (values are write-only)'),
    last_run_at: nullable(timestamp),
    last_run_status: nullable(z.enum(['running', 'succeeded', 'not_modified', 'failed'])),
    last_error: nullable(z.string()),
    ...stamps,
  }),
);
export const SourceRun = record(
  'SourceRun',
  'The source, with the ingest workflow run that was started',
  Source.extend({ workflow_id: z.string(), run_id: z.string() }),
);

// Signals -----------------------------------------------------------------------------------------------
export const Signal = record(
  'Signal',
  'A publication turned into a signal, with its pipeline status',
  z.object({
    id,
    organization_id: id,
    source_id: id,
    raw_publication_id: nullable(id),
    project_id: nullable(id),
    external_id: z.string(),
    status: z.enum(signalStatuses),
    signal_type: z.string(),
    title: z.string(),
    summary: nullable(z.string()),
    published_at: nullable(timestamp),
    effective_start: nullable(timestamp),
    effective_end: nullable(timestamp),
    source_url: nullable(z.string()),
    current_score: nullable(z.number()),
    dedupe_key: z.string(),
    ...stamps,
  }),
);
export const Classification = record(
  'Classification',
  'The current classification of a signal',
  z.object({
    id,
    signal_id: id,
    organization_id: id,
    version: z.number().int(),
    model: z.string(),
    prompt_key: nullable(z.string()),
    prompt_version: nullable(z.string()),
    prompt_hash: nullable(z.string()),
    output: z.unknown().describe('The classifier\'s full answer (free-form JSON)'),
    confidence: nullable(z.number()),
    commercial_relevance: z.boolean(),
    relevance_reasons: z.array(z.string()),
    project_category: nullable(z.string()),
    project_stage: nullable(z.string()),
    estimated_size: nullable(z.number()).describe('Euros'),
    is_current: z.boolean(),
    ...stamps,
  }),
);
const decision = z.enum(['ignore', 'qualify', 'opportunity']);
export const Score = record(
  'Score',
  'The current score of a signal',
  z.object({ id, signal_id: id, scoring_config_id: id, organization_id: id, total: z.number(), decision, is_current: z.boolean(), ...stamps }),
);
export const ScoreComponent = record(
  'ScoreComponent',
  'One rule\'s points: min(max_points, raw_value x weight), with the reason',
  z.object({
    dimension: z.string(),
    rule_key: z.string(),
    origin: z.enum(['rule', 'model', 'manual']),
    raw_value: z.number(),
    weight: z.number(),
    points: z.number(),
    reason: z.string(),
  }),
);
export const ScoreBreakdown = record(
  'ScoreBreakdown',
  'The score\'s total, decision and components',
  z.object({ total: z.number(), decision, components: z.array(ScoreComponent) }),
);
export const SignalDetail = record(
  'SignalDetail',
  'A signal with its current classification and score; classification, score, components and breakdown are present when they exist',
  z.object({
    signal: Signal,
    classification: Classification.optional(),
    score: Score.optional(),
    components: z.array(ScoreComponent).optional(),
    breakdown: ScoreBreakdown.optional(),
  }),
);
export const SignalRun = record(
  'SignalRun',
  'The processSignalWorkflow run that was started',
  z.object({ workflow_id: z.string(), run_id: z.string(), from_stage: z.enum(PIPELINE_STAGES) }),
);

// Opportunities -----------------------------------------------------------------------------------------
export const Opportunity = record(
  'Opportunity',
  'A sales opportunity for a project',
  z.object({
    id,
    organization_id: id,
    project_id: nullable(id),
    created_from_signal_id: nullable(id),
    company_id: nullable(id).describe('The company the enrichment stage linked'),
    status: z.enum(['ready', 'in_outreach', 'closed']),
    score: nullable(z.number()),
    summary: nullable(z.string()),
    outcome: z.enum(['open', 'won', 'lost']),
    outcome_at: nullable(timestamp),
    outcome_value: nullable(z.number()).describe('Deal value in euros (won only)'),
    crm_synced_at: nullable(timestamp).describe("When the CRM last took the outcome (a Salesforce Opportunity's stage, when the CRM integration's mapping links one)"),
    crm_error: nullable(z.string()).describe("The CRM's last refusal of the outcome (a 4xx), else null"),
    ...stamps,
  }),
);

// Settings ------------------------------------------------------------------------------------------------
export const ScoringConfig = record(
  'ScoringConfig',
  'A version of the scoring thresholds and home coordinates',
  z.object({
    id,
    organization_id: id,
    version: z.number().int(),
    is_active: z.boolean(),
    ignore_below: z.number().int(),
    qualify_at: z.number().int(),
    opportunity_at: z.number().int(),
    home_lat: nullable(z.number()),
    home_lng: nullable(z.number()),
    ...stamps,
  }),
);
export const ScoringRule = record(
  'ScoringRule',
  'A scoring rule of a config version',
  z.object({
    id,
    scoring_config_id: id,
    organization_id: id,
    dimension: z.enum(['commercial_relevance', 'distance', 'project_size', 'project_stage', 'recency', 'fit', 'source']),
    rule_key: z.string(),
    weight: z.number(),
    max_points: z.number(),
    params: jsonObject,
    ...stamps,
  }),
);
export const ScoringSettings = record(
  'ScoringSettings',
  'The active scoring config and its rules',
  z.object({ config: ScoringConfig, rules: z.array(ScoringRule) }),
);
export const IndustryProfile = record(
  'IndustryProfile',
  'What the organization sells and to whom',
  z.object({ id, organization_id: id, key: z.string(), name: z.string(), description: nullable(z.string()), proposition_text: nullable(z.string()), ...stamps }),
);
export const Persona = record(
  'Persona',
  'A buyer persona of the industry profile',
  z.object({ id, industry_profile_id: id, segment: z.string(), title_keywords: z.array(z.string()), priority: z.number().int() }),
);
export const Product = record(
  'Product',
  'A product of the industry profile',
  z.object({ id, industry_profile_id: id, key: z.string(), name: z.string(), description: nullable(z.string()), fit_keywords: z.array(z.string()) }),
);
export const IndustryProfileSettings = record(
  'IndustryProfileSettings',
  'The industry profile with its personas and products',
  z.object({ profile: IndustryProfile, personas: z.array(Persona), products: z.array(Product) }),
);

const groupEvidence = z.object({
  signals: z.number().int().describe('Decided signals in the group (won, lost, or a meeting that took place or was missed)'),
  meetings: z.number().int().describe('Of which a meeting took place'),
  won: z.number().int(),
  lost: z.number().int(),
  no_shows: z.number().int(),
  success_rate: nullable(z.number()).describe('Mean success: won 1, else a meeting that took place 0.5, else 0 (null when empty)'),
});
export const ScoringSuggestions = record(
  'ScoringSuggestions',
  'What outcomes suggest for each scoring rule\'s weight, with the evidence; nothing changes until an admin applies one with PATCH /settings/scoring',
  z.object({
    window_days: z.number().int(),
    scoring_config_id: id,
    scoring_config_version: z.number().int(),
    based_on: z.object({ opportunities: z.number().int(), won: z.number().int(), lost: z.number().int(), meetings_completed: z.number().int(), no_shows: z.number().int() }),
    suggestions: z.array(
      z.object({
        rule_key: z.string(),
        dimension: z.string(),
        current_weight: z.number(),
        suggested_weight: z.number(),
        evidence: z.object({
          earned: groupEvidence.describe('Signals that earned points on the rule'),
          not_earned: groupEvidence.describe('Signals that did not'),
          lift: nullable(z.number()).describe('earned.success_rate − not_earned.success_rate; null without enough outcomes on either side'),
          reason: z.string(),
        }),
      }),
    ),
  }),
);

// Analytics -----------------------------------------------------------------------------------------------
const rate = nullable(z.number()).describe('A fraction 0–1, null when there is nothing to divide by');
const intents = z.record(z.string(), z.number().int()).describe('Reply intent -> count');
export const OutreachAnalytics = record(
  'OutreachAnalytics',
  'Outreach analytics over a window: attribution by source, deliverability per mailbox, agent quality',
  z.object({
    window_days: z.number().int(),
    attribution: z.array(
      z.object({
        source_id: id,
        source_name: z.string(),
        signals: z.number().int().describe('Signals the source produced in the window'),
        opportunities: z.number().int().describe('Opportunities opened from those signals'),
        meetings: z.number().int().describe('Of those opportunities, how many have a meeting booked and not cancelled or missed'),
        won: z.number().int(),
        won_value: z.number().describe('Sum of the won opportunities\' values, euros'),
      }),
    ),
    deliverability: z.array(
      z.object({
        mailbox_id: id,
        address: z.string(),
        sent: z.number().int().describe('Delivery attempts in the window (status sent or failed)'),
        bounced: z.number().int().describe('Of which failed'),
        replied: z.number().int().describe('Replies received in the window'),
        health_score: nullable(z.number()).describe('Score of the newest health check'),
        sendable: nullable(z.boolean()).describe('Whether the newest health check found the mailbox sendable'),
        checked_at: nullable(timestamp).describe('When the newest health check ran'),
        complaints: z.number().int().describe('Of the attempts, those that drew a complaint (ARF feedback report)'),
        bounce_rate: z.number().describe('bounced / sent, 4 decimals (0 without sends)'),
        complaint_rate: z.number().describe('complaints / sent, 4 decimals (0 without sends)'),
        status: z.enum(['active', 'paused']).describe("The mailbox's status now"),
      }),
    ),
    agent_quality: z.object({
      drafts: z.number().int().describe('Outbound e-mails written in the window'),
      approved: z.number().int(),
      rejected: z.number().int(),
      approval_rate: rate.describe('approved / (approved + rejected)'),
      edited: z.number().int().describe('Approved drafts whose sent text differs from what the model wrote'),
      edit_rate: rate.describe('edited / approved'),
      reply_intents: intents,
      by_prompt_version: z.array(
        z.object({
          prompt_version: nullable(z.string()),
          drafts: z.number().int(),
          approved: z.number().int(),
          rejected: z.number().int(),
          approval_rate: rate,
          edited: z.number().int(),
          edit_rate: rate,
          reply_intents: intents.describe('Intents of replies to this version\'s drafts'),
        }),
      ),
      prompt_evals: z
        .array(z.object({ prompt_key: z.string(), prompt_version: z.string(), score: z.number().describe('Mean similarity of the edited drafts to what was sent (1 = unchanged)'), cases: z.number().int(), created_at: timestamp }))
        .describe('The newest score of each prompt version, newest first'),
    }),
  }),
);

// Companies and contacts ----------------------------------------------------------------------------------
const recipientKind = z.enum(['legal_person', 'natural_person']);
export const Company = record(
  'Company',
  'A company, its identity (KvK number, registrable domain) and enrichment state',
  z.object({
    id,
    organization_id: id,
    name: z.string(),
    normalized_name: z.string(),
    domain: nullable(z.string()),
    kvk_number: nullable(z.string()),
    address: nullable(z.string()),
    website: nullable(z.string()),
    generic_email: nullable(z.string()),
    phone: nullable(z.string()).describe('E.164'),
    enrichment_status: z.enum(['idle', 'running', 'done', 'failed']),
    enrichment_error: nullable(z.string()),
    country_code: nullable(z.string()),
    locale: nullable(z.string()),
    recipient_kind: recipientKind,
    legal_form: nullable(z.string()),
    sbi_codes: z.array(z.string()),
    timezone: nullable(z.string()).describe("IANA time zone of the company (recipient time)"),
    ...stamps,
  }),
);
export const Contact = record(
  'Contact',
  'A person at a company; an erased contact keeps only its id, company and timestamps',
  z.object({
    id,
    organization_id: id,
    company_id: id,
    full_name: z.string(),
    title: nullable(z.string()),
    email: nullable(z.string()),
    phone: nullable(z.string()),
    linkedin_url: nullable(z.string()),
    source_description: nullable(z.string()),
    data_source: z.string().describe('manual, or the enrichment provider that found the contact'),
    last_engaged_at: nullable(timestamp),
    erased_at: nullable(timestamp),
    timezone: nullable(z.string()).describe("IANA time zone of the contact (recipient time)"),
    ...stamps,
  }),
);
export const Import = record(
  'Import',
  'A contact import from a CSV file: its progress, what it created and updated, the rows it skipped and refused (the first 1,000 of each)',
  z.object({
    id,
    organization_id: id,
    status: z.enum(['running', 'completed', 'failed']),
    total_rows: z.number().int(),
    processed_rows: z.number().int(),
    created_companies: z.number().int(),
    created_contacts: z.number().int(),
    updated_contacts: z.number().int(),
    skipped: z.array(z.object({ row: z.number().int().describe('the header is row 1'), reason: z.enum(['suppressed', 'erased', 'invalid_email', 'duplicate_in_file', 'missing_name']) })),
    errors: z.array(z.object({ row: z.number().int(), field: z.string(), message: z.string() })),
    source_description: z.string().describe('where the data comes from (the Art. 14 notice), recorded on every imported contact'),
    workflow_id: z.string(),
    created_by: nullable(id),
    created_at: timestamp,
    finished_at: nullable(timestamp),
  }),
);
export const LawfulBasis = record(
  'LawfulBasis',
  'The GDPR Art. 6 basis on which a contact may be approached, with the Art. 14 data source',
  z.object({
    id,
    organization_id: id,
    contact_id: id,
    basis: z.enum(['legitimate_interest', 'consent']),
    recipient_kind: recipientKind,
    country: z.string(),
    source_description: nullable(z.string()),
    assessment: nullable(z.string()),
    consent_evidence: nullable(z.string()),
    recorded_by: id,
    ...stamps,
  }),
);
export const ContactDetail = record(
  'ContactDetail',
  'A contact with its current lawful basis (null when none is recorded)',
  Contact.extend({ lawful_basis: nullable(LawfulBasis) }),
);
const channelRule = z.enum(['allowed', 'consent', 'no']);
export const ChannelDecision = record(
  'ChannelDecision',
  'Whether a channel may reach the contact: the policy rule, and the gate rules that close it whatever the policy says',
  z.object({
    channel: z.enum(CHANNELS),
    allowed: z.boolean(),
    rule_id: z.string(),
    rule: channelRule,
    requirements: z.array(z.string()),
    reason: z.string(),
    blocked_by: z.array(z.string()).describe('Gate rule ids that close this channel (empty when only the policy decides)'),
  }),
);
const gateCode = z.enum(['erased', 'suppressed', 'no_lawful_basis', 'no_allowed_channel']);
export const GateBlock = record(
  'GateBlock',
  'A gate rule that blocks outreach to the contact (or to anyone at its company)',
  z.object({
    rule_id: z.string(),
    code: gateCode,
    applies_to: z.enum(['contact', 'company']),
    reason: z.string(),
    suppression: z.object({ id, scope: z.string(), reason: z.string(), matched_on: z.string() }).optional().describe('The suppression that matched, and what it matched on'),
  }),
);
export const ComplianceGate = record(
  'ComplianceGate',
  'The compliance gate for a contact: contactable or not, each block with its rule id and reason, the lawful basis and the channels the policy allows',
  z.object({
    contact_id: id,
    company_id: id,
    contactable: z.boolean(),
    reasons: z.array(gateCode),
    blocks: z.array(GateBlock),
    suppression: nullable(z.object({ id, scope: z.string(), reason: z.string() })),
    lawful_basis: nullable(z.object({ basis: z.enum(['legitimate_interest', 'consent']), recipient_kind: recipientKind, country: z.string() })),
    gate_version: z.string(),
    policy_version: z.string(),
    country: z.string(),
    recipient_kind: recipientKind,
    channels: z.array(ChannelDecision),
    requirements: z.array(z.string()),
  }),
);

// Compliance ----------------------------------------------------------------------------------------------
export const Suppression = record(
  'Suppression',
  'A suppressed address, domain, KvK number or erasure marker (email_hash, person_hash: sha256 of the company id and the name): never contacted',
  z.object({
    id,
    organization_id: id,
    scope: z.enum(['email', 'domain', 'kvk_number', 'email_hash', 'person_hash']),
    value: z.string(),
    reason: z.enum(['unsubscribe', 'bounce', 'complaint', 'objection', 'manual', 'erasure']),
    note: nullable(z.string()),
    created_by: nullable(id),
    created_at: timestamp,
  }),
);
export const ComplianceSettings = record(
  'ComplianceSettings',
  'The organization\'s compliance settings',
  z.object({
    organization_id: id,
    default_country: z.string(),
    default_locale: z.string(),
    default_formality: z.enum(['formal', 'informal']),
    retention_months: z.number().int(),
    ai_disclosure: z.enum(['footer', 'none']),
    sender_legal_name: nullable(z.string()),
    sender_address: nullable(z.string()),
    privacy_url: nullable(z.string()),
    unsubscribe_mailto: nullable(z.string()),
    ...stamps,
  }),
);
export const AuditEntry = record(
  'AuditEntry',
  'One audited change of one field (actor, time, before, after)',
  z.object({
    id,
    organization_id: id,
    actor_id: nullable(id),
    entity: z.string(),
    entity_id: nullable(id),
    action: z.string(),
    field: nullable(z.string()),
    before: z.unknown().describe('JSON value before the change, or null'),
    after: z.unknown().describe('JSON value after the change, or null'),
    created_at: timestamp,
  }),
);
export const ChannelPolicyRule = record(
  'ChannelPolicyRule',
  'One row of the channel policy (country, recipient kind, channel), with its legal source',
  z.object({
    id: z.string(),
    country: z.string().describe('ISO 3166-1 alpha-2, or EU for the other member states'),
    recipient_kind: z.enum(['legal_person', 'natural_person', 'any']),
    channel: z.enum(CHANNELS),
    rule: channelRule,
    conditions: z.array(z.enum(['published_business_address'])).optional(),
    requirements: z.array(z.string()),
    note: z.string(),
    source: z.string(),
  }),
);
export const ChannelPolicy = record(
  'ChannelPolicy',
  'The channel policy table and its version',
  z.object({ version: z.string(), rules: z.array(ChannelPolicyRule) }),
);

// Integrations ---------------------------------------------------------------------------------------------
export const Integration = record(
  'Integration',
  'A provider integration; its secret is write-only and never answered',
  z.object({
    id,
    organization_id: id,
    provider_key: z.enum(Object.keys(INTEGRATION_PROVIDERS) as [IntegrationProviderKey, ...IntegrationProviderKey[]]),
    kind: z.enum(['crm', 'calendar', 'enrichment', 'llm']),
    status: z.enum(['connected', 'error', 'disconnected']),
    config: jsonObject,
    mapping: jsonObject,
    last_error: nullable(z.string()),
    last_tested_at: nullable(timestamp),
    ...stamps,
  }),
);

// The queries' rows against the schemas: same fields, same nullability (a compile error otherwise). -----------
type Row<F extends (...args: never[]) => unknown> = NonNullable<Awaited<ReturnType<F>>>;
/** JSON columns (and unknown fields) admit null by type alone; their nullability is not compared. */
type NullableKeys<T> = { [K in keyof T]-?: null extends T[K] ? ({ [k: string]: never } extends T[K] ? never : K) : never }[keyof T];
/** What differs between a query's row and a schema: fields on one side only, fields nullable on one side only. */
type Diff<R, S> = {
  only_in_query: Exclude<keyof R, keyof S>;
  only_in_schema: Exclude<keyof S, keyof R>;
  nullable_on_one_side: Exclude<NullableKeys<R>, NullableKeys<S>> | Exclude<NullableKeys<S>, NullableKeys<R>>;
};
/** true when the row and the schema agree; else the differences, which the compiler then prints. */
type Agrees<R, S extends z.ZodType> = Diff<R, z.output<S>> extends { only_in_query: never; only_in_schema: never; nullable_on_one_side: never } ? true : Diff<R, z.output<S>>;

/** Fails to compile, naming the fields, when a query's column list and its response schema drift apart. */
export const ROWS_MATCH_SCHEMAS: {
  Source: Agrees<Row<typeof getSource>, typeof Source>;
  Signal: Agrees<Row<typeof getSignal>, typeof Signal>;
  Classification: Agrees<NonNullable<Row<typeof getSignalDetail>['classification']>, typeof Classification>;
  Score: Agrees<NonNullable<Row<typeof getSignalDetail>['score']>, typeof Score>;
  ScoreComponent: Agrees<NonNullable<Row<typeof getSignalDetail>['components']>[number], typeof ScoreComponent>;
  Opportunity: Agrees<Row<typeof getOpportunity>, typeof Opportunity>;
  ScoringConfig: Agrees<Row<typeof scoringSettings>['config'], typeof ScoringConfig>;
  ScoringRule: Agrees<Row<typeof scoringSettings>['rules'][number], typeof ScoringRule>;
  IndustryProfile: Agrees<Row<typeof industryProfileSettings>['profile'], typeof IndustryProfile>;
  Persona: Agrees<Row<typeof industryProfileSettings>['personas'][number], typeof Persona>;
  Product: Agrees<Row<typeof industryProfileSettings>['products'][number], typeof Product>;
  Company: Agrees<Row<typeof getCompany>, typeof Company>;
  Contact: Agrees<Row<typeof getContact>, typeof Contact>;
  LawfulBasis: Agrees<Row<typeof currentLawfulBasis>, typeof LawfulBasis>;
  ComplianceGate: Agrees<GateResult, typeof ComplianceGate>;
  Suppression: Agrees<Row<typeof getSuppression>, typeof Suppression>;
  ComplianceSettings: Agrees<Row<typeof complianceSettings>, typeof ComplianceSettings>;
  AuditEntry: Agrees<Row<typeof listAudit>[number], typeof AuditEntry>;
  Integration: Agrees<Row<typeof getIntegration>, typeof Integration>;
  Membership: Agrees<NonNullable<Row<typeof addOrChangeMembership>['membership']>, typeof Membership>;
  OutreachAnalytics: Agrees<Row<typeof outreachAnalytics>, typeof OutreachAnalytics>;
  AttributionRow: Agrees<Row<typeof outreachAnalytics>['attribution'][number], typeof OutreachAnalytics.shape.attribution.element>;
  DeliverabilityRow: Agrees<Row<typeof outreachAnalytics>['deliverability'][number], typeof OutreachAnalytics.shape.deliverability.element>;
  AgentQuality: Agrees<Row<typeof outreachAnalytics>['agent_quality'], typeof OutreachAnalytics.shape.agent_quality>;
  ScoringSuggestions: Agrees<Row<typeof scoringSuggestions>, typeof ScoringSuggestions>;
} = {
  Source: true, Signal: true, Classification: true, Score: true, ScoreComponent: true, Opportunity: true, ScoringConfig: true, ScoringRule: true,
  IndustryProfile: true, Persona: true, Product: true, Company: true, Contact: true, LawfulBasis: true, ComplianceGate: true, Suppression: true,
  ComplianceSettings: true, AuditEntry: true, Integration: true, Membership: true,
  OutreachAnalytics: true, AttributionRow: true, DeliverabilityRow: true, AgentQuality: true, ScoringSuggestions: true,
};

// Mailboxes (outreach) -------------------------------------------------------------------------------
/** Sending at scale (shared/api-contract.md): status and pauses, protection, ramp-up, jitter, auth, seven-day stats. */
const mailboxScaleFields = {
  status: z.enum(['active', 'paused']).describe('A paused mailbox sends nothing, not even what is booked'),
  paused_reason: nullable(z.enum(['bounce_rate', 'complaint_rate', 'health', 'auth', 'manual'])),
  paused_at: nullable(timestamp),
  protection: z.object({ maxBounceRate: z.number(), maxComplaintRate: z.number(), minSample: z.number().int() }).describe('Pause limits over the last 7 days'),
  ramp_up: nullable(z.object({ startCap: z.number().int(), dailyIncrease: z.number().int(), startsOn: z.string() })),
  cap_today: z.number().int().describe("The cap in force today in the mailbox's zone: min(daily_cap, startCap + dailyIncrease × sending days since startsOn)"),
  gap_jitter_seconds: z.number().int().describe('A random extra wait (0..this) on top of min_gap_seconds'),
  auth: z.object({ type: z.enum(['password', 'oauth2']), provider: nullable(z.enum(['google', 'microsoft'])) }).describe('How it logs in; never a token'),
  stats_7d: z.object({ sent: z.number().int(), hard_bounces: z.number().int(), complaints: z.number().int(), bounce_rate: z.number(), complaint_rate: z.number() }),
};
const mailServer = z.object({ host: z.string(), port: z.number().int(), secure: z.boolean(), username: nullable(z.string()) });
export const Mailbox = record(
  'Mailbox',
  'A sending mailbox: its SMTP (and IMAP) server, sending calendar and limits; the secret is write-only and never answered',
  z.object({
    id,
    organization_id: id,
    address: z.string(),
    domain: z.string().describe('The domain of the address'),
    display_name: nullable(z.string()),
    smtp: mailServer,
    imap: nullable(mailServer),
    timezone: z.string().describe('IANA time zone of the window and the sending days'),
    sending_window: z.object({ start: z.string(), end: z.string() }).describe('Local HH:MM; end may be 24:00'),
    sending_days: z.array(z.number().int()).describe('ISO weekdays, Monday 1'),
    holiday_country: z.string(),
    holiday_region: nullable(z.string()),
    daily_cap: z.number().int(),
    min_gap_seconds: z.number().int(),
    dkim_selector: nullable(z.string()),
    sent_today: z.number().int().describe('Messages of this mailbox sent (sent_at) since the start of its local day'),
    health: nullable(z.object({ score: z.number(), sendable: z.boolean(), checked_at: timestamp })).describe('The newest health check, or null before the first'),
    last_error: nullable(z.string()).describe('Why its inbox could not be read last time (wrong IMAP credentials, server unreachable), null when it could'),
    ...mailboxScaleFields,
    ...stamps,
  }),
);
const healthCheck = z
  .object({
    status: z.enum(['pass', 'warn', 'fail']),
    record: z.string().describe('The DNS record read; empty when there is none'),
    detail: z.string().describe('Why this status'),
  })
  .describe('One deliverability check');
export const MailboxHealth = record(
  'MailboxHealth',
  "The deliverability of a mailbox's domain (README, \"How deliverability is scored\"): SPF, DKIM, DMARC and MX, a score out of 100 and whether it may send",
  z.object({
    domain: z.string(),
    spf: healthCheck,
    dkim: healthCheck,
    dmarc: healthCheck,
    mx: healthCheck,
    score: z.number().min(0).max(100),
    sendable: z.boolean().describe('False: the mailbox sends nothing, its approved messages wait, until a check passes'),
  }),
);
export const InboundReceipt = record(
  'InboundReceipt',
  'A received e-mail handed over: the stored inbound message (202), or duplicate: true when the mailbox already has its Message-ID (200)',
  z.object({
    message_id: id.optional().describe('The inbound message (202)'),
    duplicate: z.literal(true).optional().describe('Already stored: nothing changed (200)'),
  }),
);
export const OAuthStart = record(
  'OAuthStart',
  'Where to send the user to connect a mailbox, and the single-use state of that request',
  z.object({ authorization_url: z.string().describe('The provider\'s authorization URL (code flow, PKCE S256)'), state: z.string().describe('Single-use, bound to the caller and organization, valid 10 minutes') }),
);
/** Fails to compile, naming the fields, when the mailbox query and its schema drift apart. */
export const MAILBOX_ROWS_MATCH_SCHEMAS: { Mailbox: Agrees<Row<typeof getMailbox>, typeof Mailbox>; MailboxHealth: Agrees<HealthResult, typeof MailboxHealth> } = {
  Mailbox: true,
  MailboxHealth: true,
};

// Campaigns and enrollments (outreach: the strategist's slice) ----------------------------------------------
export const CampaignStep = record(
  'CampaignStep',
  "A step of a campaign's sequence: its channel (phone and linkedin steps are tasks), the business days to wait before it, and what to write or do",
  z.object({
    id,
    sequence_id: id,
    position: z.number().int().min(1),
    channel: z.enum(['email', 'phone', 'linkedin']),
    delay_days: z.number().int().min(0).describe("Business days of the mailbox (its sending days, less public holidays) after the previous step"),
    instructions: nullable(z.string()),
    variants: z
      .array(z.object({ key: z.string(), subject: z.string().optional(), instructions: z.string().optional() }))
      .describe('2 to 5 variants of the step, each enrollment getting one (chosen from the enrollment id and the step); [] when none'),
  }),
);

const SuggestedContact = z
  .object({
    contact_id: id,
    full_name: z.string(),
    title: nullable(z.string()),
    persona: nullable(z.string()).describe('The industry-profile persona (segment) the title matched'),
    rank: z.number().int().min(1),
    channels: z.array(z.enum(['email', 'phone', 'linkedin'])).describe('The step channels the compliance gate allows for this contact in the company’s country'),
    email_route: nullable(z.enum(['personal', 'generic'])).describe('Where an e-mail step goes: the person’s address, or the company’s published generic address'),
    rule_ids: z.array(z.string()).describe('The channel-policy rows that allow those channels'),
  })
  .describe('One contact of a proposal, ranked by persona priority');

export const Campaign = record(
  'Campaign',
  'A campaign: proposed by the strategist (proposed_by agent) or a person, then accepted (active) or dismissed (archived); with its steps and its enrollments counted by status',
  z.object({
    id,
    organization_id: id,
    name: z.string(),
    status: z.enum(['proposed', 'active', 'paused', 'completed', 'archived']),
    mode: z.enum(['review', 'auto']),
    goal: nullable(z.string()),
    brief: nullable(z.string()),
    country_code: nullable(z.string()),
    persona_keys: z.array(z.string()),
    product_keys: z.array(z.string()),
    min_score: nullable(z.number().int()),
    mailbox_id: nullable(id).describe("The pool's first mailbox"),
    mailbox_ids: z.array(id).describe('The pool: 1..50 mailboxes of the organization that share the sending, in order'),
    send_in: z.enum(['mailbox', 'recipient']).describe("Whose time the e-mails go in: the mailbox's window and sending days in the mailbox's zone, or (recipient) in the recipient's zone with the recipient country's holidays; the daily cap stays the mailbox's day"),
    proposed_by: z.enum(['user', 'agent']),
    opportunity_id: nullable(id),
    suggested_contact_ids: z.array(id),
    suggested_contacts: z.array(SuggestedContact).describe("The strategist's plan per contact (empty for a person's campaign)"),
    rationale: nullable(z.string()),
    model: nullable(z.string()).describe("What wrote goal, brief, rationale and instructions: a model, or 'template-writer@1.0.0'"),
    prompt_key: nullable(z.string()),
    prompt_version: nullable(z.string()),
    prompt_hash: nullable(z.string()),
    dismissed_reason: nullable(z.string()),
    created_by: nullable(id),
    ...stamps,
    sequence_id: nullable(id),
    steps: z.array(CampaignStep),
    enrollment_counts: z.record(z.string(), z.number().int()).describe('Enrollments by status'),
  }),
);

export const CampaignAcceptance = record(
  'CampaignAcceptance',
  'An accepted campaign and who was enrolled or skipped, with the reason',
  z.object({
    campaign: Campaign,
    result: z.object({
      enrolled: z.array(z.object({ enrollmentId: id, contactId: id })),
      skipped: z.array(
        z.object({
          contactId: id,
          reason: z.enum(['already_enrolled', 'no_lawful_basis', 'suppressed', 'no_email', 'channel_not_allowed', 'no_allowed_channel', 'erased']),
        }),
      ),
    }),
  }),
);

export const Enrollment = record(
  'Enrollment',
  "One contact in one campaign's sequence: where it is (current_step) and when it acts next",
  z.object({
    id,
    organization_id: id,
    campaign_id: id,
    contact_id: id,
    status: z.enum(['active', 'paused', 'stopped', 'completed', 'failed']),
    current_step: z.number().int().min(0).describe('The position of the last step acted on; 0 before the first'),
    next_action_at: nullable(timestamp),
    pause_reason: nullable(z.enum(['out_of_office', 'account_replied'])),
    resume_at: nullable(timestamp),
    stopped_reason: nullable(z.string()),
    workflow_id: nullable(z.string()).describe('The id of its sequence workflow: enrollment/<id>'),
    mailbox_id: nullable(id).describe("The pool mailbox every e-mail to this contact goes from: null until its first e-mail is booked, then fixed"),
    ...stamps,
  }),
);

export const StrategistRun = record(
  'StrategistRun',
  'The strategistWorkflow run that was started (opportunity/<id>/strategist)',
  z.object({ workflow_id: z.string(), run_id: z.string() }),
);

import type { getCampaign } from '../../db/queries/campaigns';
import type { getEnrollment } from '../../db/queries/enrollments';
/** As ROWS_MATCH_SCHEMAS, for the campaign and enrollment queries. */
export const OUTREACH_CAMPAIGN_ROWS_MATCH: {
  Campaign: Agrees<Row<typeof getCampaign>, typeof Campaign>;
  CampaignStep: Agrees<Row<typeof getCampaign>['steps'][number], typeof CampaignStep>;
  Enrollment: Agrees<Row<typeof getEnrollment>, typeof Enrollment>;
} = { Campaign: true, CampaignStep: true, Enrollment: true };

// Messages and the approval inbox (outreach) --------------------------------------------------------
const why = z
  .object({
    signal: nullable(z.object({ id, title: z.string(), url: nullable(z.string()) })).optional(),
    facts: z.array(z.object({ claim: z.string(), sourceUrl: z.string() })).optional(),
    scoreReasons: z.array(z.string()).optional(),
    compliance: z.object({ country: z.string(), locale: z.string(), rule: z.string(), requirements: z.array(z.string()) }).optional(),
    reviewReasons: z.array(z.string()).optional(),
    risks: z.array(z.string()).optional(),
    reply: z.object({ inboundMessageId: id, intent: z.string(), summary: z.string() }).optional(),
    offeredSlots: z.array(z.object({ start: timestamp, end: nullable(timestamp) })).optional(),
    triage: z.object({ summary: z.string(), referral: nullable(z.object({ name: nullable(z.string()), email: nullable(z.string()) })).optional() }).optional(),
  })
  .catchall(z.unknown())
  .describe("Why the message says what it says: the signal and the sourced facts, the score's reasons, the compliance rule it goes out under (art14_notice on the first e-mail to a person), why a person reviews it, the writer's risks; on a reply, its intent and triage");

export const Message = record(
  'Message',
  'An outbound draft, sent e-mail or task, or an inbound reply; the approval inbox is GET /messages?status=pending_approval',
  z.object({
    id,
    organization_id: id,
    enrollment_id: nullable(id),
    thread_id: nullable(id),
    contact_id: nullable(id),
    step_id: nullable(id),
    mailbox_id: nullable(id),
    campaign_id: nullable(id),
    direction: z.enum(['outbound', 'inbound']),
    channel: z.enum(['email', 'phone', 'linkedin']),
    status: z.enum(['pending_approval', 'approved', 'scheduled', 'sent', 'failed', 'rejected', 'received', 'task_open', 'task_done', 'skipped']),
    subject: nullable(z.string()),
    body: nullable(z.string()),
    original_body: nullable(z.string()).describe('The text before a person edited it (kept for learning)'),
    from_address: nullable(z.string()),
    to_address: nullable(z.string()),
    why,
    intent: nullable(z.string()),
    confidence: nullable(z.number()),
    model: nullable(z.string()).describe("What wrote it: a model, or 'template-writer@1.0.0'"),
    prompt_version: nullable(z.string()),
    approved_by: nullable(id),
    approved_at: nullable(timestamp),
    scheduled_for: nullable(timestamp).describe('The booked send slot'),
    sent_at: nullable(timestamp),
    received_at: nullable(timestamp),
    provider_message_id: nullable(z.string()).describe('The Message-ID header it was sent with (<message id@mailbox domain>), or a reply’s'),
    error: nullable(z.string()).describe('Why it failed, or what holds it (a paused enrollment, a mailbox that is not sendable)'),
    needs_check: z.boolean().describe('The send may or may not have reached the server (the worker stopped mid-send): check before sending again'),
    rejected_reason: nullable(z.string()),
    redraft_of: nullable(id).describe('The rejected draft this one rewrites'),
    completed_note: nullable(z.string()),
    variant_key: nullable(z.string()).describe("The step variant it was written from (its step's variants), else null"),
    ...stamps,
    contact_name: nullable(z.string()),
    company_name: nullable(z.string()),
    campaign_name: nullable(z.string()),
    step_position: nullable(z.number().int()),
    thread_status: nullable(z.enum(['open', 'replied', 'closed'])),
    pause_reason: nullable(z.enum(['out_of_office', 'account_replied'])).describe('Why its enrollment is paused (its draft waits), else null'),
  }),
);
const threadFields = {
  id,
  organization_id: id,
  contact_id: id,
  contact_name: z.string(),
  company_name: z.string(),
  mailbox_id: nullable(id),
  subject: nullable(z.string()),
  status: z.enum(['open', 'replied', 'closed']),
  last_message_at: timestamp.describe('the last activity: the newest message, else the thread\'s creation'),
  last_inbound_at: nullable(timestamp),
  last_intent: nullable(z.string()).describe('the intent of the last classified inbound message'),
  assigned_to: nullable(id),
  message_count: z.number().int(),
};
export const Thread = record('Thread', 'An e-mail conversation with one contact from one mailbox: the last activity first in the list', z.object(threadFields));
export const ThreadDetail = record('ThreadDetail', 'A thread with its messages, both directions, oldest first', z.object({ ...threadFields, messages: z.array(Message) }));

import type { getMessage } from '../../db/queries/messages';
/** As ROWS_MATCH_SCHEMAS, for the message query. */
export const MESSAGE_ROWS_MATCH: { Message: Agrees<Row<typeof getMessage>, typeof Message> } = { Message: true };
// Meetings (issue 9) ----------------------------------------------------------------------------------
export const Meeting = record(
  'Meeting',
  "A meeting with a contact: booked through a link (Cal.com, Calendly), a reply, or recorded by hand; its reminder and its CRM record",
  z.object({
    id,
    organization_id: id,
    contact_id: nullable(id),
    enrollment_id: nullable(id),
    opportunity_id: nullable(id),
    thread_id: nullable(id),
    provider: z.string().describe('calcom, calendly, google, microsoft, manual, ...'),
    external_id: nullable(z.string()).describe("The provider's id of the booking; (provider, external_id) is unique, a repeat updates"),
    title: z.string(),
    starts_at: timestamp,
    ends_at: timestamp,
    status: z.enum(MEETING_STATUSES),
    join_url: nullable(z.string()),
    attendee_email: nullable(z.string()),
    booked_via: z.enum(BOOKED_VIA),
    reminder_at: nullable(timestamp).describe("When the reminder is due: the organization's lead time before starts_at (null once cancelled)"),
    reminded_at: nullable(timestamp).describe('When the reminder was created'),
    reminder_task_id: nullable(id).describe("The owner's reminder task (GET /tasks)"),
    reminder_message_id: nullable(id).describe("The reminder e-mail draft to the attendee (pending_approval, or approved in an auto campaign)"),
    crm_external_id: nullable(z.string()).describe("The CRM's id of the meeting (HubSpot), once synced"),
    crm_synced_at: nullable(timestamp),
    crm_error: nullable(z.string()).describe('Why the CRM refused the last sync (a 4xx), if it did'),
    created_by: nullable(id).describe('Who recorded it; null for a booking webhook'),
    ...stamps,
    contact_name: nullable(z.string()),
    company_name: nullable(z.string()),
  }),
);

export const MeetingSettings = record(
  'MeetingSettings',
  "The organization's meeting settings: how long before a meeting its reminder comes",
  z.object({ organization_id: id, reminder_lead_minutes: z.number().int().describe('Default 1440 (24 hours)') }),
);

export const Task = record(
  'Task',
  'Work for a person: the reminder to prepare a meeting, for the owner of the enrollment or campaign',
  z.object({
    id,
    organization_id: id,
    kind: z.enum(['meeting_reminder']),
    status: z.enum(['open', 'done', 'cancelled']),
    assignee_user_id: nullable(id),
    meeting_id: nullable(id),
    contact_id: nullable(id),
    title: z.string(),
    body: nullable(z.string()),
    due_at: nullable(timestamp),
    ...stamps,
  }),
);

export const BookingReceipt = record(
  'BookingReceipt',
  'A verified booking delivery, handed to the worker (bookingWorkflow); a repeat of the same delivery is duplicate and changes nothing',
  z.object({
    received: z.literal(true),
    event: z.enum(['booked', 'cancelled', 'ignored']),
    duplicate: z.boolean(),
    workflow_id: nullable(z.string()),
  }),
);

import type { getMeeting, listTasks, meetingSettings } from '../../db/queries/meetings';
/** As ROWS_MATCH_SCHEMAS, for the meeting queries. */
export const MEETING_ROWS_MATCH: {
  Meeting: Agrees<Row<typeof getMeeting>, typeof Meeting>;
  MeetingSettings: Agrees<Row<typeof meetingSettings>, typeof MeetingSettings>;
  Task: Agrees<Awaited<ReturnType<ReturnType<typeof listTasks>['execute']>>[number], typeof Task>;
} = { Meeting: true, MeetingSettings: true, Task: true };
