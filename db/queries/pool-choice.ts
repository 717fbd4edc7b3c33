import { sql } from 'kysely';
import type { Tx } from '../tenancy';
import { lockFor, lockForAll, tryLockFirst } from '../locks';
import { capToday, rampOf } from './mailboxes';
import { choosePoolMailbox, poolChoiceHolds, poolTryOrder, type PoolCandidate } from '../../domain/sending/pools';

/**
 * The pool choice of a contact's first e-mail (one sender per contact), set-based: one query reads every pool mailbox's usability, today's cap in force and
 * what is booked against it, and its latest slot; the pure rules of domain/sending/pools.ts choose.
 *
 * The cap stays exact because every booking of a mailbox takes its advisory lock
 * (`send_slots:<id>`, reserveSendSlot) and counts under it. The pool is not locked as a whole: a
 * booker tries the best mailboxes in turn (poolTryOrder; pg_try_advisory_xact_lock, all in one
 * statement: tryLockFirst) and takes the first that is free, so concurrent bookers spread over the
 * pool; under that lock it reads the pool
 * again and keeps the mailbox only while it is still a right choice (poolChoiceHolds: nothing with
 * more capacity left today, in particular not a full mailbox while another has room). Otherwise it
 * rolls back to a savepoint taken before the lock (which gives the lock back) and chooses again. When
 * every best mailbox is locked it waits for the first, holding no other. After MAX_ATTEMPTS it falls
 * back to the serial way: the locks of the whole pool, then the choice.
 */

const MAX_ATTEMPTS = 8;

/**
 * Every mailbox of the campaign's pool visible to the caller, as the pool choice takes it. `usable`
 * is mailboxSendBlock's rule (db/queries/sending.ts) in SQL, a mailbox never checked counting as usable
 * (the booking then asks for its first check): not paused, no send hold, its newest health check
 * (if any) sendable. Today is the mailbox's local day of `now`.
 */
export async function poolCandidates(tx: Tx, campaignId: string, now: Date): Promise<PoolCandidate[]> {
  const { rows } = await sql<{
    id: string;
    usable: boolean;
    timezone: string;
    window_start: string;
    window_end: string;
    sending_days: number[];
    holiday_country: string;
    holiday_region: string | null;
    daily_cap: number;
    ramp_start_cap: number | null;
    ramp_daily_increase: number | null;
    ramp_starts_on: string | null;
    booked_today: number;
    last_slot_at: Date | null;
  }>`
    SELECT mb.id,
           (mb.status <> 'paused' AND mb.send_hold_reason IS NULL AND coalesce(h.sendable, true)) AS usable,
           mb.timezone, to_char(mb.window_start, 'HH24:MI') AS window_start, to_char(mb.window_end, 'HH24:MI') AS window_end,
           mb.sending_days, mb.holiday_country, mb.holiday_region, mb.daily_cap,
           mb.ramp_start_cap, mb.ramp_daily_increase, to_char(mb.ramp_starts_on, 'YYYY-MM-DD') AS ramp_starts_on,
           (SELECT count(*)::int FROM send_slots s JOIN messages m ON m.id = s.message_id
             WHERE s.organization_id = mb.organization_id AND s.mailbox_id = mb.id
               AND s.local_day = (${now}::timestamptz AT TIME ZONE mb.timezone)::date AND m.status <> 'skipped') AS booked_today,
           GREATEST((SELECT max(slot_at) FROM send_slots s WHERE s.organization_id = mb.organization_id AND s.mailbox_id = mb.id),
                    (SELECT max(sent_at) FROM messages m WHERE m.organization_id = mb.organization_id AND m.mailbox_id = mb.id AND m.sent_at IS NOT NULL)) AS last_slot_at
      FROM campaign_mailboxes cm
      JOIN mailboxes mb ON mb.id = cm.mailbox_id
      LEFT JOIN LATERAL (
        SELECT hc.sendable FROM mailbox_health_checks hc
         WHERE hc.organization_id = mb.organization_id AND hc.mailbox_id = mb.id
         ORDER BY hc.created_at DESC, hc.id LIMIT 1) h ON true
     WHERE cm.campaign_id = ${campaignId}
     ORDER BY cm.position`.execute(tx);
  return rows.map((r) => ({
    id: r.id,
    usable: r.usable,
    capToday: capToday(r, rampOf(r), now),
    bookedToday: r.booked_today,
    lastSlotAt: r.last_slot_at,
  }));
}

/**
 * Chooses the pool mailbox for a first e-mail and answers it with its booking lock held (until the
 * caller's transaction ends), or null when no mailbox of the pool may send.
 */
export async function lockPoolMailbox(tx: Tx, campaignId: string, now: Date): Promise<string | null> {
  let view = await poolCandidates(tx, campaignId, now);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const order = poolTryOrder(view);
    if (order.length === 0) return null;
    await sql`SAVEPOINT pool_choice`.execute(tx);
    // The first free one, in one statement; those before it are held by other bookers.
    const taken = await tryLockFirst(
      tx,
      order.map((id) => `send_slots:${id}`),
    );
    let chosen: string;
    let skipped: string[];
    if (taken >= 0) {
      chosen = order[taken]!;
      skipped = order.slice(0, taken);
    } else {
      // Every best mailbox is being booked: wait for the first (holding no other lock: no deadlock).
      chosen = order[0]!;
      skipped = [];
      await lockFor(tx, `send_slots:${chosen}`);
    }
    const fresh = await poolCandidates(tx, campaignId, now);
    if (poolChoiceHolds(chosen, fresh, skipped)) {
      await sql`RELEASE SAVEPOINT pool_choice`.execute(tx);
      return chosen;
    }
    await sql`ROLLBACK TO SAVEPOINT pool_choice`.execute(tx);
    view = fresh;
  }
  const locked = new Set(view.map((c) => c.id));
  await lockForAll(
    tx,
    [...locked].map((id) => `send_slots:${id}`),
  );
  return choosePoolMailbox((await poolCandidates(tx, campaignId, now)).filter((c) => locked.has(c.id)));
}
