import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { SMTPServer, SMTPServerAddress, SMTPServerSession } from 'smtp-server';

/**
 * A local SMTP catcher (the `smtp-server` package): a real SMTP server on loopback that accepts
 * every message and keeps it in memory, raw, for `npm run dev` (with a small HTTP listing) and the
 * tests (test/helpers/smtp-server.ts adds refusals and dropped connections). It delivers nothing.
 */
export interface CaughtMessage {
  /** 1, 2, 3, … in order of arrival. */
  id: number;
  from: string;
  to: string[];
  receivedAt: string;
  raw: Buffer;
}

export interface CatcherOptions {
  host?: string;
  /** 0: a free port. */
  port?: number;
  /** Required credentials (AUTH PLAIN/LOGIN, allowed without TLS on loopback); absent: no authentication. */
  auth?: { username: string; password: string };
  /** A reply to RCPT TO for this address ({code: 550, message}), or undefined to accept it. */
  onRecipient?: (address: string) => { code: number; message: string } | undefined;
  /**
   * After the whole message arrived: 'drop' closes the connection without a reply, 'hang' never
   * replies (the client times out); either way the client cannot know whether it was kept. A
   * reply ({code, message}) refuses the message; a promise stalls the reply until it settles.
   */
  afterData?: (to: string[]) => 'accept' | 'drop' | 'hang' | { code: number; message: string } | Promise<'accept' | 'drop'>;
  /** Keep at most this many messages (oldest dropped first). */
  maxMessages?: number;
}

export interface MailCatcher {
  host: string;
  port: number;
  messages: CaughtMessage[];
  close(): Promise<void>;
}

export async function startMailCatcher(opts: CatcherOptions = {}): Promise<MailCatcher> {
  const host = opts.host ?? '127.0.0.1';
  const messages: CaughtMessage[] = [];
  const sockets = new Map<string, Socket>();
  const key = (address: string | undefined, port: number | undefined) => `${address}:${port}`;
  let next = 1;

  const server = new SMTPServer({
    secure: false,
    hideSTARTTLS: true,
    authOptional: !opts.auth,
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    banner: 'outreach mail catcher',
    onAuth(auth, _session, callback) {
      if (opts.auth && auth.username === opts.auth.username && auth.password === opts.auth.password) return callback(null, { user: auth.username });
      const err = Object.assign(new Error('Invalid username or password'), { responseCode: 535 });
      callback(err);
    },
    onRcptTo(address: SMTPServerAddress, _session: SMTPServerSession, callback: (err?: Error | null) => void) {
      const refusal = opts.onRecipient?.(address.address.toLowerCase());
      if (refusal) return callback(Object.assign(new Error(refusal.message), { responseCode: refusal.code }));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', async () => {
        const to = session.envelope.rcptTo.map((r) => r.address);
        // A promise stalls the reply to DATA until it settles (a test acts during the SMTP conversation).
        const after = await opts.afterData?.(to.map((a) => a.toLowerCase()));
        if (after === 'hang') return;
        // A refusal at the end of DATA (a receiving filter's, or a server that checks recipients late).
        if (after && typeof after === 'object') return callback(Object.assign(new Error(after.message), { responseCode: after.code }));
        if (after === 'drop') {
          // Everything arrived, and the client hears nothing: the connection just ends.
          sockets.get(key(session.remoteAddress, session.remotePort))?.destroy();
          return;
        }
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        messages.push({ id: next++, from, to, receivedAt: new Date().toISOString(), raw: Buffer.concat(chunks) });
        if (opts.maxMessages && messages.length > opts.maxMessages) messages.splice(0, messages.length - opts.maxMessages);
        callback(null, `Ok: queued as ${next - 1}`);
      });
    },
  });
  // The underlying net.Server: remember each socket by its peer, so a test can cut one off.
  const net = (server as unknown as { server: import('node:net').Server }).server;
  net.on('connection', (socket: Socket) => {
    const k = key(socket.remoteAddress, socket.remotePort);
    sockets.set(k, socket);
    socket.on('close', () => sockets.delete(k));
  });
  server.on('error', () => undefined); // a client that vanishes is not the catcher's failure

  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    net.once('error', onError);
    server.listen(opts.port ?? 0, host, () => {
      net.off('error', onError);
      resolve();
    });
  });
  const port = (net.address() as AddressInfo).port;
  return {
    host,
    port,
    messages,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets.values()) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * The caught mail over HTTP (read-only, loopback): GET /messages answers [{id, from, to,
 * received_at, subject, size}] newest first; GET /messages/{id}.eml the raw message.
 */
export async function serveCaughtMail(catcher: MailCatcher, port: number, host = '127.0.0.1'): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405, { Allow: 'GET' }).end();
    if (path === '/' || path === '/messages') {
      const list = [...catcher.messages].reverse().map((m) => ({
        id: m.id,
        from: m.from,
        to: m.to,
        received_at: m.receivedAt,
        subject: headerOf(m.raw, 'subject'),
        size: m.raw.length,
        eml: `/messages/${m.id}.eml`,
      }));
      return void res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(list, null, 2));
    }
    const m = /^\/messages\/(\d+)\.eml$/.exec(path);
    const found = m ? catcher.messages.find((x) => x.id === Number(m[1])) : undefined;
    if (found) return void res.writeHead(200, { 'Content-Type': 'message/rfc822' }).end(found.raw);
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${bound}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** One header's raw (unfolded, undecoded) value, for the listing. */
function headerOf(raw: Buffer, name: string): string | null {
  const head = raw.toString('utf8', 0, Math.min(raw.length, 64 * 1024)).split(/\r?\n\r?\n/)[0] ?? '';
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  const line = unfolded.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(`${name}:`));
  return line ? line.slice(name.length + 1).trim() : null;
}

function inUse(err: unknown): boolean {
  return (err as NodeJS.ErrnoException)?.code === 'EADDRINUSE';
}

/**
 * `npm run dev`'s catcher: SMTP on SMTP_CATCHER_PORT (default 1025) and the listing on
 * SMTP_CATCHER_HTTP_PORT (default 1080), loopback only. A port already taken (another checkout's
 * stack, a MailHog) is not fatal: that listener takes a free port instead and says so.
 */
export async function startDevMailCatcher(
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<{ smtp: MailCatcher; http: { url: string; close(): Promise<void> }; close(): Promise<void> }> {
  const smtpPort = Number(env.SMTP_CATCHER_PORT ?? 1025);
  const httpPort = Number(env.SMTP_CATCHER_HTTP_PORT ?? 1080);
  const smtp = await startMailCatcher({ port: smtpPort, maxMessages: 1000 }).catch(async (err: unknown) => {
    if (!inUse(err)) throw err;
    const other = await startMailCatcher({ port: 0, maxMessages: 1000 });
    log(`mail catcher: port ${smtpPort} is in use; SMTP listens on ${other.port} instead (set SMTP_CATCHER_PORT to choose)`);
    return other;
  });
  const listing = await serveCaughtMail(smtp, httpPort).catch(async (err: unknown) => {
    if (!inUse(err)) throw err;
    const other = await serveCaughtMail(smtp, 0);
    log(`mail catcher: port ${httpPort} is in use; the listing is on ${other.url} instead (set SMTP_CATCHER_HTTP_PORT to choose)`);
    return other;
  });
  return {
    smtp,
    http: listing,
    close: async () => {
      await listing.close();
      await smtp.close();
    },
  };
}
