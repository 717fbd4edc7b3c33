import { z } from 'zod';
import { id, jsonObject, nullable, organizationQuery, record, stamps, uuid, type Agrees, type Operation, type Row } from '../contract';
import { name } from '../../../domain/companies/fields';
import { DEFAULT_SUGGESTIONS_WINDOW } from '../../../domain/analytics/windows';
import type { industryProfileSettings, mcpSettings, scoringSettings } from '../../../db/queries/settings';
import type { scoringSuggestions } from '../../../db/queries/scoring-suggestions';
import type { meetingSettings } from '../../../db/queries/meetings';
import type { enrichmentSettings } from '../../../db/queries/enrichment';
import { ENRICHMENT_STOP_AT } from '../../../domain/contacts/email-verification';

/**
 * The HTTP contract of apps/api/routes/settings.ts: scoring thresholds and rules, their suggestions,
 * the industry profile and the meeting settings. Its request schemas, the records it answers
 * (registered with `record`) and its operations, which apps/api/openapi.ts assembles into the OpenAPI
 * document.
 */

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
          .object({
            ruleKey: z.string().trim().min(1).max(100),
            weight: z.number().min(0).max(1000).optional(),
            maxPoints: z.number().min(0).max(1000).optional(),
          })
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
    key: z
      .string()
      .regex(/^[a-z0-9_]{1,50}$/, 'must be lower-case letters, digits and underscores')
      .optional(),
    name: name.optional(),
    description: z.string().max(2000).nullable().optional(),
    propositionText: z.string().max(4000).nullable().optional(),
    personas: z
      .array(z.object({ segment: z.string().trim().min(1).max(100), titleKeywords: keywords, priority: z.number().int().min(0).max(100) }).strict())
      .max(50)
      .optional(),
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

export const scoringSuggestionsQuery = z
  .object({ organizationId: uuid, window: z.coerce.number().int().min(1).max(3650).default(DEFAULT_SUGGESTIONS_WINDOW) })
  .strict();

export const patchMeetingSettingsBody = z
  .object({
    organizationId: uuid,
    reminderLeadMinutes: z
      .number()
      .int('must be whole minutes')
      .min(0, 'must be between 0 and 20160 (14 days)')
      .max(20160, 'must be between 0 and 20160 (14 days)')
      .optional(),
  })
  .strict();

export const patchEnrichmentSettingsBody = z
  .object({
    organizationId: uuid,
    order: z
      .array(uuid)
      .max(20)
      .refine((ids) => new Set(ids.map((i) => i.toLowerCase())).size === ids.length, 'must name each integration at most once')
      .describe('Enrichment integration ids in the order they are tried after the website; those not named follow, oldest first')
      .optional(),
    stopAt: z.enum(ENRICHMENT_STOP_AT).describe('Stop at the first address whose check is valid, or also risky (catch-all, role)').optional(),
  })
  .strict()
  .refine((b) => b.order !== undefined || b.stopAt !== undefined, 'must change order or stopAt');

export const patchMcpSettingsBody = z
  .object({
    organizationId: uuid,
    allowApprove: z.boolean().describe("Let AI assistants (MCP tools) accept proposals and approve drafts, within their key's or token's role"),
  })
  .strict();

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
  z.object({
    id,
    organization_id: id,
    key: z.string(),
    name: z.string(),
    description: nullable(z.string()),
    proposition_text: nullable(z.string()),
    ...stamps,
  }),
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
  "What outcomes suggest for each scoring rule's weight, with the evidence; nothing changes until an admin applies one with PATCH /settings/scoring",
  z.object({
    window_days: z.number().int(),
    scoring_config_id: id,
    scoring_config_version: z.number().int(),
    based_on: z.object({
      opportunities: z.number().int(),
      won: z.number().int(),
      lost: z.number().int(),
      meetings_completed: z.number().int(),
      no_shows: z.number().int(),
    }),
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

export const MeetingSettings = record(
  'MeetingSettings',
  "The organization's meeting settings: how long before a meeting its reminder comes",
  z.object({ organization_id: id, reminder_lead_minutes: z.number().int().describe('Default 1440 (24 hours)') }),
);

export const EnrichmentSettings = record(
  'EnrichmentSettings',
  "The enrichment waterfall's settings: after the company's own website, the organization's enrichment integrations in this order, stopping at the first address whose check reaches stop_at",
  z.object({
    organization_id: id,
    stop_at: z.enum(ENRICHMENT_STOP_AT),
    order: z.array(
      z.object({
        integration_id: id,
        provider_key: z.string(),
        status: z.string().describe('An integration whose last test failed (error) is left out of runs'),
        ordered: z.boolean().describe('Placed by PATCH /settings/enrichment; false: not placed, tried after those placed, oldest first'),
      }),
    ),
  }),
);

export const McpSettings = record(
  'McpSettings',
  'What AI assistants may do through the MCP tools: with allow_approve off (the default), accepting a proposal and approving a draft answer an id for a person',
  z.object({ organization_id: id, allow_approve: z.boolean() }),
);

/** Fails to compile, naming the fields, when a query's column list and its response schema drift apart. */
export const ROWS_MATCH: {
  ScoringConfig: Agrees<Row<typeof scoringSettings>['config'], typeof ScoringConfig>;
  ScoringRule: Agrees<Row<typeof scoringSettings>['rules'][number], typeof ScoringRule>;
  IndustryProfile: Agrees<Row<typeof industryProfileSettings>['profile'], typeof IndustryProfile>;
  Persona: Agrees<Row<typeof industryProfileSettings>['personas'][number], typeof Persona>;
  Product: Agrees<Row<typeof industryProfileSettings>['products'][number], typeof Product>;
  ScoringSuggestions: Agrees<Row<typeof scoringSuggestions>, typeof ScoringSuggestions>;
  EnrichmentSettings: Agrees<Row<typeof enrichmentSettings>, typeof EnrichmentSettings>;
  McpSettings: Agrees<Row<typeof mcpSettings>, typeof McpSettings>;
  MeetingSettings: Agrees<Row<typeof meetingSettings>, typeof MeetingSettings>;
} = {
  ScoringConfig: true,
  ScoringRule: true,
  IndustryProfile: true,
  Persona: true,
  Product: true,
  ScoringSuggestions: true,
  MeetingSettings: true,
  EnrichmentSettings: true,
  McpSettings: true,
};

export const operations = [
  {
    id: 'getScoringSettings',
    method: 'get',
    path: '/settings/scoring',
    tag: 'Settings',
    summary: 'The active scoring config and rules',
    role: 'viewer',
    query: organizationQuery,
    answer: ScoringSettings,
  },
  {
    id: 'updateScoringSettings',
    method: 'patch',
    path: '/settings/scoring',
    tag: 'Settings',
    summary: 'New scoring config version (thresholds, home, rule weights and caps)',
    role: 'admin',
    body: patchScoringBody,
    answer: ScoringSettings,
  },
  {
    id: 'getScoringSuggestions',
    method: 'get',
    path: '/settings/scoring/suggestions',
    tag: 'Settings',
    summary: 'Rule weights the outcomes suggest, with the evidence (changes nothing)',
    role: 'viewer',
    query: scoringSuggestionsQuery,
    answer: ScoringSuggestions,
  },
  {
    id: 'getIndustryProfile',
    method: 'get',
    path: '/settings/industry-profile',
    tag: 'Settings',
    summary: 'The industry profile',
    role: 'viewer',
    query: organizationQuery,
    answer: IndustryProfileSettings,
  },
  {
    id: 'updateIndustryProfile',
    method: 'patch',
    path: '/settings/industry-profile',
    tag: 'Settings',
    summary: 'Change the industry profile',
    role: 'admin',
    body: patchIndustryProfileBody,
    answer: IndustryProfileSettings,
  },
  {
    id: 'getMeetingSettings',
    method: 'get',
    path: '/settings/meetings',
    tag: 'Settings',
    summary: "The reminder's lead time",
    role: 'viewer',
    query: organizationQuery,
    answer: MeetingSettings,
  },
  {
    id: 'updateMeetingSettings',
    method: 'patch',
    path: '/settings/meetings',
    tag: 'Settings',
    summary: "Change the reminder's lead time (reminders still to come move)",
    role: 'admin',
    body: patchMeetingSettingsBody,
    answer: MeetingSettings,
  },
  {
    id: 'getEnrichmentSettings',
    method: 'get',
    path: '/settings/enrichment',
    tag: 'Settings',
    summary: "The enrichment waterfall's order of providers and where it stops",
    role: 'viewer',
    query: organizationQuery,
    answer: EnrichmentSettings,
  },
  {
    id: 'updateEnrichmentSettings',
    method: 'patch',
    path: '/settings/enrichment',
    tag: 'Settings',
    summary:
      "Set the order of the organization's enrichment integrations (tried after the company's website) and where the waterfall stops; audited. 400 for an id that is not one of the organization's enrichment integrations",
    role: 'admin',
    body: patchEnrichmentSettingsBody,
    answer: EnrichmentSettings,
  },
  {
    id: 'getMcpSettings',
    method: 'get',
    path: '/settings/mcp',
    tag: 'Settings',
    summary: 'What AI assistants may do through the MCP tools',
    role: 'viewer',
    query: organizationQuery,
    answer: McpSettings,
  },
  {
    id: 'updateMcpSettings',
    method: 'patch',
    path: '/settings/mcp',
    tag: 'Settings',
    summary: 'Let AI assistants accept proposals and approve drafts, or not (default); audited',
    role: 'admin',
    mcp: 'hidden',
    body: patchMcpSettingsBody,
    answer: McpSettings,
  },
] as const satisfies readonly Operation[];
