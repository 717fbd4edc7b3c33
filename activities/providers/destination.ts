import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Outbound requests go to URLs that tenants choose (sources, company websites, provider base
 * URLs). In production they must not reach this machine or its private networks (SSRF: cloud
 * metadata, internal services). Every hop is checked, redirects included. Development and tests
 * allow private addresses, because their feeds and providers run on 127.0.0.1.
 */
const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) PRIVATE.addSubnet(net, prefix, 'ipv4');
// (IPv4-mapped IPv6 addresses are unwrapped in isPrivateAddress: a ::ffff:0:0/96 rule would match every IPv4 address.)
for (const [net, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) PRIVATE.addSubnet(net, prefix, 'ipv6');

export class BlockedDestinationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BlockedDestinationError';
  }
}

let allowPrivate = process.env.NODE_ENV !== 'production';

/** Set once at start-up from OUTBOUND_ALLOW_PRIVATE_NETWORKS. */
export function allowPrivateDestinations(allow: boolean): void {
  allowPrivate = allow;
}

export function isPrivateAddress(input: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(input);
  const address = mapped ? mapped[1]! : input;
  const family = isIP(address);
  if (family === 0) return false;
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export async function assertPublicDestination(url: string): Promise<void> {
  if (allowPrivate) return;
  const u = new URL(url);
  if (!/^https?:$/.test(u.protocol)) throw new BlockedDestinationError(`${u.protocol} URLs are not fetched`);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  const blocked = addresses.find(isPrivateAddress);
  if (blocked) throw new BlockedDestinationError(`${u.hostname} resolves to a private address (${blocked}); not fetched`);
}

/** fetch with every redirect hop checked against the destination rule (at most 5 redirects). */
export async function guardedFetch(url: string, init: RequestInit): Promise<Response> {
  let current = url;
  for (let hop = 0; hop <= 5; hop++) {
    await assertPublicDestination(current);
    const res = await fetch(current, { ...init, redirect: 'manual' });
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      await res.body?.cancel();
      current = new URL(location, current).toString();
      continue;
    }
    return res;
  }
  throw new BlockedDestinationError(`too many redirects from ${url}`);
}
