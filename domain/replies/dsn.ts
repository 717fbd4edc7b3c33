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
function fields(block: string): Map<string, string> {
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
  const blocks = body.replace(/\r\n?/g, '\n').split(/\n\s*\n/).map((b) => b.trim()).filter(Boolean);
  const out: DeliveryStatus[] = [];
  for (const block of blocks) {
    const f = fields(block);
    if (!f.has('final-recipient') && !f.has('original-recipient')) continue;
    const action = f.get('action')?.toLowerCase() ?? null;
    const status = /\d\.\d{1,3}\.\d{1,3}/.exec(f.get('status') ?? '')?.[0] ?? null;
    const kind: DeliveryStatus['kind'] =
      status?.startsWith('5') || action === 'failed' ? 'hard' : status?.startsWith('4') || action === 'delayed' ? 'soft' : 'delivered';
    out.push({ recipient: address(f.get('final-recipient') ?? f.get('original-recipient')), action, status, diagnostic: f.get('diagnostic-code') ?? null, kind });
  }
  return out;
}

/** The Message-ID of the returned original (message/rfc822 or text/rfc822-headers part), as "<id>". */
export function originalMessageId(returnedHeaders: string): string | null {
  const id = fields(returnedHeaders.split(/\r?\n\r?\n/)[0] ?? '').get('message-id');
  return id ? normalizeMessageId(id) : null;
}

/** "<a@b>" as compared and stored: one id, with its angle brackets, in lower case (compose.ts writes ours so). */
export function normalizeMessageId(id: string): string | null {
  const m = /<?([^<>\s]+@[^<>\s]+)>?/.exec(id.trim());
  return m ? `<${m[1]!.toLowerCase()}>` : null;
}

/** The ids of a References or In-Reply-To header, in order. */
export function messageIdList(header: string | string[] | null | undefined): string[] {
  const all = Array.isArray(header) ? header.join(' ') : (header ?? '');
  return [...all.matchAll(/<[^<>\s]+@[^<>\s]+>/g)].map((m) => normalizeMessageId(m[0])!).filter(Boolean);
}
