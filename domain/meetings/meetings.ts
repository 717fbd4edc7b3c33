import { DateTime } from 'luxon';

/**
 * Meeting statuses (the spec's four) and where a status change may go. A meeting is recorded
 * `proposed` (booked, not yet held); a person (or a booking webhook) moves it to `cancelled`,
 * `completed` or `no_show`. An outcome may be corrected (completed <-> no_show, or a cancelled
 * meeting that was held after all); setting the status it already has changes nothing.
 */
export const MEETING_STATUSES = ['proposed', 'cancelled', 'completed', 'no_show'] as const;
export type MeetingStatus = (typeof MEETING_STATUSES)[number];
export const MEETING_OUTCOMES = ['cancelled', 'completed', 'no_show'] as const;
export type MeetingOutcome = (typeof MEETING_OUTCOMES)[number];
export const BOOKED_VIA = ['link', 'reply', 'manual'] as const;

/** HubSpot's meeting outcome (hs_meeting_outcome) for each status. */
export const HUBSPOT_OUTCOME: Record<MeetingStatus, 'SCHEDULED' | 'COMPLETED' | 'NO_SHOW' | 'CANCELED'> = {
  proposed: 'SCHEDULED',
  completed: 'COMPLETED',
  no_show: 'NO_SHOW',
  cancelled: 'CANCELED',
};

/** How a Salesforce Event shows each status (Events have no status field): a prefix to the subject, and Busy or Free. */
export const SALESFORCE_EVENT: Record<MeetingStatus, { subjectPrefix: string; showAs: 'Busy' | 'Free' }> = {
  proposed: { subjectPrefix: '', showAs: 'Busy' },
  completed: { subjectPrefix: '', showAs: 'Busy' },
  no_show: { subjectPrefix: 'No-show: ', showAs: 'Busy' },
  cancelled: { subjectPrefix: 'Cancelled: ', showAs: 'Free' },
};

/** Default lead time of the reminder: 24 hours before the meeting starts. */
export const DEFAULT_REMINDER_LEAD_MINUTES = 24 * 60;

/** When the reminder is due: leadMinutes before the start (a moment already past means at once). */
export function reminderAt(startsAt: Date, leadMinutes: number): Date {
  return new Date(startsAt.getTime() - leadMinutes * 60_000);
}

export interface ReminderInput {
  title: string;
  startsAt: Date;
  endsAt: Date;
  joinUrl: string | null;
  contactName: string | null;
  companyName: string | null;
  /** IANA zone the times are written in (the campaign mailbox's, else Europe/Amsterdam). */
  timezone: string;
  /** The recipient's language: Dutch for nl*, else English. */
  locale: string;
}

function when(i: ReminderInput): string {
  const nl = i.locale.toLowerCase().startsWith('nl');
  const start = DateTime.fromJSDate(i.startsAt, { zone: i.timezone }).setLocale(nl ? 'nl' : 'en');
  const end = DateTime.fromJSDate(i.endsAt, { zone: i.timezone });
  return `${start.toFormat(nl ? 'cccc d LLLL yyyy, HH:mm' : 'cccc d LLLL yyyy, HH:mm')}–${end.toFormat('HH:mm')} (${i.timezone})`;
}

/** The task for the owner: prepare the meeting. Deterministic text. */
export function reminderTask(i: ReminderInput): { title: string; body: string } {
  const who = [i.contactName, i.companyName].filter(Boolean).join(', ');
  const at = when({ ...i, locale: 'en' });
  return {
    title: `Prepare: ${i.title}${who ? ` with ${who}` : ''}`,
    body: [`Meeting "${i.title}"${who ? ` with ${who}` : ''} on ${at}.`, i.joinUrl ? `Join: ${i.joinUrl}` : null].filter(Boolean).join('\n'),
  };
}

/** The short reminder e-mail to the attendee (a draft that follows the campaign mode). Deterministic text. */
export function reminderEmail(i: ReminderInput): { subject: string; body: string } {
  const nl = i.locale.toLowerCase().startsWith('nl');
  const at = when(i);
  const greeting = i.contactName ? (nl ? `Beste ${i.contactName},` : `Dear ${i.contactName},`) : nl ? 'Goedendag,' : 'Hello,';
  const lines = nl
    ? [greeting, '', `Graag herinner ik u aan onze afspraak "${i.title}" op ${at}.`, i.joinUrl ? `U kunt deelnemen via ${i.joinUrl}` : null, '', 'Tot dan!']
    : [greeting, '', `A short reminder of our meeting "${i.title}" on ${at}.`, i.joinUrl ? `You can join at ${i.joinUrl}` : null, '', 'Speak to you then!'];
  return {
    subject: nl ? `Herinnering: ${i.title}` : `Reminder: ${i.title}`,
    body: lines.filter((l) => l !== null).join('\n'),
  };
}
