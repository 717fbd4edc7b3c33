import { DateTime } from 'luxon';
import { isBusinessDay, MAX_SEARCH_DAYS, minutesOf, SendingCalendar } from './business-days';

/**
 * The calendar plus the mailbox's limits: at most dailyCap sends a local day, at least minGapSeconds
 * apart. The window, the sending days and the holidays are read in `timezone`; the day the cap counts
 * is the local day in `capTimezone` (absent: `timezone`). They differ when a campaign sends in the
 * recipient's time (domain/sending/recipient-time.ts recipientPolicy): the window is the recipient's,
 * the cap stays the mailbox's own day.
 */
export interface SendPolicy extends SendingCalendar {
  dailyCap: number;
  minGapSeconds: number;
  capTimezone?: string;
}

/** The zone whose local day the daily cap counts (and send_slots.local_day records). */
export const capZoneOf = (policy: SendPolicy): string => policy.capTimezone ?? policy.timezone;

/** What is already booked for the mailbox: reservations per local day (YYYY-MM-DD), and the latest send or reservation. */
export interface SlotState {
  reservationsByLocalDay: ReadonlyMap<string, number> | Readonly<Record<string, number>>;
  lastSlotAt: Date | null;
}

function reservedOn(state: SlotState, day: string): number {
  const r = state.reservationsByLocalDay;
  return (r instanceof Map ? r.get(day) : (r as Record<string, number>)[day]) ?? 0;
}

/**
 * A local date at a minute of the day in the zone; 1440 is the next day's midnight. A time inside a
 * DST gap moves forward by the gap; a time that happens twice (the autumn change) is its later
 * occurrence, or with `earliest` its first.
 */
export function at(day: DateTime, minutes: number, zone: string, earliest = false): DateTime {
  if (minutes >= 24 * 60) return day.plus({ days: 1 }).startOf('day');
  const t = DateTime.fromObject({ year: day.year, month: day.month, day: day.day, hour: Math.floor(minutes / 60), minute: minutes % 60 }, { zone });
  if (!earliest) return t;
  const before = t.minus({ minutes: Math.abs(t.offset - t.minus({ hours: 3 }).offset) });
  return before < t && before.hour === t.hour && before.minute === t.minute && before.hasSame(t, 'day') ? before : t;
}

/**
 * The earliest instant >= now at which the mailbox may send: inside the day's window in the policy's
 * time zone, on a sending day that is not a holiday, at least minGapSeconds after the previous send
 * or reservation, on a cap day (local day in capZoneOf(policy)) with fewer than dailyCap
 * reservations (a full cap day moves on to the next cap day's start, then to the next window
 * opening). Pure and deterministic: the same inputs give the same slot. With one zone for both this
 * is: a full day moves on to the next business day's window opening.
 */
export function nextSendSlot(now: Date, policy: SendPolicy, state: SlotState): Date {
  const start = minutesOf(policy.window.start);
  const end = minutesOf(policy.window.end);
  if (start === null || end === null || start >= 24 * 60 || end <= start)
    throw new RangeError(`invalid sending window ${policy.window.start}-${policy.window.end}`);
  const zone = policy.timezone;
  let candidate: DateTime = DateTime.fromJSDate(now, { zone });
  if (!candidate.isValid) throw new RangeError(`unknown time zone ${zone}`);
  if (state.lastSlotAt) {
    const afterGap = DateTime.fromJSDate(state.lastSlotAt, { zone }).plus({ seconds: policy.minGapSeconds });
    if (afterGap > candidate) candidate = afterGap;
  }
  const capZone = capZoneOf(policy);
  if (!DateTime.local().setZone(capZone).isValid) throw new RangeError(`unknown time zone ${capZone}`);
  // Each turn moves the candidate past a closed window or a full cap day: at most two turns a day.
  for (let i = 0; i < 2 * MAX_SEARCH_DAYS + 2; i++) {
    const day = candidate.startOf('day');
    const opens = at(day, start, zone, true);
    const closes = at(day, end, zone);
    if (!isBusinessDay(policy, day) || candidate >= closes) {
      candidate = day.plus({ days: 1 }).startOf('day');
      continue;
    }
    if (candidate < opens) candidate = opens;
    const capDay = candidate.setZone(capZone).startOf('day');
    if (reservedOn(state, capDay.toISODate()!) >= policy.dailyCap) {
      candidate = capDay.plus({ days: 1 }).startOf('day').setZone(zone);
      continue;
    }
    return candidate.toJSDate();
  }
  throw new RangeError('no send slot within three years: the calendar has no business day');
}
