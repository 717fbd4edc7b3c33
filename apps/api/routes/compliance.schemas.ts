import { z } from 'zod';
import {
  channelRule,
  id,
  isBcp47,
  isIsoCountry,
  listBase,
  nullable,
  organizationQuery,
  record,
  stamps,
  timestamp,
  uuid,
  type Agrees,
  type Operation,
  type Row,
} from '../contract';
import { optionalText } from '../../../domain/companies/fields';
import { checkEmail } from '../../../domain/companies/identity';
import { isFeedbackLoopSender } from '../../../domain/replies/feedback-loops';
import { isFreeMailDomain } from '../../../domain/companies/domains';
import { CHANNELS } from '../../../domain/compliance/channel-policy';
import type { complianceSettings, getSuppression, listAudit } from '../../../db/queries/compliance';

/**
 * The HTTP contract of apps/api/routes/compliance.ts: suppressions, compliance settings, their audit
 * log and the channel policy. Its request schemas, the records it answers (registered with `record`)
 * and its operations, which apps/api/openapi.ts assembles into the OpenAPI document.
 */

export const suppressionScopes = ['email', 'domain', 'kvk_number'] as const;

export const suppressionReasons = ['unsubscribe', 'bounce', 'complaint', 'objection', 'manual'] as const;

export const createSuppressionBody = z
  .object({
    organizationId: uuid,
    scope: z.enum(suppressionScopes),
    value: z.string().trim().min(1).max(320),
    reason: z.enum(suppressionReasons).optional(),
    note: optionalText(1000),
  })
  .strict();

export const listSuppressionsQuery = z.object({ ...listBase, scope: z.enum([...suppressionScopes, 'email_hash', 'person_hash']).optional() }).strict();

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
    privacyUrl: z
      .string()
      .url()
      .refine((v) => v.startsWith('https://'), 'must be an https URL')
      .nullable()
      .optional(),
    unsubscribeMailto: z
      .string()
      .refine((v) => /^mailto:/i.test(v) && checkEmail(percentDecoded(v.slice(7).split('?')[0] ?? '') ?? '').ok, 'must be a mailto: URI with a valid address')
      .refine((v) => !/[\s<>]/.test(v), 'must not contain white space, line breaks or angle brackets (percent-encode them)')
      .nullable()
      .optional(),
    feedbackLoopSenders: z
      .array(
        z
          .string()
          .trim()
          .toLowerCase()
          .max(254)
          .refine(isFeedbackLoopSender, "must be an address (fbl@isp.example) or '@' and a domain (@fbl.isp.example)")
          .refine((v) => !(v.startsWith('@') && isFreeMailDomain(v.slice(1))), 'must not be a whole free-mail domain: anyone has an address there'),
      )
      .max(20)
      .transform((v) => [...new Set(v)])
      .optional(),
  })
  .strict();

export const auditQuery = z.object({ ...listBase, entity: z.string().max(50).optional() }).strict();

export const channelPolicyQuery = z
  .object({
    country: z.string().refine(isIsoCountry, 'must be an ISO 3166-1 alpha-2 country code').optional(),
    recipientKind: z.enum(['legal_person', 'natural_person']).optional(),
  })
  .strict();

// Validators never throw: a value that cannot be decoded is invalid, not an error.
function percentDecoded(v: string): string | null {
  try {
    return decodeURIComponent(v);
  } catch {
    return null;
  }
}

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
  "The organization's compliance settings",
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
    feedback_loop_senders: z
      .array(z.string())
      .describe(
        "The organization's own feedback loops: senders (an address, or '@domain') whose structured complaints, DKIM-signed by that domain, count toward a mailbox's complaint rate beside the providers' loops the service knows",
      ),
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

/** Fails to compile, naming the fields, when a query's column list and its response schema drift apart. */
export const ROWS_MATCH: {
  Suppression: Agrees<Row<typeof getSuppression>, typeof Suppression>;
  ComplianceSettings: Agrees<Row<typeof complianceSettings>, typeof ComplianceSettings>;
  AuditEntry: Agrees<Row<typeof listAudit>[number], typeof AuditEntry>;
} = { Suppression: true, ComplianceSettings: true, AuditEntry: true };

export const operations = [
  {
    id: 'addSuppression',
    method: 'post',
    path: '/compliance/suppressions',
    tag: 'Compliance',
    summary: 'Add a suppression (201; 200 with the existing one on a repeat)',
    role: 'member',
    body: createSuppressionBody,
    status: 201,
    repeatStatus: 200,
    answer: Suppression,
  },
  {
    id: 'listSuppressions',
    method: 'get',
    path: '/compliance/suppressions',
    tag: 'Compliance',
    summary: 'List suppressions',
    role: 'viewer',
    query: listSuppressionsQuery,
    answer: z.array(Suppression),
  },
  {
    id: 'removeSuppression',
    mcp: 'hidden',
    method: 'delete',
    path: '/compliance/suppressions/{suppressionId}',
    tag: 'Compliance',
    summary: 'Remove a suppression (audited; 400 for an erasure hash)',
    role: 'admin',
    answer: Suppression,
    problems: [400],
  },
  {
    id: 'getComplianceSettings',
    method: 'get',
    path: '/compliance/settings',
    tag: 'Compliance',
    summary: 'Compliance settings',
    role: 'viewer',
    query: organizationQuery,
    answer: ComplianceSettings,
  },
  {
    id: 'updateComplianceSettings',
    mcp: 'hidden',
    method: 'patch',
    path: '/compliance/settings',
    tag: 'Compliance',
    summary: 'Change compliance settings (audited)',
    role: 'admin',
    body: patchComplianceSettingsBody,
    answer: ComplianceSettings,
  },
  {
    id: 'listComplianceAudit',
    method: 'get',
    path: '/compliance/audit',
    tag: 'Compliance',
    summary: 'The compliance audit log',
    role: 'viewer',
    query: auditQuery,
    answer: z.array(AuditEntry),
  },
  {
    id: 'getChannelPolicy',
    method: 'get',
    path: '/compliance/channel-policy',
    tag: 'Compliance',
    summary: 'The channel policy table',
    role: 'any user',
    query: channelPolicyQuery,
    answer: ChannelPolicy,
  },
] as const satisfies readonly Operation[];
