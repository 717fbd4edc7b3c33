import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Tx } from '../tenancy';
import { normalizeSubject } from '../../domain/replies/subject';
import { cleanText } from '../../domain/replies/text';
import type { InboundMessage } from '../../domain/replies/inbound-message';
import { actOnInbound } from './inbound-actions';
import { getMessage } from './messages';
import { recordEvent } from './webhook-events';

/*
 * Inbound mail, stored once and threaded, in the caller's transaction (the worker's, as the
 * organization): the same path for mail read over IMAP and mail pushed to POST /mailboxes/{id}/inbound.
 */

export type InboundOutcome =
  | { duplicate: true; messageId: string }
  | { duplicate: false; messageId: string; threadId: string | null; contactId: string | null; changedEnrollmentIds: string[] };

/** The inbound message of this mailbox with this Message-ID, if stored already. */
export function findInbound(tx: Tx, organizationId: string, mailboxId: string, internetMessageId: string) {
  return tx
    .selectFrom('messages')
    .select(['id'])
    .where('organization_id', '=', organizationId)
    .where('mailbox_id', '=', mailboxId)
    .where('direction', '=', 'inbound')
    .where('internet_message_id', '=', internetMessageId)
    .executeTakeFirst();
}

interface ThreadMatch {
  threadId: string | null;
  contactId: string | null;
  enrollmentId: string | null;
  /** The outbound message it answers (or reports on), when found by its Message-ID. */
  outboundId: string | null;
  /** The address that outbound message was sent to. */
  outboundTo: string | null;
}

/** Our outbound message with one of these Message-IDs (the newest named first wins). */
async function outboundByMessageId(tx: Tx, organizationId: string, ids: string[]) {
  if (!ids.length) return undefined;
  const rows = await tx
    .selectFrom('messages')
    .select(['id', 'thread_id', 'contact_id', 'enrollment_id', 'mailbox_id', 'subject', 'provider_message_id', 'to_address'])
    .where('organization_id', '=', organizationId)
    .where('direction', '=', 'outbound')
    .where(
      sql`lower(provider_message_id)`,
      'in',
      ids.map((i) => i.toLowerCase()),
    )
    .execute();
  for (const id of ids) {
    const found = rows.find((r) => r.provider_message_id?.toLowerCase() === id.toLowerCase());
    if (found) return found;
  }
  return undefined;
}

/** The contact with this address (not erased), with its company. */
export function contactByEmail(tx: Tx, organizationId: string, email: string) {
  return tx
    .selectFrom('contacts')
    .select(['id', 'company_id', 'full_name', 'email'])
    .where('organization_id', '=', organizationId)
    .where(sql`lower(email)`, '=', email.toLowerCase())
    .where('erased_at', 'is', null)
    .executeTakeFirst();
}

/**
 * Threading: In-Reply-To and References against our outbound Message-IDs (a thread is opened for the
 * outbound message when it has none yet); else the sender's address as a contact and the normalized
 * subject against that contact's threads in this mailbox; else unmatched (the contact set when the
 * address is known). A delivery or abuse report is matched only by the Message-ID of the original it
 * returns: an address it names is never trusted (anyone can send a report).
 */
const UNMATCHED: ThreadMatch = { threadId: null, contactId: null, enrollmentId: null, outboundId: null, outboundTo: null };

async function threadFor(tx: Tx, m: InboundMessage): Promise<ThreadMatch> {
  const report = m.bounce ?? m.complaint;
  const ids = report ? (report.originalMessageId ? [report.originalMessageId] : []) : [...m.inReplyTo, ...[...m.references].reverse()];
  const outbound = await outboundByMessageId(tx, m.organizationId, ids);
  if (outbound?.contact_id) {
    let threadId = outbound.thread_id;
    if (!threadId) {
      const t = await tx
        .insertInto('threads')
        .values({
          organization_id: m.organizationId,
          contact_id: outbound.contact_id,
          enrollment_id: outbound.enrollment_id,
          mailbox_id: outbound.mailbox_id ?? m.mailboxId,
          subject: outbound.subject,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      threadId = t.id;
      await tx.updateTable('messages').set({ thread_id: threadId }).where('id', '=', outbound.id).execute();
    }
    return { threadId, contactId: outbound.contact_id, enrollmentId: outbound.enrollment_id, outboundId: outbound.id, outboundTo: outbound.to_address };
  }
  if (report) return outbound ? { ...UNMATCHED, outboundId: outbound.id, outboundTo: outbound.to_address } : UNMATCHED;
  const contact = m.fromAddress ? await contactByEmail(tx, m.organizationId, m.fromAddress) : undefined;
  if (!contact) return UNMATCHED;
  const subject = normalizeSubject(m.subject);
  const threads = await tx
    .selectFrom('threads')
    .select(['id', 'subject', 'enrollment_id'])
    .where('organization_id', '=', m.organizationId)
    .where('contact_id', '=', contact.id)
    .where('mailbox_id', '=', m.mailboxId)
    .orderBy('created_at', 'desc')
    .execute();
  const thread = subject ? threads.find((t) => normalizeSubject(t.subject) === subject) : undefined;
  return { threadId: thread?.id ?? null, contactId: contact.id, enrollmentId: thread?.enrollment_id ?? null, outboundId: null, outboundTo: null };
}

/**
 * Stores an inbound message once (a repeat of its Message-ID in the mailbox answers duplicate),
 * threads it and acts on it (inbound-actions.ts), all in the caller's transaction. Answers the
 * enrollments it changed, so the caller wakes their sequences after the commit.
 */
export async function recordInbound(tx: Tx, m: InboundMessage): Promise<InboundOutcome> {
  const inserted = await tx
    .insertInto('messages')
    .values({
      organization_id: m.organizationId,
      mailbox_id: m.mailboxId,
      direction: 'inbound',
      channel: 'email',
      status: 'received',
      subject: m.subject,
      body: m.body,
      from_address: m.fromAddress,
      to_address: m.toAddress,
      received_at: m.receivedAt,
      internet_message_id: m.internetMessageId,
      in_reply_to: m.inReplyTo[0] ?? null,
      references_ids: m.references,
    })
    .onConflict((oc) => oc.columns(['organization_id', 'mailbox_id', 'internet_message_id']).where('direction', '=', 'inbound').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!inserted) {
    const existing = await findInbound(tx, m.organizationId, m.mailboxId, m.internetMessageId);
    return { duplicate: true, messageId: existing!.id };
  }
  const match = await threadFor(tx, m);
  const acted = await actOnInbound(tx, m, { messageId: inserted.id, ...match });
  const c = m.classification;
  await tx
    .updateTable('messages')
    .set({
      thread_id: match.threadId,
      contact_id: match.contactId,
      enrollment_id: match.enrollmentId,
      intent: c?.intent ?? null,
      confidence: c?.confidence ?? null,
      model: c?.model ?? null,
      prompt_version: c ? [c.promptKey, c.promptVersion].filter(Boolean).join('@') || null : null,
      why: JSON.stringify(acted.why),
      updated_at: sql`now()`,
    })
    .where('id', '=', inserted.id)
    .execute();
  // A person's reply (or out-of-office notice) in one of our threads only: bounces raise message.failed,
  // complaints suppression.created, and reports, auto-replies and mail of no thread raise nothing.
  if ((m.kind === 'reply' || m.kind === 'out_of_office') && match.threadId)
    await recordEvent(tx, 'reply.received', { organizationId: m.organizationId, id: inserted.id }, getMessage);
  return { duplicate: false, messageId: inserted.id, threadId: match.threadId, contactId: match.contactId, changedEnrollmentIds: acted.changedEnrollmentIds };
}

/**
 * An inbound message that could not be processed, kept with its error and (at most 10 MB of) its raw
 * source for a retry: `unprocessed` while processing_error is set. Its de-duplication key is a hash of
 * the raw message under an id of its own, so the same message kept twice is stored once and, once
 * processed, it is stored under its real Message-ID and this row is dropped.
 */
export async function keepUnprocessed(
  tx: Tx,
  u: { organizationId: string; mailboxId: string; raw: Buffer; receivedAt: Date; error: string; retry?: boolean },
): Promise<{ duplicate: boolean; messageId: string }> {
  const internetMessageId = `<unprocessed-sha256-${createHash('sha256').update(u.raw).digest('hex')}@inbound.invalid>`;
  const inserted = await tx
    .insertInto('messages')
    .values({
      organization_id: u.organizationId,
      mailbox_id: u.mailboxId,
      direction: 'inbound',
      channel: 'email',
      status: 'received',
      received_at: u.receivedAt,
      internet_message_id: internetMessageId,
      processing_error: cleanText(u.error, 2000) || 'unknown error',
      // Without its source it is never retried (a text that is no message will not become one).
      inbound_source: u.retry !== false && u.raw.length <= MAX_KEPT_SOURCE_BYTES ? u.raw : null,
      why: JSON.stringify({ triage: { summary: `Not processed: ${cleanText(u.error, 300)}.${u.retry !== false ? ' The next inbox poll tries again.' : ''}` } }),
    })
    .onConflict((oc) => oc.columns(['organization_id', 'mailbox_id', 'internet_message_id']).where('direction', '=', 'inbound').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted) return { duplicate: false, messageId: inserted.id };
  const existing = await findInbound(tx, u.organizationId, u.mailboxId, internetMessageId);
  return { duplicate: true, messageId: existing!.id };
}

/** The most of a raw message kept for a retry (the messages_inbound_source_check says the same). */
export const MAX_KEPT_SOURCE_BYTES = 10 * 1024 * 1024;

/** The mailbox's unprocessed messages to retry: with their source, arrived in the last 24 hours, the least recently tried first. */
export function unprocessedDue(tx: Tx, mailboxId: string, limit: number) {
  return tx
    .selectFrom('messages')
    .select(['id', 'inbound_source', 'received_at'])
    .where('mailbox_id', '=', mailboxId)
    .where('direction', '=', 'inbound')
    .where('processing_error', 'is not', null)
    .where('inbound_source', 'is not', null)
    .where('created_at', '>', sql<Date>`now() - interval '24 hours'`)
    .orderBy('updated_at')
    .limit(limit)
    .execute();
}

export async function markUnprocessed(tx: Tx, id: string, error: string): Promise<void> {
  await tx
    .updateTable('messages')
    .set({ processing_error: cleanText(error, 2000) || 'unknown error', updated_at: sql`now()` })
    .where('id', '=', id)
    .execute();
}

/** An unprocessed message processed since (stored again under its Message-ID): its row goes. */
export async function dropUnprocessed(tx: Tx, id: string): Promise<void> {
  await tx.deleteFrom('messages').where('id', '=', id).where('processing_error', 'is not', null).execute();
}
