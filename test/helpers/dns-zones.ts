import { generateKeyPairSync } from 'node:crypto';
import type { ZoneRecord, Zones } from './dns-server';

/** A DKIM key record (RFC 6376 3.6.1) for a new RSA key of this many bits. */
export function dkimRecord(bits: number): string {
  const p = generateKeyPairSync('rsa', { modulusLength: bits }).publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  return `v=DKIM1; k=rsa; p=${p}`;
}

const txt = (data: string): ZoneRecord => ({ type: 'TXT', data });
const mx = (exchange: string, priority = 10): ZoneRecord => ({ type: 'MX', exchange, priority });

/**
 * The deliverability cases, one registrable domain each (all served only by the test DNS server):
 * a good domain, its subdomain without DMARC (organisational fallback), missing DMARC, +all, two SPF
 * records, an include loop, too many void lookups, weak settings (~all, 1024-bit key, p=none without
 * rua), a null MX, a revoked key, and SERVFAIL and timeout for everything under a domain, and a
 * domain that does not exist (nx-domain.nl). Served with unlistedReceiveMail, any other domain takes
 * mail (an MX answer) and has nothing else.
 */
export function deliverabilityZones(): Zones {
  const key2048 = dkimRecord(2048);
  const good = (domain: string): Zones => ({
    [domain]: [txt('v=spf1 include:_spf.mailhost.nl -all'), txt('google-site-verification=abc'), mx(`mx1.${domain}`), mx(`mx2.${domain}`, 20)],
    [`s1._domainkey.${domain}`]: [txt(key2048)],
    [`_dmarc.${domain}`]: [txt(`v=DMARC1; p=reject; rua=mailto:dmarc@${domain}; adkim=s`)],
  });
  return {
    'nx-domain.nl': 'nxdomain',
    '_spf.mailhost.nl': [txt('v=spf1 ip4:198.51.100.0/24 ip6:2001:db8::/32 -all')],
    ...good('good-mail.nl'),
    // A 4096-bit key: its TXT answer is over 512 bytes, so over UDP it comes back truncated and the resolver asks over TCP.
    'big._domainkey.good-mail.nl': [txt(dkimRecord(4096))],
    // A subdomain with its own SPF, MX and key but no _dmarc: the organisational domain's record applies.
    'sales.good-mail.nl': [txt('v=spf1 include:_spf.mailhost.nl -all'), mx('mx1.good-mail.nl')],
    'google._domainkey.sales.good-mail.nl': [{ type: 'CNAME', domain: 's1._domainkey.good-mail.nl' }],
    ...good('no-dmarc.nl'),
    '_dmarc.no-dmarc.nl': [txt('not a dmarc record')],
    ...good('plus-all.nl'),
    'plus-all.nl': [txt('v=spf1 include:_spf.mailhost.nl +all'), mx('mx1.plus-all.nl')],
    ...good('two-spf.nl'),
    'two-spf.nl': [txt('v=spf1 include:_spf.mailhost.nl -all'), txt('v=spf1 mx -all'), mx('mx1.two-spf.nl')],
    ...good('spf-loop.nl'),
    'spf-loop.nl': [txt('v=spf1 include:a.spf-loop.nl -all'), mx('mx1.spf-loop.nl')],
    'a.spf-loop.nl': [txt('v=spf1 include:b.spf-loop.nl -all')],
    'b.spf-loop.nl': [txt('v=spf1 include:a.spf-loop.nl -all')],
    ...good('spf-void.nl'),
    'spf-void.nl': [txt('v=spf1 a:x1.spf-void.nl a:x2.spf-void.nl a:x3.spf-void.nl -all'), mx('mx1.spf-void.nl')],
    'weak-mail.nl': [txt('v=spf1 include:_spf.mailhost.nl ~all'), mx('mx1.weak-mail.nl')],
    'selector1._domainkey.weak-mail.nl': [txt(dkimRecord(1024))],
    '_dmarc.weak-mail.nl': [txt('v=DMARC1; p=none')],
    ...good('null-mx.nl'),
    'null-mx.nl': [txt('v=spf1 -all'), mx('.', 0)],
    ...good('revoked-dkim.nl'),
    'mail._domainkey.revoked-dkim.nl': [txt('v=DKIM1; k=rsa; p=')],
    'servfail.nl': 'servfail',
    'timeout.nl': 'timeout',
  };
}
