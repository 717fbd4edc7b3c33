import type { ReplyIntent } from './types';

/**
 * What each kind of inbound message does (the intents table of docs/features/inbound-mail.md says the same):
 * - a hard bounce fails the message it names and suppresses the address we wrote to (reason bounce),
 *   and stops the contact's sequences; a complaint (an ARF abuse report) suppresses the address we
 *   wrote to (reason complaint) and stops the contact's sequences; both only when the report names a
 *   message we sent (inbound-actions.ts), else they are only recorded; a soft bounce and any other
 *   auto-reply are only recorded;
 * - out_of_office pauses that contact's active enrollments until resume_at (nobody else's);
 * - every real reply stops the contact's enrollments (reason replied), skips their waiting drafts,
 *   pauses the other active enrollments at the same company (account_replied) and marks the thread
 *   replied (not_interested closes it; the opportunity stays as it is);
 * - unsubscribe also suppresses the address with the reply as evidence; referral creates the named
 *   person as a contact of the company (data source referral, not contacted without a lawful basis);
 *   meeting_request / interested with offered times also gets a reply draft that waits for approval.
 */
export type InboundKind = 'reply' | 'out_of_office' | 'auto_reply' | 'hard_bounce' | 'soft_bounce' | 'complaint' | 'report';

export interface InboundPlan {
  stopContact: boolean;
  pauseAccount: boolean;
  pauseOutOfOffice: boolean;
  threadStatus: 'replied' | 'closed' | null;
  suppress: 'unsubscribe' | 'bounce' | 'complaint' | null;
  failOriginal: boolean;
  createReferral: boolean;
  draftReply: boolean;
}

const NONE: InboundPlan = {
  stopContact: false,
  pauseAccount: false,
  pauseOutOfOffice: false,
  threadStatus: null,
  suppress: null,
  failOriginal: false,
  createReferral: false,
  draftReply: false,
};

export function planFor(kind: InboundKind, intent: ReplyIntent | null, hasSlots: boolean): InboundPlan {
  switch (kind) {
    case 'hard_bounce':
      return { ...NONE, stopContact: true, suppress: 'bounce', failOriginal: true };
    case 'complaint':
      return { ...NONE, stopContact: true, suppress: 'complaint' };
    case 'soft_bounce':
    case 'auto_reply':
    case 'report':
      return NONE;
    case 'out_of_office':
      return { ...NONE, pauseOutOfOffice: true };
    case 'reply':
      return {
        ...NONE,
        stopContact: true,
        pauseAccount: true,
        threadStatus: intent === 'not_interested' ? 'closed' : 'replied',
        suppress: intent === 'unsubscribe' ? 'unsubscribe' : null,
        createReferral: intent === 'referral',
        draftReply: (intent === 'meeting_request' || intent === 'interested') && hasSlots,
      };
  }
}
