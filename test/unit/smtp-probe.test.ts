import net from 'node:net';
import { emailStatus, type EmailCheck } from '../../domain/contacts/email-verification';
import { createBuiltinVerifier } from '../../activities/providers/verification/builtin';
import type { VerifierAnswer } from '../../activities/providers/verification/types';
import { createSmtpProbe, type SmtpProbeOptions } from '../../activities/providers/verification/smtp-probe';
import { createDnsResolver } from '../../activities/providers/dns/resolver';
import { allowPrivateDestinations } from '../../activities/providers/destination';
import { startDnsServer, type TestDnsServer, type Zones } from '../helpers/dns-server';
import { closedPort, startProbeSmtpServer, startRawServer, type ProbeSmtpServer, type RawServer } from '../helpers/probe-smtp-servers';

/**
 * The SMTP RCPT probe against real SMTP servers on 127.0.0.1 (a refusing one, a catch-all, a
 * greylisting one, one that blocks this host) found through a DNS server of our own, and against
 * servers that misbehave: the address's status right, no DATA ever, one connection per domain at a
 * time with a pause between two, and a bounded time and line length.
 */

const INTERVAL_MS = 50;
const GREYLIST_MS = 400;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const PEOPLE = ['anna.jansen', 'bram.devries', 'carla.smit', 'daan.bakker', 'eva.visser', 'finn.meijer', 'greet.bos', 'hugo.mulder', 'ilse.deboer'];
const KNOWN = PEOPLE.filter((_, i) => i % 2 === 0);
/** The fixture numbers a person's second and third address at a domain (anna.jansen1@…). */
const KNOWN_LOCAL_PARTS = KNOWN.flatMap((k) => [k, `${k}1`, `${k}2`]);

const baseOptions: Omit<SmtpProbeOptions, 'connect'> = {
  heloName: 'probe.outreach.test',
  sender: 'verify@outreach.nl',
  budgetMs: 3000,
  readTimeoutMs: 2000,
  perDomainIntervalMs: INTERVAL_MS,
};

describe('the probe through the built-in checks, 200 addresses at once', () => {
  let dns: TestDnsServer;
  const servers: Record<'refusing' | 'acceptAll' | 'greylisting' | 'policyBlock', ProbeSmtpServer> = {} as never;
  /** Each domain's behaviour; the MX names map to the stand-ins' ports. */
  const domains: Record<string, keyof typeof servers> = {
    'bouw-een.nl': 'refusing',
    'bouw-twee.nl': 'refusing',
    'bouw-drie.nl': 'refusing',
    'twee-mx.nl': 'refusing',
    'alleen-a.nl': 'refusing',
    'alles-goed.nl': 'acceptAll',
    'alles-prima.nl': 'acceptAll',
    'alles-best.nl': 'acceptAll',
    'grijs-een.nl': 'greylisting',
    'grijs-twee.nl': 'greylisting',
    'grijs-drie.nl': 'greylisting',
  };
  let down: number;
  const connects: string[] = [];
  let builtin: ReturnType<typeof createBuiltinVerifier>;
  const logs: string[] = [];

  beforeAll(async () => {
    servers.refusing = await startProbeSmtpServer({ kind: 'refusing', known: KNOWN_LOCAL_PARTS });
    servers.acceptAll = await startProbeSmtpServer({ kind: 'acceptAll' });
    servers.greylisting = await startProbeSmtpServer({ kind: 'greylisting', known: KNOWN_LOCAL_PARTS, delayMs: GREYLIST_MS });
    servers.policyBlock = await startProbeSmtpServer({ kind: 'policyBlock' });
    down = await closedPort();
    const zones: Zones = {};
    for (const domain of Object.keys(domains)) {
      if (domain === 'alleen-a.nl') zones[domain] = [{ type: 'A', address: '127.0.0.1' }];
      // Listed out of order: the probe takes the lowest priority first, and the next when it cannot connect.
      else if (domain === 'twee-mx.nl')
        zones[domain] = [
          { type: 'MX', exchange: `mx.${domain}`, priority: 20 },
          { type: 'MX', exchange: `down.${domain}`, priority: 5 },
        ];
      else zones[domain] = [{ type: 'MX', exchange: `mx.${domain}`, priority: 10 }];
    }
    zones['blokkeert.nl'] = [{ type: 'MX', exchange: 'mx.blokkeert.nl', priority: 10 }];
    dns = await startDnsServer(zones);
    const probe = createSmtpProbe({
      ...baseOptions,
      log: (line) => logs.push(line),
      connect: (mxHost) => {
        connects.push(mxHost);
        if (mxHost.startsWith('down.')) return { host: '127.0.0.1', port: down };
        const domain = mxHost.replace(/^mx\./, '');
        const server = domain === 'blokkeert.nl' ? servers.policyBlock : servers[domains[domain]!];
        return { host: server.host, port: server.port };
      },
    });
    builtin = createBuiltinVerifier({ dns: createDnsResolver({ servers: [dns.address], timeoutMs: 1000, tries: 2 }), probe });
  });
  afterAll(async () => {
    await dns?.close();
    for (const s of Object.values(servers)) await s?.close();
  });

  /** 200 addresses, every person at every domain in turn, shuffled so that domains interleave. */
  const fixture = (() => {
    const list: string[] = [];
    const names = Object.keys(domains);
    for (let i = 0; list.length < 200; i++)
      list.push(`${PEOPLE[Math.floor(i / names.length) % PEOPLE.length]}${Math.floor(i / (names.length * PEOPLE.length)) || ''}@${names[i % names.length]}`);
    // A fixed shuffle (no Math.random: a failure must come back the same).
    return list
      .map((a, i) => ({ a, k: (i * 7919) % 200 }))
      .sort((x, y) => x.k - y.k)
      .map((x) => x.a);
  })();
  const behaviourOf = (address: string) => domains[address.split('@')[1]!]!;
  const isKnown = (address: string) => KNOWN.includes(address.split('@')[0]!.replace(/\d+$/, ''));

  let first: Map<string, VerifierAnswer>;

  test('every address gets the status its server gives it', async () => {
    const results = await Promise.all(fixture.map(async (a) => [a, await builtin.check(a)] as const));
    first = new Map(results);
    const wrong: string[] = [];
    const counts: Record<string, number> = {};
    for (const [address, { check, temporary }] of first) {
      const behaviour = behaviourOf(address);
      const known = isKnown(address);
      const expected: Partial<EmailCheck> & { status: string; temporary: boolean } =
        behaviour === 'refusing'
          ? known
            ? { smtp: 'pass', catch_all: 'pass', status: 'valid', temporary: false }
            : { smtp: 'fail', catch_all: 'pass', status: 'invalid', temporary: false }
          : behaviour === 'acceptAll'
            ? { smtp: 'pass', catch_all: 'fail', status: 'risky', temporary: false }
            : // Greylisted: not decided, and worth asking again later. emailStatus reads smtp unknown as risky.
              { smtp: 'unknown', status: 'risky', temporary: true };
      const got = { smtp: check.smtp, catch_all: check.catch_all, status: emailStatus(check), temporary };
      const { status, temporary: t, ...fields } = expected;
      if (got.status !== status || got.temporary !== t || Object.entries(fields).some(([k, v]) => got[k as keyof typeof got] !== v))
        wrong.push(`${address}: ${JSON.stringify(got)} (${check.detail})`);
      expect(check.detail).toEqual(expect.any(String));
      const key = `${behaviour}/${known ? 'known' : 'unknown'}/${got.status}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
    expect(wrong).toEqual([]);
    expect(first.size).toBe(200);
    // Every kind of answer is in the fixture.
    expect(Object.keys(counts).sort()).toEqual(
      [
        'acceptAll/known/risky',
        'acceptAll/unknown/risky',
        'greylisting/known/risky',
        'greylisting/unknown/risky',
        'refusing/known/valid',
        'refusing/unknown/invalid',
      ].sort(),
    );
    expect(logs).toEqual([]);
  }, 30_000);

  test('no DATA was ever sent, and each connection asked two recipients and left with RSET and QUIT', () => {
    for (const s of Object.values(servers)) {
      expect(s.dataSeen).toBe(false);
      for (const c of s.connections) {
        const verbs = c.commands.map((l) => l.split(/[ :]/)[0]!.toUpperCase());
        expect(verbs).toEqual(['EHLO', 'MAIL', 'RCPT', 'RCPT', 'RSET', 'QUIT']);
      }
    }
  });

  test('one connection per domain at a time, and the pause between two; domains in parallel', () => {
    const perDomain: Record<string, { connections: number; atOnce: number; pause: number }> = {};
    for (const [domain, behaviour] of Object.entries(domains)) {
      const s = servers[behaviour];
      perDomain[domain] = {
        connections: s.connections.filter((c) => c.rcptDomains.has(domain)).length,
        atOnce: s.maxSimultaneousFor(domain),
        pause: s.shortestPauseFor(domain),
      };
    }
    const addressesOf = (d: string) => fixture.filter((a) => a.endsWith(`@${d}`)).length;
    for (const [domain, p] of Object.entries(perDomain)) {
      expect({ domain, connections: p.connections, atOnce: p.atOnce }).toEqual({ domain, connections: addressesOf(domain), atOnce: 1 });
      // Counted from the QUIT, which the server has before the probe ends and starts its pause (1 ms: the clock's grain).
      expect(p.pause).toBeGreaterThanOrEqual(INTERVAL_MS - 1);
    }
    // The domains did not wait for each other: the refusing server had several at once.
    expect(servers.refusing.maxSimultaneous).toBeGreaterThan(1);
  });

  test('the preferred MX first, the next one when it cannot be reached; the host itself without MX', () => {
    const twee = connects.filter((h) => h.endsWith('twee-mx.nl'));
    expect(twee.slice(0, 2)).toEqual(['down.twee-mx.nl', 'mx.twee-mx.nl']);
    expect(connects).toContain('alleen-a.nl');
  });

  test('a greylisted address passes on a second probe after the window', async () => {
    await sleep(GREYLIST_MS + 50);
    const greylisted = fixture.filter((a) => behaviourOf(a) === 'greylisting');
    const again = await Promise.all(greylisted.map((a) => builtin.check(a)));
    const got = again.map(({ check, temporary }, i) => ({
      a: greylisted[i],
      smtp: check.smtp,
      catch_all: check.catch_all,
      status: emailStatus(check),
      temporary,
    }));
    expect(got).toEqual(
      greylisted.map((a) =>
        isKnown(a)
          ? { a, smtp: 'pass', catch_all: 'pass', status: 'valid', temporary: false }
          : { a, smtp: 'fail', catch_all: 'pass', status: 'invalid', temporary: false },
      ),
    );
    expect(servers.greylisting.dataSeen).toBe(false);
  }, 30_000);

  test('a refusal of this host (5.7.1, a block list) leaves the address unknown, not invalid', async () => {
    const { check, temporary } = await builtin.check('anna.jansen@blokkeert.nl');
    expect({ smtp: check.smtp, status: emailStatus(check), temporary }).toEqual({ smtp: 'unknown', status: 'risky', temporary: false });
    expect(check.detail).toMatch(/550 5\.7\.1/);
    expect(servers.policyBlock.connections).toHaveLength(1);
    expect(servers.policyBlock.dataSeen).toBe(false);
  });
});

describe('servers that misbehave', () => {
  const raws: RawServer[] = [];
  afterAll(async () => {
    for (const r of raws) await r.close();
  });
  async function raw(onConnection: (socket: net.Socket) => void): Promise<RawServer> {
    const r = await startRawServer(onConnection);
    raws.push(r);
    return r;
  }
  /** A scripted server: the greeting, then a reply to each command line. */
  function scripted(greeting: string, answer: (line: string) => string | null) {
    return raw((socket) => {
      socket.write(greeting);
      let partial = '';
      socket.on('data', (chunk: Buffer) => {
        const lines = (partial + chunk.toString('latin1')).split('\r\n');
        partial = lines.pop() ?? '';
        for (const line of lines) {
          const reply = answer(line);
          if (reply) socket.write(reply);
          if (line === 'QUIT') socket.end();
        }
      });
    });
  }
  const probeAt = (port: number, extra: Partial<SmtpProbeOptions> = {}) =>
    createSmtpProbe({ ...baseOptions, ...extra, connect: () => ({ host: '127.0.0.1', port }) });

  test('a reply line over the bound ends the probe: unknown', async () => {
    const s = await raw((socket) => socket.write(`220 ${'x'.repeat(3000)}\r\n`));
    const r = await probeAt(s.port).probe('anna@lang.nl', ['mx.lang.nl']);
    expect(r).toMatchObject({ smtp: 'unknown', catch_all: null, temporary: false });
    expect(r.detail).toMatch(/longer than 2048 bytes/);
  });

  test('a line over the bound that never ends (no newline) is cut off as it arrives', async () => {
    const s = await raw((socket) => {
      const timer = setInterval(() => socket.write('x'.repeat(512)), 5);
      socket.on('close', () => clearInterval(timer));
    });
    const started = Date.now();
    const r = await probeAt(s.port).probe('anna@eindeloos.nl', ['mx.eindeloos.nl']);
    expect(r.detail).toMatch(/longer than 2048 bytes/);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  test('a server that never answers: the time budget holds', async () => {
    const s = await raw(() => undefined);
    const started = Date.now();
    const r = await probeAt(s.port, { budgetMs: 300, readTimeoutMs: 5000 }).probe('anna@stil.nl', ['mx.stil.nl']);
    const took = Date.now() - started;
    expect(r).toMatchObject({ smtp: 'unknown', temporary: false });
    expect(r.detail).toMatch(/time budget/);
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(800);
  });

  test('a server that trickles a reply that never ends: the time budget holds too', async () => {
    const s = await raw((socket) => {
      const timer = setInterval(() => socket.write('220-still here\r\n'), 10);
      socket.on('close', () => clearInterval(timer));
    });
    const started = Date.now();
    const r = await probeAt(s.port, { budgetMs: 300, readTimeoutMs: 5000 }).probe('anna@druppel.nl', ['mx.druppel.nl']);
    expect(r.smtp).toBe('unknown');
    expect(Date.now() - started).toBeLessThan(800);
  });

  test('a greeting that refuses (554): unknown', async () => {
    const s = await scripted('554 no SMTP service here\r\n', () => null);
    const r = await probeAt(s.port).probe('anna@weiger.nl', ['mx.weiger.nl']);
    expect(r).toMatchObject({ smtp: 'unknown', catch_all: null, temporary: false });
    expect(r.detail).toMatch(/554 no SMTP service here/);
  });

  test('EHLO refused: HELO instead; multi-line replies read whole; a 421 at RCPT is temporary and ends the conversation', async () => {
    const seen: string[] = [];
    const s = await scripted('220-mx.oud.nl ESMTP\r\n220-a second line\r\n220 the last\r\n', (line) => {
      seen.push(line);
      if (line.startsWith('EHLO')) return '502 5.5.1 EHLO not implemented\r\n';
      if (line.startsWith('HELO')) return '250 mx.oud.nl\r\n';
      if (line.startsWith('MAIL')) return '250-2.1.0 ok\r\n250 2.1.0 really\r\n';
      if (line.startsWith('RCPT')) return '421 4.3.2 too busy, closing\r\n';
      return '250 ok\r\n';
    });
    const r = await probeAt(s.port).probe('anna@oud.nl', ['mx.oud.nl']);
    expect(r).toMatchObject({ smtp: 'unknown', catch_all: null, temporary: true });
    expect(seen.map((l) => l.split(/[ :]/)[0])).toEqual(['EHLO', 'HELO', 'MAIL', 'RCPT', 'RSET', 'QUIT']);
  });

  test('outbound port 25 closed: after 3 domains one warning, then no connection is tried until the cool-down ends', async () => {
    const port = await closedPort();
    const logs: string[] = [];
    let attempts = 0;
    const probe = createSmtpProbe({
      ...baseOptions,
      blockedCooldownMs: 300,
      log: (line) => logs.push(line),
      connect: () => {
        attempts++;
        return { host: '127.0.0.1', port };
      },
    });
    const firstThree = await Promise.all(['een', 'twee', 'drie'].map((d) => probe.probe(`anna@${d}.nl`, [`mx.${d}.nl`])));
    expect(firstThree.map((r) => r.smtp)).toEqual(['unknown', 'unknown', 'unknown']);
    expect(attempts).toBe(3);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/port 25 looks blocked/);
    const later = await Promise.all(['vier', 'vijf', 'zes', 'zeven'].map((d) => probe.probe(`anna@${d}.nl`, [`mx.${d}.nl`])));
    expect(later.map((r) => r.smtp)).toEqual(['unknown', 'unknown', 'unknown', 'unknown']);
    expect(later[0]!.detail).toMatch(/port 25 looks blocked/);
    // Not an answer about the addresses: "not now", so they stay unknown (not risky) and are checked again later.
    expect([...firstThree, ...later].every((r) => r.temporary)).toBe(true);
    expect(attempts).toBe(3);
    // After the cool-down it tries again (three more domains, one after the other), blocks again, and does not say so twice.
    await sleep(350);
    for (const d of ['acht', 'negen', 'tien', 'elf']) await probe.probe(`anna@${d}.nl`, [`mx.${d}.nl`]);
    expect(attempts).toBe(6);
    expect(logs).toHaveLength(1);
  });

  test('after one server answered, unreachable domains are theirs, not a blocked port 25', async () => {
    const good = await scripted('220 ok\r\n', (line) => (line.startsWith('RCPT') ? '550 5.1.1 no such user\r\n' : '250 ok\r\n'));
    const port = await closedPort();
    const logs: string[] = [];
    let attempts = 0;
    const probe = createSmtpProbe({
      ...baseOptions,
      log: (line) => logs.push(line),
      connect: (mx) => {
        attempts++;
        return { host: '127.0.0.1', port: mx === 'mx.goed.nl' ? good.port : port };
      },
    });
    expect(await probe.probe('anna@goed.nl', ['mx.goed.nl'])).toMatchObject({ smtp: 'fail', catch_all: 'pass' });
    for (const d of ['een', 'twee', 'drie', 'vier']) await probe.probe(`anna@${d}.nl`, [`mx.${d}.nl`]);
    expect(attempts).toBe(5);
    expect(logs).toEqual([]);
  });
});

describe('where the probe may connect', () => {
  test('a mail host on this machine or a private network is never asked (anyone can point their MX there): unknown, nothing connected', async () => {
    // A listener where the probe would go: port 25 of this machine.
    let connected = 0;
    const server = net.createServer((socket) => {
      connected++;
      socket.end('220 internal relay\r\n');
    });
    const listening = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(25, '127.0.0.1', () => resolve(true));
    });
    // The rule as production has it, whatever this process allows (the full suite allows private networks).
    allowPrivateDestinations(false);
    try {
      const probe = createSmtpProbe({ ...baseOptions });
      for (const mx of ['127.0.0.1', 'localhost', '10.0.0.25', '169.254.169.254']) {
        const r = await probe.probe(`someone@internal-${connected}.nl`, [mx]);
        expect(r).toMatchObject({ smtp: 'unknown', temporary: false, detail: expect.stringContaining('not a public mail host') });
      }
      if (listening) expect(connected).toBe(0);
    } finally {
      allowPrivateDestinations(process.env.OUTBOUND_ALLOW_PRIVATE_NETWORKS === 'true');
      if (listening) await new Promise((r) => server.close(r));
    }
  });
});
