import { CaughtMessage, startMailCatcher } from '../../scripts/lib/mail-catcher';

// mailparser ships no type declarations; the part the tests read.
export interface ParsedMail {
  subject?: string;
  text?: string;
  messageId?: string;
  from?: { value: Array<{ address?: string; name: string }> };
  to?: { value: Array<{ address?: string; name: string }> };
  headers: Map<string, unknown>;
  headerLines: Array<{ key: string; line: string }>;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { simpleParser } = require('mailparser') as { simpleParser: (source: Buffer) => Promise<ParsedMail> };

/**
 * A real SMTP server on 127.0.0.1 for the tests (scripts/lib/mail-catcher.ts): it keeps what it
 * receives, raw, and can be told to refuse an address at RCPT TO (550, 451, …) or to drop the
 * connection after the whole message arrived, without a reply.
 */
export interface TestSmtpServer {
  host: string;
  port: number;
  messages: CaughtMessage[];
  /** Answer RCPT TO for this address with this reply. */
  refuse(address: string, code: number, message: string): void;
  /** Accept this address again (undo refuse). */
  accept(address: string): void;
  /** Take the whole message for this address, then refuse it with this reply (at the end of DATA). */
  refuseAfterData(address: string, code: number, message: string): void;
  /** Take the whole message for this address, then close the connection without answering. */
  dropAfterData(address: string): void;
  /** Take the whole message for this address, then never answer (the client's socket timeout ends it). */
  hangAfterData(address: string): void;
  /**
   * Take the whole message for this address, then stall the reply until release() (T1): `arrived`
   * resolves when the message is in, so a test can act during the SMTP conversation.
   */
  stallAfterData(address: string): { arrived: Promise<void>; release(): void };
  /** The received messages to this address, parsed. */
  received(address: string): Promise<ParsedMail[]>;
  close(): Promise<void>;
}

export async function startSmtpServer(opts: { auth?: { username: string; password: string } } = {}): Promise<TestSmtpServer> {
  const refusals = new Map<string, { code: number; message: string }>();
  const drops = new Set<string>();
  const dataRefusals = new Map<string, { code: number; message: string }>();
  const hangs = new Set<string>();
  const stalls = new Map<string, { arrive: () => void; released: Promise<void> }>();
  const catcher = await startMailCatcher({
    auth: opts.auth,
    onRecipient: (address) => refusals.get(address),
    afterData: (to) => {
      const stall = to.map((a) => stalls.get(a)).find(Boolean);
      if (stall) {
        stall.arrive();
        return stall.released.then(() => 'accept' as const);
      }
      const refusal = to.map((a) => dataRefusals.get(a)).find(Boolean);
      if (refusal) return refusal;
      return to.some((a) => drops.has(a)) ? 'drop' : to.some((a) => hangs.has(a)) ? 'hang' : 'accept';
    },
  });
  return {
    host: catcher.host,
    port: catcher.port,
    messages: catcher.messages,
    refuse: (address, code, message) => void refusals.set(address.toLowerCase(), { code, message }),
    accept: (address) => void refusals.delete(address.toLowerCase()),
    dropAfterData: (address) => void drops.add(address.toLowerCase()),
    refuseAfterData: (address, code, message) => void dataRefusals.set(address.toLowerCase(), { code, message }),
    hangAfterData: (address) => void hangs.add(address.toLowerCase()),
    stallAfterData: (address) => {
      let arrive!: () => void;
      let release!: () => void;
      const arrived = new Promise<void>((r) => (arrive = r));
      const released = new Promise<void>((r) => (release = r));
      stalls.set(address.toLowerCase(), { arrive, released });
      return { arrived, release };
    },
    received: (address) =>
      Promise.all(catcher.messages.filter((m) => m.to.some((t) => t.toLowerCase() === address.toLowerCase())).map((m) => simpleParser(m.raw))),
    close: () => catcher.close(),
  };
}

export { simpleParser };
