/** Reply intents; the messages.intent CHECK holds the same list. */
export const REPLY_INTENTS = ['interested', 'not_interested', 'meeting_request', 'referral', 'out_of_office', 'unsubscribe', 'other'] as const;
export type ReplyIntent = (typeof REPLY_INTENTS)[number];

export type ReplyLanguage = 'nl' | 'en' | 'de' | 'fr';

/** A time the sender proposed, in UTC (ISO 8601). */
export interface OfferedSlot {
  start: string;
  end: string;
}

export interface Referral {
  name: string;
  email: string;
}

/** What a classifier (the rules or a model) says about one reply. */
export interface ReplyClassification {
  intent: ReplyIntent;
  confidence: number;
  /** One line for a person: what the reply says. */
  summary: string;
  language: ReplyLanguage;
  referral: Referral | null;
  offeredSlots: OfferedSlot[];
  /** Out of office: the date (YYYY-MM-DD, the sender's calendar) the sender names as the end of the absence; null without one. */
  returnDate: string | null;
  /** 'rules' or the model's name, with the prompt key/version for a model. */
  model: string;
  promptKey: string | null;
  promptVersion: string | null;
  /** Set when a model was asked and failed for good: why, and these are the rules' answer. */
  modelError?: string;
}
