import { loadConfig } from '../../apps/shared/config';
import { mailDomainProblem } from '../../domain/deliverability/mail-domain';
import {
  evaluateHealth,
  notSendableReason,
  judgeDkim,
  judgeDmarc,
  judgeMx,
  judgeSpf,
  type DmarcFacts,
  type HealthFacts,
  type SpfFacts,
} from '../../domain/deliverability/score';

/** The rubric of shared/compliance-rules.md section 4, on facts as the DNS lookups report them. */
const spf = (over: Partial<SpfFacts> = {}): SpfFacts => ({
  result: 'fail',
  record: 'v=spf1 include:_spf.host.nl -all',
  comment: '',
  lookups: 1,
  voidLookups: 0,
  ...over,
});
const dmarc = (tags: Record<string, string | number>, organisational = false): DmarcFacts => ({
  record: Object.entries(tags)
    .map(([k, v]) => `${k}=${v}`)
    .join('; '),
  tags: { v: 'DMARC1', ...tags },
  at: 'acme.nl',
  organisational,
});
const good: HealthFacts = {
  domain: 'acme.nl',
  mx: {
    records: [
      { exchange: 'mx2.acme.nl', priority: 20 },
      { exchange: 'mx1.acme.nl', priority: 10 },
    ],
  },
  spf: spf(),
  dkim: { selector: 's1', record: 'v=DKIM1; p=...', key: { type: 'rsa', bits: 2048 } },
  dmarc: dmarc({ p: 'reject', rua: 'mailto:d@acme.nl' }),
};
const statuses = (facts: HealthFacts) => {
  const r = evaluateHealth(facts);
  return { spf: r.spf.status, dkim: r.dkim.status, dmarc: r.dmarc.status, mx: r.mx.status, score: r.score, sendable: r.sendable };
};

test('a domain that passes every check scores 100 and is sendable', () => {
  expect(statuses(good)).toEqual({ spf: 'pass', dkim: 'pass', dmarc: 'pass', mx: 'pass', score: 100, sendable: true });
  expect(evaluateHealth(good).mx.record).toBe('10 mx1.acme.nl, 20 mx2.acme.nl');
});

test('DMARC points by policy: none 15 (a warning, so not the 10 for the rest), quarantine 25, reject 30', () => {
  expect(statuses({ ...good, dmarc: dmarc({ p: 'none', rua: 'mailto:d@acme.nl' }) })).toMatchObject({
    dmarc: 'warn',
    score: 25 + 25 + 15 + 10,
    sendable: true,
  });
  expect(statuses({ ...good, dmarc: dmarc({ p: 'quarantine', rua: 'mailto:d@acme.nl' }) })).toMatchObject({ dmarc: 'pass', score: 25 + 25 + 25 + 10 + 10 });
  expect(statuses({ ...good, dmarc: dmarc({ p: 'reject', rua: 'mailto:d@acme.nl' }) }).score).toBe(100);
});

test('DMARC warns on a missing rua, pct below 100 and sp weaker than p; it fails when missing, invalid or unreadable', () => {
  expect(judgeDmarc(dmarc({ p: 'reject' }))).toMatchObject({ status: 'warn', detail: expect.stringContaining('no rua') });
  expect(judgeDmarc(dmarc({ p: 'reject', rua: 'mailto:d@acme.nl', pct: 50 }))).toMatchObject({ status: 'warn', detail: expect.stringContaining('pct=50') });
  expect(judgeDmarc(dmarc({ p: 'reject', rua: 'mailto:d@acme.nl', sp: 'none' }))).toMatchObject({
    status: 'warn',
    detail: expect.stringContaining('sp=none is weaker'),
  });
  expect(judgeDmarc(dmarc({ p: 'reject', rua: 'mailto:d@acme.nl', sp: 'reject', adkim: 's' }, true))).toMatchObject({
    status: 'pass',
    detail: 'p=reject; DKIM alignment strict, SPF alignment relaxed; from the organisational domain (acme.nl)',
  });
  expect(judgeDmarc({ record: null }).status).toBe('fail');
  expect(judgeDmarc(dmarc({ p: 'block' })).status).toBe('fail');
  expect(judgeDmarc({ record: null, failure: { message: 'no answer in time' } })).toMatchObject({
    status: 'fail',
    detail: 'the DMARC lookup failed: no answer in time',
  });
  expect(statuses({ ...good, dmarc: { record: null } })).toMatchObject({ score: 60, sendable: false });
});

test('SPF: -all passes, ~all and ?all (or no all) warn, ptr warns, +all, several records, errors and none fail', () => {
  expect(judgeSpf(spf()).status).toBe('pass');
  expect(judgeSpf(spf({ result: 'softfail', record: 'v=spf1 mx ~all' })).status).toBe('warn');
  expect(judgeSpf(spf({ result: 'neutral', record: 'v=spf1 mx ?all' })).detail).toMatch(/\?all is as weak as no policy/);
  expect(judgeSpf(spf({ result: 'neutral', record: 'v=spf1 mx' })).status).toBe('warn');
  expect(judgeSpf(spf({ record: 'v=spf1 ptr -all' }))).toMatchObject({ status: 'warn', detail: expect.stringContaining('ptr is deprecated') });
  expect(judgeSpf(spf({ result: 'pass', record: 'v=spf1 +all' }))).toMatchObject({ status: 'fail', detail: '+all lets any host send as this domain' });
  expect(judgeSpf(spf({ result: 'pass', record: 'v=spf1 ip4:0.0.0.0/0 -all' })).status).toBe('fail');
  expect(judgeSpf(spf({ result: 'permerror', comment: 'multiple SPF records found for acme.nl' }))).toMatchObject({
    status: 'fail',
    detail: 'SPF permerror: multiple SPF records found for acme.nl',
  });
  expect(judgeSpf(spf({ result: 'temperror', comment: 'DNS timeout' })).status).toBe('fail');
  expect(judgeSpf(spf({ result: 'none', record: null })).status).toBe('fail');
  expect(statuses({ ...good, spf: spf({ result: 'softfail' }) })).toMatchObject({ score: 90, sendable: true });
  expect(statuses({ ...good, spf: spf({ result: 'pass', record: 'v=spf1 +all' }) })).toMatchObject({ score: 65, sendable: false });
});

test('DKIM: 2048 bits pass, 1024 warn, shorter, revoked, invalid and missing keys fail', () => {
  const key = (bits: number) => judgeDkim({ selector: 's1', record: 'r', key: { type: 'rsa', bits } });
  expect(key(2048).status).toBe('pass');
  expect(key(4096).status).toBe('pass');
  expect(key(1024)).toMatchObject({ status: 'warn', detail: 'selector s1: 1024-bit RSA key; 2048 bits are recommended' });
  expect(key(512).status).toBe('fail');
  expect(judgeDkim({ selector: 's1', record: 'r', key: { type: 'ed25519', bits: null } }).status).toBe('pass');
  expect(judgeDkim({ selector: 's1', record: 'v=DKIM1; p=', revoked: true })).toMatchObject({
    status: 'fail',
    detail: 'selector s1: the key is revoked (empty p=)',
  });
  expect(judgeDkim({ selector: null, tried: ['google', 'k1'] })).toMatchObject({ status: 'fail', detail: 'no DKIM key at the selectors google, k1' });
  expect(statuses({ ...good, dkim: { selector: 's1', record: 'r', key: { type: 'rsa', bits: 1024 } } })).toMatchObject({
    dkim: 'warn',
    score: 90,
    sendable: true,
  });
  expect(statuses({ ...good, dkim: { selector: null, tried: ['s1'] } })).toMatchObject({ score: 65, sendable: false });
});

test('MX: a null MX (RFC 7505), none and a failed lookup fail', () => {
  expect(judgeMx({ records: [{ exchange: '', priority: 0 }] })).toMatchObject({ status: 'fail', record: '0 .', detail: expect.stringContaining('RFC 7505') });
  expect(judgeMx({ failure: 'nodata', message: '' }).status).toBe('fail');
  expect(judgeMx({ failure: 'servfail', message: 'the server answered SERVFAIL' }).detail).toBe(
    'the MX lookup failed (servfail): the server answered SERVFAIL',
  );
  expect(statuses({ ...good, mx: { records: [{ exchange: '', priority: 0 }] } })).toMatchObject({ score: 80, sendable: false });
});

test('mailbox domains: ASCII host names only; IDNs (Unicode or xn--) and malformed names are refused', () => {
  expect(mailDomainProblem('acme.nl')).toBeNull();
  expect(mailDomainProblem('mail.acme-bouw.co.uk')).toBeNull();
  expect(mailDomainProblem('bücher.de')).toMatch(/internationalized/);
  expect(mailDomainProblem('xn--bcher-kva.de')).toMatch(/internationalized/);
  for (const bad of ['', 'localhost', 'acme..nl', '-acme.nl', 'acme.nl-', 'ac me.nl', '1.2.3.4', `${'a'.repeat(64)}.nl`])
    expect(mailDomainProblem(bad)).toMatch(/not a valid domain/);
});

test('the reason a held message shows names every failed check; none when sendable', () => {
  expect(notSendableReason(evaluateHealth(good))).toBeNull();
  const held = evaluateHealth({ ...good, mx: { records: [{ exchange: '', priority: 0 }] }, spf: spf({ result: 'pass', record: 'v=spf1 +all' }) });
  expect(notSendableReason(held)).toBe(
    'mailbox not sendable (deliverability 55/100): MX: null MX (RFC 7505): the domain accepts no mail; SPF: +all lets any host send as this domain',
  );
});

test('DNS_SERVERS: comma-separated host:port of IP addresses (IPv6 in brackets); anything else is refused at start', () => {
  expect(loadConfig({ DNS_SERVERS: '127.0.0.1:5353, [::1]:53' }).DNS_SERVERS).toBe('127.0.0.1:5353, [::1]:53');
  expect(loadConfig({}).DNS_TIMEOUT_MS).toBe(5000);
  for (const bad of ['127.0.0.1', 'dns.example.com:53', '::1:53', '127.0.0.1:53,,x']) expect(() => loadConfig({ DNS_SERVERS: bad })).toThrow(/DNS_SERVERS/);
});
