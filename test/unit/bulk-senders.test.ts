import {
  BULK_SENDER_THRESHOLDS,
  bulkSenderHold,
  nextUtcDay,
  organizationalDomain,
  passesBulkSenderAuth,
  pastNear,
  providerByDomain,
  providerByMx,
  receivingProvider,
  utcDay,
} from '../../domain/sending/bulk-senders';

describe('receiving provider: by the recipient domain, else by its MX hosts', () => {
  test('consumer domains known by name', () => {
    expect(['gmail.com', 'GoogleMail.com.'].map(providerByDomain)).toEqual(['google', 'google']);
    expect(['yahoo.com', 'yahoo.co.uk', 'yahoo.fr', 'aol.com', 'ymail.com', 'rocketmail.com'].map(providerByDomain)).toEqual(Array(6).fill('yahoo'));
    expect(['outlook.com', 'hotmail.com', 'hotmail.co.uk', 'live.nl', 'live.com', 'msn.com'].map(providerByDomain)).toEqual(Array(6).fill('microsoft'));
    // A subdomain, or a lookalike that only contains the name, is nobody's consumer mailbox.
    expect(['mail.yahoo.com', 'yahoo-mail.nl', 'notgmail.com', 'bouw.nl', 'outlook.nl'].map(providerByDomain)).toEqual(Array(5).fill(null));
  });

  test('MX hosts: Google, Yahoo-hosted, Outlook.com consumer; Microsoft 365 business is other', () => {
    expect(providerByMx(['aspmx.l.google.com.', 'alt1.aspmx.l.google.com'])).toBe('google');
    expect(providerByMx(['smtp.google.com'])).toBe('google');
    expect(providerByMx(['gmail-smtp-in.l.googlemail.com'])).toBe('google');
    expect(providerByMx(['mta5.am0.yahoodns.net'])).toBe('yahoo');
    expect(providerByMx(['hotmail-com.olc.protection.outlook.com'])).toBe('microsoft');
    expect(providerByMx(['bouw-nl.mail.protection.outlook.com'])).toBe('other');
    expect(providerByMx(['mx.bouw.nl', 'evilgoogle.com', 'google.com.evil.nl'])).toBe('other');
    expect(providerByMx([])).toBe('other');
  });

  test('by name first; no MX answer is other', () => {
    expect(receivingProvider('gmail.com', null)).toBe('google');
    expect(receivingProvider('bouw.nl', ['aspmx.l.google.com'])).toBe('google');
    expect(receivingProvider('bouw.nl', null)).toBe('other');
  });
});

test('organizational domain: subdomains add up under it', () => {
  expect(organizationalDomain('mail.acme.nl')).toBe('acme.nl');
  expect(organizationalDomain('jan@News.Acme.co.uk')).toBe('acme.co.uk');
  expect(organizationalDomain('acme.nl')).toBe('acme.nl');
});

test('UTC day and the next one', () => {
  expect(utcDay(new Date('2027-03-01T23:59:59.999Z'))).toBe('2027-03-01');
  expect(utcDay(new Date('2027-03-02T00:00:00Z'))).toBe('2027-03-02');
  expect(nextUtcDay(new Date('2027-12-31T22:30:00+01:00')).toISOString()).toBe('2028-01-01T00:00:00.000Z');
});

describe('thresholds: above 4,000 a warning, at 5,000 an unaligned domain waits', () => {
  test('the numbers are data', () => {
    expect(BULK_SENDER_THRESHOLDS).toEqual({ near: 4000, hold: 5000 });
    expect([pastNear(4000), pastNear(4001)]).toEqual([false, true]);
  });

  const now = new Date('2027-03-01T15:00:00Z');
  const at = (sentToday: number, aligned = false, provider: 'google' | 'other' = 'google') =>
    bulkSenderHold({ provider, sentToday, aligned, orgDomain: 'acme.nl', now });

  test('held from the 5,000th, unless aligned or to other providers', () => {
    expect(at(4999)).toBeNull();
    expect(at(5000)).toBe(
      'acme.nl sent 5000 e-mails to google today (UTC), the bulk-sender limit of 5000 without SPF, DKIM and DMARC: it waits until 2027-03-02T00:00:00.000Z',
    );
    expect(at(7000, true)).toBeNull();
    expect(at(7000, false, 'other')).toBeNull();
    expect(bulkSenderHold({ provider: 'google', sentToday: 10, aligned: false, orgDomain: 'acme.nl', now }, { near: 5, hold: 10 })).not.toBeNull();
  });

  test('aligned: SPF, DKIM and DMARC records valid; ~all, a 1024-bit key and p=none (warn) meet the rules, a missing or broken one does not', () => {
    expect(passesBulkSenderAuth({ spf: 'pass', dkim: 'pass', dmarc: 'pass' })).toBe(true);
    expect(passesBulkSenderAuth({ spf: 'warn', dkim: 'warn', dmarc: 'warn' })).toBe(true);
    expect(passesBulkSenderAuth({ spf: 'pass', dkim: 'pass', dmarc: 'fail' })).toBe(false);
    expect(passesBulkSenderAuth({ spf: 'fail', dkim: 'pass', dmarc: 'pass' })).toBe(false);
    expect(passesBulkSenderAuth({ spf: 'pass', dkim: 'fail', dmarc: 'pass' })).toBe(false);
    expect(passesBulkSenderAuth({ spf: 'pass', dkim: 'pass', dmarc: 'none' })).toBe(false);
    expect(passesBulkSenderAuth(null)).toBe(false);
  });
});
