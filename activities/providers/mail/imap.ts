import { ImapFlow } from 'imapflow';
import { BlockedDestinationError } from '../destination';
import { blockedMailHostReason, resolveMailHost } from './connect';

/**
 * A mailbox's inbox over IMAP (imapflow): the messages after the last UID read, with the folder's
 * UIDVALIDITY. When UIDVALIDITY changed since the last read, the UIDs mean other messages now and
 * the whole folder is read again (messages already stored are recognised by their Message-ID).
 * A login the server refuses is an ImapAuthError; a server that cannot be reached an ImapConnectError.
 */
export interface ImapSettings {
  host: string;
  port: number;
  secure: boolean;
  username: string;
  password: string;
  /** Connection, greeting and socket timeouts (ms). */
  timeoutMs?: number;
}

export interface InboxMessage {
  uid: number;
  raw: Buffer;
  internalDate: Date | null;
}

export interface InboxBatch {
  uidValidity: string;
  /** In UID order; at most `limit`. */
  messages: InboxMessage[];
  /** True when more messages wait after this batch. */
  more: boolean;
}

export interface InboxReader {
  readSince(settings: ImapSettings, since: { uidValidity: string | null; lastUid: number }, limit: number): Promise<InboxBatch>;
}

export class ImapAuthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImapAuthError';
  }
}
export class ImapConnectError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImapConnectError';
  }
}

export class ImapInboxReader implements InboxReader {
  async readSince(settings: ImapSettings, since: { uidValidity: string | null; lastUid: number }, limit: number): Promise<InboxBatch> {
    const timeout = settings.timeoutMs ?? 30_000;
    // The outbound policy of mail servers (connect.ts): the checked address is dialled, the name kept for TLS.
    const target = await resolveMailHost('imap', settings.host, settings.port).catch((e: unknown) => {
      throw new ImapConnectError(e instanceof BlockedDestinationError ? blockedMailHostReason('imap') : `IMAP server ${settings.host}:${settings.port} could not be resolved`);
    });
    const client = new ImapFlow({
      host: target.address,
      ...(target.servername ? { servername: target.servername } : {}),
      port: settings.port,
      secure: settings.secure,
      auth: { user: settings.username, pass: settings.password },
      logger: false,
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout * 4,
      disableAutoIdle: true,
    });
    client.on('error', () => undefined); // a dropped socket rejects the pending command; nothing else to do
    try {
      await client.connect();
    } catch (err) {
      const e = err as { authenticationFailed?: boolean; responseText?: string; message: string };
      if (e.authenticationFailed) throw new ImapAuthError(`IMAP login refused for ${settings.username}@${settings.host}: ${e.responseText ?? e.message}`);
      throw new ImapConnectError(`IMAP server ${settings.host}:${settings.port} could not be reached: ${e.message}`);
    }
    try {
      const lock = await client.getMailboxLock('INBOX', { readOnly: true });
      try {
        const mailbox = client.mailbox;
        if (!mailbox) throw new ImapConnectError('INBOX could not be opened');
        const uidValidity = String(mailbox.uidValidity);
        const from = since.uidValidity === uidValidity ? since.lastUid + 1 : 1;
        const messages: InboxMessage[] = [];
        let more = false;
        if (mailbox.exists > 0 && (!mailbox.uidNext || from < mailbox.uidNext)) {
          // "n:*" answers the last message even when its UID is below n: filtered out below.
          for await (const msg of client.fetch(`${from}:*`, { uid: true, source: true, internalDate: true }, { uid: true })) {
            if (msg.uid < from || !msg.source) continue;
            if (messages.length === limit) {
              more = true;
              continue;
            }
            messages.push({ uid: msg.uid, raw: msg.source, internalDate: msg.internalDate ? new Date(msg.internalDate) : null });
          }
        }
        messages.sort((a, b) => a.uid - b.uid);
        return { uidValidity, messages, more };
      } finally {
        lock.release();
      }
    } finally {
      await client.logout().catch(() => client.close());
    }
  }
}
