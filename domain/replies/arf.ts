import { fields } from './dsn';

/**
 * Abuse feedback reports (ARF, RFC 5965: multipart/report; report-type=feedback-report), as the
 * feedback loops of Yahoo, Microsoft and others send them when a recipient presses "this is spam": the
 * machine-readable message/feedback-report part (Feedback-Type, Original-Rcpt-To, ...). The original
 * message (or its headers) follows as a third part; its Message-ID is read like a DSN's. Never a reply.
 */
export interface FeedbackReport {
  /** abuse, fraud, virus, other, not-spam (RFC 5965 section 7.3), lower case; null when absent. */
  feedbackType: string | null;
  /** Original-Rcpt-To, when the loop names it (many redact it). */
  originalRecipient: string | null;
}

export function readFeedbackReport(body: string): FeedbackReport {
  const f = fields(body.slice(0, 16 * 1024));
  const rcpt = f.get('original-rcpt-to')?.trim().replace(/^<|>$/g, '').toLowerCase() ?? null;
  return {
    feedbackType: f.get('feedback-type')?.trim().toLowerCase() || null,
    originalRecipient: rcpt && rcpt.length <= 320 && rcpt.includes('@') ? rcpt : null,
  };
}
