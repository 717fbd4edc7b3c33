import { sql } from 'kysely';
import type { Tx } from '../tenancy';
import { MESSAGE_TRANSITIONS } from '../../domain/outreach/messages';
import { addSuppression } from './compliance/suppressions';
import { mailboxSendability } from './mailbox-health';
import { stopContactEnrollments } from './enrollments';
import { transitionMessage } from './messages';
import { releaseSendSlot, reserveSendSlot } from './send-slots';
import { recordEvent } from './webhook-events';

/**
 * A message's way out, in three transactions around the SMTP conversation:
 * 1. scheduleMessage: an approved message gets a send slot, in the same transaction as its move to
 *    `scheduled` (so the daily cap is exact across workers), unless something holds it;
 * 2. claimSend: right before the send: the message is still `scheduled`, its enrollment still
 *    running, and `send_attempted_at` is set and committed; a claim that finds it set already (a
 *    worker died after handing the message over) flags the message for checking instead of sending;
 * 3. recordSent / recordSendFailure / releaseClaim (a transient failure: nothing was delivered).
 */

export type ScheduleOutcome =
  | { state: 'scheduled'; slotAt: Date }
  | { state: 'held'; reason: string }
  /** The mailbox was never checked: run its deliverability check first, then book again. */
  | { state: 'unchecked'; mailboxId: string }
  | { state: 'final'; status: string };

function lockForSend(tx: Tx, messageId: string) {
  return tx
    .selectFrom('messages')
    .leftJoin('enrollments', 'enrollments.id', 'messages.enrollment_id')
    .select([
      'messages.id', 'messages.organization_id', 'messages.status', 'messages.mailbox_id', 'messages.contact_id', 'messages.enrollment_id', 'messages.step_id',
      'messages.channel', 'messages.scheduled_for', 'messages.send_attempted_at', 'messages.to_address',
      // Only a sequence step follows its enrollment: a reply or a meeting-reminder draft goes out whatever became of it.
      sql<string | null>`CASE WHEN messages.step_id IS NOT NULL THEN enrollments.status END`.as('enrollment_status'),
    ])
    .where('messages.id', '=', messageId)
    .forUpdate('messages')
    .executeTakeFirst();
}

const ENDED = new Set(['stopped', 'completed', 'failed']);

/** Why an approved message cannot be booked now ('unchecked': its mailbox needs a first check), or null. */
async function holdReason(tx: Tx, m: { mailbox_id: string | null; enrollment_status: string | null }): Promise<string | 'unchecked' | null> {
  if (m.enrollment_status === 'paused') return 'the enrollment is paused';
  if (!m.mailbox_id) return 'no mailbox to send from: give the campaign a mailbox';
  const health = await mailboxSendability(tx, m.mailbox_id);
  if (!health.checked) return 'unchecked';
  if (!health.sendable) return `the mailbox is not sendable: ${health.reason ?? 'its last deliverability check failed'}`;
  return null;
}

export async function scheduleMessage(tx: Tx, r: { organizationId: string; messageId: string; now: Date }): Promise<ScheduleOutcome> {
  const m = await lockForSend(tx, r.messageId);
  if (!m) return { state: 'final', status: 'missing' };
  if (m.status === 'scheduled') return { state: 'scheduled', slotAt: m.scheduled_for! };
  if (m.status !== 'approved') return { state: 'final', status: m.status };
  if (m.enrollment_status && ENDED.has(m.enrollment_status)) {
    await transitionMessage(tx, m.id, 'skip', MESSAGE_TRANSITIONS.skip.to, { error: `the enrollment is ${m.enrollment_status}` });
    return { state: 'final', status: 'skipped' };
  }
  const held = await holdReason(tx, m);
  if (held === 'unchecked') return { state: 'unchecked', mailboxId: m.mailbox_id! };
  if (held) {
    await tx.updateTable('messages').set({ error: held, updated_at: sql`now()` }).where('id', '=', m.id).execute();
    return { state: 'held', reason: held };
  }
  const slot = await reserveSendSlot(tx, { organizationId: r.organizationId, mailboxId: m.mailbox_id!, messageId: m.id, now: r.now });
  await transitionMessage(tx, m.id, 'schedule', MESSAGE_TRANSITIONS.schedule.to, { scheduled_for: slot.slotAt, error: null });
  return { state: 'scheduled', slotAt: slot.slotAt };
}

export type Claim =
  | { go: true; message: { id: string; organizationId: string; mailboxId: string; contactId: string | null; toAddress: string | null; sequenceStep: boolean } }
  | { go: false; status: string; requeue?: boolean; flagged?: boolean };

/** Takes a scheduled message back to approved (its enrollment paused meanwhile): its slot is given back. */
async function unschedule(tx: Tx, messageId: string, why: string) {
  await releaseSendSlot(tx, messageId);
  await tx
    .updateTable('messages')
    .set({ status: 'approved', scheduled_for: null, error: why, updated_at: sql`now()` })
    .where('id', '=', messageId)
    .where('status', '=', 'scheduled')
    .execute();
}

/**
 * The last look before the SMTP conversation (the compliance gate is the caller's, in the same
 * transaction, right after this answers go): sets send_attempted_at so that a retry after a crash
 * knows a send may have happened.
 */
export async function claimSend(tx: Tx, messageId: string): Promise<Claim> {
  const m = await lockForSend(tx, messageId);
  if (!m) return { go: false, status: 'missing' };
  if (m.status !== 'scheduled') return { go: false, status: m.status };
  if (m.send_attempted_at) {
    await transitionMessage(tx, m.id, 'fail', MESSAGE_TRANSITIONS.fail.to, {
      needs_check: true,
      error: 'delivery unknown: a send was attempted and its outcome not recorded (the worker stopped); check the mailbox’s Sent folder before sending again',
    });
    return { go: false, status: 'failed', flagged: true };
  }
  if (m.enrollment_status && ENDED.has(m.enrollment_status)) {
    await releaseSendSlot(tx, m.id);
    await transitionMessage(tx, m.id, 'skip', MESSAGE_TRANSITIONS.skip.to, { error: `the enrollment is ${m.enrollment_status}` });
    return { go: false, status: 'skipped' };
  }
  if (m.enrollment_status === 'paused') {
    await unschedule(tx, m.id, 'the enrollment is paused');
    return { go: false, status: 'approved', requeue: true };
  }
  await tx.updateTable('messages').set({ send_attempted_at: sql`now()` }).where('id', '=', m.id).execute();
  return { go: true, message: { id: m.id, organizationId: m.organization_id, mailboxId: m.mailbox_id!, contactId: m.contact_id, toAddress: m.to_address, sequenceStep: m.step_id !== null } };
}

/** The gate closed between scheduling and sending: the message is skipped with the gate's reasons; its slot is given back. */
export async function skipBlocked(tx: Tx, messageId: string, reason: string): Promise<void> {
  await releaseSendSlot(tx, messageId);
  await transitionMessage(tx, messageId, 'skip', MESSAGE_TRANSITIONS.skip.to, { error: reason, send_attempted_at: null });
}

/** A transient failure: nothing was delivered, the next attempt may send. */
export async function releaseClaim(tx: Tx, messageId: string, error: string): Promise<void> {
  await tx.updateTable('messages').set({ send_attempted_at: null, error, updated_at: sql`now()` }).where('id', '=', messageId).where('status', '=', 'scheduled').execute();
}

/** The thread an outbound e-mail belongs to: its enrollment's, made with the first e-mail. */
async function threadFor(tx: Tx, m: { organization_id: string; contact_id: string | null; enrollment_id: string | null; mailbox_id: string | null; subject: string | null }) {
  if (m.enrollment_id) {
    const existing = await tx.selectFrom('threads').select('id').where('enrollment_id', '=', m.enrollment_id).orderBy('created_at').limit(1).executeTakeFirst();
    if (existing) return existing.id;
  }
  if (!m.contact_id) return null;
  const made = await tx
    .insertInto('threads')
    .values({ organization_id: m.organization_id, contact_id: m.contact_id, enrollment_id: m.enrollment_id, mailbox_id: m.mailbox_id, subject: m.subject })
    .returning('id')
    .executeTakeFirstOrThrow();
  return made.id;
}

export async function recordSent(tx: Tx, r: { messageId: string; providerMessageId: string; fromAddress: string; toAddress: string }): Promise<void> {
  const m = await tx
    .selectFrom('messages')
    .select(['organization_id', 'contact_id', 'enrollment_id', 'mailbox_id', 'subject', 'thread_id'])
    .where('id', '=', r.messageId)
    .executeTakeFirstOrThrow();
  const threadId = m.thread_id ?? (await threadFor(tx, m));
  await transitionMessage(tx, r.messageId, 'send', MESSAGE_TRANSITIONS.send.to, {
    sent_at: sql`now()`,
    provider_message_id: r.providerMessageId,
    from_address: r.fromAddress,
    to_address: r.toAddress,
    thread_id: threadId,
    error: null,
  });
  await recordEvent(tx, 'message.sent', { organizationId: m.organization_id, id: r.messageId });
}

/**
 * The server refused the message for good: `failed` with its text. A refused recipient (a hard
 * bounce) suppresses the address (reason bounce) and stops the contact's sequences; answers the
 * stopped enrollments.
 */
export async function recordSendFailure(
  tx: Tx,
  r: { messageId: string; organizationId: string; error: string; hardBounce: boolean; address: string; contactId: string | null; flagged?: boolean },
): Promise<string[]> {
  await transitionMessage(tx, r.messageId, 'fail', MESSAGE_TRANSITIONS.fail.to, { error: r.error, needs_check: r.flagged ?? false });
  await recordEvent(tx, 'message.failed', { organizationId: r.organizationId, id: r.messageId });
  if (!r.hardBounce) return [];
  await addSuppression(tx, {
    organizationId: r.organizationId,
    scope: 'email',
    value: r.address.toLowerCase(),
    reason: 'bounce',
    note: `hard bounce on message ${r.messageId}: ${r.error}`.slice(0, 1000),
    createdBy: null,
  });
  return r.contactId ? stopContactEnrollments(tx, r.contactId, 'bounced') : [];
}

/** Who a message goes to, as the send needs it: the contact's addresses and name, its company's, the locale. */
export function sendRecipient(tx: Tx, contactId: string) {
  return tx
    .selectFrom('contacts')
    .innerJoin('companies', 'companies.id', 'contacts.company_id')
    .select([
      'contacts.full_name', 'contacts.email', 'contacts.phone', 'contacts.source_description', 'companies.name as company_name',
      'companies.generic_email', 'companies.phone as company_phone', 'companies.locale',
    ])
    .where('contacts.id', '=', contactId)
    .executeTakeFirst();
}

/** What goes out and from where: the message's words and who wrote them, the mailbox's address, domain, SMTP server and sealed secret. */
export async function sendContent(tx: Tx, messageId: string, mailboxId: string) {
  const [message, mailbox] = await Promise.all([
    tx.selectFrom('messages').select(['subject', 'body', 'model']).where('id', '=', messageId).executeTakeFirstOrThrow(),
    tx.selectFrom('mailboxes').select(['address', 'display_name', 'domain', 'smtp_config', 'secret_ciphertext']).where('id', '=', mailboxId).executeTakeFirstOrThrow(),
  ]);
  return { message, mailbox };
}
