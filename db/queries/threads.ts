import { sql } from 'kysely';
import type { Tx } from '../tenancy';

const THREAD_COLUMNS = [
  't.id',
  't.organization_id',
  't.contact_id',
  'c.full_name as contact_name',
  'co.name as company_name',
  't.mailbox_id',
  't.subject',
  't.status',
  't.last_activity_at as last_message_at',
  't.last_inbound_at',
  't.last_intent',
  't.assigned_to',
  't.message_count',
] as const;

/**
 * Threads as GET /threads answers them: who (contact, company), which mailbox, the last activity,
 * the last inbound message and its intent, the assignee and the number of messages. The summary
 * columns are kept on the thread by a trigger on messages (app.messages_thread_summary), so the list
 * never aggregates the organization's messages.
 */
function selectThreads(tx: Tx) {
  return tx
    .selectFrom('threads as t')
    .innerJoin('contacts as c', 'c.id', 't.contact_id')
    .innerJoin('companies as co', 'co.id', 'c.company_id')
    .select(THREAD_COLUMNS);
}

export interface ThreadFilter {
  organizationId: string;
  status?: string;
  mailboxId?: string;
  assignedTo?: string;
  intent?: string;
  limit: number;
  before?: string;
}

/**
 * The query of GET /threads: the organization's threads, the last activity first; `before` (a thread
 * id) pages on. The page is taken from threads alone (threads_org_activity_idx: organization, last
 * activity, id), and only its rows are joined to their contact and company, whatever the planner
 * thinks of the organization's size.
 */
export function threadListQuery(tx: Tx, f: ThreadFilter) {
  let page = tx.selectFrom('threads').selectAll().where('organization_id', '=', f.organizationId);
  if (f.status) page = page.where('status', '=', f.status);
  if (f.mailboxId) page = page.where('mailbox_id', '=', f.mailboxId);
  if (f.assignedTo) page = page.where('assigned_to', '=', f.assignedTo);
  if (f.intent) page = page.where('last_intent', '=', f.intent);
  if (f.before) {
    page = page.where(sql<boolean>`(last_activity_at, id) < (SELECT b.last_activity_at, b.id FROM threads b WHERE b.id = ${f.before})`);
  }
  return tx
    .selectFrom(page.orderBy('last_activity_at', 'desc').orderBy('id', 'desc').limit(f.limit).as('t'))
    .innerJoin('contacts as c', 'c.id', 't.contact_id')
    .innerJoin('companies as co', 'co.id', 'c.company_id')
    .select(THREAD_COLUMNS)
    .orderBy('t.last_activity_at', 'desc')
    .orderBy('t.id', 'desc');
}

export function listThreads(tx: Tx, f: ThreadFilter) {
  return threadListQuery(tx, f).execute();
}

export function getThread(tx: Tx, id: string) {
  return selectThreads(tx).where('t.id', '=', id).executeTakeFirst();
}

/** Whether the user is a person who is a member of the organization (an assignee must be). */
export async function isMember(tx: Tx, organizationId: string, userId: string): Promise<boolean> {
  // An API key's membership makes it a client, not a person a thread can be assigned to.
  return Boolean(
    await tx
      .selectFrom('memberships')
      .select('user_id')
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('api_keys').select('api_keys.id').where('api_keys.id', '=', userId))))
      .executeTakeFirst(),
  );
}

export function updateThread(tx: Tx, id: string, patch: { status?: string; assignedTo?: string | null }) {
  return tx
    .updateTable('threads')
    .set({
      ...(patch.status !== undefined ? { status: patch.status } : {}),
      ...(patch.assignedTo !== undefined ? { assigned_to: patch.assignedTo } : {}),
      updated_at: sql`now()`,
    })
    .where('id', '=', id)
    .execute();
}

/**
 * What a reply in the thread answers: the last inbound message's Message-ID and references (else the
 * last sent e-mail's), and the address and name of the thread's contact.
 */
export async function replyTarget(tx: Tx, thread: { id: string; organization_id: string; contact_id: string }) {
  const inbound = await tx
    .selectFrom('messages')
    .select(['internet_message_id', 'references_ids'])
    .where('organization_id', '=', thread.organization_id)
    .where('thread_id', '=', thread.id)
    .where('direction', '=', 'inbound')
    .where('internet_message_id', 'is not', null)
    .orderBy(sql`coalesce(received_at, created_at)`, 'desc')
    .limit(1)
    .executeTakeFirst();
  const sent = inbound
    ? undefined
    : await tx
        .selectFrom('messages')
        .select(['provider_message_id'])
        .where('organization_id', '=', thread.organization_id)
        .where('thread_id', '=', thread.id)
        .where('direction', '=', 'outbound')
        .where('provider_message_id', 'is not', null)
        .orderBy('sent_at', 'desc')
        .limit(1)
        .executeTakeFirst();
  const contact = await tx.selectFrom('contacts').select(['email', 'erased_at']).where('id', '=', thread.contact_id).executeTakeFirstOrThrow();
  return {
    inReplyTo: inbound?.internet_message_id ?? sent?.provider_message_id ?? null,
    references: inbound ? [...inbound.references_ids, inbound.internet_message_id!] : sent?.provider_message_id ? [sent.provider_message_id] : [],
    contact,
  };
}

/** A reply written by a person: outbound, approved by its author, answering the thread's last inbound message. */
export function insertThreadReply(
  tx: Tx,
  r: {
    organizationId: string;
    threadId: string;
    contactId: string;
    mailboxId: string;
    subject: string;
    body: string;
    toAddress: string;
    userId: string;
    inReplyTo: string | null;
    references: string[];
  },
) {
  return tx
    .insertInto('messages')
    .values({
      organization_id: r.organizationId,
      thread_id: r.threadId,
      contact_id: r.contactId,
      mailbox_id: r.mailboxId,
      direction: 'outbound',
      channel: 'email',
      status: 'approved',
      subject: r.subject,
      body: r.body,
      to_address: r.toAddress,
      approved_by: r.userId,
      approved_at: sql`now()`,
      in_reply_to: r.inReplyTo,
      references_ids: r.references,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
}
