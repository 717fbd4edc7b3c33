import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { BlockList, isIP } from 'node:net';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';

/**
 * Outbound requests go to URLs that tenants choose (sources, company websites, provider base
 * URLs). Unless private networks are explicitly allowed (OUTBOUND_ALLOW_PRIVATE_NETWORKS=true, set by
 * `npm run dev` and the tests), they must not reach this machine or its private networks (SSRF:
 * cloud metadata at 169.254.169.254, internal services).
 *
 * The check is made on the address the socket actually connects to: the host name is resolved once,
 * inside the connection's own `lookup`, and every address is checked before the socket may use it.
 * A host that answers a public address to a first resolution and a private one to the next (DNS
 * rebinding) cannot slip through, because there is no separate earlier resolution to fool. Every
 * redirect hop is a new connection, checked the same way; nothing is pooled.
 */
const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  PRIVATE.addSubnet(net, prefix, 'ipv4');
// (IPv4-mapped IPv6 addresses are unwrapped in isPrivateAddress: a ::ffff:0:0/96 rule would match every IPv4 address.)
// Plus the IPv6 forms that embed an IPv4 address a gateway may forward to (IPv4-compatible ::/96,
// NAT64 64:ff9b::/96 and 64:ff9b:1::/48, 6to4 2002::/16, Teredo 2001::/32) and the discard prefix.
for (const [net, prefix] of [
  ['::', 96],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['2002::', 16],
  ['2001::', 32],
  ['100::', 64],
] as const)
  PRIVATE.addSubnet(net, prefix, 'ipv6');

export class BlockedDestinationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BlockedDestinationError';
  }
}

export function isPrivateAddress(input: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(input);
  const address = mapped ? mapped[1]! : input;
  const family = isIP(address);
  if (family === 0) return false;
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** How destinations are resolved and judged. Production uses the system resolver and the rule above. */
export interface DestinationPolicy {
  allowPrivate: boolean;
  resolve: (hostname: string) => Promise<ResolvedAddress[]>;
  isPrivate: (address: string) => boolean;
}

const systemResolve = (hostname: string) => dnsLookup(hostname, { all: true, verbatim: true });

// Denied unless allowed explicitly: apps call allowPrivateDestinations() at start-up from their config.
let defaultPolicy: DestinationPolicy = {
  allowPrivate: process.env.OUTBOUND_ALLOW_PRIVATE_NETWORKS === 'true',
  resolve: systemResolve,
  isPrivate: isPrivateAddress,
};

/** Set once at start-up from OUTBOUND_ALLOW_PRIVATE_NETWORKS. */
export function allowPrivateDestinations(allow: boolean): void {
  defaultPolicy = { ...defaultPolicy, allowPrivate: allow };
}

export function destinationPolicy(): DestinationPolicy {
  return defaultPolicy;
}

/** A socket `lookup` that resolves with the policy and refuses to hand a private address to the socket. */
function checkedLookup(policy: DestinationPolicy, onBlocked: (e: BlockedDestinationError) => void): LookupFunction {
  return (hostname, options, callback) => {
    policy
      .resolve(hostname)
      .then((all) => {
        const family = typeof options === 'object' ? options.family : undefined;
        const addresses = family === 4 || family === 6 ? all.filter((a) => a.family === family) : all;
        if (addresses.length === 0) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
        const blocked = policy.allowPrivate ? undefined : addresses.find((a) => policy.isPrivate(a.address));
        if (blocked) {
          // Without the address: the message reaches a tenant (a webhook delivery's last_error), and an internal
          // name's address is not theirs to learn.
          const e = new BlockedDestinationError(`${hostname} resolves to a private address; not fetched`);
          onBlocked(e);
          throw e;
        }
        if (typeof options === 'object' && options.all) (callback as (e: null, a: ResolvedAddress[]) => void)(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      })
      .catch((err: NodeJS.ErrnoException) => callback(err, '', 0));
  };
}

/** Refused before any connection: non-HTTP schemes, and private IP literals (a literal is never looked up). */
function checkUrl(u: URL, policy: DestinationPolicy): void {
  if (!/^https?:$/.test(u.protocol)) throw new BlockedDestinationError(`${u.protocol} URLs are not fetched`);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (!policy.allowPrivate && isIP(host) && policy.isPrivate(host)) throw new BlockedDestinationError(`${u.hostname} is a private address; not fetched`);
}

const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * The (decompressed) body as a web stream that reads only when its reader asks: a decoder inflates
 * one chunk per read, so a reader that stops at its limit (readLimited in http-fetch.ts) stops the
 * inflating too, and a gzip bomb never grows past that limit in memory. Cancelling destroys the socket.
 */
function pullStream(stream: Readable, source: Readable): ReadableStream<Uint8Array> {
  const chunks = stream[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(typeof next.value === 'string' ? Buffer.from(next.value) : (next.value as Uint8Array));
      },
      cancel() {
        stream.destroy();
        source.destroy();
      },
    },
    { highWaterMark: 0 },
  );
}

/** One request over a fresh, checked connection, answered as a fetch Response (body decompressed). */
function requestOnce(
  u: URL,
  init: { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal },
  policy: DestinationPolicy,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    let blocked: BlockedDestinationError | undefined;
    const headers = init.body !== undefined ? { ...init.headers, 'content-length': String(Buffer.byteLength(init.body)) } : init.headers;
    const client = u.protocol === 'https:' ? https : http;
    const req = client.request(
      u,
      { method: init.method, headers, agent: false, lookup: checkedLookup(policy, (e) => (blocked = e)), signal: init.signal },
      (res) => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (Array.isArray(value)) for (const v of value) responseHeaders.append(name, v);
          else if (value !== undefined) responseHeaders.set(name, value);
        }
        const status = res.statusCode ?? 502;
        let stream: Readable = res;
        const encoding = (res.headers['content-encoding'] ?? '').trim().toLowerCase();
        const decoder =
          encoding === 'gzip' || encoding === 'x-gzip'
            ? zlib.createGunzip()
            : encoding === 'deflate'
              ? zlib.createInflate()
              : encoding === 'br'
                ? zlib.createBrotliDecompress()
                : null;
        if (decoder) {
          res.on('error', (e) => decoder.destroy(e));
          stream = res.pipe(decoder);
          responseHeaders.delete('content-encoding');
          responseHeaders.delete('content-length');
        }
        const body = NULL_BODY.has(status) || init.method === 'HEAD' ? null : pullStream(stream, res);
        if (!body) res.resume();
        const response = new Response(body, {
          status: status < 200 || status > 599 ? 502 : status,
          statusText: res.statusMessage ?? '',
          headers: responseHeaders,
        });
        Object.defineProperty(response, 'url', { value: u.toString() });
        resolve(response);
      },
    );
    req.on('error', (err) => {
      if (blocked) return reject(blocked);
      if (init.signal?.aborted) return reject(init.signal.reason);
      reject(new TypeError('fetch failed', { cause: err }));
    });
    if (init.body !== undefined) req.write(init.body);
    req.end();
  });
}

// On a redirect to another origin only these headers go along: credentials never leave their origin.
const CROSS_ORIGIN_HEADERS = new Set(['accept', 'accept-encoding', 'user-agent', 'if-none-match', 'if-modified-since']);

/**
 * fetch for tenant-chosen URLs: every hop's connection is checked against the destination rule
 * (at most 5 redirects). Supports string bodies and the usual init fields.
 */
export async function guardedFetch(url: string, init: RequestInit = {}, policy: DestinationPolicy = defaultPolicy): Promise<Response> {
  let current = new URL(url);
  let method = (init.method ?? 'GET').toUpperCase();
  let body = typeof init.body === 'string' ? init.body : undefined;
  if (init.body != null && body === undefined) throw new TypeError('guardedFetch sends string bodies only');
  let headers: Record<string, string> = { 'accept-encoding': 'gzip, deflate, br' };
  new Headers(init.headers).forEach((value, name) => (headers[name] = value));
  for (let hop = 0; hop <= 5; hop++) {
    checkUrl(current, policy);
    init.signal?.throwIfAborted();
    const res = await requestOnce(current, { method, headers, body, signal: init.signal ?? undefined }, policy);
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location && init.redirect !== 'manual') {
      await res.body?.cancel();
      const next = new URL(location, current);
      if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        delete headers['content-type'];
      }
      if (next.origin !== current.origin) headers = Object.fromEntries(Object.entries(headers).filter(([k]) => CROSS_ORIGIN_HEADERS.has(k)));
      current = next;
      continue;
    }
    return res;
  }
  // Without the query: some providers (ZeroBounce) take the API key there, and this message is stored.
  const from = new URL(url);
  throw new BlockedDestinationError(`too many redirects from ${from.origin}${from.pathname}`);
}
