import { sql } from 'kysely';
import type { Tx } from '../tenancy';

/** The time of a thread's last activity: its newest message (sent, received or written), else its creation. */
const LAST_ACTIVITY = sql<Date>`coalesce(s.last_message_at, t.created_at)`;

/**
 * Threads as GET /threads answers them: who (contact, company), which mailbox, the last activity,
 * the last inbound message and its intent, the assignee and the number of messages.
 */
function selectThreads(tx: Tx) {
  return tx
    .selectFrom('threads as t')
    .innerJoin('contacts as c', 'c.id', 't.contact_id')
    .innerJoin('companies as co', 'co.id', 'c.company_id')
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('messages as m')
          .select([
            sql<Date | null>`max(coalesce(m.sent_at, m.received_at, m.created_at))`.as('last_message_at'),
            sql<Date | null>`max(coalesce(m.received_at, m.created_at)) FILTER (WHERE m.direction = 'inbound')`.as('last_inbound_at'),
            sql<string | null>`(array_agg(m.intent ORDER BY coalesce(m.received_at, m.created_at) DESC) FILTER (WHERE m.direction = 'inbound' AND m.intent IS NOT NULL))[1]`.as('last_intent'),
            sql<number>`count(*)::int`.as('message_count'),
          ])
          .whereRef('m.thread_id', '=', 't.id')
          .whereRef('m.organization_id', '=', 't.organization_id')
          .as('s'),
      (join) => join.onTrue(),
    )
    .select([
      't.id', 't.organization_id', 't.contact_id', 'c.full_name as contact_name', 'co.name as company_name', 't.mailbox_id', 't.subject', 't.status',
      LAST_ACTIVITY.as('last_message_at'), 's.last_inbound_at', 's.last_intent', 't.assigned_to', sql<number>`coalesce(s.message_count, 0)`.as('message_count'),
    ]);
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

/** The organization's threads, the last activity first; `before` (a thread id) pages on. */
export function listThreads(tx: Tx, f: ThreadFilter) {
  let q = selectThreads(tx).where('t.organization_id', '=', f.organizationId);
  if (f.status) q = q.where('t.status', '=', f.status);
  if (f.mailboxId) q = q.where('t.mailbox_id', '=', f.mailboxId);
  if (f.assignedTo) q = q.where('t.assigned_to', '=', f.assignedTo);
  if (f.intent) q = q.where('s.last_intent', '=', f.intent);
  if (f.before) {
    q = q.where(
      sql<boolean>`(${LAST_ACTIVITY}, t.id) < (SELECT coalesce((SELECT max(coalesce(m.sent_at, m.received_at, m.created_at)) FROM messages m WHERE m.thread_id = b.id AND m.organization_id = b.organization_id), b.created_at), b.id FROM threads b WHERE b.id = ${f.before})`,
    );
  }
  return q.orderBy(LAST_ACTIVITY, 'desc').orderBy('t.id', 'desc').limit(f.limit).execute();
}

export function getThread(tx: Tx, id: string) {
  return selectThreads(tx).where('t.id', '=', id).executeTakeFirst();
}

/** Whether the user is a member of the organization (an assignee must be). */
export async function isMember(tx: Tx, organizationId: string, userId: string): Promise<boolean> {
  return Boolean(await tx.selectFrom('memberships').select('user_id').where('organization_id', '=', organizationId).where('user_id', '=', userId).executeTakeFirst());
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
  r: { organizationId: string; threadId: string; contactId: string; mailboxId: string; subject: string; body: string; toAddress: string; userId: string; inReplyTo: string | null; references: string[] },
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
