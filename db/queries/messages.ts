import { sql } from 'kysely';
import type { Reader, Tx } from '../tenancy';
import { messageFrom, type MessageAction } from '../../domain/outreach/messages';
import { jsonColumns } from '../json-answers';
import { listPerShape } from '../query-shapes';
import { newestFirst } from './pagination';

/**
 * Messages as the API answers them (interface spec "Message"): the row, and for the approval inbox
 * who and what it is about (contact_name, company_name, campaign_name, step_position, thread_status),
 * and, when its enrollment is paused, why it waits (pause_reason).
 */
const MESSAGE_FIELDS = [
  'messages.id',
  'messages.organization_id',
  'messages.enrollment_id',
  'messages.thread_id',
  'messages.contact_id',
  'messages.step_id',
  'messages.mailbox_id',
  'messages.campaign_id',
  'messages.direction',
  'messages.channel',
  'messages.status',
  'messages.subject',
  'messages.body',
  'messages.original_body',
  'messages.from_address',
  'messages.to_address',
  'messages.why',
  'messages.intent',
  'messages.confidence',
  'messages.model',
  'messages.prompt_version',
  'messages.approved_by',
  'messages.approved_at',
  'messages.scheduled_for',
  'messages.sent_at',
  'messages.received_at',
  'messages.provider_message_id',
  'messages.error',
  'messages.needs_check',
  'messages.rejected_reason',
  'messages.redraft_of',
  'messages.completed_note',
  'messages.variant_key',
  'messages.created_at',
  'messages.updated_at',
] as const;

/** Where the answer's extra fields come from (the approval inbox's who and what). */
const MESSAGE_CONTEXT = [
  'contacts.full_name as contact_name',
  'companies.name as company_name',
  'campaigns.name as campaign_name',
  'sequence_steps.position as step_position',
  'threads.status as thread_status',
] as const;

function fromMessages(qb: Reader | Tx) {
  return qb
    .selectFrom('messages')
    .leftJoin('contacts', 'contacts.id', 'messages.contact_id')
    .leftJoin('companies', 'companies.id', 'contacts.company_id')
    .leftJoin('campaigns', 'campaigns.id', 'messages.campaign_id')
    .leftJoin('sequence_steps', 'sequence_steps.id', 'messages.step_id')
    .leftJoin('threads', 'threads.id', 'messages.thread_id')
    .leftJoin('enrollments', 'enrollments.id', 'messages.enrollment_id');
}

// 'paused' as a parameter, not a literal: the list stays one round trip (readAsUser inlines parameters only).
const pauseReason = () => sql<string | null>`CASE WHEN enrollments.status = ${'paused'} THEN enrollments.pause_reason END`.as('pause_reason');

function selectMessages(qb: Reader | Tx) {
  return fromMessages(qb).select(MESSAGE_FIELDS).select(MESSAGE_CONTEXT).select(pauseReason());
}

/** The same fields as selectMessages, in the same order, written as the API answers them (db/json-answers.ts). */
function selectMessagesJson(qb: Reader) {
  return fromMessages(qb)
    .select(jsonColumns(MESSAGE_FIELDS, { timestamps: MESSAGE_TIMESTAMPS, numbers: ['confidence'] }))
    .select(MESSAGE_CONTEXT) // text and an integer: they render alike
    .select(pauseReason());
}

/** The timestamps among MESSAGE_FIELDS. */
const MESSAGE_TIMESTAMPS = ['approved_at', 'scheduled_for', 'sent_at', 'received_at', 'created_at', 'updated_at'];

export function getMessage(tx: Tx, id: string) {
  return selectMessages(tx).where('messages.id', '=', id).executeTakeFirst();
}

/** A thread's messages, both directions, oldest first (GET /threads/{id}). */
/**
 * A thread's messages, oldest first; with `latest`, only the newest that many (anyone who knows one
 * of our Message-IDs can grow a thread by mailing replies to it, so a view of it is bounded).
 */
export async function threadMessages(tx: Tx, threadId: string, latest?: number) {
  if (latest === undefined)
    return selectMessages(tx).where('messages.thread_id', '=', threadId).orderBy('messages.created_at').orderBy('messages.id').execute();
  const newest = await selectMessages(tx)
    .where('messages.thread_id', '=', threadId)
    .orderBy('messages.created_at', 'desc')
    .orderBy('messages.id', 'desc')
    .limit(latest)
    .execute();
  return newest.reverse();
}

export interface MessageFilter {
  organizationId: string;
  status?: string;
  campaignId?: string;
  enrollmentId?: string;
  contactId?: string;
  direction?: string;
  limit: number;
  before?: string;
}

function filterMessages<Q extends ReturnType<typeof fromMessages>>(q: Q, f: MessageFilter): Q {
  let out = q.where('messages.organization_id', '=', f.organizationId);
  if (f.status) out = out.where('messages.status', '=', f.status);
  if (f.campaignId) out = out.where('messages.campaign_id', '=', f.campaignId);
  if (f.enrollmentId) out = out.where('messages.enrollment_id', '=', f.enrollmentId);
  if (f.contactId) out = out.where('messages.contact_id', '=', f.contactId);
  if (f.direction) out = out.where('messages.direction', '=', f.direction);
  return newestFirst(out, 'messages', f) as Q;
}

/** The list (status=pending_approval: the approval inbox), newest first; unexecuted, for readWithRole. */
export function listMessages(qb: Reader, f: MessageFilter) {
  return filterMessages(selectMessages(qb) as unknown as ReturnType<typeof fromMessages>, f) as unknown as ReturnType<typeof selectMessages>;
}

const messagesJson = listPerShape(
  (qb: Reader, f: MessageFilter) => filterMessages(selectMessagesJson(qb) as unknown as ReturnType<typeof fromMessages>, f),
  (f: MessageFilter) => f,
);

/**
 * listMessages built as JSON in PostgreSQL (GET /messages answers it as it is; readJsonWithRole),
 * compiled once per shape of the filter (db/query-shapes.ts).
 */
export const listMessagesJson = messagesJson.perShape;
/** listMessagesJson compiled afresh on every call. */
export const listMessagesJsonAfresh = messagesJson.afresh;

/** The message row for a decision, locked against a concurrent one (approve and reject at once: one wins). */
export function lockMessage(tx: Tx, id: string) {
  return tx
    .selectFrom('messages')
    .select(['id', 'organization_id', 'enrollment_id', 'status', 'channel', 'subject', 'body', 'original_body', 'model', 'prompt_key', 'prompt_version'])
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

/**
 * Moves a message along MESSAGE_TRANSITIONS with the fields of that move, in one UPDATE that only
 * matches the statuses the action allows; undefined when the message was not in one of them.
 */
export async function transitionMessage(tx: Tx, id: string, action: MessageAction, to: string, patch: Record<string, unknown> = {}): Promise<boolean> {
  const r = await tx
    .updateTable('messages')
    .set({ ...patch, status: to, updated_at: sql`now()` })
    .where('id', '=', id)
    .where('status', 'in', messageFrom(action))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}
