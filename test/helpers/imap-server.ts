import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { ImapFlow } from 'imapflow';
import { freePort } from './ports';
import { resolveImapMemServer } from '../../scripts/lib/imap-memserver';

export { resolveImapMemServer };

/**
 * A real IMAP server on 127.0.0.1 for the inbox tests: go-imap's imapmemserver (one user, an
 * in-memory INBOX), built once with Go (scripts/lib/imap-memserver.ts).
 * Messages are put in the INBOX with IMAP APPEND (imapflow), as a delivery would.
 */
export interface ImapTestServer {
  host: string;
  port: number;
  username: string;
  password: string;
  /** Puts a raw message in the INBOX (IMAP APPEND); answers its UID. */
  append(raw: Buffer | string): Promise<number>;
  close(): Promise<void>;
}

async function listening(port: number, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`imapmemserver exited with ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.end();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('imapmemserver did not start listening');
}

export async function startImapServer(opts: { username?: string; password?: string } = {}): Promise<ImapTestServer> {
  const username = opts.username ?? 'sanne@example-sender.nl';
  const password = opts.password ?? 'imap-test-password';
  const port = await freePort();
  const child = spawn(resolveImapMemServer(), ['-listen', `127.0.0.1:${port}`, '-username', username, '-password', password, '-insecure-auth'], {
    stdio: 'ignore',
  });
  await listening(port, child);
  const client = () => new ImapFlow({ host: '127.0.0.1', port, secure: false, auth: { user: username, pass: password }, logger: false });
  return {
    host: '127.0.0.1',
    port,
    username,
    password,
    async append(raw) {
      const c = client();
      await c.connect();
      try {
        const res = await c.append('INBOX', raw);
        return res ? Number(res.uid) : 0;
      } finally {
        await c.logout();
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
