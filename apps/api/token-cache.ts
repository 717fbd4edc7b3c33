import type { JWTPayload } from 'jose';

/** Verifies a bearer token: its claims, or a rejection. */
export type TokenVerifier = (token: string) => Promise<JWTPayload>;

/**
 * Verified tokens, remembered until they expire (at most maxAgeSeconds, so a key withdrawn from the
 * JWKS stops being honoured within that), in a bounded LRU. A bearer token is sent with every
 * request, and verifying its signature was the largest cost of a request after the database
 * (bench/api, docs/benchmarks.md). Only successes are remembered; a failure is verified again.
 */
export function cacheVerifiedTokens(verify: TokenVerifier, opts: { max?: number; maxAgeSeconds?: number; now?: () => number } = {}): TokenVerifier {
  const max = opts.max ?? 10_000;
  const maxAgeMs = (opts.maxAgeSeconds ?? 300) * 1000;
  const now = opts.now ?? Date.now;
  const cache = new Map<string, { payload: JWTPayload; until: number }>();
  return async (token) => {
    const hit = cache.get(token);
    if (hit) {
      cache.delete(token);
      if (hit.until > now()) {
        cache.set(token, hit); // most recently used last
        return hit.payload;
      }
    }
    const payload = await verify(token);
    const until = Math.min(now() + maxAgeMs, (payload.exp ?? 0) * 1000);
    if (until > now()) {
      cache.set(token, { payload, until });
      if (cache.size > max) cache.delete(cache.keys().next().value!);
    }
    return payload;
  };
}
