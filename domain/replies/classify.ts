import { detectAutoReply, isOutOfOfficeBody, isOutOfOfficeSubject, type HeaderLookup } from './auto-reply';
import { classifyByRules, firstWords, isUnsubscribeSubject } from './intent-rules';
import { detectLanguage } from './language';
import { stripQuotedHistory } from './quoted';
import { extractReferral } from './referral';
import { outOfOfficeReturnDate } from './return-date';
import { offeredSlots } from './slots';
import { normalizeSubject } from './subject';
import type { ReplyClassification, ReplyIntent } from './types';

/** What a classifier reads of an inbound message. */
export interface ReplyInput {
  subject: string | null;
  /** The plain text, quoted history included (it is stripped here). */
  text: string;
  fromAddress: string | null;
  /** When it was sent (its Date header, else when it was received): relative dates count from it. */
  sentAt: Date;
  /** The sender's time zone (IANA, or a fixed offset "UTC+1" from the Date header). */
  senderZone: string;
  header: HeaderLookup;
  /** The rules' classification, when already made (in the parse worker thread). */
  rules?: ReplyClassification;
}

/** The seam for a model: the rules implement it with no I/O, a model behind an OpenAI-compatible endpoint in activities/. */
export interface ReplyClassifier {
  classify(input: ReplyInput): Promise<ReplyClassification>;
}

/** The kind of an inbound message before any intent: a delivery report, a machine's auto-reply, or a reply a person wrote. */
export type MachineKind = { kind: 'auto_reply'; outOfOffice: boolean; marker: string } | { kind: 'reply' };

export function machineKind(input: Pick<ReplyInput, 'subject' | 'text' | 'header'>): MachineKind {
  // The List-Unsubscribe mailto we advertise: a client's button may mark it Auto-Submitted; it is a person's request.
  if (isUnsubscribeRequestSubject(input.subject)) return { kind: 'reply' };
  const verdict = detectAutoReply(input.header, input.subject);
  if (!verdict.auto) return { kind: 'reply' };
  return { kind: 'auto_reply', outOfOffice: isOutOfOfficeSubject(input.subject) || isOutOfOfficeBody(stripQuotedHistory(input.text)), marker: verdict.marker! };
}

/** Subject "unsubscribe" (after Re:/Fwd: prefixes): a request to the advertised mailto, or a person's. */
export function isUnsubscribeRequestSubject(subject: string | null): boolean {
  return !!subject && isUnsubscribeSubject(normalizeSubject(subject));
}

const LABEL: Record<ReplyIntent, string> = {
  interested: 'Interested',
  not_interested: 'Not interested',
  meeting_request: 'Asks for a meeting',
  referral: 'Refers to someone else',
  out_of_office: 'Out of office',
  unsubscribe: 'Asks to be removed',
  other: 'Replied',
};

export function summaryOf(intent: ReplyIntent, text: string): string {
  const words = firstWords(text);
  return words ? `${LABEL[intent]}: "${words}"` : LABEL[intent];
}

/** How much of a reply's text is read for proposed times. */
const MAX_SLOT_TEXT = 4000;

/** The rules: every intent in Dutch and English (German and French where cheap), with no model. */
export class RulesReplyClassifier implements ReplyClassifier {
  async classify(input: ReplyInput): Promise<ReplyClassification> {
    return input.rules ?? classifyReplyByRules(input);
  }
}

export function classifyReplyByRules(input: ReplyInput): ReplyClassification {
  const text = stripQuotedHistory(input.text);
  const language = detectLanguage(`${input.subject ?? ''}\n${text}`);
  const machine = machineKind(input);
  const base = { model: 'rules', promptKey: null, promptVersion: null, language };
  if (machine.kind === 'auto_reply' && machine.outOfOffice) {
    return {
      ...base,
      intent: 'out_of_office',
      confidence: 0.95,
      summary: summaryOf('out_of_office', text),
      referral: extractReferral(text, input.fromAddress),
      offeredSlots: [],
      returnDate: outOfOfficeReturnDate(text, language, input.sentAt, input.senderZone),
    };
  }
  if (isUnsubscribeRequestSubject(input.subject)) {
    return {
      ...base,
      intent: 'unsubscribe',
      confidence: 0.99,
      summary: summaryOf('unsubscribe', text || (input.subject ?? '')),
      referral: null,
      offeredSlots: [],
      returnDate: null,
    };
  }
  // Times are read from the first part of the reply only (chrono-node's time grows with the text).
  const slots = offeredSlots(text.slice(0, MAX_SLOT_TEXT), language, input.sentAt, input.senderZone);
  const verdict = classifyByRules(text, input.fromAddress, slots.length > 0);
  return {
    ...base,
    intent: verdict.intent,
    confidence: verdict.confidence,
    summary: summaryOf(verdict.intent, text),
    referral: verdict.intent === 'referral' ? extractReferral(text, input.fromAddress) : null,
    offeredSlots: verdict.intent === 'meeting_request' || verdict.intent === 'interested' ? slots : [],
    returnDate: verdict.intent === 'out_of_office' ? outOfOfficeReturnDate(text, language, input.sentAt, input.senderZone) : null,
  };
}
