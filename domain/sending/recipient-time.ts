import { getCountry, getTimezone } from 'countries-and-timezones';
import type { SendingCalendar } from './business-days';
import type { SendPolicy } from './slots';

/**
 * Sending in the recipient's time. The
 * recipient's zone: the contact's timezone, else the company's, else the zone of the company's
 * country when that country has exactly one (from the maintained countries-and-timezones table),
 * else the mailbox's. Pure: data in, data out.
 */
export const sendInModes = ['mailbox', 'recipient'] as const;
export type SendIn = (typeof sendInModes)[number];

export interface RecipientPlace {
  contactTimezone: string | null;
  companyTimezone: string | null;
  companyCountry: string | null;
}

export type ZoneSource = 'contact' | 'company' | 'country' | 'mailbox';

/** The single time zone of a country (ISO 3166-1 alpha-2), or null when it has none or several. */
export function countryZone(country: string | null): string | null {
  if (!country || !/^[A-Z]{2}$/.test(country)) return null;
  const zones = getCountry(country as Parameters<typeof getCountry>[0])?.timezones ?? [];
  return zones.length === 1 ? zones[0]! : null;
}

export function recipientZone(place: RecipientPlace, mailboxTimezone: string): { zone: string; source: ZoneSource } {
  if (place.contactTimezone) return { zone: place.contactTimezone, source: 'contact' };
  if (place.companyTimezone) return { zone: place.companyTimezone, source: 'company' };
  const byCountry = countryZone(place.companyCountry);
  if (byCountry) return { zone: byCountry, source: 'country' };
  return { zone: mailboxTimezone, source: 'mailbox' };
}

/**
 * The calendar a send is placed in: with sendIn "mailbox" the mailbox's own; with "recipient" the
 * mailbox's window and sending days read in the recipient's zone, and the holidays of the
 * recipient's country (passed in, built by the caller from date-holidays) instead of the mailbox's.
 * Without a recipient country the mailbox's holidays stay.
 */
export function sendingCalendarFor(
  mailbox: SendingCalendar,
  sendIn: SendIn,
  recipient: { zone: string; holidays: SendingCalendar['holidays'] | null },
): SendingCalendar {
  if (sendIn === 'mailbox') return mailbox;
  return { ...mailbox, timezone: recipient.zone, holidays: recipient.holidays ?? mailbox.holidays };
}

/**
 * The country whose public holidays a recipient's sends skip. A zone given for the contact or its
 * company says where the recipient is: the company's country when the zone is one of that country's,
 * else the zone's one country (a contact in America/New_York at a Dutch company keeps US holidays),
 * else none (a zone shared by several countries, none of them the company's). A zone only inferred
 * (from the company's country, or the mailbox's) says nothing more: the company's country, else the
 * zone's one country.
 */
export function recipientCountry(place: RecipientPlace, zone: string): string | null {
  const company = place.companyCountry && /^[A-Z]{2}$/.test(place.companyCountry) ? place.companyCountry : null;
  const countries = getTimezone(zone)?.countries ?? [];
  const single = countries.length === 1 ? countries[0]! : null;
  if (place.contactTimezone || place.companyTimezone) return company && countries.includes(company as (typeof countries)[number]) ? company : single;
  return company ?? single;
}

/**
 * A message's send policy: the mailbox's (limits and calendar) with, for sendIn "recipient", the
 * window and sending days read in the recipient's zone and the recipient country's holidays
 * (sendingCalendarFor). The daily cap keeps counting the mailbox's own day: capTimezone is the
 * mailbox's zone either way.
 */
export function recipientPolicy(mailbox: SendPolicy, sendIn: SendIn, recipient: { zone: string; holidays: SendingCalendar['holidays'] | null }): SendPolicy {
  const capTimezone = mailbox.capTimezone ?? mailbox.timezone;
  return { ...mailbox, ...sendingCalendarFor(mailbox, sendIn, recipient), capTimezone };
}

/** Whether the strategist should propose sendIn "recipient": some contact's zone differs from its mailbox's (compared by the offset now, so aliases count as the same). */
export function zonesDiffer(mailboxTimezone: string, recipientZones: readonly string[], at: Date): boolean {
  const offset = (zone: string) =>
    new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' }).formatToParts(at).find((p) => p.type === 'timeZoneName')?.value;
  const mine = offset(mailboxTimezone);
  return recipientZones.some((z) => z !== mailboxTimezone && offset(z) !== mine);
}

/**
 * What the strategist proposes: "recipient" when some suggested contact's zone (recipientZone, the
 * mailbox's when nothing says otherwise) differs from a pool mailbox's zone (zonesDiffer), else "mailbox".
 */
export function proposeSendIn(mailboxTimezones: readonly string[], recipients: readonly RecipientPlace[], at: Date): SendIn {
  const differs = mailboxTimezones.some((mine) =>
    zonesDiffer(
      mine,
      recipients.map((p) => recipientZone(p, mine).zone),
      at,
    ),
  );
  return differs ? 'recipient' : 'mailbox';
}
