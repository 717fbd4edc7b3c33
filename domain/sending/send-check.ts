import { DateTime } from 'luxon';
import { isBusinessDay, minutesOf } from './business-days';
import { at, capZoneOf, SendPolicy } from './slots';

/**
 * The last look at the moment of sending (db/queries/sending.ts claimSend, under the mailbox's
 * advisory lock): a booked slot is only a plan, and a late timer (a worker or Temporal outage), a
 * retry or a changed mailbox must not send outside what the plan promised. Pure: now, the slot and
 * what has gone out are inputs.
 */
export interface SendMoment {
  now: Date;
  /** The booked slot and the cap day (YYYY-MM-DD, the mailbox's local day: capZoneOf) its reservation counts against. */
  slotAt: Date;
  slotLocalDay: string;
  /** How far from its slot a send may still go (SEND_SLOT_GRACE_SECONDS). */
  graceSeconds: number;
}

/** What has gone out of the mailbox, this message excluded. */
export interface SentState {
  /** Messages whose reservation counts against slotLocalDay and that went out (sent, or claimed: send_attempted_at). */
  goneOutOnDay: number;
  /** The latest send or claim of the mailbox. */
  lastSendAt: Date | null;
}

export type SendVerdict = { go: true } | { go: false; reason: string };

/**
 * Whether a message may go out now: within graceSeconds of its slot, on its reservation's cap day
 * (the local day in capZoneOf(policy)), the day in the policy's zone (the recipient's, when the
 * campaign sends in the recipient's time) a sending day and not a holiday, inside that day's window (the same DST reading as
 * nextSendSlot), fewer than dailyCap sends of that day gone out, and at least minGapSeconds after the
 * last send. Otherwise the reason, and the caller books a fresh slot.
 */
export function sendTimeCheck(moment: SendMoment, policy: SendPolicy, state: SentState): SendVerdict {
  const { now, slotAt, graceSeconds } = moment;
  const zone = policy.timezone;
  const local = DateTime.fromJSDate(now, { zone });
  if (!local.isValid) return { go: false, reason: `unknown time zone ${zone}` };
  const driftMs = now.getTime() - slotAt.getTime();
  if (Math.abs(driftMs) > graceSeconds * 1000) {
    return { go: false, reason: driftMs > 0 ? `the send slot passed ${Math.round(driftMs / 1000)} s ago` : 'before its send slot' };
  }
  const day = local.startOf('day');
  const capDay = local.setZone(capZoneOf(policy));
  if (!capDay.isValid) return { go: false, reason: `unknown time zone ${capZoneOf(policy)}` };
  if (capDay.toISODate() !== moment.slotLocalDay) return { go: false, reason: `not on the local day the slot was booked for (${moment.slotLocalDay})` };
  if (!isBusinessDay(policy, day)) return { go: false, reason: 'not a sending day (or a public holiday)' };
  const start = minutesOf(policy.window.start);
  const end = minutesOf(policy.window.end);
  if (start === null || end === null || end <= start) return { go: false, reason: `invalid sending window ${policy.window.start}-${policy.window.end}` };
  const opens = at(day, start, zone, true);
  const closes = at(day, end, zone);
  if (local < opens || local >= closes || closes <= opens)
    return { go: false, reason: `outside the sending window ${policy.window.start}-${policy.window.end}` };
  if (state.goneOutOnDay >= policy.dailyCap) return { go: false, reason: `the daily cap of ${policy.dailyCap} is reached` };
  // No gap asked, none checked: another worker's claim may carry a clock a little ahead of this one.
  if (policy.minGapSeconds > 0 && state.lastSendAt && now.getTime() - state.lastSendAt.getTime() < policy.minGapSeconds * 1000) {
    return { go: false, reason: `less than ${policy.minGapSeconds} s after the last send` };
  }
  return { go: true };
}

/** The close of the sending window on a slot's local day (the end of the window the slot lies in). */
export function windowCloseOf(slotAt: Date, policy: SendPolicy): Date {
  const day = DateTime.fromJSDate(slotAt, { zone: policy.timezone }).startOf('day');
  const end = minutesOf(policy.window.end);
  return end === null ? slotAt : at(day, end, policy.timezone).toJSDate();
}
