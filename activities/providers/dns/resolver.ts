import { Resolver } from 'node:dns/promises';
import type { LookupFailure } from '../../../domain/deliverability/score';

/**
 * DNS lookups for the deliverability checks. `resolve` answers as node:dns `resolve(name, type)` does
 * (TXT: string[][], MX: {exchange, priority}[], A: string[]) and fails with its codes (ENOTFOUND,
 * ENODATA, ESERVFAIL, ETIMEOUT...): the shape mailauth's `resolver` option expects.
 */
export interface DnsResolver {
  resolve(name: string, type: string): Promise<unknown>;
}

export interface MxRecord {
  exchange: string;
  priority: number;
}

/** A domain's MX records as node:dns answers them (its errors thrown as they come): the one typed MX read. */
export async function mxRecords(dns: DnsResolver, domain: string): Promise<MxRecord[]> {
  return (await dns.resolve(domain, 'MX')) as MxRecord[];
}

export interface DnsResolverOptions {
  /** `host:port` servers (DNS_SERVERS); empty: the system's resolvers. */
  servers: string[];
  /** Per query, before a retry (DNS_TIMEOUT_MS). */
  timeoutMs: number;
  /** Attempts per server before ETIMEOUT. */
  tries?: number;
}

/**
 * node:dns's Resolver (c-ares): UDP first, TCP when an answer comes back truncated (a 2048-bit DKIM
 * key does), on the servers given or the system's.
 */
export function createDnsResolver(opts: DnsResolverOptions): DnsResolver {
  const resolver = new Resolver({ timeout: opts.timeoutMs, tries: opts.tries ?? 2 });
  if (opts.servers.length) resolver.setServers(opts.servers);
  return { resolve: (name, type) => resolver.resolve(name, type) };
}

/** The resolver the configuration names (DNS_SERVERS, DNS_TIMEOUT_MS); nothing set: the system's, 5 s per query. */
export function dnsResolverFrom(c: { DNS_SERVERS?: string; DNS_TIMEOUT_MS?: number }): DnsResolver {
  return createDnsResolver({ servers: parseDnsServers(c.DNS_SERVERS), timeoutMs: c.DNS_TIMEOUT_MS ?? 5000 });
}

/** DNS_SERVERS: comma-separated `host:port` (an IPv6 host in brackets: `[::1]:53`). */
export function parseDnsServers(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** A DNS_SERVERS entry: an IPv4 address or a bracketed IPv6 one, with a port. */
export const DNS_SERVER = /^(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9A-Fa-f:.]+\]):\d{1,5}$/;

/** node:dns's error code as the checks word it. */
export function lookupFailure(err: unknown): { failure: LookupFailure; message: string } {
  const code = (err as { code?: string }).code;
  const failure: LookupFailure =
    code === 'ENOTFOUND'
      ? 'nxdomain'
      : code === 'ENODATA'
        ? 'nodata'
        : code === 'ESERVFAIL'
          ? 'servfail'
          : code === 'ETIMEOUT'
            ? 'timeout'
            : code === 'EREFUSED'
              ? 'refused'
              : 'error';
  const message = failure === 'servfail' ? 'the server answered SERVFAIL' : failure === 'timeout' ? 'no answer in time' : (err as Error).message;
  return { failure, message };
}
