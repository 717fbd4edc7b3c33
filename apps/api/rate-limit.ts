import type { Request, RequestHandler } from 'express';
import { sendProblem } from './errors';

/**
 * Request rate limits per user and per organization, so one client cannot starve the others.
 * A token bucket per key: it holds up to `perMinute` requests and refills at `perMinute / 60` per
 * second, so a client may burst up to its minute's allowance and then goes at the refill rate.
 *
 * The buckets live in this API process: with N API processes behind a balancer a client gets up to
 * N times the limit. That is a deliberate trade (no shared store on the request path); put a shared
 * limiter (the gateway, or Redis) in front when the limit must hold across processes.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly perMs: number;

  constructor(
    readonly perMinute: number,
    private readonly now: () => number = Date.now,
    private readonly maxKeys = 50_000,
  ) {
    this.perMs = perMinute / 60_000;
  }

  /** Milliseconds until `key` may make one more request; 0 when it may now. Takes nothing. */
  waitMs(key: string): number {
    const tokens = this.tokensOf(key, this.now());
    return tokens >= 1 ? 0 : Math.ceil((1 - tokens) / this.perMs);
  }

  /** Takes one request from `key`'s bucket (call after waitMs answered 0). */
  take(key: string): void {
    const at = this.now();
    const tokens = this.tokensOf(key, at);
    if (this.buckets.size >= this.maxKeys && !this.buckets.has(key)) this.sweep(at);
    this.buckets.set(key, { tokens: tokens - 1, at });
  }

  /** Gives back a request taken from `key` (it turned out not to count). */
  refund(key: string): void {
    const b = this.buckets.get(key);
    if (b) b.tokens = Math.min(this.perMinute, b.tokens + 1);
  }

  get size(): number {
    return this.buckets.size;
  }

  private tokensOf(key: string, at: number): number {
    const b = this.buckets.get(key);
    if (!b) return this.perMinute;
    return Math.min(this.perMinute, b.tokens + (at - b.at) * this.perMs);
  }

  /** Forgets buckets that have refilled completely: they are the same as a new one. */
  private sweep(at: number): void {
    for (const [key, b] of this.buckets) if (b.tokens + (at - b.at) * this.perMs >= this.perMinute) this.buckets.delete(key);
  }
}

export interface RateLimits {
  /** Requests per minute per user (the token's user); 0 = no limit. */
  userPerMinute: number;
  /** Requests per minute per organization named by `organizationId` in the query or body; 0 = no limit. */
  orgPerMinute: number;
  /** Requests per minute per client IP address on the public routes (/webhooks/*, /u/*); 0 or absent = no limit. */
  publicPerMinute?: number;
  now?: () => number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Answers that do not count against an organization: the request was malformed, or the caller is not
 * allowed to act for it. Otherwise anyone could use up another tenant's allowance by naming its id.
 */
const NOT_THE_ORGANIZATIONS = new Set([400, 401, 403, 404]);

function limiter(
  perMinute: number,
  now: (() => number) | undefined,
  scope: 'user' | 'organization' | 'address',
  keyOf: (req: Request) => string | undefined,
  refundWhen?: (status: number) => boolean,
): RequestHandler {
  if (perMinute <= 0) return (_req, _res, next) => next();
  const buckets = new TokenBuckets(perMinute, now);
  return (req, res, next) => {
    const key = keyOf(req);
    if (!key) return next();
    const wait = buckets.waitMs(key);
    if (wait > 0) {
      const seconds = Math.max(1, Math.ceil(wait / 1000));
      res.setHeader('Retry-After', String(seconds));
      req.log?.info({ scope, key, retry_after: seconds }, 'rate limited');
      return sendProblem(res, 'RATE_LIMITED', `Too many requests for this ${scope} (limit ${perMinute} per minute); retry after ${seconds} s`, { scope, retry_after: seconds });
    }
    buckets.take(key);
    if (refundWhen) res.once('finish', () => refundWhen(res.statusCode) && buckets.refund(key));
    next();
  };
}

/** After authentication, before the body is read: the caller's own allowance. */
export function limitPerUser(limits: RateLimits): RequestHandler {
  return limiter(limits.userPerMinute, limits.now, 'user', (req) => req.user?.userId);
}

/**
 * After the body is parsed: the allowance of the organization the request names (query or body
 * `organizationId`; routes that name a record by path id count against the user only). A request
 * answered 400, 401, 403 or 404 is given back, so a non-member cannot exhaust another tenant's allowance.
 */
export function limitPerOrganization(limits: RateLimits): RequestHandler {
  return limiter(limits.orgPerMinute, limits.now, 'organization', (req) => {
    const fromQuery = (req.query as Record<string, unknown> | undefined)?.organizationId;
    const fromBody = req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>).organizationId : undefined;
    const id = typeof fromQuery === 'string' ? fromQuery : typeof fromBody === 'string' ? fromBody : undefined;
    return id && UUID.test(id) ? id.toLowerCase() : undefined;
  }, (status) => NOT_THE_ORGANIZATIONS.has(status));
}

/**
 * The public routes (booking webhooks, the unsubscribe page), which take no token: the allowance of
 * the connecting address (the socket's: `trust proxy` is off, so a forged X-Forwarded-For changes
 * nothing; behind a proxy every client shares its address, so set the limit for the proxy or limit there).
 */
export function limitPerAddress(limits: RateLimits): RequestHandler {
  return limiter(limits.publicPerMinute ?? 0, limits.now, 'address', (req) => req.socket.remoteAddress ?? undefined);
}
