import { sendTimeAddressVerdict, type EmailStatus } from '../../domain/contacts/email-verification';
import { sql } from 'kysely';
import type { Tx } from '../tenancy';
import { MESSAGE_TRANSITIONS, messageFrom } from '../../domain/outreach/messages';
import { resignText } from '../../domain/outreach/draft';
import { addSuppression } from './compliance/suppressions';
import { mailboxSendability } from './mailbox-health';
import { stopContactEnrollments } from './enrollments';
import { getMessage, transitionMessage } from './messages';
import { resumeWhenDue } from './sequence';
import { messageSendPolicy, releaseSendSlot, reserveSendSlot } from './send-slots';
import { lockFor } from '../locks';
import { judgeMailboxProtection, recordSoftBounce } from './mailbox-protection';
import type { BounceReason } from '../../domain/replies/bounce-reasons';
import { sendTimeCheck, windowCloseOf } from '../../domain/sending/send-check';
import { lockPoolMailbox } from './pool-choice';
import { recordEvent } from './webhook-events';
import { countSent, mailboxPassesBulkSenderAuth, sentOnDay, type SenderKey, type VolumeKey } from './bulk-volume';
import { bulkSenderHold, countsTowardThresholds, organizationalDomain, utcDay, type ReceivingProvider } from '../../domain/sending/bulk-senders';

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
  | { state: 'scheduled'; slotAt: Date; windowEndsAt: Date }
  | { state: 'held'; reason: string }
  /** The mailbox was never checked: run its deliverability check first, then book again. */
  | { state: 'unchecked'; mailboxId: string }
  | { state: 'final'; status: string };

/**
 * Locks a message for its send: its enrollment row first, FOR SHARE (the order a stop takes: the
 * enrollment, then its messages), so a stop and a claim are ordered and a stop that answered
 * `stopped` is seen by the claim; then the message, FOR UPDATE. A step's enrollment paused out of
 * office until a moment now past is resumed first (resumeWhenDue, which locks the same row).
 */
async function lockForSend(tx: Tx, messageId: string) {
  const ref = await tx.selectFrom('messages').select(['enrollment_id', 'step_id']).where('id', '=', messageId).executeTakeFirst();
  if (!ref) return undefined;
  // An out-of-office pause whose resume_at passed ends here too (the booking and the claim are stages of the step).
  if (ref.enrollment_id && ref.step_id !== null) await resumeWhenDue(tx, ref.enrollment_id);
  const enrollment = ref.enrollment_id
    ? await tx.selectFrom('enrollments').select('status').where('id', '=', ref.enrollment_id).forShare().executeTakeFirst()
    : undefined;
  const m = await tx
    .selectFrom('messages')
    .select([
      'messages.id',
      'messages.organization_id',
      'messages.status',
      'messages.mailbox_id',
      'messages.contact_id',
      'messages.enrollment_id',
      'messages.step_id',
      'messages.channel',
      'messages.scheduled_for',
      'messages.send_attempted_at',
      'messages.handover_at',
      'messages.to_address',
    ])
    .where('messages.id', '=', messageId)
    .forUpdate()
    .executeTakeFirst();
  // Only a sequence step follows its enrollment: a reply or a meeting-reminder draft goes out whatever became of it.
  return m && { ...m, enrollment_status: m.step_id !== null ? (enrollment?.status ?? null) : null };
}

const ENDED = new Set(['stopped', 'completed', 'failed']);

/**
 * Why a mailbox may not send now ('unchecked': it needs a first deliverability check), or null: the
 * one place that decides it, asked when booking and again when claiming the send. Its last health
 * check must allow sending, and no setup error (SMTP authentication, relay refused) holds it.
 */
export async function mailboxSendBlock(tx: Tx, mailboxId: string): Promise<string | 'unchecked' | null> {
  const mailbox = await tx.selectFrom('mailboxes').select(['send_hold_reason', 'status', 'paused_reason']).where('id', '=', mailboxId).executeTakeFirst();
  if (!mailbox) return 'the mailbox no longer exists';
  // A paused mailbox (migration 0020: by hand, bounce or complaint rate, health, a dead OAuth grant) sends nothing, not even what is booked.
  if (mailbox.status === 'paused') return `the mailbox is paused (${mailbox.paused_reason})`;
  if (mailbox.send_hold_reason) return `the mailbox is held: ${mailbox.send_hold_reason}`;
  const health = await mailboxSendability(tx, mailboxId);
  if (!health.checked) return 'unchecked';
  if (!health.sendable) return `the mailbox is not sendable: ${health.reason ?? 'its last deliverability check failed'}`;
  return null;
}

/** Why an approved message cannot be booked now ('unchecked': its mailbox needs a first check), or null. */
async function holdReason(tx: Tx, m: { mailbox_id: string | null; enrollment_status: string | null }): Promise<string | 'unchecked' | null> {
  if (m.enrollment_status === 'paused') return 'the enrollment is paused';
  if (!m.mailbox_id) return 'no mailbox to send from: give the campaign a mailbox';
  return mailboxSendBlock(tx, m.mailbox_id);
}

/**
 * One sender per contact: the
 * mailbox an enrollment's e-mails go from. Pinned already: that one, or a hold while it is out of the
 * campaign's pool. Not yet: the pool choice (db/queries/pool-choice.ts: one query for the whole pool,
 * the rules of domain/sending/pools.ts, the chosen mailbox's booking lock held), answered with `pin`:
 * the caller pins it on the enrollment only once the e-mail is booked on it (pinEnrollment, in the
 * same transaction), so a mailbox whose first check has not run yet, or an e-mail held for another
 * reason, pins nothing and the next booking chooses afresh. Undefined for a campaign without a pool:
 * the message's own mailbox.
 */
async function poolMailbox(tx: Tx, enrollmentId: string, now: Date): Promise<{ mailboxId: string; pin: boolean } | { hold: string } | undefined> {
  const e = await tx.selectFrom('enrollments').select(['organization_id', 'campaign_id', 'mailbox_id']).where('id', '=', enrollmentId).executeTakeFirst();
  if (!e) return undefined;
  const pool = await poolOf(tx, e.campaign_id);
  if (pool.length === 0) return undefined;
  if (e.mailbox_id) return pool.includes(e.mailbox_id) ? { mailboxId: e.mailbox_id, pin: false } : { hold: REMOVED_FROM_POOL };
  const chosen = await lockPoolMailbox(tx, e.campaign_id, now);
  if (!chosen) return { hold: await noPoolMailboxReason(tx, pool) };
  return { mailboxId: chosen, pin: true };
}

/** Why no mailbox of the pool may send, each (the first few) with its own reason: what a person must mend. */
async function noPoolMailboxReason(tx: Tx, pool: string[]): Promise<string> {
  const shown = 5;
  const boxes = await tx.selectFrom('mailboxes').select(['id', 'address']).where('id', 'in', pool.slice(0, shown)).execute();
  const reasons: string[] = [];
  for (const id of pool.slice(0, shown)) {
    const block = await mailboxSendBlock(tx, id);
    if (block && block !== 'unchecked') reasons.push(`${boxes.find((b) => b.id === id)?.address ?? id}: ${block}`);
  }
  const more = pool.length > shown ? `; and ${pool.length - shown} more` : '';
  return `no mailbox of the campaign's pool may send now${reasons.length ? ` (${reasons.join('; ')}${more})` : ''}`;
}

const REMOVED_FROM_POOL = "the contact's mailbox was removed from the campaign's pool";

function poolOf(tx: Tx, campaignId: string): Promise<string[]> {
  return tx
    .selectFrom('campaign_mailboxes')
    .select('mailbox_id')
    .where('campaign_id', '=', campaignId)
    .orderBy('position')
    .execute()
    .then((rows) => rows.map((p) => p.mailbox_id));
}

/**
 * Why a pooled campaign's e-mail may not go from this mailbox, or null: its mailbox is no longer in
 * the campaign's pool (it waits, as the contract says, until the mailbox is back). Asked when the
 * send is claimed, since an e-mail booked before the mailbox left the pool keeps its slot until then.
 */
async function poolBlock(tx: Tx, enrollmentId: string, mailboxId: string): Promise<string | null> {
  const e = await tx.selectFrom('enrollments').select('campaign_id').where('id', '=', enrollmentId).executeTakeFirst();
  if (!e) return null;
  const pool = await poolOf(tx, e.campaign_id);
  return pool.length > 0 && !pool.includes(mailboxId) ? REMOVED_FROM_POOL : null;
}

/**
 * Pins the enrollment on the mailbox its first e-mail was just booked on. Another e-mail of the same
 * enrollment booked at the same moment may have pinned it first, on another mailbox: this booking is
 * then undone (the transaction fails and its activity books again, on that pin).
 */
async function pinEnrollment(tx: Tx, enrollmentId: string, mailboxId: string): Promise<void> {
  const pinned = await tx
    .updateTable('enrollments')
    .set({ mailbox_id: mailboxId, updated_at: sql`now()` })
    .where('id', '=', enrollmentId)
    .where((eb) => eb.or([eb('mailbox_id', 'is', null), eb('mailbox_id', '=', mailboxId)]))
    .executeTakeFirst();
  if (Number(pinned.numUpdatedRows) !== 1) throw new Error(`enrollment ${enrollmentId} was pinned on another mailbox meanwhile; booked again`);
}

/**
 * A message drafted for one mailbox and sent from another (a pooled campaign's first e-mail, drafted
 * before its mailbox was chosen): it leaves from the new mailbox's address and is signed with its
 * name, so the old sender's name in the text (the signature the draft was written with) becomes the
 * new one, in the text before a person's edit too (so the swap does not count as their edit).
 */
async function resignFor(tx: Tx, messageId: string, from: string | null, to: string): Promise<void> {
  const boxes = await tx
    .selectFrom('mailboxes')
    .select(['id', 'address', 'display_name'])
    .where('id', 'in', from ? [from, to] : [to])
    .execute();
  const before = boxes.find((b) => b.id === from);
  const after = boxes.find((b) => b.id === to)!;
  const oldName = before?.display_name?.trim() ?? '';
  const newName = after.display_name?.trim() ?? '';
  const texts = await tx.selectFrom('messages').select(['body', 'original_body']).where('id', '=', messageId).executeTakeFirstOrThrow();
  const swap = (text: string | null) => (text === null ? null : resignText(text, oldName, newName));
  await tx
    .updateTable('messages')
    .set({
      mailbox_id: to,
      from_address: sql`CASE WHEN from_address IS NULL THEN NULL ELSE ${after.address} END`,
      body: swap(texts.body),
      original_body: swap(texts.original_body),
      updated_at: sql`now()`,
    })
    .where('id', '=', messageId)
    .execute();
}

/** The close of the sending window of a slot's local day (the SMTP retries end there): the recipient's window when the campaign sends in the recipient's time. */
async function windowEndOf(tx: Tx, messageId: string, mailboxId: string, slotAt: Date): Promise<Date> {
  const policy = await messageSendPolicy(tx, { messageId, mailboxId, now: slotAt });
  return policy ? windowCloseOf(slotAt, policy) : slotAt;
}

/**
 * Books an approved message's slot, unless something holds it. With the recipient's provider, the
 * bulk-sender rules are asked too, for the mailbox it is booked on and the UTC day of the booking (the
 * claim asks again at the moment of sending).
 */
export async function scheduleMessage(
  tx: Tx,
  r: { organizationId: string; messageId: string; now: Date; graceSeconds?: number; provider?: ReceivingProvider | null },
): Promise<ScheduleOutcome> {
  const m = await lockForSend(tx, r.messageId);
  if (!m) return { state: 'final', status: 'missing' };
  if (m.status === 'scheduled') {
    // A slot long past with no send under way (a restarted run, SMTP retries that ran out) is booked
    // again rather than sent late; a claimed one goes to its claim, which flags it.
    const stale =
      !m.send_attempted_at && m.scheduled_for && r.now.getTime() - m.scheduled_for.getTime() > (r.graceSeconds ?? DEFAULT_SEND_GRACE_SECONDS) * 1000;
    if (!stale) return { state: 'scheduled', slotAt: m.scheduled_for!, windowEndsAt: await windowEndOf(tx, m.id, m.mailbox_id!, m.scheduled_for!) };
    await unschedule(tx, m.id, 'the send slot passed before it was sent; booked again');
    m.status = 'approved';
  }
  if (m.status !== 'approved') return { state: 'final', status: m.status };
  if (m.enrollment_status && ENDED.has(m.enrollment_status)) {
    await transitionMessage(tx, m.id, 'skip', MESSAGE_TRANSITIONS.skip.to, { error: `the enrollment is ${m.enrollment_status}` });
    return { state: 'final', status: 'skipped' };
  }
  // A pooled campaign's e-mail goes from the enrollment's pinned mailbox (picked now for its first).
  let pinOn: string | null = null;
  if (m.enrollment_id && m.channel === 'email' && m.enrollment_status !== 'paused') {
    const pin = await poolMailbox(tx, m.enrollment_id, r.now);
    if (pin && 'hold' in pin) {
      await tx
        .updateTable('messages')
        .set({ error: pin.hold, updated_at: sql`now()` })
        .where('id', '=', m.id)
        .execute();
      return { state: 'held', reason: pin.hold };
    }
    // A pool choice not yet pinned: a never-checked mailbox is checked first and chosen again after.
    if (pin?.pin && (await mailboxSendBlock(tx, pin.mailboxId)) === 'unchecked') return { state: 'unchecked', mailboxId: pin.mailboxId };
    if (pin && pin.mailboxId !== m.mailbox_id) {
      await resignFor(tx, m.id, m.mailbox_id, pin.mailboxId);
      m.mailbox_id = pin.mailboxId;
    }
    if (pin?.pin) pinOn = pin.mailboxId;
  }
  const held = (await holdReason(tx, m)) ?? (r.provider ? await bookingBulkBlock(tx, r.organizationId, m.mailbox_id!, r.provider, r.now) : null);
  if (held === 'unchecked') return { state: 'unchecked', mailboxId: m.mailbox_id! };
  if (held) {
    await tx
      .updateTable('messages')
      .set({ error: held, updated_at: sql`now()` })
      .where('id', '=', m.id)
      .execute();
    return { state: 'held', reason: held };
  }
  const slot = await reserveSendSlot(tx, { organizationId: r.organizationId, mailboxId: m.mailbox_id!, messageId: m.id, now: r.now });
  if (pinOn) await pinEnrollment(tx, m.enrollment_id!, pinOn);
  await transitionMessage(tx, m.id, 'schedule', MESSAGE_TRANSITIONS.schedule.to, { scheduled_for: slot.slotAt, error: null });
  return { state: 'scheduled', slotAt: slot.slotAt, windowEndsAt: await windowEndOf(tx, m.id, m.mailbox_id!, slot.slotAt) };
}

export type Claim =
  | {
      go: true;
      message: {
        id: string;
        organizationId: string;
        mailboxId: string;
        contactId: string | null;
        toAddress: string | null;
        sequenceStep: boolean;
        claimedAt: Date;
      };
    }
  | { go: false; status: string; requeue?: boolean; flagged?: boolean; hold?: boolean; reason?: string };

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

/** How far from its slot a send may still go when SEND_SLOT_GRACE_SECONDS is not given. */
export const DEFAULT_SEND_GRACE_SECONDS = 300;

/**
 * The last look before the SMTP conversation (the compliance gate is the caller's, in the same
 * transaction, right after this answers go). Under the mailbox's advisory lock (the one bookings
 * take), the moment is checked again (domain/sending/send-check.ts sendTimeCheck: in the window on a
 * sending day, close to the slot, under the day's cap of what went out, after the gap) and the
 * mailbox must still be sendable (mailboxSendBlock); otherwise the slot is given back, the message
 * is `approved` again and the answer is `requeue` (hold: something holds the mailbox or the
 * enrollment, wait for it; else book a fresh slot at once). With the send's bulk-sender key, the
 * domain's count to the recipient's provider today (UTC) is checked too: at the hold threshold an
 * unaligned domain's e-mail waits (hold) until the next UTC day. A go sets send_attempted_at, so that a
 * retry after a crash knows a send may have happened.
 */
export async function claimSend(
  tx: Tx,
  messageId: string,
  at: { now: Date; graceSeconds?: number; bulk?: SenderKey | null } = { now: new Date() },
): Promise<Claim> {
  const m = await lockForSend(tx, messageId);
  if (!m) return { go: false, status: 'missing' };
  if (m.status !== 'scheduled') return { go: false, status: m.status };
  // A claim whose attempt handed the message over and recorded nothing: it may have been delivered. A
  // claim without a hand-over died before the server could have it: this attempt takes it over below.
  if (m.send_attempted_at && m.handover_at) {
    const failed = await transitionMessage(tx, m.id, 'fail', MESSAGE_TRANSITIONS.fail.to, {
      needs_check: true,
      error: 'delivery unknown: a send was attempted and its outcome not recorded (the worker stopped); check the mailbox’s Sent folder before sending again',
    });
    if (failed) await recordEvent(tx, 'message.failed', { organizationId: m.organization_id, id: m.id }, getMessage);
    return { go: false, status: 'failed', flagged: true };
  }
  if (m.enrollment_status && ENDED.has(m.enrollment_status)) {
    await releaseSendSlot(tx, m.id);
    await transitionMessage(tx, m.id, 'skip', MESSAGE_TRANSITIONS.skip.to, { error: `the enrollment is ${m.enrollment_status}` });
    return { go: false, status: 'skipped' };
  }
  if (m.enrollment_status === 'paused') {
    await unschedule(tx, m.id, 'the enrollment is paused');
    return { go: false, status: 'approved', requeue: true, hold: true, reason: 'the enrollment is paused' };
  }
  // Booked before its mailbox left the campaign's pool: it waits for the mailbox to come back.
  const outOfPool = m.enrollment_id && m.channel === 'email' ? await poolBlock(tx, m.enrollment_id, m.mailbox_id!) : null;
  if (outOfPool) {
    await unschedule(tx, m.id, outOfPool);
    return { go: false, status: 'approved', requeue: true, hold: true, reason: outOfPool };
  }
  const address = m.enrollment_id && m.channel === 'email' && m.contact_id ? await addressBlock(tx, m.enrollment_id, m.contact_id, m.to_address, at.now) : null;
  if (address?.skip) {
    await releaseSendSlot(tx, m.id);
    await transitionMessage(tx, m.id, 'skip', MESSAGE_TRANSITIONS.skip.to, { error: address.reason });
    return { go: false, status: 'skipped', reason: address.reason };
  }
  if (address) {
    await unschedule(tx, m.id, address.reason);
    return { go: false, status: 'approved', requeue: true, hold: true, reason: address.reason };
  }
  await lockFor(tx, `send_slots:${m.mailbox_id}`);
  const block = await mailboxSendBlock(tx, m.mailbox_id!);
  if (block) {
    const reason = block === 'unchecked' ? 'the mailbox needs a deliverability check' : block;
    await unschedule(tx, m.id, reason);
    return { go: false, status: 'approved', requeue: true, hold: block !== 'unchecked', reason };
  }
  const bulkHold = at.bulk ? await bulkSenderBlock(tx, m.organization_id, m.mailbox_id!, at.bulk, at.now) : null;
  if (bulkHold) {
    await unschedule(tx, m.id, bulkHold);
    return { go: false, status: 'approved', requeue: true, hold: true, reason: bulkHold };
  }
  const verdict = await sendMomentVerdict(tx, m, at.now, at.graceSeconds ?? DEFAULT_SEND_GRACE_SECONDS);
  if (!verdict.go) {
    const reason = `not sent at ${at.now.toISOString()}: ${verdict.reason}; booked again`;
    await unschedule(tx, m.id, reason);
    return { go: false, status: 'approved', requeue: true, reason };
  }
  await tx.updateTable('messages').set({ send_attempted_at: at.now, handover_at: null }).where('id', '=', m.id).execute();
  return {
    go: true,
    message: {
      id: m.id,
      organizationId: m.organization_id,
      mailboxId: m.mailbox_id!,
      contactId: m.contact_id,
      toAddress: m.to_address,
      sequenceStep: m.step_id !== null,
      claimedAt: at.now,
    },
  };
}

/**
 * Whether the person's own address may be e-mailed now, as its check and the campaign have it
 * (sendTimeAddressVerdict): null to go; skip for an invalid or a not-allowed risky address; else a
 * wait for a check not yet made. A message to another address (the company's generic one) is not
 * the contact's check's to decide.
 */
async function addressBlock(
  tx: Tx,
  enrollmentId: string,
  contactId: string,
  toAddress: string | null,
  now: Date,
): Promise<{ skip: boolean; reason: string } | null> {
  const row = await tx
    .selectFrom('enrollments')
    .innerJoin('campaigns', 'campaigns.id', 'enrollments.campaign_id')
    .innerJoin('contacts', 'contacts.id', 'enrollments.contact_id')
    .select(['contacts.email', 'contacts.email_status', 'contacts.email_checked_at', 'campaigns.allow_risky', 'enrollments.created_at'])
    .where('enrollments.id', '=', enrollmentId)
    .where('contacts.id', '=', contactId)
    .executeTakeFirst();
  if (!row?.email || !toAddress || row.email.toLowerCase() !== toAddress.toLowerCase()) return null;
  const verdict = sendTimeAddressVerdict(
    { status: row.email_status as EmailStatus, checked: row.email_checked_at !== null, allowRisky: row.allow_risky },
    new Date(row.created_at),
    now,
  );
  if (verdict.go) return null;
  if ('skip' in verdict) return { skip: true, reason: `${verdict.skip}: the address's check found it ${row.email_status}` };
  return { skip: false, reason: `the address is being checked: waiting up to ${Math.ceil(verdict.waitMs / 60_000)} more minutes` };
}

/**
 * Why the bulk-sender rules hold this send now, or null: the sending domain's count to the provider
 * today (UTC) reached the hold threshold and the mailbox's newest health check does not pass SPF, DKIM
 * and DMARC. Sends already handed over but not yet recorded are not in the count, so concurrent sends
 * at the threshold can pass it by as many.
 */
async function bulkSenderBlock(tx: Tx, organizationId: string, mailboxId: string, key: SenderKey, now: Date): Promise<string | null> {
  if (!countsTowardThresholds(key.provider)) return null;
  const sentToday = await sentOnDay(tx, organizationId, { ...key, day: utcDay(now) });
  // Below the threshold nothing holds, aligned or not: the health check is read only at it.
  if (bulkSenderHold({ ...key, sentToday, aligned: false, now }) === null) return null;
  const aligned = await mailboxPassesBulkSenderAuth(tx, mailboxId);
  return bulkSenderHold({ ...key, sentToday, aligned, now });
}

/** bulkSenderBlock for the mailbox a booking chose, its organizational domain read from its address. */
async function bookingBulkBlock(tx: Tx, organizationId: string, mailboxId: string, provider: ReceivingProvider, now: Date): Promise<string | null> {
  const box = await tx.selectFrom('mailboxes').select('address').where('id', '=', mailboxId).executeTakeFirst();
  return box ? bulkSenderBlock(tx, organizationId, mailboxId, { orgDomain: organizationalDomain(box.address), provider }, now) : null;
}

/** The claim this attempt held was taken over by a later attempt (this one was given up for dead): it must not send. */
export class ClaimLostError extends Error {
  override readonly name = 'ClaimLostError';
}

/**
 * Records, right before the envelope and DATA, that this attempt hands the message to the server; only
 * while its claim is still the message's (a later attempt that took the claim over wins, and this one
 * must not send). From here on a crash leaves the delivery unknown (flagged), never sent twice.
 */
export async function markHandover(tx: Tx, messageId: string, claimedAt: Date): Promise<void> {
  const r = await tx
    .updateTable('messages')
    .set({ handover_at: sql`now()` })
    .where('id', '=', messageId)
    .where('status', '=', 'scheduled')
    .where('send_attempted_at', '=', claimedAt)
    .where('handover_at', 'is', null)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) throw new ClaimLostError('the send was taken over by a later attempt; this one sends nothing');
}

/** sendTimeCheck over the message's reservation and what the mailbox has sent (or is sending), this message excluded. */
async function sendMomentVerdict(tx: Tx, m: { id: string; organization_id: string; mailbox_id: string | null }, now: Date, graceSeconds: number) {
  const slot = await tx
    .selectFrom('send_slots')
    .select(['slot_at', sql<string>`local_day::text`.as('local_day')])
    .where('organization_id', '=', m.organization_id)
    .where('message_id', '=', m.id)
    .executeTakeFirst();
  if (!slot) return { go: false as const, reason: 'it holds no send slot' };
  // The recipient's window and holidays when the campaign sends in the recipient's time (the cap day stays the mailbox's).
  const policy = await messageSendPolicy(tx, { messageId: m.id, mailboxId: m.mailbox_id!, now });
  if (!policy) return { go: false as const, reason: 'the mailbox no longer exists' };
  const state = await sql<{ gone: number; last: Date | null }>`
    SELECT (SELECT count(*)::int FROM send_slots s JOIN messages x ON x.organization_id = s.organization_id AND x.id = s.message_id
             WHERE s.organization_id = ${m.organization_id} AND s.mailbox_id = ${m.mailbox_id} AND s.local_day = ${slot.local_day}::date
               AND s.message_id <> ${m.id} AND (x.sent_at IS NOT NULL OR x.send_attempted_at IS NOT NULL)) AS gone,
           GREATEST(
             (SELECT max(sent_at) FROM messages
               WHERE organization_id = ${m.organization_id} AND mailbox_id = ${m.mailbox_id} AND id <> ${m.id} AND sent_at IS NOT NULL),
             (SELECT max(send_attempted_at) FROM messages
               WHERE organization_id = ${m.organization_id} AND mailbox_id = ${m.mailbox_id} AND id <> ${m.id} AND send_attempted_at IS NOT NULL)) AS last`.execute(
    tx,
  );
  const row = state.rows[0]!;
  return sendTimeCheck({ now, slotAt: slot.slot_at, slotLocalDay: slot.local_day, graceSeconds }, policy, { goneOutOnDay: row.gone, lastSendAt: row.last });
}

/**
 * A setup error holds the send (M4): the message is `approved` again with the reason, its slot and
 * claim given back (nothing was handed over). With a mailbox, the mailbox is held too
 * (send_hold_reason, shown in last_error) until its SMTP settings or secret change; without, the
 * reason goes to the mailbox's last_error only (organization settings: the run looks again later).
 * Fenced on the attempt's claim (`claimedAt`; null when the attempt failed before it claimed, and then
 * only while no attempt handed the message over): an attempt given up for dead whose claim a later
 * attempt took over changes nothing, so the live attempt's send is neither undone nor booked again.
 */
export async function holdSend(tx: Tx, messageId: string, r: { reason: string; mailboxId?: string; claimedAt?: Date | null }): Promise<void> {
  let q = tx
    .updateTable('messages')
    .set({ status: 'approved', scheduled_for: null, send_attempted_at: null, error: r.reason, updated_at: sql`now()` })
    .where('id', '=', messageId)
    .where('status', '=', 'scheduled');
  // With this attempt's claim: only that claim (the server refused it, even after the hand-over: nothing
  // was delivered). Without one: only while no other attempt handed the message over.
  q = r.claimedAt ? q.where('send_attempted_at', '=', r.claimedAt) : q.where('handover_at', 'is', null);
  const held = await q.returning('mailbox_id').executeTakeFirst();
  if (!held) return;
  await releaseSendSlot(tx, messageId);
  const mailboxId = r.mailboxId ?? held.mailbox_id;
  if (!mailboxId) return;
  await tx
    .updateTable('mailboxes')
    .set({ last_error: r.reason.slice(0, 1000), ...(r.mailboxId ? { send_hold_reason: r.reason.slice(0, 1000) } : {}), updated_at: sql`now()` })
    .where('id', '=', mailboxId)
    .execute();
}

/** The gate closed between scheduling and sending: the message is skipped with the gate's reasons; its slot is given back. */
export async function skipBlocked(tx: Tx, messageId: string, reason: string): Promise<void> {
  await releaseSendSlot(tx, messageId);
  await transitionMessage(tx, messageId, 'skip', MESSAGE_TRANSITIONS.skip.to, { error: reason, send_attempted_at: null });
}

/**
 * A transient failure (a 4xx, or no connection): nothing was delivered, the next attempt may send. Only
 * this attempt's own claim (`claimedAt`) is released: a claim a later attempt took over is that
 * attempt's to keep.
 */
export async function releaseClaim(tx: Tx, messageId: string, error: string, claimedAt: Date): Promise<void> {
  await tx
    .updateTable('messages')
    .set({ send_attempted_at: null, error, updated_at: sql`now()` })
    .where('id', '=', messageId)
    .where('status', '=', 'scheduled')
    .where('send_attempted_at', '=', claimedAt)
    .execute();
}

/** The thread an outbound e-mail belongs to: its enrollment's, made with the first e-mail. */
async function threadFor(
  tx: Tx,
  m: { organization_id: string; contact_id: string | null; enrollment_id: string | null; mailbox_id: string | null; subject: string | null },
) {
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

/**
 * The server took the message (250): it is `sent`, whatever happened meanwhile (M3). From `scheduled`,
 * and also from `skipped` with send_attempted_at (an unsubscribe or a withdrawn reminder that landed
 * during the SMTP conversation) and from a flagged `failed` (a retry flagged it while this slow first
 * attempt went on): 250 is the truth. The addresses are not written back for an erased contact (M6).
 * Answers the status it was recorded from (null: it was not, the message being gone or sent already).
 */
export async function recordSent(
  tx: Tx,
  r: { messageId: string; providerMessageId: string; fromAddress: string; toAddress: string; volume?: VolumeKey | null },
): Promise<string | null> {
  const m = await tx
    .selectFrom('messages')
    .leftJoin('contacts', (j) => j.onRef('contacts.organization_id', '=', 'messages.organization_id').onRef('contacts.id', '=', 'messages.contact_id'))
    .select([
      'messages.organization_id',
      'messages.contact_id',
      'messages.enrollment_id',
      'messages.mailbox_id',
      'messages.subject',
      'messages.thread_id',
      'messages.status',
      'contacts.erased_at',
    ])
    .where('messages.id', '=', r.messageId)
    .forUpdate('messages')
    .executeTakeFirstOrThrow();
  const erased = m.erased_at !== null && m.erased_at !== undefined;
  const threadId = m.thread_id ?? (erased ? null : await threadFor(tx, m));
  const recorded = await tx
    .updateTable('messages')
    .set({
      status: MESSAGE_TRANSITIONS.send.to,
      sent_at: sql`now()`,
      provider_message_id: r.providerMessageId,
      ...(erased ? {} : { from_address: r.fromAddress, to_address: r.toAddress }),
      thread_id: threadId,
      needs_check: false,
      error: null,
      updated_at: sql`now()`,
    })
    .where('id', '=', r.messageId)
    .where((eb) =>
      eb.or([
        eb('status', 'in', messageFrom('send')),
        eb.and([eb('status', '=', 'skipped'), eb('send_attempted_at', 'is not', null)]),
        eb.and([eb('status', '=', 'failed'), eb('needs_check', '=', true)]),
      ]),
    )
    .executeTakeFirst();
  if (Number(recorded.numUpdatedRows) !== 1) return null;
  // Counted here only, where the message first becomes sent: a retry of the record finds it sent and counts nothing.
  if (r.volume) await countSent(tx, m.organization_id, r.volume);
  await recordEvent(tx, 'message.sent', { organizationId: m.organization_id, id: r.messageId }, getMessage);
  return m.status;
}

/**
 * The server refused the message for good: `failed` with its text. A refused recipient (a hard
 * bounce) suppresses the address (reason bounce) and stops the contact's sequences; answers the
 * stopped enrollments.
 */
export async function recordSendFailure(
  tx: Tx,
  r: {
    messageId: string;
    organizationId: string;
    error: string;
    hardBounce: boolean;
    softBounceReason?: BounceReason | null;
    address: string;
    contactId: string | null;
    flagged?: boolean;
  },
): Promise<string[]> {
  // Reported only when this failed it: a message skipped meanwhile (an unsubscribe during the SMTP
  // conversation) or already flagged failed by a later claim stays as it is, and so says nothing.
  if (await transitionMessage(tx, r.messageId, 'fail', MESSAGE_TRANSITIONS.fail.to, { error: r.error, needs_check: r.flagged ?? false })) {
    await recordEvent(tx, 'message.failed', { organizationId: r.organizationId, id: r.messageId }, getMessage);
  }
  if (!r.hardBounce) {
    // A refusal that is no hard bounce (a block, a full mailbox) counts like a reported soft bounce.
    if (r.softBounceReason) await recordSoftBounce(tx, r.messageId, r.softBounceReason);
    return [];
  }
  // A refused recipient is a hard bounce of the mailbox (migration 0020): counted, and judged at once (protection).
  const bounced = await tx
    .updateTable('messages')
    .set({ bounced_at: sql`now()` })
    .where('id', '=', r.messageId)
    .returning(['mailbox_id'])
    .executeTakeFirst();
  if (bounced?.mailbox_id) await judgeMailboxProtection(tx, bounced.mailbox_id, 'bounce');
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

/** Who a message goes to, as the send needs it: the contact's addresses and name, its company's, the locale, where its data came from (the notice). */
export function sendRecipient(tx: Tx, contactId: string) {
  return tx
    .selectFrom('contacts')
    .innerJoin('companies', 'companies.id', 'contacts.company_id')
    .select([
      'contacts.full_name',
      'contacts.email',
      'contacts.phone',
      'contacts.source_description',
      'contacts.data_source',
      // Which provider found the address, when enrichment gave a known person one (the notice names it).
      sql<string | null>`contacts.found_by -> 'email' ->> 'provider'`.as('address_found_by'),
      'companies.name as company_name',
      'companies.domain as company_domain',
      'companies.generic_email',
      'companies.phone as company_phone',
      'companies.locale',
    ])
    .where('contacts.id', '=', contactId)
    .executeTakeFirst();
}

/** What goes out and from where: the message's words and who wrote them, the mailbox's address, domain, SMTP server and sealed secret. */
export async function sendContent(tx: Tx, messageId: string, mailboxId: string) {
  const [message, mailbox] = await Promise.all([
    tx.selectFrom('messages').select(['subject', 'body', 'model', 'in_reply_to', 'references_ids']).where('id', '=', messageId).executeTakeFirstOrThrow(),
    tx
      .selectFrom('mailboxes')
      .select(['address', 'display_name', 'domain', 'smtp_config', 'secret_ciphertext', 'auth_type', 'auth_provider'])
      .where('id', '=', mailboxId)
      .executeTakeFirstOrThrow(),
  ]);
  return { message, mailbox };
}
