import { isHardReason, reasonOfStatus, ruleOfText, type BounceReason } from './bounce-reasons';
import { fields, messageIdList, normalizeMessageId, readDeliveryStatus, type DeliveryStatus } from './dsn';
import { readFeedbackReport, type FeedbackReport } from './arf';
import { addressesIn, cleanRecipient } from './recipient';

/**
 * What a received message is before anyone reads it as a reply: a bounce (hard or soft, with its
 * reason), a complaint from a feedback loop, a machine report that asks for nothing, or none of
 * these (then it is an auto-reply, an out-of-office notice or a person's reply: classify.ts). One pure
 * decision over the parsed message, shared by the worker and `npm run inbound:explain`.
 *
 * Bounces come as RFC 3464 reports and as the plain-text notices of qmail, Exim, Postfix, Sendmail,
 * Exchange and the providers; feedback as ARF (RFC 5965) and the older loops' own shapes. Every text
 * here is untrusted and read by substring search and bounded scans only.
 */
export interface MailPart {
  /** Its content type, lower case ("message/delivery-status"). */
  type: string;
  /** Its file name, when it has one. */
  name: string | null;
  /** Its text (decoded, bounded); empty for a binary part. */
  text: string;
}

export interface InboundFacts {
  fromAddress: string | null;
  fromName: string | null;
  subject: string | null;
  /** Header values by lower-case name. */
  headers: Record<string, string>;
  /** The message's own text (its first readable part). */
  text: string;
  /** Every other part, in order: report parts, returned messages, attachments. */
  parts: MailPart[];
}

export type ReportKind = 'hard_bounce' | 'soft_bounce' | 'complaint' | 'report';

export interface ReportDecision {
  kind: ReportKind;
  /** A bounce's reason (bounce-reasons.ts), a complaint's feedback type, a report's sort. */
  reason: string;
  /** The enhanced status code (5.1.1), when one was given. */
  status: string | null;
  /** The address that failed or was reported, cleaned. */
  recipient: string | null;
  /** The Message-ID of the message it reports on, when it carries or quotes one. */
  originalMessageId: string | null;
  /** The server's own words, at most 500 characters. */
  diagnostic: string | null;
  /** For a complaint: the address that sent it (its From), lower case. */
  reporter: string | null;
  /** For a complaint: whether it is a structured report (an ARF feedback part, a JMRP original), not words alone. */
  structured?: boolean;
  /** A soft bounce that is a delay warning: the server still tries, the message has not failed yet. */
  delayed: boolean;
}

/** The longest part of a text that is searched for a notice's words. */
const NOTICE_CHARS = 16 * 1024;

function header(facts: InboundFacts, name: string): string {
  return facts.headers[name] ?? '';
}

function contentType(facts: InboundFacts): string {
  return header(facts, 'content-type').toLowerCase();
}

function partOf(facts: InboundFacts, ...types: string[]): MailPart | undefined {
  return facts.parts.find((p) => types.includes(p.type));
}

/** The decision for a message that is a report of some kind, or null when it is none. */
export function decideReport(facts: InboundFacts): ReportDecision | null {
  return feedbackDecision(facts) ?? providerNotice(facts) ?? dmarcAggregate(facts) ?? readReceipt(facts) ?? deliveryDecision(facts);
}

// ---------------------------------------------------------------------------------------------
// A provider's JSON notice (Amazon SES, directly or through an SNS topic)

interface SesRecipient {
  emailAddress?: string;
  status?: string;
  diagnosticCode?: string;
}
interface SesNotice {
  notificationType?: string;
  eventType?: string;
  bounce?: { bounceType?: string; bouncedRecipients?: SesRecipient[] };
  complaint?: { complainedRecipients?: SesRecipient[]; complaintFeedbackType?: string };
  delivery?: { recipients?: string[]; smtpResponse?: string };
  mail?: { messageId?: string };
}

/** The JSON object a notice's text is, or null (bounded: 64 KiB of text, parsed once or twice for an SNS envelope). */
function sesNotice(text: string): SesNotice | null {
  const t = text.trim();
  if (!t.startsWith('{') || t.length > 64 * 1024 || (!t.includes('notificationType') && !t.includes('eventType'))) return null;
  try {
    const outer = JSON.parse(t.slice(0, t.lastIndexOf('}') + 1)) as SesNotice & { Message?: string };
    const inner = typeof outer.Message === 'string' ? (JSON.parse(outer.Message) as SesNotice) : outer;
    return inner && typeof inner === 'object' ? inner : null;
  } catch {
    return sesFields(t);
  }
}

/** A notice whose JSON a mail system broke (a line folded inside a string): its few fields read one by one. */
function sesFields(t: string): SesNotice | null {
  const field = (name: string) => new RegExp(`\\\\?"${name}\\\\?"\\s*:\\s*\\\\?"([^"\\\\]{0,500})`).exec(t)?.[1];
  const type = field('notificationType') ?? field('eventType');
  if (!type) return null;
  const rcpt = { emailAddress: field('emailAddress'), status: field('status'), diagnosticCode: field('diagnosticCode') };
  return {
    notificationType: type,
    bounce: { bounceType: field('bounceType'), bouncedRecipients: [rcpt] },
    complaint: { complainedRecipients: [rcpt], complaintFeedbackType: field('complaintFeedbackType') },
  };
}

function providerNotice(facts: InboundFacts): ReportDecision | null {
  const notice = sesNotice(facts.text.split(/\n--\s*\n/)[0] ?? '');
  if (!notice) return null;
  const type = (notice.notificationType ?? notice.eventType ?? '').toLowerCase();
  const base = { originalMessageId: null, reporter: facts.fromAddress?.toLowerCase() ?? null, delayed: false };
  if (type === 'complaint') {
    const rcpt = notice.complaint?.complainedRecipients?.[0]?.emailAddress;
    return {
      kind: 'complaint',
      reason: notice.complaint?.complaintFeedbackType ?? 'abuse',
      status: null,
      recipient: cleanRecipient(rcpt),
      diagnostic: null,
      ...base,
    };
  }
  if (type === 'delivery') {
    return {
      kind: 'report',
      reason: 'delivered',
      status: null,
      recipient: cleanRecipient(notice.delivery?.recipients?.[0]),
      diagnostic: notice.delivery?.smtpResponse?.slice(0, 500) ?? null,
      ...base,
    };
  }
  if (type !== 'bounce') return null;
  const permanent = notice.bounce?.bounceType === 'Permanent';
  const judged = (notice.bounce?.bouncedRecipients ?? []).slice(0, 50).map((r) => {
    const status = statusIn(r.status ?? '') ?? statusIn(r.diagnosticCode ?? '');
    const diagnostic = String(r.diagnosticCode ?? '');
    const reason = reasonOf({ status: status ?? (permanent ? '5.0.0' : '4.0.0'), diagnostic });
    return { recipient: cleanRecipient(r.emailAddress), status, diagnostic, reason };
  });
  const worst = judged.find((j) => isHardReason(j.reason)) ?? judged[0];
  const reason = worst?.reason ?? 'other';
  return {
    kind: isHardReason(reason) ? 'hard_bounce' : 'soft_bounce',
    reason,
    status: worst?.status ?? null,
    recipient: worst?.recipient ?? null,
    diagnostic: worst?.diagnostic.slice(0, 500) || null,
    ...base,
  };
}

// ---------------------------------------------------------------------------------------------
// Feedback loops

const FEEDBACK_MARKERS = [
  'this is an email abuse report',
  'this is an abuse report',
  'feedback-type:',
  'x-hmxmroriginalrecipient',
  'complaint about a message',
  'scomp',
];

function feedbackDecision(facts: InboundFacts): ReportDecision | null {
  const ct = contentType(facts);
  const part = partOf(facts, 'message/feedback-report');
  const isArf = ct.includes('report-type=feedback-report') || ct.includes('report-type="feedback-report"') || !!part;
  const jmrp =
    header(facts, 'x-hmxmroriginalrecipient') ||
    (facts.parts.find((p) => p.type === 'message/rfc822' && /^x-hmxmroriginalrecipient:/im.test(p.text.slice(0, 8192))) ? 'jmrp' : '');
  const subject = (facts.subject ?? '').toLowerCase();
  const text = facts.text.slice(0, NOTICE_CHARS).toLowerCase();
  const fbl =
    jmrp ||
    /^(?:scomp|complaint about message|abuse report|email abuse report|fw: ?abuse report)/.test(subject) ||
    (FEEDBACK_MARKERS.some((m) => text.includes(m)) && !!partOf(facts, 'message/rfc822', 'text/rfc822-headers'));
  // Apple Mail's unsubscribe button answers the List-Unsubscribe mailto with this marker: an opt-out.
  const appleOptOut = /^\s*true\s*$/i.test(header(facts, 'x-apple-unsubscribe'));
  if (!isArf && !fbl && !appleOptOut) return null;
  if (appleOptOut && !isArf) {
    return {
      kind: 'complaint',
      reason: 'opt-out',
      status: null,
      recipient: cleanRecipient(header(facts, 'to')),
      originalMessageId: null,
      diagnostic: null,
      reporter: facts.fromAddress?.toLowerCase() ?? null,
      delayed: false,
    };
  }
  const report: FeedbackReport = part ? readFeedbackReport(part.text) : readFeedbackReport(facts.text);
  const type = report.feedbackType ?? 'abuse';
  const returned = returnedMessage(facts);
  const recipient =
    report.originalRecipient ??
    cleanRecipient(jmrp && jmrp !== 'jmrp' ? jmrp : null) ??
    cleanRecipient(fields(returned.slice(0, 16 * 1024).split(/\r?\n\r?\n/)[0] ?? '').get('to')) ??
    null;
  const base = {
    status: null,
    recipient,
    originalMessageId: originalId(facts),
    diagnostic: null,
    reporter: facts.fromAddress?.toLowerCase() ?? null,
    delayed: false,
    structured: !!part || !!jmrp,
  };
  // An authentication-failure report (DMARC's failure reports ride on ARF) asks for nothing: it is no complaint.
  if (type === 'auth-failure' || type === 'dmarc' || type === 'not-spam') return { kind: 'report', reason: type, ...base };
  return { kind: 'complaint', reason: type, ...base };
}

// ---------------------------------------------------------------------------------------------
// Reports that ask for nothing

function dmarcAggregate(facts: InboundFacts): ReportDecision | null {
  const subject = (facts.subject ?? '').toLowerCase();
  const zipped = facts.parts.some((p) => /\.(?:xml|zip|gz)$/i.test(p.name ?? '') && /!|dmarc|report/i.test(p.name ?? ''));
  if (!(subject.startsWith('report domain:') || subject.includes('dmarc aggregate') || (zipped && subject.includes('report')))) return null;
  return {
    kind: 'report',
    reason: 'dmarc_aggregate',
    status: null,
    recipient: null,
    originalMessageId: null,
    diagnostic: null,
    reporter: facts.fromAddress?.toLowerCase() ?? null,
    delayed: false,
  };
}

function readReceipt(facts: InboundFacts): ReportDecision | null {
  const ct = contentType(facts);
  if (!ct.includes('disposition-notification') && !partOf(facts, 'message/disposition-notification')) return null;
  return {
    kind: 'report',
    reason: 'read_receipt',
    status: null,
    recipient: null,
    originalMessageId: originalId(facts),
    diagnostic: null,
    reporter: null,
    delayed: false,
  };
}

// ---------------------------------------------------------------------------------------------
// Delivery reports: RFC 3464 and the plain-text notices

const BOUNCE_SENDERS = [
  'mailer-daemon',
  'post_master',
  'mailer_daemon',
  'maildaemon',
  'mail-daemon',
  'postmaster',
  'mdaemon',
  'mailerdaemon',
  'bounce',
  'bounces',
  'nobody',
  'mail.delivery.subsystem',
  'mail delivery subsystem',
  'mail delivery system',
  'microsoftexchange',
  'mail administrator',
  'mail delivery',
  'noreply',
  'no-reply',
  'mailer',
  'smtp',
  'mta',
  'root',
  'system administrator',
  'returned',
  'administrator',
  'e-mail delivery',
  'postoffice',
  'mailadmin',
];

const BOUNCE_SUBJECTS = [
  'undeliver',
  'undelivered',
  'delivery status notification',
  'delivery failure',
  'delivery failed',
  'delivery has failed',
  'delivery problem',
  'failure notice',
  'failure delivery',
  'mail delivery failed',
  'mail delivery failure',
  'returned mail',
  'return mail',
  'returned to sender',
  'non-delivery',
  'non delivery',
  'nondeliverable',
  'non-deliverable',
  'not delivered',
  'could not be delivered',
  'could not deliver',
  'unable to deliver',
  'mail system error',
  'permanent error',
  'delivery notification',
  'message delivery',
  'delivery report',
  'rejected',
  'bounce',
  'mail failure',
  'failed mail',
  'mail could not',
  'delivery error',
  'error sending',
  'warning: could not send',
  'delayed mail',
  'delivery delayed',
  'delivery incomplete',
  'unknown user',
  'user unknown',
  'message not delivered',
  'nicht zustellbar',
  'unzustellbar',
  'onbestelbaar',
  'non remis',
  'échec',
  'no se puede entregar',
  'mail error',
  'returned message',
  'notification (failure)',
  'failure',
  'undeliverable',
  'message you sent',
  'address not found',
  "can't deliver",
  'cannot deliver',
];

const BOUNCE_BODY = [
  'could not be delivered',
  "couldn't be delivered",
  'was not delivered',
  "wasn't delivered",
  "wasn't able to deliver",
  'was not able to deliver',
  'not able to deliver',
  'unable to deliver',
  'delivery to the following recipient',
  'delivery has failed',
  'delivery failed',
  'permanent error',
  'permanent fatal error',
  'fatal error',
  'undeliverable',
  'undelivered',
  'failed to deliver',
  'could not deliver',
  'message delivery failed',
  'mail delivery failed',
  'created automatically by mail delivery software',
  'delivery status notification',
  'returned to the sender',
  'returned to sender',
  'returning message to sender',
  'there was a problem delivering',
  'the following addresses had',
  'the following recipient',
  'message could not be sent',
  'your message did not reach',
  'your message couldn',
  'your message wasn',
  'your message was not',
  'your message cannot be delivered',
  'your message to',
  'message you sent',
  'your mail to the following recipients could not',
  'delivery to these recipients',
  'delivery to the following',
  'there was an error',
  'transcript of session follows',
  "i'm afraid",
  "i'm sorry to have to inform you",
  'this message was not delivered',
  'address not found',
  'no such user',
  'user unknown',
  'non-delivery',
  'remote server said',
  'remote host said',
  'smtp error',
  'mailbox unavailable',
  'rejected your message',
  'your message has been rejected',
  'message was rejected',
  'message rejected',
  'the original message',
  'bounced',
  'host unknown',
  'error message below',
  'invalid user address',
];

/** Where the copy of the original message starts in a plain-text notice (the notice's words end there). */
const ORIGINAL_MARKERS = [
  '--- below this line is a copy of the message',
  '------ this is a copy of the message',
  '----- original message follows',
  '--- original message follows',
  'original message follows',
  '----- original message -----',
  '-----original message-----',
  '------ original message ------',
  '--- the header of the original message is following',
  'the text of your message',
  'returned message follows',
  'unsent message below',
  '--- the message you sent',
  '------ original message header',
  'original message header',
  'the original message headers',
  'headers of the original message',
  'original mail headers',
  'content-type: message/rfc822',
];

/** Words in a sender's local part that name a mail system rather than a person. */
const MAILER_LOCAL_WORDS = [
  'daemon',
  'postmaster',
  'post_master',
  'smtp',
  'mail_service',
  'mailservice',
  'antivirus',
  'administrator',
  'mailadmin',
  'bounce',
  'delivery',
];

function isFromMailer(facts: InboundFacts): boolean {
  const from = `${facts.fromAddress ?? ''} ${facts.fromName ?? ''}`.toLowerCase();
  const local = (facts.fromAddress ?? '').split('@')[0]!.toLowerCase();
  return (
    !facts.fromAddress ||
    BOUNCE_SENDERS.some((s) => local === s || local.startsWith(`${s}-`) || local.startsWith(`${s}+`) || local.startsWith(`${s}.`)) ||
    MAILER_LOCAL_WORDS.some((w) => local.includes(w)) ||
    from.includes('mailer-daemon') ||
    from.includes('mail delivery') ||
    from.includes('postmaster') ||
    from.includes('mailer daemon') ||
    header(facts, 'return-path').replace(/\s/g, '') === '<>'
  );
}

/** A subject that opens as the notices' own do (not a person's "Re:"). */
const NOTICE_SUBJECT =
  /^\s*(?:returned mail|undeliverable|undelivered mail|undeliverable mail|delivery (?:status notification|failure|failed|notification|problem|warning)|mail delivery (?:failed|failure|warning|system|problem)|failure notice|non[- ]delivery|nondeliverable|returned mail|message (?:not delivered|delivery failure)|mail system error|error during delivery|could not (?:deliver|send))/i;

function noticeText(facts: InboundFacts): string {
  const t = facts.text.slice(0, NOTICE_CHARS);
  const lower = t.toLowerCase();
  let cut = t.length;
  for (const m of ORIGINAL_MARKERS) {
    const at = lower.indexOf(m);
    if (at !== -1 && at < cut && at > 0) cut = at;
  }
  return t.slice(0, cut);
}

/** Whether a message with no RFC 3464 part is a delivery-failure notice. */
function isPlainBounce(facts: InboundFacts): boolean {
  if (header(facts, 'x-failed-recipients')) return true;
  const subject = (facts.subject ?? '').toLowerCase();
  const body = facts.text.slice(0, NOTICE_CHARS).toLowerCase();
  const subjectSays = BOUNCE_SUBJECTS.some((s) => subject.includes(s));
  const bodySays = BOUNCE_BODY.some((s) => body.includes(s));
  const mailer = isFromMailer(facts);
  if (mailer && (subjectSays || bodySays)) return true;
  if (NOTICE_SUBJECT.test(subject) && bodySays) return true;
  // A provider's notice from a named sender (e.g. a bounce-handling service): both subject and body say so and the original comes back.
  return subjectSays && bodySays && !!partOf(facts, 'message/rfc822', 'text/rfc822-headers');
}

const STATUS_RE = /(?<![\d.])([45])\.(\d{1,3})\.(\d{1,3})(?![\d.]*\d)/;
const REPLY_CODE_RE = /(?:^|[\s:(#"'])([245][0-9][0-9])(?=[\s\-.:)#"']|$)/m;

function statusIn(text: string): string | null {
  const m = STATUS_RE.exec(text);
  return m ? `${m[1]}.${Number(m[2])}.${Number(m[3])}` : null;
}

/** The enhanced status that follows an SMTP reply code ("550 5.7.1", "550-'5.7.1", "550 #5.1.0"). */
function repliedStatusIn(text: string): string | null {
  const m = /(?<!\d)[45]\d\d[ \t\-#'"]{1,4}([45])\.(\d{1,3})\.(\d{1,3})(?![\d.]*\d)/.exec(text);
  return m ? `${m[1]}.${Number(m[2])}.${Number(m[3])}` : null;
}

function replyCodeIn(text: string): string | null {
  return REPLY_CODE_RE.exec(text)?.[1] ?? null;
}

interface Failure {
  recipient: string | null;
  status: string | null;
  diagnostic: string;
  delivered: boolean;
  delayed: boolean;
}

function deliveryDecision(facts: InboundFacts): ReportDecision | null {
  const statusPart = partOf(facts, 'message/delivery-status', 'message/global-delivery-status', 'text/delivery-status');
  const ct = contentType(facts);
  const isDsn = !!statusPart || ct.includes('report-type=delivery-status') || ct.includes('report-type="delivery-status"');
  const notice = noticeText(facts);
  let failures: Failure[] = [];
  // A report whose parts no delimiter separates still carries its per-recipient fields in the text.
  const hasFields = (t: string) => /^final-recipient\s*:/im.test(t.slice(0, NOTICE_CHARS));
  // A gateway's notice may wrap the report it got (as its returned message): the wrapped fields count.
  const wrapped = !isDsn && isPlainBounce(facts) ? returnedMessage(facts) : '';
  const statusText = statusPart?.text ?? (isDsn && hasFields(facts.text) ? facts.text : hasFields(wrapped) ? wrapped : null);
  if (statusText !== null) {
    const statuses = readDeliveryStatus(statusText);
    failures = statuses.map((s) => fromDsn(s, notice));
  }
  if (!failures.length) {
    if (!isDsn && !isPlainBounce(facts)) return null;
    failures = plainFailures(facts, notice);
  }
  const failed = failures.filter((f) => !f.delivered && !f.delayed);
  const delays = failures.filter((f) => f.delayed);
  // A wrapped report's own Message-ID is the relay's; ours is in the message it returns.
  const originalMessageId = (statusText !== null && statusText === wrapped ? returnedIdIn(wrapped) : null) ?? originalId(facts);
  if (!failed.length && !delays.length) {
    const first = failures[0];
    return {
      kind: 'report',
      reason: 'delivered',
      status: first?.status ?? null,
      recipient: first?.recipient ?? null,
      originalMessageId,
      diagnostic: first?.diagnostic.slice(0, 500) || null,
      reporter: null,
      delayed: false,
    };
  }
  if (!failed.length) {
    // A delay warning: a soft bounce that fails nothing yet (the server keeps trying).
    const d = delays[0]!;
    const reason = reasonOf({ status: d.status?.startsWith('4') ? d.status : '4.4.7', diagnostic: d.diagnostic });
    return {
      kind: 'soft_bounce',
      reason: isHardReason(reason) ? 'expired' : reason,
      status: d.status,
      recipient: d.recipient,
      originalMessageId,
      diagnostic: d.diagnostic.replace(/\s+/g, ' ').trim().slice(0, 500) || null,
      reporter: null,
      delayed: true,
    };
  }
  const afterData = refusedAfterData(facts.text.slice(0, NOTICE_CHARS));
  const atRcpt = refusedAtRcpt(facts.text.slice(0, NOTICE_CHARS));
  const beforeRcpt = refusedBeforeRcpt(facts.text.slice(0, NOTICE_CHARS));
  const judged = failed.map((f) => ({ ...f, reason: reasonOf({ ...f, afterData, atRcpt, beforeRcpt }) }));
  const worst = judged.find((f) => isHardReason(f.reason)) ?? judged[0]!;
  return {
    kind: isHardReason(worst.reason) ? 'hard_bounce' : 'soft_bounce',
    reason: worst.reason,
    status: worst.status,
    recipient: worst.recipient ?? cleanRecipient(header(facts, 'x-failed-recipients').split(',')[0]),
    originalMessageId,
    diagnostic: worst.diagnostic.replace(/\s+/g, ' ').trim().slice(0, 500) || null,
    reporter: null,
    delayed: false,
  };
}

function fromDsn(s: DeliveryStatus, notice: string): Failure {
  const action = s.action ?? '';
  const delivered = ['delivered', 'relayed', 'expanded'].includes(action) || !!s.status?.startsWith('2');
  const delayed = action === 'delayed';
  const diagnostic = s.diagnostic ? s.diagnostic.replace(/^(?:smtp|x-[a-z0-9-]+|unix|x-unix|mail|x-postfix);\s*/i, '') : '';
  // A reporting server's generic x.0.0 gives way to the receiving server's own, more specific status:
  // the one right after its reply code ("550 #5.1.0"), not a relay's label before it ("5.1.0 - Unknown
  // address error 550-'5.7.1 ..." is Amazon SES's wording for any remote 550: the remote said 5.7.1).
  const own = repliedStatusIn(diagnostic.slice(0, 4096));
  const status = !s.status || (/^[45]\.0\.0$/.test(s.status) && own?.[0] === s.status[0]) ? (own ?? s.status) : s.status;
  return { recipient: cleanRecipient(s.recipient), status, diagnostic: diagnostic || notice.slice(0, 4096), delivered, delayed };
}

/** The failures a plain-text notice names: its failed addresses with the lines that follow each, or the whole notice. */
function plainFailures(facts: InboundFacts, notice: string): Failure[] {
  const ourAddresses = new Set([facts.fromAddress, cleanRecipient(header(facts, 'to'))].filter(Boolean));
  const failedHeader = header(facts, 'x-failed-recipients')
    .split(',')
    .map((a) => cleanRecipient(a))
    .filter((a): a is string => !!a);
  const recipients = failedHeader.length ? failedHeader : addressesIn(notice).filter((a) => !ourAddresses.has(a) && !/^(?:mailer-daemon|postmaster)@/.test(a));
  const status = statusIn(notice);
  const lower = notice.toLowerCase();
  const delayed =
    !status?.startsWith('5') &&
    (lower.includes('will continue') ||
      lower.includes('still trying') ||
      lower.includes('delayed') ||
      lower.includes('warning: message') ||
      lower.includes('postponed') ||
      lower.includes('will be retried') ||
      lower.includes('attempts will continue')) &&
    !lower.includes('permanent') &&
    !lower.includes('given up') &&
    !lower.includes('giving up');
  const words = serverWords(notice);
  const fallbackStatus = statusIn(words) ?? status ?? codeStatus(replyCodeIn(words) ?? replyCodeIn(notice));
  const base = { recipient: recipients[0] ?? null, status: fallbackStatus, diagnostic: words || notice, delivered: false, delayed };
  // Each answer line is one recipient's failure (several recipients, several answers); the whole as well.
  const perLine = words
    .split('\n')
    .filter((l) => STATUS_RE.test(l) || /(?:^|\s)[45][0-9][0-9][\s\-:]/.test(l))
    .slice(0, 20)
    .map((l) => ({
      ...base,
      recipient: addressesIn(l, 3).find((a) => !ourAddresses.has(a)) ?? base.recipient,
      status: statusIn(l) ?? codeStatus(replyCodeIn(l)) ?? fallbackStatus,
      diagnostic: l,
    }));
  return [...perLine, base];
}

/** Words that introduce a server's own answer in a notice. */
const ANSWER_MARKERS = [
  'said:',
  'said ',
  'reason:',
  'error:',
  'diagnostic',
  'failed with',
  'returned',
  'response',
  'because',
  'smtp error',
  'technical details',
  'the error that the other server returned',
  'remote server',
  'remote host',
  'server message',
];

/**
 * The lines of a plain-text notice that carry the receiving server's answer (an SMTP reply, a status
 * code, or what follows "said:", "Reason:" and the like), with the line after each: the notice's own
 * boilerplate stays out of the reason's words. Empty when the notice holds no such line.
 */
export function serverWords(notice: string): string {
  const lines = notice.split(/\r?\n/).slice(0, 400);
  const keep: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const lower = line.toLowerCase();
    const answer =
      /^\s*[<(]?[45][0-9][0-9][\s\-:]/.test(line) ||
      STATUS_RE.test(line) ||
      /[\s:][45][0-9][0-9][\s-][^\n]{3,}/.test(line) ||
      ANSWER_MARKERS.some((m) => lower.includes(m));
    // The answer, and the first line after it that says anything (a marker such as "because:" stands alone).
    if (answer) keep.push(line, lines.slice(i + 1, i + 4).find((l) => l.trim()) ?? '');
    if (keep.join(' ').length > 4096) break;
  }
  return keep.join('\n').trim();
}

/** An SMTP reply code as the status class it implies ("550" -> "5.0.0"), for the severity only. */
function codeStatus(code: string | null): string | null {
  return code && (code.startsWith('4') || code.startsWith('5')) ? `${code[0]}.0.0` : null;
}

/**
 * A failure's reason: the server's words first, then the enhanced status code. A hard reason needs
 * the status to agree: a status that names a mailbox's state, the content or a policy (5.2.x, 5.6.x,
 * 5.7.x, a sender's 5.1.7 or 5.1.8) keeps it soft. A bare "user unknown" given after the message's data was accepted
 * (the server took the recipient at RCPT TO) is a receiving filter's refusal, soft; an explicit
 * 5.1.x status is hard at any stage.
 */
export function reasonOf(f: { status: string | null; diagnostic: string; afterData?: boolean; atRcpt?: boolean; beforeRcpt?: boolean }): BounceReason {
  const rule = ruleOfText(f.diagnostic.slice(0, 4096));
  const byText = rule?.reason ?? null;
  const byStatus = reasonOfStatus(f.status);
  let reason: BounceReason = byText ?? byStatus ?? 'other';
  if (byStatus && byText && !rule!.firm && GENERIC.has(byText) && !GENERIC.has(byStatus)) reason = byStatus;
  // 5.1.0 is "something about the address": explicit when the words also say the address is bad.
  const explicit = !!f.status && (/^5\.1\.(?:1|2|3|6|10|351)$/.test(f.status) || (f.status === '5.1.0' && !!byText && isHardReason(byText)));
  // An address-is-bad code outweighs words that only say the account is in some state.
  if (explicit && reason === 'other' && byStatus && isHardReason(byStatus)) reason = byStatus;
  if (!isHardReason(reason)) return reason;
  // Refused at the greeting or at MAIL FROM, before any recipient was named: the server refused us.
  if (f.beforeRcpt) return 'blocked';
  // A temporary failure never says the address is bad for good.
  if (f.status?.startsWith('4')) return byText && !isHardReason(byText) ? byText : 'other';
  if (explicit || rule?.sure) return reason;
  // 5.2.1 is a disabled mailbox: with words that say the user is unknown, the address is gone.
  const disabledUnknown = f.status === '5.2.1' && reason === 'user_unknown' && USER_UNKNOWN_WORDS.test(f.diagnostic.slice(0, 4096));
  if (f.status && !disabledUnknown && (/^5\.[267]\./.test(f.status) || /^5\.1\.[78]$/.test(f.status)))
    return byStatus && !isHardReason(byStatus) ? byStatus : 'policy';
  if (f.afterData) return 'content';
  // Words alone, with no 5.1.x code, are trusted only for a refusal of the address itself (at RCPT TO).
  if (reason === 'user_unknown' && !f.atRcpt && !/rcpt/i.test(f.diagnostic)) return 'other';
  return reason;
}

/** Words that say the user is unknown (not RFC 5321's stock "mailbox unavailable" or a restriction's prefix). */
const USER_UNKNOWN_WORDS = /user unknown|unknown user|no such (?:user|mailbox|recipient)|does ?n[o'\u2019]t exist/i;

/** Whether a notice says the server refused the address itself (the transcript's RCPT TO step). */
export function refusedAtRcpt(text: string): boolean {
  const t = text.toLowerCase();
  return (
    t.includes('rcpt to') ||
    t.includes('recipient address rejected') ||
    t.includes('after rcpt') ||
    t.includes('rcpt command') ||
    t.includes('smtp:rcpt') ||
    t.includes('[rcpt_to]') ||
    t.includes('>>> rcpt')
  );
}

/**
 * Whether a notice says the server refused before any recipient was named: at the greeting, our HELO
 * name or our MAIL FROM (qmail's "Connected to ... but my name was rejected", Exim's "after MAIL FROM",
 * Postfix's "in reply to MAIL FROM command", a Sendmail transcript that ends at MAIL FROM).
 */
export function refusedBeforeRcpt(text: string): boolean {
  const t = text.toLowerCase().replace(/\s+/g, ' '); // a notice folds its lines anywhere
  if (
    [
      'but my name was rejected',
      'but sender was rejected',
      'but greeting failed',
      'after mail from',
      'after ehlo',
      'after helo',
      'after initial connection',
    ].some((w) => t.includes(w))
  )
    return true;
  // Postfix: "... said: 553 ... (in reply to MAIL FROM command)".
  if (/in reply to (?:the )?(?:mail from|ehlo|helo) command/.test(t)) return true;
  // Sendmail's transcript: our MAIL FROM was answered and no RCPT TO followed.
  return t.includes('>>> mail from') && !t.includes('>>> rcpt');
}

/** Whether a notice says the refusal came after the message's data was sent (the transcript's DATA step). */
export function refusedAfterData(text: string): boolean {
  const t = text.toLowerCase();
  return t.includes('end of data') || t.includes('after data') || t.includes('>>> data') || t.includes('reply to data') || t.includes('550 : user unknown');
}

/** Reasons whose words are common in any notice's boilerplate: a specific status code outweighs them. */
const GENERIC: ReadonlySet<BounceReason> = new Set(['policy', 'expired', 'network', 'system', 'other']);

/**
 * The Message-ID of the message a report returns: the first Message-ID header of a returned message
 * or headers part, else one quoted in the notice's text after its own words.
 */
export function originalId(facts: InboundFacts): string | null {
  for (const p of facts.parts) {
    if (p.type !== 'message/rfc822' && p.type !== 'text/rfc822-headers' && p.type !== 'message/rfc822-headers') continue;
    const id = fields(p.text.slice(0, 64 * 1024).split(/\r?\n\r?\n/)[0] ?? '').get('message-id');
    const n = id ? normalizeMessageId(id) : null;
    if (n) return n;
  }
  for (const t of [facts.text, ...facts.parts.filter((p) => p.type.startsWith('text/')).map((p) => p.text)]) {
    const m = /^[ \t>]*message-id:[ \t]*(<[^<>\s]{1,900}>)/im.exec(t.slice(0, 256 * 1024));
    if (m) return messageIdList(m[1])[0] ?? null;
  }
  return null;
}

/** The first Message-ID after a message's own header section: the one of the message it returns or quotes. */
function returnedIdIn(message: string): string | null {
  const text = message.slice(0, 256 * 1024);
  const bodyAt = /\r?\n\r?\n/.exec(text);
  if (!bodyAt) return null;
  const m = /^[ \t>]*message-id:[ \t]*(<[^<>\s]{1,900}>)/im.exec(text.slice(bodyAt.index));
  return m ? (messageIdList(m[1])[0] ?? null) : null;
}

/** The returned message's text (or headers), for a report that carries one. */
function returnedMessage(facts: InboundFacts): string {
  return facts.parts.find((p) => p.type === 'message/rfc822' || p.type === 'text/rfc822-headers')?.text ?? '';
}
