import { getDomain, getDomainWithoutSuffix } from 'tldts';

/**
 * The bulk-sender rules of the large receiving providers (Google, Yahoo/AOL, Microsoft's consumer
 * mail): a sending domain that sends one provider about 5,000 e-mails a day is a bulk sender and must
 * pass SPF, DKIM and DMARC. Counted per organization, organizational domain of the sender (a
 * subdomain's sends add up under it, as the providers count them) and receiving provider, per UTC day.
 * Pure: the counts come from db/queries/bulk-volume.ts, the MX hosts from the worker's DNS resolver.
 */

export const RECEIVING_PROVIDERS = ['google', 'yahoo', 'microsoft', 'other'] as const;
export type ReceivingProvider = (typeof RECEIVING_PROVIDERS)[number];

/** Above `near` e-mails in a UTC day to one provider the organization is warned; at `hold` an unaligned domain's further e-mails to it wait for the next UTC day. */
export const BULK_SENDER_THRESHOLDS = { near: 4000, hold: 5000 } as const;
export type BulkThresholds = { near: number; hold: number };

/**
 * Which provider receives a domain's mail, as data: recipient domains known by name, and the MX host
 * suffixes that give a provider away for any other domain (Google Workspace, Yahoo-hosted domains,
 * domains hosted on Outlook.com's consumer service). Microsoft 365 business mail
 * (`*.mail.protection.outlook.com`) is not the consumer provider and stays `other`.
 */
export const PROVIDER_RULES: ReadonlyArray<{
  provider: Exclude<ReceivingProvider, 'other'>;
  /** Recipient domains, exact. */
  domains: readonly string[];
  /** Recipient domains whose name before the public suffix is this (`yahoo` matches yahoo.com, yahoo.co.uk, ...). */
  names: readonly string[];
  /** MX host suffixes (a host equal to one, or ending in `.` + one). */
  mx: readonly string[];
}> = [
  { provider: 'google', domains: ['gmail.com', 'googlemail.com'], names: [], mx: ['google.com', 'googlemail.com'] },
  { provider: 'yahoo', domains: ['aol.com', 'ymail.com', 'rocketmail.com'], names: ['yahoo'], mx: ['yahoodns.net'] },
  { provider: 'microsoft', domains: ['outlook.com', 'msn.com'], names: ['hotmail', 'live'], mx: ['olc.protection.outlook.com'] },
];

const bare = (host: string) => host.trim().toLowerCase().replace(/\.$/, '');

/** The provider of a recipient domain known by its name, or null (ask its MX hosts). */
export function providerByDomain(domain: string): Exclude<ReceivingProvider, 'other'> | null {
  const d = bare(domain);
  // Only the registrable domain itself: a subdomain of yahoo.com is nobody's mailbox there.
  const registrable = getDomain(d);
  const name = registrable === d ? getDomainWithoutSuffix(d) : null;
  for (const rule of PROVIDER_RULES) {
    if (rule.domains.includes(d) || (name !== null && rule.names.includes(name))) return rule.provider;
  }
  return null;
}

/** The provider the MX hosts give away, or 'other'. */
export function providerByMx(hosts: readonly string[]): ReceivingProvider {
  for (const host of hosts.map(bare)) {
    for (const rule of PROVIDER_RULES) {
      if (rule.mx.some((suffix) => host === suffix || host.endsWith(`.${suffix}`))) return rule.provider;
    }
  }
  return 'other';
}

/** The receiving provider of a recipient domain: by name first, else by its MX hosts (null: not looked up, or the lookup failed). */
export function receivingProvider(domain: string, mxHosts: readonly string[] | null): ReceivingProvider {
  return providerByDomain(domain) ?? (mxHosts ? providerByMx(mxHosts) : 'other');
}

/** The domain of an address (after its last @), lower case. */
export function addressDomain(address: string): string {
  return bare(address.slice(address.lastIndexOf('@') + 1));
}

/** The organizational domain a sending domain's (or address's) mail counts under: mail.acme.nl → acme.nl; the domain itself when it has none (a bare suffix, an IP). */
export function organizationalDomain(domainOrAddress: string): string {
  const d = domainOrAddress.includes('@') ? addressDomain(domainOrAddress) : bare(domainOrAddress);
  return getDomain(d, { allowPrivateDomains: true }) ?? d;
}

/** The UTC day a send counts on (YYYY-MM-DD). */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The start of the next UTC day, when a held domain may send that provider again. */
export function nextUtcDay(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
}

/** The provider counts toward the thresholds (`other` is only shown in the volume). */
export const countsTowardThresholds = (provider: ReceivingProvider) => provider !== 'other';

/** The day's count went above `near` (the warning, once per domain, provider and day). */
export const pastNear = (sent: number, t: BulkThresholds = BULK_SENDER_THRESHOLDS) => sent > t.near;

/**
 * The stored health checks the bulk-sender rules ask for: an SPF record, a DKIM key at the From
 * domain (so a signature aligns with it) and a DMARC record, each valid. A `warn` meets them: the
 * providers accept ~all, a 1024-bit key and p=none; `warn` says only that a stricter record exists.
 * A mailbox sends only while its last check has no `fail` (mailboxSendBlock), so this is asked
 * again here for the one rule that depends on it, not left to that check staying as it is.
 */
export function passesBulkSenderAuth(health: { spf: string; dkim: string; dmarc: string } | null): boolean {
  return health !== null && [health.spf, health.dkim, health.dmarc].every((status) => status === 'pass' || status === 'warn');
}

/**
 * Whether one more e-mail to this provider today must wait: the day's count reached `hold`, the
 * provider counts, and the sending domain does not pass SPF, DKIM and DMARC. Answers the reason, or null.
 */
export function bulkSenderHold(
  r: { provider: ReceivingProvider; sentToday: number; aligned: boolean; orgDomain: string; now: Date },
  t: BulkThresholds = BULK_SENDER_THRESHOLDS,
): string | null {
  if (!countsTowardThresholds(r.provider) || r.aligned || r.sentToday < t.hold) return null;
  return (
    `${r.orgDomain} sent ${r.sentToday} e-mails to ${r.provider} today (UTC), the bulk-sender limit of ${t.hold} without SPF, DKIM and DMARC: ` +
    `it waits until ${nextUtcDay(r.now).toISOString()}`
  );
}
