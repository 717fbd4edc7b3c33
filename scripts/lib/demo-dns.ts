import { generateKeyPairSync } from 'node:crypto';
import { startDnsServer, type TestDnsServer, type Zones } from './dns-server';

/**
 * The demo zone of `npm run dev`: DNS for the demo mailbox's domain that passes every deliverability
 * check (SPF -all, a 2048-bit DKIM key at selector s1, DMARC p=reject with rua, an MX at the mail
 * catcher's host), served on 127.0.0.1 and named to the API and worker as DNS_SERVERS. Every other
 * name is NXDOMAIN: with the demo zone, health checks never leave the machine.
 */
export function demoZone(domain: string): Zones {
  const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  return {
    [domain]: [
      { type: 'TXT', data: 'v=spf1 ip4:127.0.0.1 -all' },
      { type: 'MX', exchange: `mail.${domain}`, priority: 10 },
    ],
    [`mail.${domain}`]: [{ type: 'A', address: '127.0.0.1' }],
    [`s1._domainkey.${domain}`]: [{ type: 'TXT', data: `v=DKIM1; k=rsa; p=${key}` }],
    [`_dmarc.${domain}`]: [{ type: 'TXT', data: `v=DMARC1; p=reject; rua=mailto:dmarc@${domain}` }],
  };
}

export function startDemoDns(domain: string): Promise<TestDnsServer> {
  // The demo's contacts have addresses at made-up domains, which the address check asks about.
  return startDnsServer(demoZone(domain), { unlistedReceiveMail: true });
}
