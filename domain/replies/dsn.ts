/**
 * Delivery status notifications (RFC 3464, multipart/report; report-type=delivery-status): the
 * per-recipient fields of the message/delivery-status part, and the Message-ID of the original
 * message from its returned headers. Status 5.x.x (or Action: failed) is a hard bounce, 4.x.x (or
 * Action: delayed) a soft one.
 */
export interface DeliveryStatus {
  recipient: string | null;
  action: string | null;
  status: string | null;
  diagnostic: string | null;
  kind: 'hard' | 'soft' | 'delivered';
}

/** Header-style fields of a block, folded lines unfolded, names in lower case. */
export function fields(block: string): Map<string, string> {
  const out = new Map<string, string>();
  const unfolded = block.replace(/\r\n?/g, '\n').replace(/\n[ \t]+/g, ' ');
  for (const line of unfolded.split('\n')) {
    const m = /^([A-Za-z0-9-]+)\s*:\s*(.*)$/.exec(line);
    if (m && !out.has(m[1]!.toLowerCase())) out.set(m[1]!.toLowerCase(), m[2]!.trim());
  }
  return out;
}

/** "rfc822; a@b.nl" -> "a@b.nl" */
function address(v: string | undefined): string | null {
  if (!v) return null;
  const a = v.includes(';') ? v.slice(v.indexOf(';') + 1) : v;
  const clean = a.trim().replace(/^<|>$/g, '').toLowerCase();
  return clean || null;
}

/** The recipients' statuses of a message/delivery-status body (the first block is per-message). */
export function readDeliveryStatus(body: string): DeliveryStatus[] {
  // Records are separated by empty lines; some servers run them together, so a second Final-Recipient starts a record too.
  const blocks = body
    .slice(0, 64 * 1024)
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n|\n(?=final-recipient\s*:)/i)
    .map((b) => b.trim())
    .filter(Boolean);
  const out: DeliveryStatus[] = [];
  for (const block of blocks) {
    const f = fields(block);
    if (!f.has('final-recipient') && !f.has('original-recipient')) continue;
    const action = f.get('action')?.toLowerCase() ?? null;
    const status = /\d\.\d{1,3}\.\d{1,3}/.exec(f.get('status') ?? '')?.[0] ?? null;
    const kind: DeliveryStatus['kind'] =
      status?.startsWith('5') || action === 'failed' ? 'hard' : status?.startsWith('4') || action === 'delayed' ? 'soft' : 'delivered';
    out.push({
      recipient: address(f.get('final-recipient') ?? f.get('original-recipient')),
      action,
      status,
      diagnostic: f.get('diagnostic-code') ?? null,
      kind,
    });
  }
  return out;
}

/** "<a@b>" as compared and stored: one id, with its angle brackets, in lower case (compose.ts writes ours so). */
export function normalizeMessageId(id: string): string | null {
  const trimmed = id.trim();
  if (trimmed.length > MAX_MESSAGE_ID) return null; // bounded input: the pattern below never meets a long text
  const m = /<?([^<>\s]+@[^<>\s]+)>?/.exec(trimmed);
  return m ? `<${m[1]!.toLowerCase()}>` : null;
}

/** The longest Message-ID taken (RFC 5322 lines are at most 998 characters). */
const MAX_MESSAGE_ID = 998;
/** The most ids read from one References or In-Reply-To header. */
const MAX_IDS = 100;

/**
 * The ids of a References or In-Reply-To header, in order: each "<...>" with an "@" and no white space
 * inside, found in one pass (a "<" seen before the ">" restarts the id there). At most 100.
 */
export function messageIdList(header: string | string[] | null | undefined): string[] {
  const all = Array.isArray(header) ? header.join(' ') : (header ?? '');
  const out: string[] = [];
  let open = -1;
  let at = false;
  for (let i = 0; i < all.length && out.length < MAX_IDS; i++) {
    const ch = all[i]!;
    if (ch === '<') {
      open = i;
      at = false;
    } else if (open === -1) {
      continue;
    } else if (ch === '>') {
      const id = all.slice(open, i + 1);
      if (at && id.length > 3 && id[1] !== '@' && id[i - open - 1] !== '@' && id.length <= MAX_MESSAGE_ID) {
        const n = normalizeMessageId(id);
        if (n) out.push(n);
      }
      open = -1;
    } else if (ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n') {
      open = -1;
    } else if (ch === '@') {
      at = true;
    }
  }
  return out;
}
