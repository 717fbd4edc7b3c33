import { acceptDecision, checkIsStale, emailStatus, sendTimeAddressVerdict, type EmailCheck } from '../../domain/contacts/email-verification';
import { createBuiltinVerifier } from '../../activities/providers/verification/builtin';
import { createDnsResolver } from '../../activities/providers/dns/resolver';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server';

/**
 * Address verification: the status the checks give (one rule for every verifier) and the built-in
 * checks against a DNS server of our own.
 */
const checks = (c: Partial<EmailCheck>): EmailCheck => ({
  syntax: 'pass',
  mx: 'pass',
  disposable: 'pass',
  role: 'pass',
  catch_all: null,
  smtp: null,
  provider: 'builtin',
  detail: null,
  ...c,
});

describe('the status from the checks', () => {
  test.each<[string, Partial<EmailCheck>, string]>([
    ['every check that ran passes', {}, 'valid'],
    ['the probe accepted it on a domain that refuses strangers', { smtp: 'pass', catch_all: 'pass' }, 'valid'],
    ['bad syntax', { syntax: 'fail', mx: null, disposable: null, role: null }, 'invalid'],
    ['no mail host', { mx: 'fail' }, 'invalid'],
    ['a disposable domain', { disposable: 'fail' }, 'invalid'],
    ['refused by its server', { smtp: 'fail', catch_all: 'pass' }, 'invalid'],
    ['refused outweighs a role address', { smtp: 'fail', role: 'fail' }, 'invalid'],
    ['a catch-all domain', { smtp: 'pass', catch_all: 'fail' }, 'risky'],
    ['a role address', { role: 'fail' }, 'risky'],
    ['a probe that could not decide', { smtp: 'unknown' }, 'risky'],
    ['a mail host lookup that did not answer', { mx: 'unknown' }, 'unknown'],
    ['a lookup that did not answer, on a role address', { mx: 'unknown', role: 'fail' }, 'unknown'],
    ['nothing run', { syntax: null, mx: null, disposable: null, role: null }, 'unknown'],
  ])('%s: %s', (_what, c, status) => {
    expect(emailStatus(checks(c))).toBe(status);
  });

  test('accept skips invalid and risky addresses, takes risky ones when the campaign allows them, waits on unknown', () => {
    expect(acceptDecision('valid', false)).toBeNull();
    expect(acceptDecision('invalid', true)).toBe('invalid_email');
    expect(acceptDecision('risky', false)).toBe('risky_email');
    expect(acceptDecision('risky', true)).toBeNull();
    expect(acceptDecision('unknown', true)).toBe('wait');
  });

  test('at send time: invalid and not-allowed risky addresses skipped, one never checked waits 10 minutes from the enrollment, a check that could not decide goes', () => {
    const enrolled = new Date('2026-12-06T12:00:00Z');
    const at = (min: number) => new Date(enrolled.getTime() + min * 60_000);
    expect(sendTimeAddressVerdict({ status: 'invalid', checked: true, allowRisky: true }, enrolled, at(60))).toEqual({ go: false, skip: 'invalid_email' });
    expect(sendTimeAddressVerdict({ status: 'risky', checked: true, allowRisky: false }, enrolled, at(60))).toEqual({ go: false, skip: 'risky_email' });
    expect(sendTimeAddressVerdict({ status: 'risky', checked: true, allowRisky: true }, enrolled, at(0))).toEqual({ go: true });
    expect(sendTimeAddressVerdict({ status: 'valid', checked: true, allowRisky: false }, enrolled, at(0))).toEqual({ go: true });
    expect(sendTimeAddressVerdict({ status: 'unknown', checked: false, allowRisky: false }, enrolled, at(4))).toEqual({ go: false, waitMs: 6 * 60_000 });
    expect(sendTimeAddressVerdict({ status: 'unknown', checked: false, allowRisky: false }, enrolled, at(10))).toEqual({ go: true });
    expect(sendTimeAddressVerdict({ status: 'unknown', checked: true, allowRisky: false }, enrolled, at(1))).toEqual({ go: true });
  });

  test('a check is stale after 90 days, and a contact never checked is', () => {
    const now = new Date('2026-12-06T12:00:00Z');
    expect(checkIsStale(null, now)).toBe(true);
    expect(checkIsStale(new Date('2026-09-07T12:00:00Z'), now)).toBe(false);
    expect(checkIsStale(new Date('2026-09-07T11:59:00Z'), now)).toBe(true);
  });
});

describe('the built-in checks, against a DNS server', () => {
  let dns: TestDnsServer;
  let verify: (address: string) => Promise<EmailCheck>;
  beforeAll(async () => {
    dns = await startDnsServer({
      'bouwbedrijf-mx.nl': [{ type: 'MX', exchange: 'mx.bouwbedrijf-mx.nl', priority: 10 }],
      'alleen-a.nl': [{ type: 'A', address: '192.0.2.10' }],
      'null-mx.nl': [{ type: 'MX', exchange: '', priority: 0 }],
      'geen-post.nl': [{ type: 'TXT', data: 'v=spf1 -all' }],
      'kapot.nl': 'servfail',
      'mailinator.com': [{ type: 'MX', exchange: 'mail.mailinator.com', priority: 1 }],
    });
    const [host, port] = dns.address.split(':');
    verify = createBuiltinVerifier({ dns: createDnsResolver({ servers: [`${host}:${port}`], timeoutMs: 1000, tries: 1 }) }).verify;
  });
  afterAll(() => dns.close());

  test.each<[string, string, Partial<EmailCheck>, string]>([
    ['a person at a domain with MX', 'jan.devries@bouwbedrijf-mx.nl', { mx: 'pass', role: 'pass', disposable: 'pass' }, 'valid'],
    ['a domain with only an A record (the implicit MX)', 'piet@alleen-a.nl', { mx: 'pass' }, 'valid'],
    ['a null MX', 'piet@null-mx.nl', { mx: 'fail' }, 'invalid'],
    ['a domain with no mail host at all', 'piet@geen-post.nl', { mx: 'fail' }, 'invalid'],
    ['a domain that does not exist', 'piet@bestaat-niet.nl', { mx: 'fail' }, 'invalid'],
    ['a lookup answered SERVFAIL', 'piet@kapot.nl', { mx: 'unknown' }, 'unknown'],
    ['a disposable domain', 'piet@mailinator.com', { disposable: 'fail', mx: 'pass' }, 'invalid'],
    ['a role address', 'info@bouwbedrijf-mx.nl', { role: 'fail' }, 'risky'],
    ['bad syntax, no lookup', 'piet@@bouwbedrijf-mx.nl', { syntax: 'fail', mx: null }, 'invalid'],
  ])('%s: %s', async (_what, address, expected, status) => {
    const before = dns.queries.length;
    const c = await verify(address);
    expect(c).toMatchObject({ provider: 'builtin', smtp: null, catch_all: null, ...expected });
    expect(emailStatus(c)).toBe(status);
    if (expected.syntax === 'fail') expect(dns.queries.length).toBe(before);
    if (status !== 'valid') expect(c.detail).toEqual(expect.any(String));
  });
});
