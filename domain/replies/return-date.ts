import { DateTime } from 'luxon';
import { findDates } from './dates';
import type { ReplyLanguage } from './types';

/**
 * The date an out-of-office notice names as the end of the absence ("back on Monday 30 November",
 * "tot en met 27 november", "bis zum 27.11.", "jusqu'au 27 novembre"), as a date of the sender's
 * calendar (YYYY-MM-DD): the latest date in its first lines that is not before the day it was sent
 * (a notice often names the day the absence started first). Null when there is none.
 */
export function outOfOfficeReturnDate(text: string, language: ReplyLanguage, sentAt: Date, zone: string): string | null {
  const sentDay = DateTime.fromJSDate(sentAt, { zone }).toISODate()!;
  const days = findDates(text.slice(0, 1500), language, sentAt, zone)
    .map((d) => DateTime.fromJSDate(d.end && d.end > d.start ? d.end : d.start, { zone }).toISODate()!)
    .filter((day) => day >= sentDay)
    .sort();
  return days.length ? days[days.length - 1]! : null;
}
