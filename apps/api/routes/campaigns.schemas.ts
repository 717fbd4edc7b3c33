import { z } from 'zod';
import { sendInModes } from '../../../domain/sending/recipient-time';
import { SKIP_REASONS } from '../../../domain/outreach/enrollments';
import { id, listBase, nullable, reasonBody, record, stamps, uuid, type Agrees, type Operation, type Row } from '../contract';
import { countryCode, name } from '../../../domain/companies/fields';
import type { getCampaign } from '../../../db/queries/campaigns';

/**
 * The HTTP contract of apps/api/routes/campaigns.ts: outreach campaigns, proposed by the strategist or
 * a person. Its request schemas, the records it answers (registered with `record`) and its operations,
 * which apps/api/openapi.ts assembles into the OpenAPI document.
 */

const campaignModes = ['review', 'auto'] as const;

/** Sending in the recipient's time: the window and sending days read in the recipient's zone. */
const sendIn = z.enum(sendInModes);

export const campaignStatuses = ['proposed', 'active', 'paused', 'completed', 'archived'] as const;

const stepVariantBody = z
  .object({
    key: z
      .string()
      .trim()
      .min(1)
      .max(40)
      .regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . - only'),
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

const contactIdList = z
  .array(uuid)
  .max(100)
  .refine((ids) => new Set(ids).size === ids.length, 'must not repeat a contact');

const keyList = z.array(z.string().trim().min(1).max(100)).max(50);

/** A campaign's mailbox pool (campaign_mailboxes): 1..50 of the organization's mailboxes, in order; the first is `mailbox_id`. */
const mailboxPool = z
  .array(uuid)
  .min(1, 'a pool needs at least one mailbox')
  .max(50)
  .refine((ids) => new Set(ids).size === ids.length, 'must not repeat a mailbox');

const allowRisky = z
  .boolean()
  .describe('Enroll contacts whose address is risky (a catch-all domain, a role address, a probe that could not decide); default false');

export const createCampaignBody = z
  .object({
    organizationId: uuid,
    name,
    opportunityId: uuid.optional(),
    mailboxId: uuid.optional(),
    mailboxIds: mailboxPool.optional(),
    mode: z.enum(campaignModes).optional(),
    sendIn: sendIn.optional(),
    allowRisky: allowRisky.optional(),
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
  .object({
    contactIds: contactIdList.optional(),
    mailboxId: uuid.optional(),
    mailboxIds: mailboxPool.optional(),
    mode: z.enum(campaignModes).optional(),
    sendIn: sendIn.optional(),
    allowRisky: allowRisky.optional(),
  })
  .strict();

export const patchCampaignBody = z
  .object({
    name: name.optional(),
    mailboxIds: mailboxPool.optional(),
    mode: z.enum(campaignModes).optional(),
    sendIn: sendIn.optional(),
    allowRisky: allowRisky.optional(),
  })
  .strict()
  .refine((v) => Object.values(v).some((x) => x !== undefined), 'must change name, mailboxIds, mode, sendIn or allowRisky');

export const addCampaignContactsBody = z
  .object({
    contactIds: z
      .array(uuid)
      .min(1, 'must name at least one contact')
      .max(1000)
      .refine((ids) => new Set(ids).size === ids.length, 'must not repeat a contact'),
  })
  .strict();

export const dismissCampaignBody = reasonBody;

export const CampaignStep = record(
  'CampaignStep',
  "A step of a campaign's sequence: its channel (phone and linkedin steps are tasks), the business days to wait before it, and what to write or do",
  z.object({
    id,
    sequence_id: id,
    position: z.number().int().min(1),
    channel: z.enum(['email', 'phone', 'linkedin']),
    delay_days: z.number().int().min(0).describe('Business days of the mailbox (its sending days, less public holidays) after the previous step'),
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
    channels: z
      .array(z.enum(['email', 'phone', 'linkedin']))
      .describe('The step channels the compliance gate allows for this contact in the company’s country'),
    email_route: nullable(z.enum(['personal', 'generic'])).describe(
      'Where an e-mail step goes: the person’s address, or the company’s published generic address',
    ),
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
    send_in: z
      .enum(['mailbox', 'recipient'])
      .describe(
        "Whose time the e-mails go in: the mailbox's window and sending days in the mailbox's zone, or (recipient) in the recipient's zone with the recipient country's holidays; the daily cap stays the mailbox's day",
      ),
    allow_risky: z.boolean().describe('Whether contacts with a risky address are enrolled (invalid ones never are)'),
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
          reason: z
            .enum(SKIP_REASONS)
            .describe('invalid_email and risky_email: the address the e-mail steps would go to, as its check found it (email_status)'),
        }),
      ),
    }),
  }),
);

/** Fails to compile, naming the fields, when a query's column list and its response schema drift apart. */
export const ROWS_MATCH: {
  Campaign: Agrees<Row<typeof getCampaign>, typeof Campaign>;
  CampaignStep: Agrees<Row<typeof getCampaign>['steps'][number], typeof CampaignStep>;
} = { Campaign: true, CampaignStep: true };

export const operations = [
  {
    id: 'createCampaign',
    method: 'post',
    path: '/campaigns',
    tag: 'Campaigns',
    summary: "A person's campaign (status proposed, proposed_by user; 409 when the opportunity has a live proposal)",
    role: 'member',
    body: createCampaignBody,
    status: 201,
    answer: Campaign,
    problems: [409],
  },
  {
    id: 'listCampaigns',
    method: 'get',
    path: '/campaigns',
    tag: 'Campaigns',
    summary: 'List campaigns',
    role: 'viewer',
    query: listCampaignsQuery,
    answer: z.array(Campaign),
  },
  {
    id: 'getCampaign',
    method: 'get',
    path: '/campaigns/{campaignId}',
    tag: 'Campaigns',
    summary: 'One campaign with its steps and enrollment counts',
    role: 'viewer',
    answer: Campaign,
  },
  {
    id: 'acceptCampaign',
    mcp: { act: 'person', read: 'getCampaign' },
    method: 'post',
    path: '/campaigns/{campaignId}/accept',
    tag: 'Campaigns',
    summary: 'Accept a proposal: enroll its contacts (409 when not proposed)',
    role: 'member',
    body: acceptCampaignBody,
    answer: CampaignAcceptance,
    problems: [409],
  },
  {
    id: 'patchCampaign',
    mcp: { act: 'person', read: 'getCampaign' },
    method: 'patch',
    path: '/campaigns/{campaignId}',
    tag: 'Campaigns',
    summary: 'Change name, mode, sendIn (mailbox or recipient time) or the mailbox pool (mailboxIds; 409 once archived)',
    role: 'member',
    body: patchCampaignBody,
    answer: Campaign,
    problems: [409],
  },
  {
    id: 'addCampaignContacts',
    mcp: { act: 'person', read: 'getCampaign' },
    method: 'post',
    path: '/campaigns/{campaignId}/contacts',
    tag: 'Campaigns',
    summary: 'Add contacts: a proposal suggests them, an active campaign enrolls them at once (409 otherwise)',
    role: 'member',
    body: addCampaignContactsBody,
    answer: CampaignAcceptance,
    problems: [409],
  },
  {
    id: 'dismissCampaign',
    method: 'post',
    path: '/campaigns/{campaignId}/dismiss',
    tag: 'Campaigns',
    summary: 'Dismiss a proposal (archived; 409 when not proposed)',
    role: 'member',
    body: dismissCampaignBody,
    answer: Campaign,
    problems: [409],
  },
] as const satisfies readonly Operation[];
