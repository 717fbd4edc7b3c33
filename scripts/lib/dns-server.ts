import dgram from 'node:dgram';
import net from 'node:net';
import dns2 from 'dns2';

const { Packet } = dns2;

/** A record of a test zone (the answer data as dns2 writes it). */
export type ZoneRecord =
  { type: 'TXT'; data: string } | { type: 'MX'; exchange: string; priority: number } | { type: 'A'; address: string } | { type: 'CNAME'; domain: string };

/**
 * Zones by owner name (lower case, no trailing dot). A name listed with records answers them (NOERROR
 * with no answer for other types); `servfail` answers SERVFAIL and `timeout` never answers, for the
 * name and every name below it; a name not listed (and with nothing listed below it), or marked
 * `nxdomain`, is NXDOMAIN.
 */
export type Zones = Record<string, ZoneRecord[] | 'servfail' | 'timeout' | 'nxdomain'>;

export interface DnsServerOptions {
  /**
   * A name not listed (nor marked `nxdomain`) answers an MX query with `mx.<name>`, and stays
   * NXDOMAIN for every other type: the contacts of a test or demo world have addresses at made-up
   * domains, and an address check asks only whether the domain takes mail.
   */
  unlistedReceiveMail?: boolean;
}

export interface TestDnsServer {
  /** `127.0.0.1:<port>`: UDP and TCP on one port, as DNS_SERVERS names it. */
  address: string;
  /** Every question answered (or dropped), with the transport it came over. */
  queries: Array<{ name: string; type: string; transport: 'udp' | 'tcp' }>;
  close(): Promise<void>;
}

const TYPE_NAMES = Object.fromEntries(Object.entries(Packet.TYPE).map(([k, v]) => [v, k])) as Record<number, string>;
/** Without EDNS a UDP answer is at most 512 bytes (RFC 1035 4.2.1); larger ones go truncated (TC) and the client asks over TCP. */
const UDP_LIMIT = 512;

/**
 * A real DNS server (dns2) on 127.0.0.1, UDP and TCP on the same port, serving these zones: the
 * mailbox health tests' zones, and the demo zone of `npm run dev`.
 */
export async function startDnsServer(zones: Zones, opts: DnsServerOptions = {}): Promise<TestDnsServer> {
  const queries: TestDnsServer['queries'] = [];
  const server = dns2.createServer({
    udp: true,
    tcp: true,
    handle: (request, send, client) => {
      const transport = client instanceof net.Socket ? 'tcp' : 'udp';
      const response = Packet.createResponseFromRequest(request);
      response.header.aa = 1;
      response.header.ra = 1;
      const question = request.questions[0];
      if (!question) return void send(response);
      const name = question.name.toLowerCase().replace(/\.$/, '');
      const type = TYPE_NAMES[question.type] ?? String(question.type);
      queries.push({ name, type, transport });
      const zone = zones[name];
      const broken = brokenAt(zones, name);
      if (broken === 'timeout') return;
      if (broken === 'servfail') {
        response.header.rcode = 2; // SERVFAIL
        return void send(response);
      }
      if (!Array.isArray(zone)) {
        const hasChildren = Object.keys(zones).some((n) => n.endsWith(`.${name}`));
        if (opts.unlistedReceiveMail && zone === undefined && !hasChildren && question.type === Packet.TYPE.MX && name.includes('.')) {
          response.answers.push({ name: question.name, type: Packet.TYPE.MX, class: Packet.CLASS.IN, ttl: 300, exchange: `mx.${name}`, priority: 10 } as never);
          return void send(response);
        }
        if (!hasChildren) response.header.rcode = 3; // NXDOMAIN
        return void send(response);
      }
      const cname = zone.find((r) => r.type === 'CNAME');
      const matching = cname && question.type !== Packet.TYPE.CNAME ? [cname] : zone.filter((r) => Packet.TYPE[r.type] === question.type);
      for (const record of matching) {
        response.answers.push({ name: question.name, type: Packet.TYPE[record.type], class: Packet.CLASS.IN, ttl: 300, ...answerData(record) } as never);
      }
      // The CNAME's target, when it is in the zones, answered in the same response (as a resolver would).
      if (cname && cname.type === 'CNAME' && question.type !== Packet.TYPE.CNAME) {
        const target = zones[cname.domain.toLowerCase()];
        if (Array.isArray(target)) {
          for (const record of target.filter((r) => Packet.TYPE[r.type] === question.type)) {
            response.answers.push({ name: cname.domain, type: Packet.TYPE[record.type], class: Packet.CLASS.IN, ttl: 300, ...answerData(record) } as never);
          }
        }
      }
      if (transport === 'udp' && response.toBuffer().length > UDP_LIMIT) {
        response.answers = [];
        response.header.tc = 1;
      }
      send(response);
    },
  });
  server.on('requestError', () => undefined);
  const port = await listenOnOnePort(server);
  return {
    address: `127.0.0.1:${port}`,
    queries,
    close: async () => {
      await server.close();
    },
  };
}

/** `servfail` or `timeout` when the name or one of its parents is marked so. */
function brokenAt(zones: Zones, name: string): 'servfail' | 'timeout' | undefined {
  const labels = name.split('.');
  for (let i = 0; i < labels.length - 1; i++) {
    const z = zones[labels.slice(i).join('.')];
    if (z === 'servfail' || z === 'timeout') return z;
  }
  return undefined;
}

function answerData(record: ZoneRecord): Record<string, unknown> {
  switch (record.type) {
    case 'TXT':
      // A TXT record is character-strings of at most 255 bytes each (RFC 1035 3.3.14); a long key is split.
      return { data: record.data.match(/[\s\S]{1,255}/g) ?? [''] };
    case 'MX':
      return { exchange: record.exchange, priority: record.priority };
    case 'A':
      return { address: record.address };
    case 'CNAME':
      return { domain: record.domain };
  }
}

/** UDP and TCP on the same port (a resolver asks both at host:port): a free TCP port, then UDP on it, retried if taken. */
async function listenOnOnePort(server: ReturnType<typeof dns2.createServer>): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = await new Promise<number>((resolve, reject) => {
      const probe = net.createServer();
      probe.once('error', reject);
      probe.listen(0, '127.0.0.1', () => {
        const p = (probe.address() as net.AddressInfo).port;
        probe.close(() => resolve(p));
      });
    });
    const udpFree = await new Promise<boolean>((resolve) => {
      const s = dgram.createSocket('udp4');
      s.once('error', () => resolve(false));
      s.bind(port, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (!udpFree) continue;
    try {
      await server.listen({ udp: { port, address: '127.0.0.1' }, tcp: { port, address: '127.0.0.1' } });
      return port;
    } catch {
      // taken in between: try another
    }
  }
  throw new Error('no port free for both UDP and TCP on 127.0.0.1');
}
