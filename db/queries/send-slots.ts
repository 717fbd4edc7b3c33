import { sql } from 'kysely';
import { DateTime } from 'luxon';
import { localDay } from '../../domain/sending/business-days';
import { publicHolidays } from '../../domain/sending/holidays';
import { nextSendSlot, SendPolicy } from '../../domain/sending/slots';
import { lockFor } from '../locks';
import type { Tx } from '../tenancy';

/** The mailbox does not exist or is not visible to the caller. */
export class MailboxNotFoundError extends Error {}
/** The message already holds a reservation on another mailbox (release it first). */
export class SlotOnOtherMailboxError extends Error {}

export interface SlotReservation {
  slotAt: Date;
  /** The mailbox's local date (YYYY-MM-DD) the reservation counts against. */
  localDay: string;
  /** false when the message already held this reservation (a repeated call). */
  created: boolean;
}

/**
 * A mailbox's sending calendar and limits as the pure functions take them, with its public holidays
 * from the year of `now` to three years on as a sorted array of local dates: plain JSON, so an activity
 * can return it to a workflow, which then calls addBusinessDays / nextSendSlot deterministically.
 */
export async function sendPolicyOf(tx: Tx, mailboxId: string, now: Date): Promise<SendPolicy | undefined> {
  const m = await tx
    .selectFrom('mailboxes')
    .select([
      'timezone',
      sql<string>`to_char(window_start, 'HH24:MI')`.as('window_start'),
      sql<string>`to_char(window_end, 'HH24:MI')`.as('window_end'),
      'sending_days',
      'holiday_country',
      'holiday_region',
      'daily_cap',
      'min_gap_seconds',
    ])
    .where('id', '=', mailboxId)
    .executeTakeFirst();
  if (!m) return undefined;
  const year = DateTime.fromJSDate(now, { zone: m.timezone }).year;
  return {
    timezone: m.timezone,
    window: { start: m.window_start, end: m.window_end },
    sendingDays: m.sending_days,
    holidays: [...publicHolidays(m.holiday_country, m.holiday_region, { from: year, to: year + 3 })].sort(),
    dailyCap: m.daily_cap,
    minGapSeconds: m.min_gap_seconds,
  };
}

async function existingReservation(tx: Tx, organizationId: string, messageId: string) {
  return tx
    .selectFrom('send_slots')
    .select(['mailbox_id', 'slot_at', sql<string>`local_day::text`.as('local_day')])
    .where('organization_id', '=', organizationId)
    .where('message_id', '=', messageId)
    .executeTakeFirst();
}

/**
 * Books the next send slot of a mailbox for a message, in the caller's transaction (the same one
 * that moves the message to `scheduled`). Reservations of one mailbox take turns: a transaction-scoped
 * advisory lock on `send_slots:<mailboxId>` (db/locks.ts), held until the caller commits or rolls
 * back, so every worker reads the reservations the previous one committed. The slot is
 * nextSendSlot's (domain/sending/slots.ts) over the mailbox's reservations per local day and its
 * latest reservation or send. Idempotent per message: a repeated call answers the reservation it
 * already has (created: false). A message whose transaction rolls back leaves no reservation.
 */
export async function reserveSendSlot(
  tx: Tx,
  r: { organizationId: string; mailboxId: string; messageId: string; now: Date },
): Promise<SlotReservation> {
  await lockFor(tx, `send_slots:${r.mailboxId}`);
  const held = await existingReservation(tx, r.organizationId, r.messageId);
  if (held) {
    if (held.mailbox_id !== r.mailboxId) throw new SlotOnOtherMailboxError(`message ${r.messageId} holds a slot of mailbox ${held.mailbox_id}`);
    return { slotAt: held.slot_at, localDay: held.local_day, created: false };
  }
  const policy = await sendPolicyOf(tx, r.mailboxId, r.now);
  if (!policy) throw new MailboxNotFoundError(`mailbox ${r.mailboxId} does not exist or is not visible`);

  // Reservations from the day before today (local) on: earlier days cannot take a new slot.
  const fromDay = DateTime.fromJSDate(r.now, { zone: policy.timezone }).minus({ days: 1 }).toISODate()!;
  // A reservation whose message was skipped before it went out (a stop, an unsubscribe) frees its place.
  const perDay = await tx
    .selectFrom('send_slots')
    .innerJoin('messages', 'messages.id', 'send_slots.message_id')
    .select([sql<string>`send_slots.local_day::text`.as('day'), sql<number>`count(*)::int`.as('n')])
    .where('send_slots.organization_id', '=', r.organizationId)
    .where('send_slots.mailbox_id', '=', r.mailboxId)
    .where('send_slots.local_day', '>=', sql<Date>`${fromDay}::date`)
    .where('messages.status', '<>', 'skipped')
    .groupBy('send_slots.local_day')
    .execute();
  // The latest reservation or send (or claimed send: the claim's gap counts from it, sendTimeCheck) so far, and the latest of all (a reservation may lie ahead: a
  // message booked for the next opening, before the window was widened).
  const last = await sql<{ past: Date | null; any: Date | null }>`
    SELECT GREATEST(
             (SELECT max(slot_at) FROM send_slots WHERE organization_id = ${r.organizationId} AND mailbox_id = ${r.mailboxId} AND slot_at <= ${r.now}),
             (SELECT GREATEST(max(sent_at), max(send_attempted_at)) FROM messages WHERE organization_id = ${r.organizationId} AND mailbox_id = ${r.mailboxId} AND (sent_at IS NOT NULL OR send_attempted_at IS NOT NULL))) AS past,
           GREATEST(
             (SELECT max(slot_at) FROM send_slots WHERE organization_id = ${r.organizationId} AND mailbox_id = ${r.mailboxId}),
             (SELECT GREATEST(max(sent_at), max(send_attempted_at)) FROM messages WHERE organization_id = ${r.organizationId} AND mailbox_id = ${r.mailboxId} AND (sent_at IS NOT NULL OR send_attempted_at IS NOT NULL))) AS any`.execute(tx);
  const state = (lastSlotAt: Date | null) => ({ reservationsByLocalDay: new Map(perDay.map((d) => [d.day, d.n])), lastSlotAt });
  // The earliest slot after what has gone out; if a reservation ahead lies within the gap of it, after the latest one.
  let slotAt = nextSendSlot(r.now, policy, state(last.rows[0]?.past ?? null));
  const gapMs = policy.minGapSeconds * 1000;
  const clash = await tx
    .selectFrom('send_slots')
    .select('id')
    .where('organization_id', '=', r.organizationId)
    .where('mailbox_id', '=', r.mailboxId)
    .where('slot_at', '>', new Date(slotAt.getTime() - gapMs))
    .where('slot_at', '<', new Date(slotAt.getTime() + Math.max(gapMs, 1)))
    .limit(1)
    .executeTakeFirst();
  if (clash) slotAt = nextSendSlot(r.now, policy, state(last.rows[0]?.any ?? null));
  const day = localDay(slotAt, policy.timezone);
  await tx
    .insertInto('send_slots')
    .values({ organization_id: r.organizationId, mailbox_id: r.mailboxId, message_id: r.messageId, slot_at: slotAt, local_day: sql<Date>`${day}::date` })
    .execute();
  return { slotAt, localDay: day, created: true };
}

/** Gives a message's slot back (a message that will not be sent); true when it held one. Its day may then take another. */
export async function releaseSendSlot(tx: Tx, messageId: string): Promise<boolean> {
  const gone = await tx.deleteFrom('send_slots').where('message_id', '=', messageId).executeTakeFirst();
  return Number(gone.numDeletedRows) > 0;
}
