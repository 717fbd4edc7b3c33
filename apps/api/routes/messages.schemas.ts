import { z } from 'zod';
import { id, listBase, nullable, record, stamps, timestamp, uuid, type Agrees, type Operation, type Row } from '../contract';
import type { getMessage } from '../../../db/queries/messages';
import { MESSAGE_STATUSES } from '../../../domain/outreach/messages';

/**
 * The HTTP contract of apps/api/routes/messages.ts: drafts, sent e-mail, tasks and replies; the
 * approval inbox. Its request schemas, the records it answers (registered with `record`) and its
 * operations, which apps/api/openapi.ts assembles into the OpenAPI document.
 */

/** The statuses a message can have: the domain's one list. */
export const messageStatuses = MESSAGE_STATUSES;

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

/** A new subject, body or both; neither leaves the draft as it is. */
/** A new subject, body or both; neither leaves the draft as it is. */
export const editMessageBody = approveMessageBody;

export const rejectMessageBody = z.object({ reason: z.string().trim().min(1).max(1000).optional(), redraft: z.boolean().optional() }).strict();

export const completeMessageBody = z.object({ note: z.string().trim().min(1).max(2000).optional() }).strict();

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
  .describe(
    "Why the message says what it says: the signal and the sourced facts, the score's reasons, the compliance rule it goes out under (art14_notice on the first e-mail to a person), why a person reviews it, the writer's risks; on a reply, its intent and triage",
  );

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

/** Fails to compile, naming the fields, when a query's column list and its response schema drift apart. */
export const ROWS_MATCH: {
  Message: Agrees<Row<typeof getMessage>, typeof Message>;
} = { Message: true };

export const operations = [
  {
    id: 'listMessages',
    method: 'get',
    path: '/messages',
    tag: 'Messages',
    summary: 'List messages, newest first (status=pending_approval: the approval inbox)',
    role: 'viewer',
    query: listMessagesQuery,
    answer: z.array(Message),
  },
  {
    id: 'getMessage',
    method: 'get',
    path: '/messages/{messageId}',
    tag: 'Messages',
    summary: 'One message with its why, confidence, model and prompt version',
    role: 'viewer',
    answer: Message,
  },
  {
    id: 'approveMessage',
    mcp: { act: 'person', read: 'getMessage' },
    method: 'post',
    path: '/messages/{messageId}/approve',
    tag: 'Messages',
    summary:
      'Approve a draft, optionally edited (original_body keeps the text before the edit); its sequence sends it in the mailbox window (409 unless pending_approval)',
    role: 'member',
    body: approveMessageBody,
    answer: Message,
    problems: [409],
  },
  {
    id: 'editMessage',
    method: 'patch',
    path: '/messages/{messageId}',
    tag: 'Messages',
    summary: 'Edit a draft waiting for approval, which stays waiting (original_body keeps the text as first written); 409 unless pending_approval',
    role: 'member',
    body: editMessageBody,
    answer: Message,
    problems: [409],
  },
  {
    id: 'rejectMessage',
    method: 'post',
    path: '/messages/{messageId}/reject',
    tag: 'Messages',
    summary: 'Reject a draft; with redraft a new draft for the same step follows, else the step is skipped (409 unless pending_approval)',
    role: 'member',
    body: rejectMessageBody,
    answer: Message,
    problems: [409],
  },
  {
    id: 'completeMessage',
    mcp: { act: 'person', read: 'getMessage' },
    method: 'post',
    path: '/messages/{messageId}/complete',
    tag: 'Messages',
    summary: 'Complete a phone or LinkedIn task (409 unless task_open)',
    role: 'member',
    body: completeMessageBody,
    answer: Message,
    problems: [409],
  },
] as const satisfies readonly Operation[];
