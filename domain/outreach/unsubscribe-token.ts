import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/**
 * The one-click unsubscribe token: unguessable and naming one
 * message, with no state: base64url(message id (16 bytes) || HMAC-SHA256(key, label || message id)),
 * 64 characters. Only a holder of the key can make one; verifying recomputes the MAC and compares it
 * in constant time. The key is UNSUBSCRIBE_TOKEN_KEY, else derived from INTEGRATION_SECRET_KEY with
 * HKDF-SHA256 (info "outreach unsubscribe token v1"), so one secret suffices; rotating the key
 * invalidates the links of mail already sent (they answer 404).
 */
const LABEL = Buffer.from('outreach-unsubscribe-v1:');
const HKDF_INFO = 'outreach unsubscribe token v1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TOKEN = /^[A-Za-z0-9_-]{64}$/;

/** A key of 32 bytes written as 64 hex characters or base64 (as INTEGRATION_SECRET_KEY). */
export function parseKey(text: string, name: string): Buffer {
  const key = /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32) throw new Error(`${name} must be 32 bytes (64 hex characters or base64)`);
  return key;
}

/** UNSUBSCRIBE_TOKEN_KEY, else HKDF-SHA256 of INTEGRATION_SECRET_KEY; null when neither is set. */
export function unsubscribeTokenKey(env: { UNSUBSCRIBE_TOKEN_KEY?: string; INTEGRATION_SECRET_KEY?: string }): Buffer | null {
  if (env.UNSUBSCRIBE_TOKEN_KEY) return parseKey(env.UNSUBSCRIBE_TOKEN_KEY, 'UNSUBSCRIBE_TOKEN_KEY');
  if (env.INTEGRATION_SECRET_KEY) {
    const ikm = parseKey(env.INTEGRATION_SECRET_KEY, 'INTEGRATION_SECRET_KEY');
    return Buffer.from(hkdfSync('sha256', ikm, Buffer.alloc(0), HKDF_INFO, 32));
  }
  return null;
}

function uuidBytes(id: string): Buffer {
  return Buffer.from(id.replace(/-/g, ''), 'hex');
}

function uuidText(bytes: Buffer): string {
  const h = bytes.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function mac(key: Buffer, id: Buffer): Buffer {
  return createHmac('sha256', key).update(LABEL).update(id).digest();
}

export class UnsubscribeTokens {
  constructor(private readonly key: Buffer) {
    if (key.length < 32) throw new Error('the unsubscribe token key must be at least 32 bytes');
  }

  /** The token of one outbound message. */
  sign(messageId: string): string {
    if (!UUID.test(messageId)) throw new Error('a message id is a UUID');
    const id = uuidBytes(messageId.toLowerCase());
    return Buffer.concat([id, mac(this.key, id)]).toString('base64url');
  }

  /** The message id a token names, or null for anything this key did not sign. */
  verify(token: string): string | null {
    if (!TOKEN.test(token)) return null;
    const raw = Buffer.from(token, 'base64url');
    // Canonical encoding only: base64url of 48 bytes is exactly 64 characters with no spare bits.
    if (raw.length !== 48 || raw.toString('base64url') !== token) return null;
    const id = raw.subarray(0, 16);
    return timingSafeEqual(raw.subarray(16), mac(this.key, id)) ? uuidText(id) : null;
  }
}

/** The link in List-Unsubscribe and the footer: `${base}/u/${token}` (PUBLIC_BASE_URL, no trailing slash needed). */
export function unsubscribeUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/u/${token}`;
}
