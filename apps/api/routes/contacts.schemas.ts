import { z } from 'zod';
import {
  channelRule,
  emptyBody,
  id,
  isIsoCountry,
  listBase,
  nullable,
  recipientKind,
  record,
  stamps,
  timestamp,
  uuid,
  type Agrees,
  type Operation,
  type Row,
} from '../contract';
import { email, ianaTimezone, linkedinUrl, name, optionalText } from '../../../domain/companies/fields';
import { CHANNELS } from '../../../domain/compliance/channel-policy';
import { CHECK_RESULTS, EMAIL_STATUSES } from '../../../domain/contacts/email-verification';
import type { getContact } from '../../../db/queries/contacts';
import type { GateResult, currentLawfulBasis } from '../../../db/queries/compliance';

/**
 * The HTTP contract of apps/api/routes/contacts.ts: people at companies, their lawful basis, the
 * compliance gate and erasure. Its request schemas, the records it answers (registered with `record`)
 * and its operations, which apps/api/openapi.ts assembles into the OpenAPI document.
 */

export const createContactBody = z
  .object({
    organizationId: uuid,
    companyId: uuid,
    fullName: name,
    title: optionalText(200),
    email: email.optional(),
    phone: z.string().trim().max(40).optional(),
    linkedinUrl: linkedinUrl.optional(),
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

/** POST /contacts/verify: the organization's contacts with an address, of one company or one status when given. */
export const verifyContactsBody = z.object({ organizationId: uuid, companyId: uuid.optional(), status: z.enum(EMAIL_STATUSES).optional() }).strict();

export const listContactsQuery = z.object({ ...listBase, companyId: uuid.optional() }).strict();

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
    if (v.basis === 'legitimate_interest' && !v.assessment)
      ctx.addIssue({ code: 'custom', path: ['assessment'], message: 'legitimate_interest needs an assessment (the balancing test)' });
  });

const checkResult = nullable(z.enum(CHECK_RESULTS));

export const EmailCheck = record(
  'EmailCheck',
  'The checks made on a contact’s address: each pass, fail, unknown (it ran and could not decide) or null (not run)',
  z.object({
    syntax: checkResult.describe('well formed, with a registrable domain'),
    mx: checkResult.describe('the domain accepts mail (MX, or an A record without one; a null MX fails)'),
    disposable: checkResult.describe('pass: not a disposable (throw-away) domain'),
    role: checkResult.describe('pass: a person’s address, not a role one such as info@ or sales@'),
    catch_all: checkResult.describe('pass: the domain refuses addresses that cannot exist; fail: it accepts every address'),
    smtp: checkResult.describe('the recipient’s server at RCPT TO: pass accepted, fail refused, unknown could not tell'),
    provider: z.string().describe('the verifier that made the checks: builtin, reacher, or a provider'),
    detail: nullable(z.string()).describe('what decided the status, for a person'),
  }),
);

const FoundBy = z.object({
  provider: z.string().describe('website, hunter, dropcontact or apollo'),
  run_id: id.describe('the enrichment run (GET /companies/{companyId}/enrichment-runs)'),
  step: z.number().int().describe('the step of that run, from 0'),
});

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
    email_status: z
      .enum(EMAIL_STATUSES)
      .describe('valid; risky (a catch-all domain, a role address, a probe that could not decide); invalid; unknown until checked'),
    email_checked_at: nullable(timestamp).describe('when the address was last checked'),
    email_check: nullable(EmailCheck),
    phone: nullable(z.string()),
    linkedin_url: nullable(z.string()),
    source_description: nullable(z.string()),
    data_source: z.string().describe('manual, or the enrichment provider that found the contact'),
    found_by: z
      .object({ contact: FoundBy.optional(), email: FoundBy.optional(), phone: FoundBy.optional() })
      .describe(
        'Which enrichment provider, run and step found the contact (`contact`) and the address and phone it brought, also when filled in later; empty for contacts not found by enrichment',
      ),
    last_engaged_at: nullable(timestamp),
    erased_at: nullable(timestamp),
    timezone: nullable(z.string()).describe('IANA time zone of the contact (recipient time)'),
    ...stamps,
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
    suppression: z
      .object({ id, scope: z.string(), reason: z.string(), matched_on: z.string() })
      .optional()
      .describe('The suppression that matched, and what it matched on'),
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

export const VerificationRun = record(
  'VerificationRun',
  'A durable run checking contacts’ addresses; each contact’s email_status changes as it is checked',
  z.object({
    workflow_id: z.string().describe('the run in the Temporal Web UI'),
    organization_id: id,
    company_id: nullable(id),
    status: nullable(z.enum(EMAIL_STATUSES)).describe('only contacts of this status are checked'),
  }),
);

/** Fails to compile, naming the fields, when a query's column list and its response schema drift apart. */
export const ROWS_MATCH: {
  Contact: Agrees<Row<typeof getContact>, typeof Contact>;
  LawfulBasis: Agrees<Row<typeof currentLawfulBasis>, typeof LawfulBasis>;
  ComplianceGate: Agrees<GateResult, typeof ComplianceGate>;
} = { Contact: true, LawfulBasis: true, ComplianceGate: true };

export const operations = [
  {
    id: 'createContact',
    method: 'post',
    path: '/contacts',
    tag: 'Contacts',
    summary: 'Create a contact (409 when its e-mail address exists)',
    role: 'member',
    body: createContactBody,
    status: 201,
    answer: Contact,
    problems: [409],
  },
  {
    id: 'listContacts',
    method: 'get',
    path: '/contacts',
    tag: 'Contacts',
    summary: 'List contacts',
    role: 'viewer',
    query: listContactsQuery,
    answer: z.array(Contact),
  },
  {
    id: 'getContact',
    method: 'get',
    path: '/contacts/{contactId}',
    tag: 'Contacts',
    summary: 'One contact with its lawful basis',
    role: 'viewer',
    answer: ContactDetail,
  },
  {
    id: 'patchContact',
    method: 'patch',
    path: '/contacts/{contactId}',
    tag: 'Contacts',
    summary:
      'Change name, title, phone, LinkedIn profile or time zone (timezone: IANA, the recipient time); null clears an optional field; 409 for an erased contact',
    role: 'member',
    body: patchContactBody,
    answer: Contact,
    problems: [409],
  },
  {
    id: 'getContactChannels',
    method: 'get',
    path: '/contacts/{contactId}/channels',
    tag: 'Contacts',
    summary: 'The compliance gate for a contact',
    role: 'viewer',
    answer: ComplianceGate,
  },
  {
    id: 'recordLawfulBasis',
    mcp: { act: 'person', read: 'getContact' },
    method: 'put',
    path: '/contacts/{contactId}/lawful-basis',
    tag: 'Contacts',
    summary: 'Record the lawful basis (409 for an erased contact)',
    role: 'member',
    body: lawfulBasisBody,
    answer: LawfulBasis,
    problems: [409],
  },
  {
    id: 'verifyContact',
    method: 'post',
    path: '/contacts/{contactId}/verify',
    tag: 'Contacts',
    summary:
      'Check the contact’s e-mail address again (answers the contact; email_status and email_check change when the check ends); 409 for an erased contact or one without an address',
    role: 'member',
    body: emptyBody,
    status: 202,
    answer: Contact,
    problems: [409],
  },
  {
    id: 'verifyContacts',
    method: 'post',
    path: '/contacts/verify',
    tag: 'Contacts',
    summary: 'Check the addresses of the organization’s contacts (of a company, of a status) in a durable run',
    role: 'member',
    body: verifyContactsBody,
    status: 202,
    answer: VerificationRun,
  },
  {
    id: 'eraseContact',
    mcp: { act: 'person', read: 'getContact' },
    method: 'delete',
    path: '/contacts/{contactId}',
    tag: 'Contacts',
    summary: 'Erase a contact (GDPR Art. 17)',
    role: 'member',
    answer: Contact,
  },
] as const satisfies readonly Operation[];
