import { DateTime } from 'luxon';
import type { OfferedSlot, ReplyLanguage } from './types';

/**
 * The draft that accepts a proposed time, in the sender's language (Dutch or English; German and
 * French get English), the time written in the mailbox's zone. It waits for a person's approval.
 */
export function acceptSlotDraft(p: { language: ReplyLanguage; slot: OfferedSlot; timezone: string; contactName: string | null; subject: string | null }): {
  subject: string;
  body: string;
} {
  const at = DateTime.fromISO(p.slot.start, { zone: p.timezone });
  const first = p.contactName?.split(/\s+/)[0];
  const subject = /^re:/i.test(p.subject ?? '') ? p.subject! : `Re: ${p.subject ?? ''}`.trim();
  if (p.language === 'nl') {
    const when = at.setLocale('nl').toFormat("cccc d LLLL 'om' HH:mm");
    return {
      subject,
      body: `${first ? `Hoi ${first}` : 'Hallo'},\n\nDank voor je reactie. ${when} komt goed uit; ik stuur je een uitnodiging.\n\nMet vriendelijke groet`,
    };
  }
  const when = at.setLocale('en').toFormat("cccc d LLLL 'at' HH:mm ZZZZ");
  return {
    subject,
    body: `${first ? `Hi ${first}` : 'Hello'},\n\nThanks for getting back to me. ${when} works well; I will send you an invitation.\n\nKind regards`,
  };
}
