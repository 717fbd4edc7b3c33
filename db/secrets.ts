import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Secrets stored in the database's columns (integration secrets, mailbox passwords, source request
 * headers): AES-256-GCM under INTEGRATION_SECRET_KEY (32 bytes, base64 or hex). The record's
 * organization and id are the additional authenticated data, so a ciphertext copied to another row
 * does not decrypt. It lives in db/ because the queries, the activities and the API all seal or open
 * these columns.
 *
 * Key rotation: every sealed value names the key that sealed it.
 *   layout 2: 2 | key id length (1) | key id (ASCII) | iv (12) | tag (16) | ciphertext
 *   layout 1 (before rotation existed): 1 | iv (12) | tag (16) | ciphertext, no key id
 * A key is written `[id:]key`; without an id its id is the first 8 hex digits of its SHA-256. The
 * current key (INTEGRATION_SECRET_KEY) seals; it and the previous keys (INTEGRATION_SECRET_KEYS,
 * comma-separated) open. `npm run secrets:reseal` seals every value again with the current key, after
 * which the previous keys can be dropped.
 */
const LEGACY = 1;
const VERSION = 2;
const KEY_ID = /^[A-Za-z0-9_.-]{1,32}$/;

interface Key {
  id: string;
  key: Buffer;
}

function parseKey(text: string): Key {
  const colon = text.indexOf(':');
  const [id, keyText] = colon >= 0 ? [text.slice(0, colon).trim(), text.slice(colon + 1).trim()] : [undefined, text.trim()];
  const key = /^[0-9a-f]{64}$/i.test(keyText) ? Buffer.from(keyText, 'hex') : Buffer.from(keyText, 'base64');
  if (key.length !== 32) throw new Error('INTEGRATION_SECRET_KEY(S): a key must be 32 bytes (64 hex characters or base64), optionally written id:key');
  if (id !== undefined && !KEY_ID.test(id)) throw new Error('INTEGRATION_SECRET_KEY(S): a key id is 1-32 of A-Z a-z 0-9 _ . -');
  return { id: id ?? createHash('sha256').update(key).digest('hex').slice(0, 8), key };
}

export class SecretBox {
  private readonly current: Key;
  private readonly byId = new Map<string, Key>();

  /** `currentKey`: INTEGRATION_SECRET_KEY; `previousKeys`: INTEGRATION_SECRET_KEYS (comma-separated, for opening only). */
  constructor(currentKey: string, previousKeys?: string) {
    this.current = parseKey(currentKey);
    for (const k of [
      this.current,
      ...(previousKeys ?? '')
        .split(',')
        .filter((t) => t.trim())
        .map(parseKey),
    ]) {
      const seen = this.byId.get(k.id);
      if (seen && !seen.key.equals(k.key)) throw new Error(`INTEGRATION_SECRET_KEY(S): key id ${k.id} names two different keys`);
      if (!seen) this.byId.set(k.id, k);
    }
  }

  /** The id of the key that seals. */
  get currentKeyId(): string {
    return this.current.id;
  }

  seal(plaintext: string, context: string): Buffer {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    cipher.setAAD(Buffer.from(context));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const id = Buffer.from(this.current.id, 'ascii');
    return Buffer.concat([Buffer.from([VERSION, id.length]), id, iv, cipher.getAuthTag(), ciphertext]);
  }

  /** The id of the key that sealed the value (null: layout 1, sealed before key ids). */
  static keyIdOf(sealed: Buffer): string | null {
    if (sealed[0] === LEGACY) return null;
    if (sealed[0] !== VERSION || sealed.length < 2) throw new Error('unknown secret format');
    return sealed.subarray(2, 2 + sealed[1]!).toString('ascii');
  }

  /**
   * The raw keys, the current one first: for a keyed hash derived from them (HKDF with its own info),
   * never used as they are for anything but sealing.
   */
  keyMaterial(): Buffer[] {
    return [this.current.key, ...[...this.byId.values()].filter((k) => k !== this.current).map((k) => k.key)];
  }

  /** Whether the value was sealed by another key than the current one (what `secrets:reseal` changes). */
  needsReseal(sealed: Buffer): boolean {
    return SecretBox.keyIdOf(sealed) !== this.current.id;
  }

  open(sealed: Buffer, context: string): string {
    if (sealed[0] === LEGACY) {
      // No key id: the current key, then the previous ones.
      let last: unknown;
      for (const k of this.byId.values()) {
        try {
          return decrypt(k.key, sealed.subarray(1), context);
        } catch (err) {
          last = err;
        }
      }
      throw last;
    }
    const id = SecretBox.keyIdOf(sealed)!;
    const key = this.byId.get(id);
    if (!key) throw new Error(`sealed with key ${id}, which is not configured (INTEGRATION_SECRET_KEY or INTEGRATION_SECRET_KEYS)`);
    return decrypt(key.key, sealed.subarray(2 + sealed[1]!), context);
  }
}

/** iv (12) | tag (16) | ciphertext */
function decrypt(key: Buffer, body: Buffer, context: string): string {
  const decipher = createDecipheriv('aes-256-gcm', key, body.subarray(0, 12));
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(body.subarray(12, 28));
  return Buffer.concat([decipher.update(body.subarray(28)), decipher.final()]).toString('utf8');
}

export const secretContext = (organizationId: string, integrationId: string) => `integration:${organizationId}:${integrationId}`;
/**
 * A source's sealed request headers (json_api), bound to its row the same way and to the origin of the
 * URL they were set for: pointing the source at another host cannot send them there.
 */
export const sourceSecretContext = (organizationId: string, sourceId: string, url: string) => `source-headers:${organizationId}:${sourceId}:${originOf(url)}`;

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'invalid';
  }
}
/** A mailbox's SMTP/IMAP password, bound to its row the same way. */
export const mailboxSecretContext = (organizationId: string, mailboxId: string) => `mailbox:${organizationId}:${mailboxId}`;
/** A webhook endpoint's signing secret (and the previous one after a rotation), bound to its row the same way. */
export const webhookSecretContext = (organizationId: string, endpointId: string) => `webhook:${organizationId}:${endpointId}`;
