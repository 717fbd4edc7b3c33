import type { ComposedEmail } from '../../../domain/outreach/compose';

/** Where and how a mailbox sends: its SMTP settings and the password (opened from its sealed secret). */
export interface SmtpSettings {
  host: string;
  port: number;
  /** TLS from the first byte (port 465); otherwise STARTTLS is used whenever the server offers it. */
  secure: boolean;
  username?: string | null;
  password?: string | null;
  /** An OAuth mailbox: log in with SASL XOAUTH2 as `username` with this access token (oauth.ts) instead of a password. */
  accessToken?: string | null;
  /** Refuse to send unencrypted: STARTTLS must succeed (default: true when a password is sent, false otherwise). */
  requireTls?: boolean;
}

export interface SendResult {
  /** The recipients the server accepted. */
  accepted: string[];
  /** The server's final reply ("250 2.0.0 Ok: queued as …"). */
  response: string;
  /** The Message-ID header the message carried, `<uuid@domain>` (store it on the message). */
  messageId: string;
}

/** Sends one composed e-mail; throws SmtpPermanentError, SmtpTransientError or SmtpAmbiguousError (smtp.ts). */
export interface MailSender {
  send(composed: ComposedEmail, smtp: SmtpSettings, hooks?: SendHooks): Promise<SendResult>;
}

export interface SendHooks {
  /**
   * Called once the server greeted and took the login, right before the envelope and DATA: the caller
   * records the hand-over (and may refuse it by throwing; nothing is then sent).
   */
  beforeHandover?: () => Promise<void>;
}

/**
 * How a send failed, which decides what the caller does:
 * - permanent: the server refused with 5xx (its text kept); when it refused the recipient (RCPT TO)
 *   that is a hard bounce, which the caller turns into a suppression (reason bounce). Never retried.
 * - transient: 4xx, or the connection failed before the message was handed over (refused, reset,
 *   timed out before DATA): nothing was delivered, safe to retry.
 * - ambiguous: the connection dropped or timed out after the whole message was handed over and
 *   before the server's reply: it may have been accepted. Never retried (no duplicate); the caller
 *   marks the message for checking.
 */
export type SendFailureKind = 'permanent' | 'transient' | 'ambiguous';

/** The error class names, as Temporal matches them (ApplicationFailure type): use NON_RETRYABLE_SMTP_ERRORS in nonRetryableErrorTypes. */
export const SMTP_ERROR_NAMES = {
  permanent: 'SmtpPermanentError',
  transient: 'SmtpTransientError',
  ambiguous: 'SmtpAmbiguousError',
} as const satisfies Record<SendFailureKind, string>;

export const NON_RETRYABLE_SMTP_ERRORS: string[] = [SMTP_ERROR_NAMES.permanent, SMTP_ERROR_NAMES.ambiguous];
