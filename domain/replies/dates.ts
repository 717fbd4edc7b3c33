import * as chrono from 'chrono-node';
import { DateTime } from 'luxon';
import type { ReplyLanguage } from './types';

/**
 * Dates and times written in a reply, read with chrono-node in the sender's language, as instants in
 * the sender's time zone (an IANA zone, or a fixed offset such as "UTC+1" from the Date header).
 * `reference` is when the message was sent: "next Tuesday" counts from it, never from the clock.
 */
const PARSERS: Record<ReplyLanguage, chrono.Chrono> = { nl: chrono.nl.casual, en: chrono.en.casual, de: chrono.de.casual, fr: chrono.fr.casual };

export interface FoundDate {
  text: string;
  index: number;
  /** The local date (YYYY-MM-DD) in the sender's zone. */
  date: string;
  start: Date;
  end: Date | null;
  /** Whether the text named a time of day (not only a date). */
  hasTime: boolean;
}

function instant(c: chrono.ParsedComponents, zone: string): Date {
  if (c.isCertain('timezoneOffset')) return c.date();
  return DateTime.fromObject(
    { year: c.get('year')!, month: c.get('month')!, day: c.get('day')!, hour: c.get('hour') ?? 0, minute: c.get('minute') ?? 0, second: 0 },
    { zone },
  ).toJSDate();
}

export function findDates(text: string, language: ReplyLanguage, reference: Date, zone: string): FoundDate[] {
  // The reference as a wall-clock time in the sender's zone: chrono reads "tomorrow" from its own local time.
  const local = DateTime.fromJSDate(reference, { zone });
  const ref = new Date(local.year, local.month - 1, local.day, local.hour, local.minute);
  // A month alone ("Jan" signing off, "May") is not a date: a day, a weekday or a relative day must be named.
  return PARSERS[language]
    .parse(text, ref, { forwardDate: true })
    .filter(
      (r) =>
        r.start.isCertain('day') ||
        r.start.isCertain('weekday') ||
        r.start.isCertain('hour') ||
        /\b(?:tomorrow|morgen|overmorgen|übermorgen|demain)\b/i.test(r.text),
    )
    .map((r) => {
      const start = instant(r.start, zone);
      return {
        text: r.text,
        index: r.index,
        date: DateTime.fromJSDate(start, { zone }).toISODate()!,
        start,
        end: r.end ? instant(r.end, zone) : null,
        hasTime: r.start.isCertain('hour'),
      };
    });
}
