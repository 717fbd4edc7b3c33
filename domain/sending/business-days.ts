import { DateTime } from 'luxon';

/**
 * A mailbox's sending calendar: its time zone, the daily window (local "HH:MM", the end may be
 * "24:00"), its sending days (ISO weekdays, Monday 1) and the local dates that are public holidays
 * (YYYY-MM-DD). Holidays are passed in, never looked up here, so that workflows can call these
 * functions deterministically (domain/sending/holidays.ts builds the set from date-holidays).
 */
export interface SendingCalendar {
  timezone: string;
  window: { start: string; end: string };
  sendingDays: readonly number[];
  holidays: ReadonlySet<string> | readonly string[];
}

const HH_MM = /^(?:([01]\d|2[0-3]):([0-5]\d)|(24):(00))$/;

/** Minutes after local midnight of "HH:MM" ("24:00" is 1440); null when it is not a time of day. */
export function minutesOf(hhmm: string): number | null {
  const m = HH_MM.exec(hhmm);
  if (!m) return null;
  return m[3] ? 24 * 60 : Number(m[1]) * 60 + Number(m[2]);
}

export function isHoliday(calendar: SendingCalendar, localDate: string): boolean {
  const h = calendar.holidays;
  return 'has' in h ? h.has(localDate) : h.includes(localDate);
}

/** Whether a local date (a luxon DateTime in the calendar's zone) is a sending day that is not a holiday. */
export function isBusinessDay(calendar: SendingCalendar, day: DateTime): boolean {
  return calendar.sendingDays.includes(day.weekday) && !isHoliday(calendar, day.toISODate()!);
}

/** The local date (YYYY-MM-DD) of an instant in a time zone. */
export function localDay(instant: Date, timezone: string): string {
  return DateTime.fromJSDate(instant, { zone: timezone }).toISODate()!;
}

/** At most this many days are searched for a business day (a calendar with none would loop forever). */
export const MAX_SEARCH_DAYS = 3 * 366;

/**
 * The instant n business days after start: the local date n sending days (less holidays) later, at
 * the same local time of day (a time that does not exist that day, inside a DST gap, moves forward
 * by the gap). n = 0 answers start. Days are counted in the calendar's time zone, so a delay across
 * a DST change keeps its wall-clock time.
 */
export function addBusinessDays(start: Date, n: number, calendar: SendingCalendar): Date {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`n must be a whole number >= 0, not ${n}`);
  const local = DateTime.fromJSDate(start, { zone: calendar.timezone });
  if (!local.isValid) throw new RangeError(`unknown time zone ${calendar.timezone}`);
  if (n === 0) return start;
  let day = local.startOf('day');
  let left = n;
  for (let i = 0; i < MAX_SEARCH_DAYS * Math.max(1, Math.ceil(n / 200)); i++) {
    day = day.plus({ days: 1 });
    if (isBusinessDay(calendar, day) && --left === 0) {
      return DateTime.fromObject(
        { year: day.year, month: day.month, day: day.day, hour: local.hour, minute: local.minute, second: local.second, millisecond: local.millisecond },
        { zone: calendar.timezone },
      ).toJSDate();
    }
  }
  throw new RangeError('the calendar has no business day within three years');
}
