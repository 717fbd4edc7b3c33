import { randomUUID } from 'node:crypto';

/**
 * Hand-made and generated inbound messages for the hostile-mail tests: a plain reply (any headers,
 * any body), a delivery status notification (RFC 3464) and an abuse feedback report (ARF, RFC 5965,
 * as Yahoo's and Microsoft's feedback loops send it) naming an original by its Message-ID.
 */
const CRLF = '\r\n';

export function replyMail(o: {
  from: string;
  to?: string;
  subject?: string;
  inReplyTo?: string | null;
  body?: string;
  headers?: string[];
  contentType?: string;
  messageId?: string;
}): Buffer {
  return Buffer.from(
    [
      `From: ${o.from}`,
      `To: ${o.to ?? 'sanne@example-sender.nl'}`,
      `Subject: ${o.subject ?? 'Re: Uw aanvraag omgevingsvergunning Kerkstraat 12'}`,
      'Date: Thu, 19 Nov 2026 11:00:00 +0100',
      `Message-ID: ${o.messageId ?? `<${randomUUID()}@hostile.example>`}`,
      ...(o.inReplyTo ? [`In-Reply-To: ${o.inReplyTo}`, `References: ${o.inReplyTo}`] : []),
      ...(o.headers ?? []),
      'MIME-Version: 1.0',
      `Content-Type: ${o.contentType ?? 'text/plain; charset=utf-8'}`,
      '',
      o.body ?? 'Graag meer informatie.',
    ].join(CRLF),
    'utf8',
  );
}

export function dsnMail(o: { from?: string; originalMessageId: string | null; finalRecipient: string; status?: string; diagnostic?: string }): Buffer {
  const b = `dsn-${randomUUID()}`;
  return Buffer.from(
    [
      `From: ${o.from ?? 'MAILER-DAEMON@mx.example-sender.nl (Mail Delivery System)'}`,
      'To: sanne@example-sender.nl',
      'Subject: Undelivered Mail Returned to Sender',
      'Date: Thu, 19 Nov 2026 10:20:05 +0100',
      `Message-ID: <${randomUUID()}@mx.example>`,
      'Auto-Submitted: auto-replied',
      'MIME-Version: 1.0',
      `Content-Type: multipart/report; report-type=delivery-status; boundary="${b}"`,
      '',
      `--${b}`,
      'Content-Type: text/plain; charset=us-ascii',
      '',
      'Your message could not be delivered.',
      '',
      `--${b}`,
      'Content-Type: message/delivery-status',
      '',
      'Reporting-MTA: dns; mx.example',
      '',
      `Final-Recipient: rfc822; ${o.finalRecipient}`,
      'Action: failed',
      `Status: ${o.status ?? '5.1.1'}`,
      `Diagnostic-Code: ${o.diagnostic ?? `smtp; 550 ${o.status ?? '5.1.1'} user unknown`}`,
      '',
      `--${b}`,
      'Content-Type: text/rfc822-headers',
      '',
      'From: Sanne Bakker <sanne@example-sender.nl>',
      'Subject: Uw aanvraag omgevingsvergunning Kerkstraat 12',
      ...(o.originalMessageId ? [`Message-ID: ${o.originalMessageId}`] : []),
      '',
      `--${b}--`,
      '',
    ].join(CRLF),
  );
}

/** An ARF report from Yahoo's loop; `authenticationResults` is what our receiving server wrote (DKIM passed for yahoo.com, or not). */
export function arfMail(o: {
  originalMessageId: string | null;
  originalRcptTo?: string;
  feedbackType?: string;
  authenticationResults?: string;
  from?: string;
}): Buffer {
  const b = `arf-${randomUUID()}`;
  return Buffer.from(
    [
      ...(o.authenticationResults ? [`Authentication-Results: ${o.authenticationResults}`] : []),
      `From: ${o.from ?? 'Yahoo! Mail AntiSpam Feedback <feedback@arf.mail.yahoo.com>'}`,
      'To: fbl@example-sender.nl',
      'Subject: FW: Uw aanvraag omgevingsvergunning Kerkstraat 12',
      'Date: Thu, 19 Nov 2026 12:00:00 +0000',
      `Message-ID: <${randomUUID()}@arf.mail.yahoo.com>`,
      'MIME-Version: 1.0',
      `Content-Type: multipart/report; report-type=feedback-report; boundary="${b}"`,
      '',
      `--${b}`,
      'Content-Type: text/plain; charset="US-ASCII"',
      '',
      'This is an email abuse report for an email message received from IP 192.0.2.1.',
      '',
      `--${b}`,
      'Content-Type: message/feedback-report',
      '',
      `Feedback-Type: ${o.feedbackType ?? 'abuse'}`,
      'User-Agent: Yahoo!-Mail-Feedback/2.0',
      'Version: 1',
      'Original-Mail-From: <sanne@example-sender.nl>',
      ...(o.originalRcptTo ? [`Original-Rcpt-To: <${o.originalRcptTo}>`] : []),
      'Arrival-Date: Thu, 19 Nov 2026 10:20:01 +0000',
      'Reported-Domain: example-sender.nl',
      'Source-IP: 192.0.2.1',
      '',
      `--${b}`,
      'Content-Type: message/rfc822',
      'Content-Disposition: inline',
      '',
      'From: Sanne Bakker <sanne@example-sender.nl>',
      'To: <redacted@yahoo.com>',
      'Subject: Uw aanvraag omgevingsvergunning Kerkstraat 12',
      ...(o.originalMessageId ? [`Message-ID: ${o.originalMessageId}`] : []),
      'Date: Thu, 19 Nov 2026 10:20:01 +0100',
      '',
      'Beste Jan, ... Wilt u geen e-mail meer? Meld u af: unsubscribe',
      '',
      `--${b}--`,
      '',
    ].join(CRLF),
  );
}
