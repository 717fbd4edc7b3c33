import { Readable } from 'node:stream';
import MailComposer from 'nodemailer/lib/mail-composer';
import SMTPConnection from 'nodemailer/lib/smtp-connection';
import type { ComposedEmail } from '../../../domain/outreach/compose';
import { isHardReason, type BounceReason } from '../../../domain/replies/bounce-reasons';
import { reasonOf } from '../../../domain/replies/delivery-report';
import { xoauth2 } from './oauth';
import { BlockedDestinationError, type DestinationPolicy } from '../destination';
import { blockedMailHostReason, MailTarget, resolveMailHost } from './connect';
import { MailSender, SendFailureKind, SendHooks, SendResult, SMTP_ERROR_NAMES, SmtpSettings } from './types';

/**
 * SMTP through nodemailer's SMTPConnection, one connection per message, so that what happened is
 * known exactly: the message is built first (MailComposer: the composed headers as they are, Date
 * added), then handed over as a stream whose end marks the moment the server may have it all. A
 * failure is classified (types.ts SendFailureKind):
 * - the server replied 5xx: SmtpPermanentError with its text (hardBounce when it refused the
 *   recipient at RCPT TO), 4xx: SmtpTransientError;
 * - no reply, and the message was not handed over in full (refused, reset, timed out before or
 *   during DATA): SmtpTransientError, nothing can have been delivered;
 * - no reply after the whole message was handed over (dropped or timed out before the server's
 *   answer to the final dot): SmtpAmbiguousError: it may have been accepted, so never retried.
 */
export interface SmtpTimeouts {
  /** To establish the TCP (and TLS) connection. */
  connectionMs: number;
  /** For the server's greeting. */
  greetingMs: number;
  /** Of inactivity at any point after, the wait for the reply to DATA included. */
  socketMs: number;
}

export const DEFAULT_SMTP_TIMEOUTS: SmtpTimeouts = { connectionMs: 15_000, greetingMs: 15_000, socketMs: 60_000 };

export interface SmtpFailureDetail {
  /** The SMTP reply code, when the server replied. */
  responseCode?: number;
  /** The server's reply text, when it replied. */
  response?: string;
  /** The SMTP command in flight ("RCPT TO", "DATA", "CONN", "AUTH PLAIN"). */
  command?: string;
  /** nodemailer's error code (ECONNECTION, ETIMEDOUT, EENVELOPE, …). */
  code?: string;
}

abstract class SmtpSendError extends Error {
  abstract readonly kind: SendFailureKind;
  readonly responseCode?: number;
  readonly response?: string;
  readonly command?: string;
  readonly code?: string;
  constructor(message: string, detail: SmtpFailureDetail) {
    super(message);
    Object.assign(this, detail);
  }
}

/**
 * 5xx: refused for good. `reason`: why the receiving server refused the message (refusalReason), null
 * for a refusal of our own login or sender; `hardBounce`: that reason says the recipient's address is
 * bad, a suppression with reason bounce follows.
 */
export class SmtpPermanentError extends SmtpSendError {
  readonly kind = 'permanent' as const;
  override readonly name = SMTP_ERROR_NAMES.permanent;
  readonly hardBounce: boolean;
  constructor(
    message: string,
    detail: SmtpFailureDetail,
    readonly reason: BounceReason | null = null,
  ) {
    super(message, detail);
    this.hardBounce = reason !== null && isHardReason(reason);
  }
}

/** 4xx, or no delivery possible yet (connection refused, reset or timed out before the message was handed over): retry. */
export class SmtpTransientError extends SmtpSendError {
  readonly kind = 'transient' as const;
  override readonly name = SMTP_ERROR_NAMES.transient;
}

/** The connection ended after the whole message was handed over and before the server answered: it may be delivered. Do not retry. */
export class SmtpAmbiguousError extends SmtpSendError {
  readonly kind = 'ambiguous' as const;
  override readonly name = SMTP_ERROR_NAMES.ambiguous;
}

export type SmtpError = SmtpPermanentError | SmtpTransientError | SmtpAmbiguousError;

interface NodemailerFailure extends Error {
  code?: string;
  responseCode?: number;
  response?: string;
  command?: string;
}

// Errors nodemailer raises on its own, no server reply, that no retry can mend.
const PERMANENT_WITHOUT_REPLY = new Set(['ECONFIG', 'ENOAUTH', 'EMESSAGE', 'EENVELOPE', 'EREQUIRETLS']);

/** The enhanced status code of a reply ("5.1.1"), the only part of the server's text that is kept. */
function enhancedCode(response: string | undefined): string {
  const m = /^\d{3}[ -]([245]\.\d{1,3}\.\d{1,3})\b/.exec(response ?? '');
  return m ? ` ${m[1]}` : '';
}

/**
 * Why the receiving server refused the message at RCPT TO or at the end of DATA, by the rule delivery
 * reports are read with (domain/replies/delivery-report.ts): "550 5.1.1" at the end of DATA is as hard
 * as at RCPT TO, a "550 5.7.1" policy block at RCPT TO is a sender refusal. Null for a refusal of MAIL
 * FROM or the login (our own set-up, no bounce).
 */
export function refusalReason(detail: Pick<SmtpFailureDetail, 'command' | 'response' | 'responseCode'>): BounceReason | null {
  if (detail.command !== 'RCPT TO' && detail.command !== 'DATA') return null;
  const response = (detail.response ?? '').slice(0, 2048);
  const status = /^\d{3}[ -]#?([45]\.\d{1,3}\.\d{1,3})\b/.exec(response)?.[1] ?? `${String(detail.responseCode ?? 5)[0]}.0.0`;
  return reasonOf({ status, diagnostic: response, atRcpt: detail.command === 'RCPT TO' });
}

/**
 * Which kind of failure a nodemailer error is, given whether the whole message had been handed over.
 * The message (stored in messages.error, shown to the tenant) is generic: the command, the reply code
 * and its enhanced status code, never the server's text or greeting (a tenant-chosen host could be
 * any service; its banner is not echoed). The reply stays on the error (`response`) for the logs.
 */
export function classifySmtpFailure(err: NodemailerFailure, handedOver: boolean): SmtpError {
  const detail: SmtpFailureDetail = {
    responseCode: typeof err.responseCode === 'number' ? err.responseCode : undefined,
    response: typeof err.response === 'string' ? err.response : undefined,
    command: err.command,
    code: err.code,
  };
  const command = detail.command && /^[A-Z][A-Z ]{0,20}$/.test(detail.command) ? ` ${detail.command}` : '';
  const code = err.code && /^E[A-Z]{1,20}$/.test(err.code) ? err.code : 'error';
  if (detail.responseCode !== undefined && detail.responseCode >= 500 && detail.responseCode < 600) {
    return new SmtpPermanentError(`SMTP${command} refused: ${detail.responseCode}${enhancedCode(detail.response)}`, detail, refusalReason(detail));
  }
  if (detail.responseCode !== undefined && detail.responseCode >= 400 && detail.responseCode < 500) {
    return new SmtpTransientError(`SMTP${command} deferred: ${detail.responseCode}${enhancedCode(detail.response)}`, detail);
  }
  if (err.code && PERMANENT_WITHOUT_REPLY.has(err.code)) return new SmtpPermanentError(`SMTP${command}: ${code}`, detail);
  if (handedOver) return new SmtpAmbiguousError(`SMTP: no reply after the message was handed over (${code}); it may have been delivered`, detail);
  return new SmtpTransientError(`SMTP${command}: the connection failed (${code})`, detail);
}

/** The server refused the mailbox's login (its password, or an OAuth mailbox's access token). */
export function loginRefused(err: unknown): boolean {
  return (
    err instanceof SmtpPermanentError &&
    (Boolean(err.command?.startsWith('AUTH')) || [530, 534, 535].includes(err.responseCode ?? 0) || err.code === 'EAUTH' || err.code === 'ENOAUTH')
  );
}

/**
 * A failure of the mailbox's own setup rather than of the recipient: its login refused (AUTH, 530,
 * 534, 535), its sender refused (MAIL FROM: relay denied), no TLS for its password, or a host or
 * port the outbound policy refuses. Answers the generic reason that holds the mailbox, or null.
 */
export function mailboxSetupFailure(err: unknown): string | null {
  if (err instanceof BlockedDestinationError) return blockedMailHostReason('smtp');
  if (!(err instanceof SmtpPermanentError)) return null;
  if (loginRefused(err)) {
    return `the SMTP server refused the mailbox’s login (${err.responseCode ?? err.code}): set its username and secret again`;
  }
  if (err.command === 'MAIL FROM') return `the SMTP server refused the mailbox’s sender address (${err.responseCode ?? err.code}, relay denied?)`;
  if (err.code === 'EREQUIRETLS') return 'the SMTP server offers no TLS, and the mailbox’s password is never sent unencrypted';
  return null;
}

/** The RFC 5322 message: From, To, Subject (encoded when not ASCII), Date, the composed headers exactly, the text. */
export function buildMessage(composed: ComposedEmail): Promise<Buffer> {
  const { 'Message-ID': messageId, 'In-Reply-To': inReplyTo, References: references, ...headers } = composed.headers;
  return new MailComposer({
    from: { name: composed.from.name ?? '', address: composed.from.address },
    to: { name: composed.to.name ?? '', address: composed.to.address },
    subject: composed.subject,
    messageId,
    // A reply's threading headers through MailComposer's own options (a prepared References header is mangled).
    ...(inReplyTo ? { inReplyTo } : {}),
    ...(references ? { references } : {}),
    // Prepared: written as they are, not re-encoded or folded (each is far below 998 characters).
    headers: Object.fromEntries(Object.entries(headers).map(([k, value]) => [k, { prepared: true, value }])),
    text: composed.text,
    ...(composed.html ? { html: composed.html } : {}),
    disableFileAccess: true,
    disableUrlAccess: true,
  })
    .compile()
    .build();
}

export class NodemailerSmtpSender implements MailSender {
  constructor(
    private readonly timeouts: SmtpTimeouts = DEFAULT_SMTP_TIMEOUTS,
    /** The EHLO name (the sending host's name); default nodemailer's (the machine's host name). */
    private readonly clientName?: string,
    /** The outbound policy (default: the process's, destination.ts); a test may pass its own. */
    private readonly policy?: () => DestinationPolicy,
  ) {}

  async send(composed: ComposedEmail, smtp: SmtpSettings, hooks: SendHooks = {}): Promise<SendResult> {
    const raw = await buildMessage(composed);
    const messageId = composed.headers['Message-ID'];
    let target: MailTarget;
    try {
      target = await resolveMailHost('smtp', smtp.host, smtp.port, this.policy?.());
    } catch (err) {
      if (err instanceof BlockedDestinationError) throw err;
      throw classifySmtpFailure(Object.assign(err as Error, { command: 'CONN' }), false);
    }
    const connection = new SMTPConnection({
      // The checked address, never the name again; the name stays the TLS server name.
      host: target.address,
      ...(target.servername ? { servername: target.servername } : {}),
      port: smtp.port,
      secure: smtp.secure,
      requireTLS: !smtp.secure && (smtp.requireTls ?? Boolean(smtp.password || smtp.accessToken)),
      connectionTimeout: this.timeouts.connectionMs,
      greetingTimeout: this.timeouts.greetingMs,
      socketTimeout: this.timeouts.socketMs,
      ...(this.clientName ? { name: this.clientName } : {}),
      tls: { minVersion: 'TLSv1.2' },
      logger: false,
    });
    let handedOver = false;
    return new Promise<SendResult>((resolve, reject) => {
      let settled = false;
      const fail = (err: NodemailerFailure) => {
        if (settled) return;
        settled = true;
        connection.close();
        reject(classifySmtpFailure(err, handedOver));
      };
      connection.on('error', fail);
      connection.connect(() => {
        const deliver = async () => {
          if (hooks.beforeHandover) {
            try {
              await hooks.beforeHandover();
            } catch (err) {
              // Refused by the caller (its claim was taken over): nothing is handed over.
              if (settled) return;
              settled = true;
              connection.close();
              return reject(err);
            }
          }
          if (settled) return;
          const stream = Readable.from([raw]);
          stream.on('end', () => {
            handedOver = true;
          });
          connection.send({ from: composed.from.address, to: [composed.to.address] }, stream, (err, info) => {
            if (err) return fail(err);
            if (settled) return;
            settled = true;
            connection.quit();
            resolve({ accepted: info!.accepted, response: info!.response, messageId });
          });
        };
        if (!smtp.username) return void deliver();
        const user = smtp.username;
        const token = smtp.accessToken;
        // An OAuth mailbox: SASL XOAUTH2 with the access token (nodemailer calls getToken, then sends AUTH XOAUTH2).
        const login = token
          ? {
              user,
              oauth2: {
                getToken: (_retry: boolean, cb: (err: Error | null, t?: string) => void) => cb(null, token),
                buildXOAuth2Token: (t: string) => xoauth2(user, t),
              },
            }
          : { user, pass: smtp.password ?? '' };
        connection.login(login as Parameters<SMTPConnection['login']>[0], (err) => (err ? fail(err) : void deliver()));
      });
    });
  }
}
