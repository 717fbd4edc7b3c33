import { convert } from 'html-to-text';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import type { HeaderLookup } from '../../../domain/replies/auto-reply';
import { readFeedbackReport, type FeedbackReport } from '../../../domain/replies/arf';
import { messageIdList, normalizeMessageId, originalMessageId, readDeliveryStatus, type DeliveryStatus } from '../../../domain/replies/dsn';
import { cleanLine, cleanText, MAX_CLASSIFIED_CHARS, MAX_LINE_CHARS } from '../../../domain/replies/text';

/**
 * A raw RFC 822 message read with mailparser into what inbound handling needs: ids for threading and
 * de-duplication, the sender, the plain text (the HTML part's text when there is no plain part), the
 * raw headers (for the auto-reply markers), the time zone offset of its Date header, and for a
 * delivery status notification (multipart/report) the recipients' statuses and the original's id,
 * for an abuse feedback report (ARF) its type and the original's id.
 *
 * Inbound mail is hostile input: the HTML is converted by html-to-text (a real parser, linear), every
 * text is cut to MAX_CLASSIFIED_CHARS and freed of NULs and lone surrogates (domain/replies/text.ts),
 * and the answer is plain data (it crosses from the parse worker thread, parse-pool.ts).
 */
export class NotRfc822Error extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotRfc822Error';
  }
}

export interface ParsedInbound {
  messageId: string | null;
  inReplyTo: string[];
  references: string[];
  fromAddress: string | null;
  fromName: string | null;
  toAddresses: string[];
  subject: string | null;
  date: Date | null;
  /** "UTC+1" from "+0100", null when the Date header has no numeric offset. */
  dateZone: string | null;
  text: string;
  /** Header values by lower-case name (the first of a repeated one), each at most 998 characters. */
  headers: Record<string, string>;
  /** Set for a delivery status notification. */
  report: { statuses: DeliveryStatus[]; originalMessageId: string | null } | null;
  /** Set for an abuse feedback report (RFC 5965). */
  feedback: (FeedbackReport & { originalMessageId: string | null }) | null;
}

/** The header lookup of a parsed message (auto-reply markers). */
export function headerLookup(parsed: Pick<ParsedInbound, 'headers'>): HeaderLookup {
  return (name) => (Object.hasOwn(parsed.headers, name.toLowerCase()) ? parsed.headers[name.toLowerCase()] : undefined);
}

/** The most header fields kept of one message. */
const MAX_HEADERS = 200;
/** The most HTML converted to text (html-to-text stops reading there). */
const MAX_HTML_CHARS = 1024 * 1024;

/** A header section: lines of "Name: value" (or folded continuations) up to the first empty line. */
const HEADER_LINE = /^(?:[!-9;-~]+:|[ \t])/;

export function looksLikeRfc822(raw: Buffer): boolean {
  const head = raw.subarray(0, 64 * 1024).toString('latin1');
  const end = head.search(/\r?\n\r?\n/);
  const lines = (end === -1 ? head : head.slice(0, end)).split(/\r?\n/).filter(Boolean);
  if (!lines.length || !lines.every((l) => HEADER_LINE.test(l))) return false;
  return lines.some((l) => /^from:/i.test(l));
}

function addresses(a: AddressObject | AddressObject[] | undefined): { address: string; name: string }[] {
  const list = Array.isArray(a) ? a : a ? [a] : [];
  return list.flatMap((o) => o.value).flatMap((v) => (v.address ? [{ address: v.address.toLowerCase(), name: v.name ?? '' }] : []));
}

function zoneOfDate(raw: string | undefined): string | null {
  const m = /([+-])(\d{2})(\d{2})\s*(?:\([^)]*\))?\s*$/.exec((raw ?? '').slice(-80));
  if (!m) return null;
  const minutes = Number(m[2]) * 60 + Number(m[3]);
  if (minutes === 0) return 'UTC';
  const h = Math.floor(minutes / 60);
  const mm = minutes % 60;
  return `UTC${m[1]}${h}${mm ? `:${String(mm).padStart(2, '0')}` : ''}`;
}

function rawHeaders(p: ParsedMail): Map<string, string> {
  const out = new Map<string, string>();
  for (const { key, line } of p.headerLines) {
    if (out.has(key)) continue;
    if (out.size === MAX_HEADERS) break;
    out.set(key, cleanText(line.slice(line.indexOf(':') + 1, line.indexOf(':') + 1 + 4 * MAX_LINE_CHARS).replace(/\r?\n[ \t]+/g, ' ').trim(), MAX_LINE_CHARS));
  }
  return out;
}

/**
 * The Message-ID of the message a report returns inline (a message/rfc822 part that mailparser reads
 * as part of the report rather than as an attachment, as in ARF reports): the headers of that part,
 * then the embedded message's own headers. Plain string search over the first megabyte.
 */
function embeddedMessageId(raw: Buffer): string | null {
  const text = raw.subarray(0, 1024 * 1024).toString('latin1');
  const at = text.toLowerCase().indexOf('content-type: message/rfc822');
  if (at === -1) return null;
  const partHeadersEnd = /\r?\n\r?\n/.exec(text.slice(at, at + 8 * 1024));
  if (!partHeadersEnd) return null;
  const start = at + partHeadersEnd.index + partHeadersEnd[0].length;
  return originalMessageId(text.slice(start, start + 64 * 1024));
}

/** The text of an HTML part, by html-to-text (links and images as their text only). */
export function htmlText(html: string): string {
  return convert(html.slice(0, MAX_HTML_CHARS), {
    wordwrap: false,
    limits: { maxInputLength: MAX_HTML_CHARS, maxDepth: 200, maxChildNodes: 10_000 },
    selectors: [
      { selector: 'a', options: { ignoreHref: true } },
      { selector: 'img', format: 'skip' },
    ],
  });
}

export async function parseInbound(raw: Buffer): Promise<ParsedInbound> {
  if (!looksLikeRfc822(raw)) throw new NotRfc822Error('not an RFC 822 message: it must start with a header section that has a From header');
  let p: ParsedMail;
  try {
    p = await simpleParser(raw, { keepDeliveryStatus: true, skipImageLinks: true, skipTextToHtml: true, maxHtmlLengthToParse: MAX_HTML_CHARS });
  } catch (err) {
    throw new NotRfc822Error(`not an RFC 822 message: ${(err as Error).message}`);
  }
  const headers = rawHeaders(p);
  const from = addresses(p.from)[0];
  if (!from) throw new NotRfc822Error('not an RFC 822 message: its From header has no address');
  const contentType = p.headers.get('content-type') as { value?: string; params?: Record<string, string> } | undefined;
  const isReport = contentType?.value === 'multipart/report';
  const reportType = contentType?.params?.['report-type']?.toLowerCase();
  const statusPart = p.attachments.find((a) => a.contentType === 'message/delivery-status');
  const feedbackPart = p.attachments.find((a) => a.contentType === 'message/feedback-report');
  const returned = p.attachments.find((a) => a.contentType === 'text/rfc822-headers' || a.contentType === 'message/rfc822');
  const original = returned ? originalMessageId(returned.content.subarray(0, 64 * 1024).toString('utf8')) : isReport ? embeddedMessageId(raw) : null;
  const feedback = isReport && feedbackPart && reportType !== 'delivery-status' ? { ...readFeedbackReport(feedbackPart.content.subarray(0, 16 * 1024).toString('utf8')), originalMessageId: original } : null;
  const report = isReport && statusPart && !feedback ? { statuses: readDeliveryStatus(statusPart.content.subarray(0, 64 * 1024).toString('utf8')), originalMessageId: original } : null;
  const text = p.text ?? (typeof p.html === 'string' ? htmlText(p.html) : '');
  return {
    messageId: p.messageId ? normalizeMessageId(p.messageId) : null,
    inReplyTo: messageIdList(headers.get('in-reply-to')),
    references: messageIdList(headers.get('references')),
    fromAddress: cleanLine(from.address),
    fromName: cleanLine(from.name || null) || null,
    toAddresses: addresses(p.to).slice(0, 50).map((a) => cleanText(a.address, MAX_LINE_CHARS)),
    subject: cleanLine(p.subject ?? null),
    date: p.date && !Number.isNaN(p.date.getTime()) ? p.date : null,
    dateZone: zoneOfDate(headers.get('date')),
    text: cleanText(text.slice(0, 2 * MAX_CLASSIFIED_CHARS).trim(), MAX_CLASSIFIED_CHARS),
    headers: Object.fromEntries(headers),
    report,
    feedback,
  };
}
