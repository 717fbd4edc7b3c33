import type { Request, RequestHandler } from 'express';
import type { Pool } from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { sendProblem } from './errors';

/**
 * Request rate limits per user and per organization, so one client cannot starve the others.
 * A token bucket per key: it holds up to `perMinute` requests and refills at `perMinute / 60` per
 * second, so a client may burst up to its minute's allowance and then goes at the refill rate.
 *
 * These buckets live in one API process. With `store` (the API's main: its PostgreSQL pool) the limits
 * are counted in PostgreSQL instead, shared by every API process behind the balancer (rate-limiter-flexible's
 * PostgreSQL store, table rate_limits of migration 0021): a fixed window of one minute per key, taken
 * in leases (LeasedCounter) so that a request seldom waits for the store.
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
  /**
   * Counts in PostgreSQL (table rate_limits), shared by all API processes; without it, in this
   * process's memory (token buckets; the tests that move the clock).
   */
  store?: Pool;
}

/** How many points a process takes from PostgreSQL at once: a hundredth of the allowance, 1 to 50. */
export function leaseSizeOf(perMinute: number): number {
  return Math.max(1, Math.min(50, Math.floor(perMinute / 100)));
}

interface Lease {
  /** Points this process took from the shared count and has not used yet. */
  points: number;
  /**
   * When the shared window they belong to ends (epoch ms): the row's `expire`, whichever process's
   * clock wrote it, so it also names the window. The lease is gone with it.
   */
  until: number;
  /** The shared count was spent when this lease was taken: no more leases before `until`. */
  spent: boolean;
}

/** A request's point: allowed (waitMs 0) in the window ending at `window`, or refused for waitMs. */
export type Taken = { waitMs: 0; window: number } | { waitMs: number; window?: undefined };

/**
 * A limit shared by every API process, counted in PostgreSQL (rate-limiter-flexible's store, a fixed
 * window of one minute per key) but not one round trip a request: a process takes its points in leases
 * of `leaseSize`, spends them in memory and takes the next lease when they run out, one lease at a time
 * per key (the requests that arrive meanwhile wait for it and share it). Every point a process spends
 * was counted in PostgreSQL first, so all processes together admit no more than the allowance in a
 * window, given clocks that agree (a process whose clock is d behind spends its last lease d into the
 * next window). A process may hold up to `leaseSize - 1` points it does not get to use in a window, so
 * with N processes a client that moves between them may be refused up to N * (leaseSize - 1) points
 * early (leaseSizeOf: a hundredth of the allowance each). When the shared count runs out part-way
 * through a lease, the process gets what was left of it, and answers "spent" from memory until the
 * window ends.
 */
export class LeasedCounter {
  private readonly leases = new Map<string, Lease>();
  private readonly taking = new Map<string, Promise<void>>();
  private readonly limiter: RateLimiterPostgres;
  readonly leaseSize: number;
  private readonly maxKeys: number;

  constructor(
    store: Pool,
    scope: string,
    readonly perMinute: number,
    options: { leaseSize?: number; maxKeys?: number } = {},
  ) {
    this.leaseSize = options.leaseSize ?? leaseSizeOf(perMinute);
    this.maxKeys = options.maxKeys ?? 50_000;
    this.limiter = new RateLimiterPostgres({
      storeClient: store,
      storeType: 'pool',
      tableName: 'rate_limits',
      tableCreated: true, // migration 0021 made it; the API role may not create tables
      keyPrefix: scope,
      points: perMinute,
      duration: 60,
    });
  }

  /**
   * Counts one request of `key`. Rejects when the store cannot be reached: the request that asked for
   * the lease, and a waiting one only after a second lease failed too (one lost connection does not
   * let a whole burst through uncounted).
   */
  async take(key: string): Promise<Taken> {
    let failed = false;
    for (;;) {
      const lease = this.leaseOf(key);
      if (lease && lease.points > 0) {
        lease.points -= 1;
        return { waitMs: 0, window: lease.until };
      }
      if (lease?.spent) return { waitMs: Math.max(1, lease.until - Date.now()) };
      const waiting = this.taking.get(key);
      const next = waiting ?? this.takeLease(key).finally(() => this.taking.delete(key));
      if (!waiting) this.taking.set(key, next);
      try {
        await next;
      } catch (err) {
        if (!waiting || failed) throw err;
        failed = true;
      }
    }
  }

  /**
   * Gives back a point of `window` (a request that turned out not to count). A point of a window that
   * has ended is not given to the next one, which never counted it.
   */
  refund(key: string, window: number): void {
    const lease = this.leaseOf(key);
    if (lease && Math.abs(lease.until - window) < 1000) lease.points += 1;
  }

  /** Keys this process holds a lease for. */
  get size(): number {
    return this.leases.size;
  }

  private leaseOf(key: string): Lease | undefined {
    const lease = this.leases.get(key);
    if (lease && lease.until <= Date.now()) {
      this.leases.delete(key);
      return undefined;
    }
    return lease;
  }

  private async takeLease(key: string): Promise<void> {
    let lease: Lease | undefined;
    for (let attempt = 1; !lease; attempt++) {
      const { points, msBeforeNext, spent } = await this.consume(key);
      // A window that ended while the answer travelled: its points are of no use; the next lease
      // opens a new one. A row without an end (msBeforeNext -1, not one this limiter writes) would
      // answer so every time: after a second try it holds for a second.
      if (msBeforeNext > 0) lease = { points, until: Date.now() + msBeforeNext, spent };
      else if (attempt === 2) lease = { points, until: Date.now() + 1000, spent };
    }
    const held = this.leaseOf(key); // points given back while this lease was on its way
    if (held) lease.points += held.points;
    else if (this.leases.size >= this.maxKeys) this.sweep();
    this.leases.set(key, lease);
  }

  /** One lease from the shared count: all of it, or what was left when it ran out. */
  private async consume(key: string): Promise<{ points: number; msBeforeNext: number; spent: boolean }> {
    try {
      const res = await this.limiter.consume(key, this.leaseSize);
      return { points: this.leaseSize, msBeforeNext: res.msBeforeNext, spent: false };
    } catch (res) {
      if (!(res instanceof RateLimiterRes)) throw res;
      // Refused: the count now holds this lease too, so what was left before it is this process's.
      const left = res.consumedPoints >= this.leaseSize ? this.perMinute - (res.consumedPoints - this.leaseSize) : 0;
      return { points: Math.max(0, Math.min(this.leaseSize, left)), msBeforeNext: res.msBeforeNext, spent: true };
    }
  }

  /**
   * Keeps the map within maxKeys: forgets the leases of ended windows, then the oldest keys until a
   * tenth is free (a forgotten lease's points are given up, a forgotten refusal is asked again).
   */
  private sweep(): void {
    const at = Date.now();
    for (const [key, lease] of this.leases) if (lease.until <= at) this.leases.delete(key);
    const keep = Math.floor(this.maxKeys * 0.9);
    for (const key of this.leases.keys()) {
      if (this.leases.size <= keep) break;
      this.leases.delete(key);
    }
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Answers that do not count against an organization: the request was malformed, or the caller is not
 * allowed to act for it. Otherwise anyone could use up another tenant's allowance by naming its id.
 */
const NOT_THE_ORGANIZATIONS = new Set([400, 401, 403, 404]);

function limiter(
  limits: RateLimits,
  perMinute: number,
  scope: 'user' | 'organization' | 'address',
  keyOf: (req: Request) => string | undefined,
  refundWhen?: (status: number) => boolean,
): RequestHandler {
  if (perMinute <= 0) return (_req, _res, next) => next();
  const limited = (req: Request, res: Parameters<RequestHandler>[1], wait: number) => {
    const seconds = Math.max(1, Math.ceil(wait / 1000));
    res.setHeader('Retry-After', String(seconds));
    req.log?.info({ scope, key: keyOf(req), retry_after: seconds }, 'rate limited');
    return sendProblem(res, 'RATE_LIMITED', `Too many requests for this ${scope} (limit ${perMinute} per minute); retry after ${seconds} s`, {
      scope,
      retry_after: seconds,
    });
  };
  if (limits.store) {
    const counter = new LeasedCounter(limits.store, scope, perMinute);
    return (req, res, next) => {
      const key = keyOf(req);
      if (!key) return next();
      counter.take(key).then(
        (taken) => {
          if (taken.window === undefined) return limited(req, res, taken.waitMs);
          if (refundWhen) res.once('finish', () => refundWhen(res.statusCode) && counter.refund(key, taken.window));
          next();
        },
        (err: unknown) => {
          // The store is unreachable: the request is not refused for it (its own queries will tell).
          req.log?.warn({ err, scope }, 'rate limit store unavailable; request let through');
          next();
        },
      );
    };
  }
  const buckets = new TokenBuckets(perMinute, limits.now);
  return (req, res, next) => {
    const key = keyOf(req);
    if (!key) return next();
    const wait = buckets.waitMs(key);
    if (wait > 0) return limited(req, res, wait);
    buckets.take(key);
    if (refundWhen) res.once('finish', () => refundWhen(res.statusCode) && buckets.refund(key));
    next();
  };
}

/** After authentication, before the body is read: the caller's own allowance. */
export function limitPerUser(limits: RateLimits): RequestHandler {
  return limiter(limits, limits.userPerMinute, 'user', (req) => req.user?.userId);
}

/**
 * After the body is parsed: the allowance of the organization the request names (query or body
 * `organizationId`; routes that name a record by path id count against the user only). A request
 * answered 400, 401, 403 or 404 is given back, so a non-member cannot exhaust another tenant's allowance.
 */
export function limitPerOrganization(limits: RateLimits): RequestHandler {
  return limiter(
    limits,
    limits.orgPerMinute,
    'organization',
    (req) => {
      const fromQuery = (req.query as Record<string, unknown> | undefined)?.organizationId;
      const fromBody = req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>).organizationId : undefined;
      const id = typeof fromQuery === 'string' ? fromQuery : typeof fromBody === 'string' ? fromBody : undefined;
      return id && UUID.test(id) ? id.toLowerCase() : undefined;
    },
    (status) => NOT_THE_ORGANIZATIONS.has(status),
  );
}

/**
 * The public routes (booking webhooks, the unsubscribe page), which take no token: the allowance of
 * the connecting address (the socket's: `trust proxy` is off, so a forged X-Forwarded-For changes
 * nothing; behind a proxy every client shares its address, so set the limit for the proxy or limit there).
 */
export function limitPerAddress(limits: RateLimits): RequestHandler {
  return limiter(limits, limits.publicPerMinute ?? 0, 'address', (req) => req.socket.remoteAddress ?? undefined);
}
