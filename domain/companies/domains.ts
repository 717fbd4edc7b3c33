import { parse } from 'tldts';

/**
 * Which domain is a company's. A website on an IP address or on a hosting provider's subdomain
 * (foo.wixsite.com, foo.github.io: the private section of the public suffix list) does not name
 * the company; then the addresses the company publishes can: the domain most of them share, free-mail
 * providers left out.
 */

/** Mailbox providers anyone can sign up with: an address there says nothing about the company's domain. */
export const FREE_MAIL_DOMAINS = new Set([
  'gmail.com',
  'googlemail.com',
  'hotmail.com',
  'hotmail.nl',
  'hotmail.be',
  'hotmail.de',
  'hotmail.fr',
  'hotmail.co.uk',
  'outlook.com',
  'outlook.nl',
  'live.com',
  'live.nl',
  'live.be',
  'msn.com',
  'yahoo.com',
  'yahoo.nl',
  'yahoo.fr',
  'yahoo.de',
  'yahoo.co.uk',
  'ymail.com',
  'icloud.com',
  'me.com',
  'mac.com',
  'aol.com',
  'gmx.com',
  'gmx.de',
  'gmx.net',
  'web.de',
  't-online.de',
  'protonmail.com',
  'proton.me',
  'pm.me',
  'zoho.com',
  'mail.com',
  'ziggo.nl',
  'kpnmail.nl',
  'kpnplanet.nl',
  'planet.nl',
  'home.nl',
  'hetnet.nl',
  'chello.nl',
  'casema.nl',
  'quicknet.nl',
  'xs4all.nl',
  'zeelandnet.nl',
  'telfort.nl',
  'tele2.nl',
  'upcmail.nl',
  'online.nl',
  'freeler.nl',
  'skynet.be',
  'telenet.be',
  'proximus.be',
  'orange.fr',
  'wanadoo.fr',
  'free.fr',
  'laposte.net',
  'sfr.fr',
  'btinternet.com',
  'sky.com',
  'virginmedia.com',
  'freenet.de',
  'posteo.de',
]);

function hostOf(value: string): string {
  const v = value.trim();
  return v.includes('@') ? v.split('@').pop()! : v;
}

/**
 * The registrable domain of a host, a URL or an address, with hosting providers' suffixes respected:
 * "foo.wixsite.com" is its own site, not wixsite.com. Null for IP addresses and bare hosts.
 */
export function siteDomain(value: string): string | null {
  const p = parse(hostOf(value), { allowPrivateDomains: true });
  if (p.isIp || !p.domain || !p.publicSuffix) return null;
  if (!p.isIcann && !p.isPrivate) return null; // localhost, made-up suffixes
  return p.domain.toLowerCase();
}

/** The company's own domain from a website, a domain or an address: null for IPs and hosting subdomains. */
export function companyDomain(value: string): string | null {
  const p = parse(hostOf(value), { allowPrivateDomains: true });
  if (p.isIp || p.isPrivate || !p.isIcann || !p.domain) return null;
  return p.domain.toLowerCase();
}

export function isFreeMailDomain(domain: string): boolean {
  return FREE_MAIL_DOMAINS.has(domain.toLowerCase());
}

/**
 * The domain most of the published addresses share (more than half of the distinct addresses not
 * at a free-mail provider); null when there is none, or a tie.
 */
export function domainFromAddresses(addresses: Array<string | null | undefined>): string | null {
  const counts = new Map<string, number>();
  let total = 0;
  for (const a of new Set(addresses.map((x) => x?.trim().toLowerCase()))) {
    if (!a || !a.includes('@')) continue;
    const d = companyDomain(a);
    if (!d || isFreeMailDomain(d)) continue;
    counts.set(d, (counts.get(d) ?? 0) + 1);
    total++;
  }
  const [best] = [...counts.entries()].sort((x, y) => y[1] - x[1]);
  return best && best[1] * 2 > total ? best[0] : null;
}

/**
 * The company's generic address among those it publishes: the first at its domain (a web designer's
 * or a partner's address on the page is not the company's); with no domain known, the first.
 */
export function genericAddressFor(candidates: Array<string | null | undefined>, domain: string | null): string | null {
  const valid = candidates.filter((c): c is string => !!c);
  return (domain ? valid.find((c) => companyDomain(c) === domain) : valid[0]) ?? null;
}
