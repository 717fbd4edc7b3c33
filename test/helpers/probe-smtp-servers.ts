import net from 'node:net';
import { SMTPServer, type SMTPServerAddress, type SMTPServerSession } from 'smtp-server';

/**
 * Mail hosts for the SMTP probe's tests: real SMTP servers (the `smtp-server` package) on
 * 127.0.0.1, one per way a recipient's server answers RCPT TO, and raw TCP servers for the ones
 * that misbehave. Each keeps every connection's commands and times, so a test can tell how many
 * connections a domain had at once, how long the probe waited between two, and that DATA never came.
 */

export type ProbeServerBehaviour =
  /** 250 for the known local parts, 550 5.1.1 for any other. */
  | { kind: 'refusing'; known: string[] }
  /** 250 for every recipient (a catch-all domain). */
  | { kind: 'acceptAll' }
  /**
   * 451 4.7.1 for a (sender, recipient) pair until `delayMs` after it was first seen, as a greylisting
   * server defers a stranger; after that, as `refusing` with these known local parts.
   */
  | { kind: 'greylisting'; known: string[]; delayMs: number }
  /** 550 5.7.1 at RCPT TO: this client is on a block list (nothing said about the address). */
  | { kind: 'policyBlock' };

export interface ProbeServerConnection {
  openedAt: number;
  closedAt: number | null;
  /**
   * When the last command line arrived (QUIT, for a probe that ended well). The client ends its probe
   * after this, and this process's event loop, shared with the client, may note the close later.
   */
  lastLineAt: number | null;
  /** The client's command lines, as sent. */
  commands: string[];
  /** The domains of the RCPT TO addresses. */
  rcptDomains: Set<string>;
}

export interface ProbeSmtpServer {
  host: string;
  port: number;
  connections: ProbeServerConnection[];
  /** The most connections open at once, over every domain. */
  maxSimultaneous: number;
  /** A DATA or BDAT command arrived, or a message did. */
  dataSeen: boolean;
  /** The most connections open at once that asked about this domain (open from connecting to their last command, or closing). */
  maxSimultaneousFor(domain: string): number;
  /** The shortest time between a connection about this domain ending (its last command) and the next one opening (Infinity with fewer than two). */
  shortestPauseFor(domain: string): number;
  close(): Promise<void>;
}

function refusal(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

export async function startProbeSmtpServer(behaviour: ProbeServerBehaviour): Promise<ProbeSmtpServer> {
  const firstSeen = new Map<string, number>();
  const known = new Set('known' in behaviour ? behaviour.known.map((l) => l.toLowerCase()) : []);
  const localPart = (address: string) => address.slice(0, address.lastIndexOf('@')).toLowerCase();

  const state = {
    connections: [] as ProbeServerConnection[],
    open: 0,
    maxSimultaneous: 0,
    dataSeen: false,
  };

  const server = new SMTPServer({
    secure: false,
    hideSTARTTLS: true,
    authOptional: true,
    disableReverseLookup: true,
    logger: false,
    banner: `probe stand-in (${behaviour.kind})`,
    onRcptTo(address: SMTPServerAddress, session: SMTPServerSession, callback: (err?: Error | null) => void) {
      const to = address.address.toLowerCase();
      switch (behaviour.kind) {
        case 'acceptAll':
          return callback();
        case 'policyBlock':
          return callback(refusal(550, '5.7.1 Service unavailable; client host [127.0.0.1] blocked using zen.spamhaus.org'));
        case 'greylisting': {
          const from = session.envelope.mailFrom ? session.envelope.mailFrom.address.toLowerCase() : '';
          const key = `${from}|${to}`;
          const seen = firstSeen.get(key);
          if (seen === undefined) firstSeen.set(key, Date.now());
          if (seen === undefined || Date.now() - seen < behaviour.delayMs) return callback(refusal(451, '4.7.1 Greylisted, please try again later'));
          break;
        }
        case 'refusing':
          break;
      }
      if (known.has(localPart(to))) return callback();
      callback(refusal(550, '5.1.1 The email account that you tried to reach does not exist'));
    },
    onData(stream, _session, callback) {
      state.dataSeen = true;
      stream.resume();
      stream.on('end', () => callback(refusal(554, '5.6.0 the probe stand-ins take no messages')));
    },
  });
  const tcp = (server as unknown as { server: net.Server }).server;
  const sockets = new Set<net.Socket>();
  tcp.on('connection', (socket: net.Socket) => {
    const connection: ProbeServerConnection = { openedAt: Date.now(), closedAt: null, lastLineAt: null, commands: [], rcptDomains: new Set() };
    state.connections.push(connection);
    sockets.add(socket);
    state.open++;
    state.maxSimultaneous = Math.max(state.maxSimultaneous, state.open);
    // The client's lines as they arrive, beside smtp-server's own reading of them: DATA is seen
    // here even when the server would refuse it before onData (no valid recipient).
    let partial = '';
    socket.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString('latin1')).split('\n');
      partial = lines.pop() ?? '';
      for (const raw of lines) {
        const line = raw.replace(/\r$/, '');
        connection.commands.push(line);
        connection.lastLineAt = Date.now();
        const verb = line.split(' ')[0]!.toUpperCase();
        if (verb === 'DATA' || verb === 'BDAT') state.dataSeen = true;
        const rcpt = /^RCPT TO:\s*<[^>]*@([^>]+)>/i.exec(line);
        if (rcpt) connection.rcptDomains.add(rcpt[1]!.toLowerCase());
      }
    });
    socket.on('close', () => {
      connection.closedAt = Date.now();
      sockets.delete(socket);
      state.open--;
    });
  });
  server.on('error', () => undefined);

  await new Promise<void>((resolve, reject) => {
    tcp.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      tcp.off('error', reject);
      resolve();
    });
  });
  const about = (domain: string) => state.connections.filter((c) => c.rcptDomains.has(domain.toLowerCase()));
  return {
    host: '127.0.0.1',
    port: (tcp.address() as net.AddressInfo).port,
    get connections() {
      return state.connections;
    },
    get maxSimultaneous() {
      return state.maxSimultaneous;
    },
    get dataSeen() {
      return state.dataSeen;
    },
    maxSimultaneousFor: (domain) => maxOverlap(about(domain)),
    shortestPauseFor(domain) {
      const list = about(domain).sort((a, b) => a.openedAt - b.openedAt);
      let shortest = Infinity;
      for (let i = 1; i < list.length; i++) shortest = Math.min(shortest, list[i]!.openedAt - endOf(list[i - 1]!));
      return shortest;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function endOf(c: ProbeServerConnection): number {
  return c.lastLineAt ?? c.closedAt ?? Infinity;
}

/** The most connections open at one moment (one still open counts until now). */
function maxOverlap(list: ProbeServerConnection[]): number {
  const events = list.flatMap((c) => [
    { at: c.openedAt, step: 1 },
    { at: endOf(c), step: -1 },
  ]);
  // At the same millisecond a close counts before an open: one after the other is not at once.
  events.sort((a, b) => a.at - b.at || a.step - b.step);
  let open = 0;
  let max = 0;
  for (const e of events) {
    open += e.step;
    max = Math.max(max, open);
  }
  return max;
}

export interface RawServer {
  port: number;
  /** Connections accepted. */
  connections: number;
  close(): Promise<void>;
}

/** A TCP server that does what `onConnection` says with each connection (a server that never answers, or one that answers badly). */
export async function startRawServer(onConnection: (socket: net.Socket) => void): Promise<RawServer> {
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port on 127.0.0.1 with nothing listening (a connection is refused): one that was free a moment ago. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
