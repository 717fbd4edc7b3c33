import { convert } from 'html-to-text';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import type { HeaderLookup } from '../../../domain/replies/auto-reply';
import type { InboundFacts, MailPart } from '../../../domain/replies/delivery-report';
import { messageIdList, normalizeMessageId } from '../../../domain/replies/dsn';
import { cleanLine, cleanText, MAX_CLASSIFIED_CHARS, MAX_LINE_CHARS } from '../../../domain/replies/text';

/**
 * A raw RFC 822 message read with mailparser into what inbound handling needs: ids for threading and
 * de-duplication, the sender, the plain text (the HTML part's text when there is no plain part), the
 * raw headers (for the auto-reply markers), the time zone offset of its Date header, and the text of
 * every other part (report parts, returned messages) for domain/replies/delivery-report.ts.
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

export interface ParsedInbound extends InboundFacts {
  messageId: string | null;
  inReplyTo: string[];
  references: string[];
  toAddresses: string[];
  date: Date | null;
  /** "UTC+1" from "+0100", null when the Date header has no numeric offset. */
  dateZone: string | null;
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
/**
 * A message has From (with or without an address: a null sender's bounce has none) or the transport's
 * own headers, or else at least two of the other headers every message carries (a server that folds
 * its From into the Date line still writes Message-Id, Subject and To).
 */
const MESSAGE_HEADER = /^(?:from|received|return-path):/i;
const OTHER_MESSAGE_HEADER = /^(?:date|message-id|subject|to|mime-version|content-type):/i;

/** A leading mbox "From " separator line, as a saved mailbox file starts. */
function withoutMboxLine(raw: Buffer): Buffer {
  if (raw.subarray(0, 5).toString('latin1') !== 'From ') return raw;
  const nl = raw.indexOf(0x0a);
  return nl === -1 ? raw : raw.subarray(nl + 1);
}

export function looksLikeRfc822(raw: Buffer): boolean {
  const head = withoutMboxLine(raw)
    .subarray(0, 64 * 1024)
    .toString('latin1');
  const end = head.search(/\r?\n\r?\n/);
  const lines = (end === -1 ? head : head.slice(0, end)).split(/\r?\n/).filter(Boolean);
  if (!lines.length || !lines.every((l) => HEADER_LINE.test(l))) return false;
  return (
    lines.some((l) => MESSAGE_HEADER.test(l)) ||
    new Set(lines.filter((l) => OTHER_MESSAGE_HEADER.test(l)).map((l) => l.slice(0, l.indexOf(':')).toLowerCase())).size >= 2
  );
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
    out.set(
      key,
      cleanText(
        line
          .slice(line.indexOf(':') + 1, line.indexOf(':') + 1 + 4 * MAX_LINE_CHARS)
          .replace(/\r?\n[ \t]+/g, ' ')
          .trim(),
        MAX_LINE_CHARS,
      ),
    );
  }
  return out;
}

/** The most text kept of one part, and of all parts together. */
const MAX_PART_CHARS = 64 * 1024;
const MAX_PARTS_CHARS = 256 * 1024;
const MAX_PARTS = 20;

/** Parts a report's reader reads as text (every text/* and message/* part); the rest are named only. */
function isReadablePart(type: string): boolean {
  return type.startsWith('text/') || type.startsWith('message/');
}

/** The attachments as MailParts: readable ones with their text, bounded; binary ones by type and name only. */
function partsOf(p: ParsedMail): MailPart[] {
  const out: MailPart[] = [];
  let total = 0;
  for (const a of p.attachments.slice(0, MAX_PARTS)) {
    const type = (a.contentType || 'application/octet-stream').toLowerCase();
    let text = '';
    if (isReadablePart(type) && total < MAX_PARTS_CHARS) {
      text = cleanText(
        a.content
          .subarray(0, MAX_PART_CHARS)
          .toString(
            type.startsWith('text/') && a.contentType && /latin|8859|1252/i.test(String((a as { charset?: string }).charset ?? '')) ? 'latin1' : 'utf8',
          ),
        MAX_PART_CHARS,
      );
      total += text.length;
    }
    out.push({ type, name: a.filename ? cleanText(a.filename, 255) : null, text });
  }
  return out;
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

/**
 * The parts of a multipart message whose declared boundary matches none of its delimiter lines (a
 * broken MIME structure some servers write): mailparser then reads the whole body as text. The text
 * is cut at lines "--token" and each piece with a header section becomes a part. Linear, bounded.
 */
/** The raw body after the header section, as text (bounded). */
function bodyOf(raw: Buffer): string {
  const head = raw.subarray(0, MAX_PARTS_CHARS).toString('latin1');
  const end = /\r?\n\r?\n/.exec(head);
  return end ? head.slice(end.index + end[0].length) : '';
}

export function looseParts(text: string): MailPart[] {
  const out: MailPart[] = [];
  const pieces = `\n${text.slice(0, MAX_PARTS_CHARS)}`.split(/\r?\n--[^\s]{6,200}\r?\n/);
  for (const piece of pieces.slice(1, MAX_PARTS + 1)) {
    const m = /^content-type:\s*([a-z0-9.+-]+\/[a-z0-9.+-]+)/im.exec(piece.slice(0, 2048));
    const end = piece.search(/\r?\n\r?\n/);
    if (!m || end === -1) continue;
    out.push({ type: m[1]!.toLowerCase(), name: null, text: cleanText(piece.slice(end).trim(), MAX_PART_CHARS) });
  }
  return out;
}

/**
 * The message a report returns inline (a message/rfc822 or text/rfc822-headers part that mailparser
 * reads as part of the report rather than as an attachment, as in ARF reports), as a part: its text
 * after the part's own headers. Plain string search over the first megabyte.
 */
function embeddedOriginal(raw: Buffer): MailPart | null {
  const text = raw.subarray(0, 1024 * 1024).toString('latin1');
  const lower = text.toLowerCase();
  const at = [lower.indexOf('content-type: message/rfc822'), lower.indexOf('content-type: text/rfc822-headers')]
    .filter((i) => i !== -1)
    .sort((a, b) => a - b)[0];
  if (at === undefined) return null;
  const partHeadersEnd = /\r?\n\r?\n/.exec(text.slice(at, at + 8 * 1024));
  if (!partHeadersEnd) return null;
  const start = at + partHeadersEnd.index + partHeadersEnd[0].length;
  return { type: 'message/rfc822', name: null, text: cleanText(text.slice(start, start + MAX_PART_CHARS), MAX_PART_CHARS) };
}

export async function parseInbound(input: Buffer): Promise<ParsedInbound> {
  if (!looksLikeRfc822(input))
    throw new NotRfc822Error('not an RFC 822 message: it must start with a header section (From, or Date, Subject, Message-ID, ...)');
  const raw = withoutMboxLine(input);
  let p: ParsedMail;
  try {
    p = await simpleParser(raw, { keepDeliveryStatus: true, skipImageLinks: true, skipTextToHtml: true, maxHtmlLengthToParse: MAX_HTML_CHARS });
  } catch (err) {
    throw new NotRfc822Error(`not an RFC 822 message: ${(err as Error).message}`);
  }
  const headers = rawHeaders(p);
  // A null sender ("MAILER-DAEMON <>", or no From at all) is how bounces arrive: no address, never refused.
  const from = addresses(p.from)[0];
  const fromName = from?.name || p.from?.value?.[0]?.name || null;
  const parsedText = p.text ?? (typeof p.html === 'string' ? htmlText(p.html) : '');
  const multipart = String(headers.get('content-type') ?? '')
    .toLowerCase()
    .startsWith('multipart/');
  const found = partsOf(p);
  // A multipart whose structure mailparser could not follow: its parts read by their delimiter lines.
  const loose = multipart && (!found.length || !parsedText.trim()) ? looseParts(bodyOf(raw)) : [];
  // With no delimiter line at all, the body is the message's text (a report's fields run on in it).
  const unstructured = multipart && !found.length && !loose.length && !parsedText.trim() ? cleanText(bodyOf(raw), MAX_PART_CHARS) : parsedText;
  const text = parsedText.trim() ? parsedText : (loose.find((x) => x.type === 'text/plain')?.text ?? unstructured);
  const parts = found.length ? found : loose.filter((x) => x.type !== 'text/plain' && !x.type.startsWith('multipart/'));
  if (multipart && !parts.some((x) => x.type === 'message/rfc822' || x.type === 'text/rfc822-headers')) {
    const inline = embeddedOriginal(raw);
    if (inline) parts.push(inline);
  }
  return {
    messageId: p.messageId ? normalizeMessageId(p.messageId) : null,
    inReplyTo: messageIdList(headers.get('in-reply-to')),
    references: messageIdList(headers.get('references')),
    fromAddress: from ? cleanLine(from.address) : null,
    fromName: cleanLine(fromName || null) || null,
    toAddresses: addresses(p.to)
      .slice(0, 50)
      .map((a) => cleanText(a.address, MAX_LINE_CHARS)),
    subject: cleanLine(p.subject ?? null),
    date: p.date && !Number.isNaN(p.date.getTime()) ? p.date : null,
    dateZone: zoneOfDate(headers.get('date')),
    text: cleanText(text.slice(0, 2 * MAX_CLASSIFIED_CHARS).trim(), MAX_CLASSIFIED_CHARS),
    headers: Object.fromEntries(headers),
    parts,
  };
}
