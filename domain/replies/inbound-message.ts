import type { InboundKind } from './plan';
import type { OfferedSlot, Referral, ReplyIntent } from './types';

/** One received message as the worker decided it, ready to be stored, threaded and acted on (db/queries/inbound.ts). */
export interface InboundMessage {
  organizationId: string;
  mailboxId: string;
  /** Its Message-ID, or a hash of the raw message when it has none: the de-duplication key. */
  internetMessageId: string;
  inReplyTo: string[];
  references: string[];
  fromAddress: string | null;
  toAddress: string | null;
  subject: string | null;
  body: string;
  receivedAt: Date;
  kind: InboundKind;
  /**
   * For a delivery report: the Message-ID of the message it reports on, the recipient, the status, the
   * reason (domain/replies/bounce-reasons.ts) and whether it is only a delay warning.
   */
  bounce: {
    originalMessageId: string | null;
    recipient: string | null;
    status: string | null;
    diagnostic: string | null;
    reason?: string;
    delayed?: boolean;
  } | null;
  /**
   * For an abuse feedback report: the Message-ID of the message it reports, its type, the recipient it
   * names, and whether it came from a feedback loop the service trusts (a known loop's domain with
   * DKIM that passed at our receiving server): only those count toward a mailbox's complaint rate.
   */
  complaint: { originalMessageId: string | null; feedbackType: string | null; originalRecipient: string | null; trusted?: boolean } | null;
  classification: {
    intent: ReplyIntent;
    confidence: number;
    summary: string;
    model: string;
    promptKey: string | null;
    promptVersion: string | null;
    referral: Referral | null;
    offeredSlots: OfferedSlot[];
  } | null;
  /** Out of office: when the hold ends (the mailbox's next business day after the return date). */
  resumeAt: Date | null;
  /** A reply draft to write (offered times), prepared by the caller. */
  draft: { subject: string; body: string; slot: OfferedSlot } | null;
  /** The triage summary of a message that is not a reply (an auto-reply, a bounce). */
  note: string | null;
}
