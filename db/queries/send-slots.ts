import { sql } from 'kysely';
import { DateTime } from 'luxon';
import { localDay } from '../../domain/sending/business-days';
import { publicHolidays } from '../../domain/sending/holidays';
import { capZoneOf, nextSendSlot, SendPolicy } from '../../domain/sending/slots';
import { recipientCountry, recipientPolicy, recipientZone, type SendIn } from '../../domain/sending/recipient-time';
import { lockFor } from '../locks';
import { capToday, rampOf } from './mailboxes';
import { gapSeconds } from '../../domain/sending/pools';
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
      'ramp_start_cap',
      'ramp_daily_increase',
      sql<string | null>`to_char(ramp_starts_on, 'YYYY-MM-DD')`.as('ramp_starts_on'),
    ])
    .where('id', '=', mailboxId)
    .executeTakeFirst();
  if (!m) return undefined;
  // The cap in force (ramp-up, migration 0020): today's, in the mailbox's zone, for every day searched.
  const cap = capToday(m, rampOf(m), now);
  const year = DateTime.fromJSDate(now, { zone: m.timezone }).year;
  return {
    timezone: m.timezone,
    window: { start: m.window_start, end: m.window_end },
    sendingDays: m.sending_days,
    holidays: [...publicHolidays(m.holiday_country, m.holiday_region, { from: year, to: year + 3 })].sort(),
    dailyCap: cap,
    minGapSeconds: m.min_gap_seconds,
  };
}

/**
 * Sending in the recipient's time: the policy a campaign's send to a contact
 * is placed by. With the campaign's send_in "recipient", the mailbox's window and sending days in the
 * recipient's zone (the contact's timezone, else the company's, else its country's one zone, else the
 * mailbox's) and the public holidays of the recipient's country (the company's, else the zone's one
 * country); the cap day stays the mailbox's (capTimezone). Anything else (send_in "mailbox", no
 * campaign, no contact): the mailbox's own policy.
 */
export async function recipientSendPolicy(
  tx: Tx,
  r: { mailboxId: string; campaignId: string | null; contactId: string | null; now: Date },
): Promise<SendPolicy | undefined> {
  if (!r.campaignId || !r.contactId) return sendPolicyOf(tx, r.mailboxId, r.now);
  const row = await tx
    .selectFrom('campaigns')
    .leftJoin('contacts', (j) => j.on('contacts.id', '=', r.contactId!))
    .leftJoin('companies', 'companies.id', 'contacts.company_id')
    .select(['campaigns.send_in', 'contacts.timezone as contact_timezone', 'companies.timezone as company_timezone', 'companies.country_code'])
    .where('campaigns.id', '=', r.campaignId)
    .executeTakeFirst();
  return policyFor(tx, r.mailboxId, row, r.now);
}

type PlaceRow = { send_in: string | null; contact_timezone: string | null; company_timezone: string | null; country_code: string | null };

async function policyFor(tx: Tx, mailboxId: string, row: PlaceRow | undefined, now: Date): Promise<SendPolicy | undefined> {
  const mailbox = await sendPolicyOf(tx, mailboxId, now);
  if (!mailbox || row?.send_in !== 'recipient') return mailbox;
  const where = { contactTimezone: row.contact_timezone, companyTimezone: row.company_timezone, companyCountry: row.country_code };
  const { zone } = recipientZone(where, mailbox.timezone);
  const country = recipientCountry(where, zone);
  const year = DateTime.fromJSDate(now, { zone }).year;
  const holidays = country ? [...publicHolidays(country, null, { from: year, to: year + 3 })].sort() : null;
  return recipientPolicy(mailbox, 'recipient' satisfies SendIn, { zone, holidays });
}

/** The send policy of a message: its campaign's send_in over its contact (recipientSendPolicy), on the given mailbox; one lookup. */
export async function messageSendPolicy(tx: Tx, r: { messageId: string; mailboxId: string; now: Date }): Promise<SendPolicy | undefined> {
  const row = await tx
    .selectFrom('messages')
    .leftJoin('campaigns', 'campaigns.id', 'messages.campaign_id')
    .leftJoin('contacts', 'contacts.id', 'messages.contact_id')
    .leftJoin('companies', 'companies.id', 'contacts.company_id')
    .select(['campaigns.send_in', 'contacts.timezone as contact_timezone', 'companies.timezone as company_timezone', 'companies.country_code'])
    .where('messages.id', '=', r.messageId)
    .executeTakeFirst();
  return policyFor(tx, r.mailboxId, row, r.now);
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
  r: { organizationId: string; mailboxId: string; messageId: string; now: Date; random?: number },
): Promise<SlotReservation> {
  await lockFor(tx, `send_slots:${r.mailboxId}`);
  const held = await existingReservation(tx, r.organizationId, r.messageId);
  if (held) {
    if (held.mailbox_id !== r.mailboxId) throw new SlotOnOtherMailboxError(`message ${r.messageId} holds a slot of mailbox ${held.mailbox_id}`);
    return { slotAt: held.slot_at, localDay: held.local_day, created: false };
  }
  // The message's policy: the recipient's window and holidays when its campaign sends in the recipient's time; the cap day the mailbox's.
  const found = await messageSendPolicy(tx, { messageId: r.messageId, mailboxId: r.mailboxId, now: r.now });
  if (!found) throw new MailboxNotFoundError(`mailbox ${r.mailboxId} does not exist or is not visible`);
  // gapJitterSeconds (migration 0020): this booking's gap is minGap plus a random share of the jitter (drawn here, once per booking).
  const jitter = await tx.selectFrom('mailboxes').select('gap_jitter_seconds').where('id', '=', r.mailboxId).executeTakeFirst();
  const policy = { ...found, minGapSeconds: gapSeconds(found.minGapSeconds, jitter?.gap_jitter_seconds ?? 0, r.random ?? Math.random()) };

  // Reservations from the day before today (local) on: earlier days cannot take a new slot.
  const fromDay = DateTime.fromJSDate(r.now, { zone: capZoneOf(policy) })
    .minus({ days: 1 })
    .toISODate()!;
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
  // message booked for the next opening, before the window was widened). One max() per column, each the end of its partial
  // per-mailbox index (messages_mailbox_sent_idx, messages_mailbox_attempted_idx): an OR of the two would read the organization's messages.
  const last = await sql<{ past: Date | null; any: Date | null }>`
    SELECT GREATEST(
             (SELECT max(slot_at) FROM send_slots WHERE organization_id = ${r.organizationId} AND mailbox_id = ${r.mailboxId} AND slot_at <= ${r.now}),
             (SELECT max(sent_at) FROM messages WHERE organization_id = ${r.organizationId} AND mailbox_id = ${r.mailboxId} AND sent_at IS NOT NULL),
             (SELECT max(send_attempted_at) FROM messages WHERE organization_id = ${r.organizationId} AND mailbox_id = ${r.mailboxId} AND send_attempted_at IS NOT NULL)) AS past,
           GREATEST(
             (SELECT max(slot_at) FROM send_slots WHERE organization_id = ${r.organizationId} AND mailbox_id = ${r.mailboxId}),
             (SELECT max(sent_at) FROM messages WHERE organization_id = ${r.organizationId} AND mailbox_id = ${r.mailboxId} AND sent_at IS NOT NULL),
             (SELECT max(send_attempted_at) FROM messages WHERE organization_id = ${r.organizationId} AND mailbox_id = ${r.mailboxId} AND send_attempted_at IS NOT NULL)) AS any`.execute(
    tx,
  );
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
  const day = localDay(slotAt, capZoneOf(policy));
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
