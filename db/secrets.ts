import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Secrets stored in the database's columns (integration secrets, mailbox passwords, source request
 * headers): AES-256-GCM under INTEGRATION_SECRET_KEY (32 bytes, base64 or hex). The record's
 * organization and id are the additional authenticated data, so a ciphertext copied to another row
 * does not decrypt. Layout: version (1) | iv (12) | tag (16) | ciphertext. It lives in db/ because
 * the queries, the activities and the API all seal or open these columns.
 */
const VERSION = 1;

export class SecretBox {
  private readonly key: Buffer;

  constructor(keyText: string) {
    const key = /^[0-9a-f]{64}$/i.test(keyText) ? Buffer.from(keyText, 'hex') : Buffer.from(keyText, 'base64');
    if (key.length !== 32) throw new Error('INTEGRATION_SECRET_KEY must be 32 bytes (64 hex characters or base64)');
    this.key = key;
  }

  seal(plaintext: string, context: string): Buffer {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), ciphertext]);
  }

  open(sealed: Buffer, context: string): string {
    if (sealed[0] !== VERSION) throw new Error('unknown secret format');
    const decipher = createDecipheriv('aes-256-gcm', this.key, sealed.subarray(1, 13));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(sealed.subarray(13, 29));
    return Buffer.concat([decipher.update(sealed.subarray(29)), decipher.final()]).toString('utf8');
  }
}

export const secretContext = (organizationId: string, integrationId: string) => `integration:${organizationId}:${integrationId}`;
/**
 * A source's sealed request headers (json_api), bound to its row the same way and to the origin of the
 * URL they were set for: pointing the source at another host cannot send them there.
 */
export const sourceSecretContext = (organizationId: string, sourceId: string, url: string) =>
  `source-headers:${organizationId}:${sourceId}:${originOf(url)}`;

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
