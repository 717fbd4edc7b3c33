import { findDates } from './dates';
import type { OfferedSlot, ReplyLanguage } from './types';

/** How long a proposed time lasts when the sender gives only its start. */
export const DEFAULT_SLOT_MINUTES = 30;

/**
 * The times a reply proposes ("dinsdag 24 november om 14:00 of woensdag om 10.30", "Tuesday at 2pm or
 * Wednesday 10:30am"), read in the sender's language and time zone, in UTC: each date that names a
 * time of day and lies after the message was sent, in the order written, at most five.
 */
export function offeredSlots(text: string, language: ReplyLanguage, sentAt: Date, zone: string): OfferedSlot[] {
  const out: OfferedSlot[] = [];
  for (const d of findDates(text, language, sentAt, zone)) {
    if (!d.hasTime || d.start <= sentAt) continue;
    const end = d.end && d.end > d.start ? d.end : new Date(d.start.getTime() + DEFAULT_SLOT_MINUTES * 60_000);
    const slot = { start: d.start.toISOString(), end: end.toISOString() };
    if (!out.some((s) => s.start === slot.start)) out.push(slot);
    if (out.length === 5) break;
  }
  return out;
}
