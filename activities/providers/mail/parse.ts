import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import type { HeaderLookup } from '../../../domain/replies/auto-reply';
import { messageIdList, normalizeMessageId, originalMessageId, readDeliveryStatus, type DeliveryStatus } from '../../../domain/replies/dsn';

/**
 * A raw RFC 822 message read with mailparser into what inbound handling needs: ids for threading and
 * de-duplication, the sender, the plain text (the HTML part's text when there is no plain part), the
 * raw headers (for the auto-reply markers), the time zone offset of its Date header, and for a
 * delivery status notification (multipart/report) the recipients' statuses and the original's id.
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
  header: HeaderLookup;
  /** Set for a delivery status notification. */
  report: { statuses: DeliveryStatus[]; originalMessageId: string | null } | null;
}

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
  const m = /([+-])(\d{2})(\d{2})\s*(?:\([^)]*\))?\s*$/.exec(raw ?? '');
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
    out.set(key, line.slice(line.indexOf(':') + 1).replace(/\r?\n[ \t]+/g, ' ').trim());
  }
  return out;
}

export async function parseInbound(raw: Buffer): Promise<ParsedInbound> {
  if (!looksLikeRfc822(raw)) throw new NotRfc822Error('not an RFC 822 message: it must start with a header section that has a From header');
  let p: ParsedMail;
  try {
    p = await simpleParser(raw, { keepDeliveryStatus: true, skipImageLinks: true, skipTextToHtml: true });
  } catch (err) {
    throw new NotRfc822Error(`not an RFC 822 message: ${(err as Error).message}`);
  }
  const headers = rawHeaders(p);
  const from = addresses(p.from)[0];
  if (!from) throw new NotRfc822Error('not an RFC 822 message: its From header has no address');
  const contentType = p.headers.get('content-type') as { value?: string; params?: Record<string, string> } | undefined;
  const isReport = contentType?.value === 'multipart/report';
  const statusPart = p.attachments.find((a) => a.contentType === 'message/delivery-status');
  const returned = p.attachments.find((a) => a.contentType === 'text/rfc822-headers' || a.contentType === 'message/rfc822');
  const report =
    isReport && statusPart
      ? { statuses: readDeliveryStatus(statusPart.content.toString('utf8')), originalMessageId: returned ? originalMessageId(returned.content.toString('utf8')) : null }
      : null;
  return {
    messageId: p.messageId ? normalizeMessageId(p.messageId) : null,
    inReplyTo: messageIdList(headers.get('in-reply-to')),
    references: messageIdList(headers.get('references')),
    fromAddress: from.address,
    fromName: from.name || null,
    toAddresses: addresses(p.to).map((a) => a.address),
    subject: p.subject ?? null,
    date: p.date && !Number.isNaN(p.date.getTime()) ? p.date : null,
    dateZone: zoneOfDate(headers.get('date')),
    text: (p.text ?? (typeof p.html === 'string' ? htmlText(p.html) : '')).trim(),
    header: (name) => headers.get(name.toLowerCase()),
    report,
  };
}

function htmlText(html: string): string {
  return html
    .replace(/<(?:br|\/p|\/div)[^>]*>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
