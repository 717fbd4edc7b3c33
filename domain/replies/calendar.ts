import { DateTime } from 'luxon';
import { addBusinessDays, isBusinessDay, minutesOf, type SendingCalendar } from '../sending/business-days';
import type { OfferedSlot } from './types';

/** Business days an out-of-office notice without a return date holds the contact's sequence. */
export const DEFAULT_OOO_HOLD_BUSINESS_DAYS = 5;

/** The start of the sending window on a local date of the calendar. */
function windowStartOn(date: DateTime, calendar: SendingCalendar): Date {
  const minutes = minutesOf(calendar.window.start) ?? 9 * 60;
  return DateTime.fromObject(
    { year: date.year, month: date.month, day: date.day, hour: Math.floor(minutes / 60), minute: minutes % 60 },
    { zone: calendar.timezone },
  ).toJSDate();
}

/**
 * When an out-of-office hold ends: the start of the sending window on the mailbox's next business day
 * after the date the notice names (its sending days, less its holidays); without a date, that many
 * business days after it was received.
 */
export function outOfOfficeResumeAt(returnDate: string | null, receivedAt: Date, calendar: SendingCalendar, holdDays = DEFAULT_OOO_HOLD_BUSINESS_DAYS): Date {
  const from = returnDate ? DateTime.fromISO(returnDate, { zone: calendar.timezone }) : DateTime.fromJSDate(receivedAt, { zone: calendar.timezone });
  const next = addBusinessDays(from.startOf('day').toJSDate(), returnDate ? 1 : holdDays, calendar);
  return windowStartOn(DateTime.fromJSDate(next, { zone: calendar.timezone }), calendar);
}

/** The first offered slot after `now` that lies wholly in the mailbox's sending window on one of its business days (a time in the past is never accepted). */
export function firstSlotInWindow(slots: readonly OfferedSlot[], calendar: SendingCalendar, now: Date): OfferedSlot | null {
  const start = minutesOf(calendar.window.start) ?? 0;
  const end = minutesOf(calendar.window.end) ?? 24 * 60;
  for (const slot of slots) {
    const s = DateTime.fromISO(slot.start, { zone: calendar.timezone });
    if (!(s.toMillis() > now.getTime())) continue;
    const e = DateTime.fromISO(slot.end, { zone: calendar.timezone });
    const sMin = s.hour * 60 + s.minute;
    const eMin = e.hasSame(s, 'day') ? e.hour * 60 + e.minute : 24 * 60;
    if (isBusinessDay(calendar, s) && sMin >= start && eMin <= end) return slot;
  }
  return null;
}
