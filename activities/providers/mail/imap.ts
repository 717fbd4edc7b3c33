import { ImapFlow } from 'imapflow';
import { BlockedDestinationError } from '../destination';
import { blockedMailHostReason, resolveMailHost } from './connect';

/**
 * A mailbox's inbox over IMAP (imapflow): the messages after the last UID read, with the folder's
 * UIDVALIDITY. The first read, and one after a UIDVALIDITY change (the UIDs mean other messages now),
 * start at the current end of the inbox (UIDNEXT): mail that was there before is history, not
 * replies. A read asks for the UIDs first (UID SEARCH), then fetches the sources of one batch only,
 * each at most MAX_SOURCE_BYTES. A password is never sent in cleartext: without implicit TLS the
 * connection must upgrade with STARTTLS (on a loopback address, which no network carries, it may stay
 * plain). A login the server refuses is an ImapAuthError; a server that cannot be reached (or that
 * offers no STARTTLS) an ImapConnectError.
 */
export interface ImapSettings {
  host: string;
  port: number;
  secure: boolean;
  username: string;
  password: string;
  /** An OAuth mailbox: SASL XOAUTH2 with this access token (oauth.ts) instead of the password. */
  accessToken?: string | null;
  /** Connection, greeting and socket timeouts (ms). */
  timeoutMs?: number;
  /** Require STARTTLS on a connection without implicit TLS; default: yes, but on a loopback address. */
  requireTls?: boolean;
}

/** The most of one message's source read (a larger one is cut there; the parser reads what it gets). */
export const MAX_SOURCE_BYTES = 10 * 1024 * 1024;

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export interface InboxMessage {
  uid: number;
  raw: Buffer;
  internalDate: Date | null;
}

export interface InboxBatch {
  uidValidity: string;
  /** The first UID this read considered: the stored position + 1, or UIDNEXT on a first read or a new UIDVALIDITY. */
  startUid: number;
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

/** The IMAP client for these settings: the one place it is constructed. */
export function imapClient(settings: ImapSettings, target: { address: string; servername?: string }): ImapFlow {
  const timeout = settings.timeoutMs ?? 30_000;
  const requireTls = !settings.secure && (settings.requireTls ?? !isLoopback(settings.host));
  return new ImapFlow({
    host: target.address,
    ...(target.servername ? { servername: target.servername } : {}),
    port: settings.port,
    secure: settings.secure,
    doSTARTTLS: settings.secure ? undefined : requireTls ? true : undefined,
    auth: settings.accessToken ? { user: settings.username, accessToken: settings.accessToken } : { user: settings.username, pass: settings.password },
    logger: false,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout * 4,
    disableAutoIdle: true,
  });
}

export class ImapInboxReader implements InboxReader {
  async readSince(settings: ImapSettings, since: { uidValidity: string | null; lastUid: number }, limit: number): Promise<InboxBatch> {
    // The outbound policy of mail servers (connect.ts): the checked address is dialled, the name kept for TLS.
    const target = await resolveMailHost('imap', settings.host, settings.port).catch((e: unknown) => {
      throw new ImapConnectError(
        e instanceof BlockedDestinationError ? blockedMailHostReason('imap') : `IMAP server ${settings.host}:${settings.port} could not be resolved`,
      );
    });
    const client = imapClient(settings, target);
    client.on('error', () => undefined); // a dropped socket rejects the pending command; nothing else to do
    try {
      await client.connect();
    } catch (err) {
      // A refused login leaves the connection open: close it (the server would hold it until its own timeout).
      client.close();
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
        const uidNext = Number(mailbox.uidNext ?? 1);
        const from = since.uidValidity === uidValidity ? since.lastUid + 1 : uidNext;
        const messages: InboxMessage[] = [];
        let uids: number[] = [];
        if (mailbox.exists > 0 && from < uidNext) {
          // UIDs first ("n:*" also answers the last message when its UID is below n: filtered out).
          const found = await client.search({ uid: `${from}:*` }, { uid: true });
          uids = (found || []).filter((u) => u >= from).sort((a, b) => a - b);
        }
        const batch = uids.slice(0, limit);
        if (batch.length) {
          for await (const msg of client.fetch(batch.join(','), { uid: true, source: { maxLength: MAX_SOURCE_BYTES }, internalDate: true }, { uid: true })) {
            if (msg.uid < from || !msg.source || !batch.includes(msg.uid)) continue;
            messages.push({ uid: msg.uid, raw: msg.source, internalDate: msg.internalDate ? new Date(msg.internalDate) : null });
          }
        }
        messages.sort((a, b) => a.uid - b.uid);
        return { uidValidity, startUid: from, messages, more: uids.length > batch.length };
      } finally {
        lock.release();
      }
    } finally {
      await client.logout().catch(() => client.close());
    }
  }
}
