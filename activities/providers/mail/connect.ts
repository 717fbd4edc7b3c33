import { isIP } from 'node:net';
import { BlockedDestinationError, destinationPolicy, type DestinationPolicy } from '../destination';

/**
 * Mail servers are tenant-chosen too (a mailbox's SMTP and IMAP host): they pass the same outbound
 * policy as HTTP destinations (activities/providers/destination.ts). The host is resolved here, every
 * address it answers is checked (no private, loopback or link-local address unless
 * OUTBOUND_ALLOW_PRIVATE_NETWORKS=true), and the client then connects to the checked address itself,
 * never resolving the name again (no DNS rebinding between check and connect), with the host name
 * kept as the TLS server name (SNI and the certificate check). The port must be a mail port of its
 * protocol; any port is allowed only where private networks are (development and the tests, whose
 * servers listen on free ports).
 */
export const MAIL_PORTS = { smtp: [25, 465, 587, 2525], imap: [143, 993] } as const;

export type MailProtocol = keyof typeof MAIL_PORTS;

/** Where a mail client connects: the checked address, and the name its TLS checks the certificate against. */
export interface MailTarget {
  /** The IP address to dial (checked). */
  address: string;
  /** The host name for SNI and the certificate; undefined when the host was an IP literal. */
  servername: string | undefined;
}

/** The generic reason shown to tenants when the policy refuses a mail host (no addresses, no banners). */
export function blockedMailHostReason(protocol: MailProtocol): string {
  return `the ${protocol.toUpperCase()} host or port is not allowed: mail servers must be public hosts on a ${protocol.toUpperCase()} port (${MAIL_PORTS[protocol].join(', ')})`;
}

/** Resolves and checks a mail host; throws BlockedDestinationError for a refused host or port. */
export async function resolveMailHost(
  protocol: MailProtocol,
  host: string,
  port: number,
  policy: DestinationPolicy = destinationPolicy(),
): Promise<MailTarget> {
  if (!policy.allowPrivate && !(MAIL_PORTS[protocol] as readonly number[]).includes(port)) {
    throw new BlockedDestinationError(`${protocol} port ${port} is not allowed`);
  }
  const literal = host.replace(/^\[|\]$/g, '');
  const addresses = isIP(literal) ? [{ address: literal, family: isIP(literal) }] : await policy.resolve(host);
  if (addresses.length === 0) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  if (!policy.allowPrivate) {
    const blocked = addresses.find((a) => policy.isPrivate(a.address));
    if (blocked) throw new BlockedDestinationError(`${host} resolves to a private address; not connected`);
  }
  return { address: addresses[0]!.address, servername: isIP(literal) ? undefined : host };
}
