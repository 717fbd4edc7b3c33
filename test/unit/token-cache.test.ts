import type { JWTPayload } from 'jose';
import { cacheVerifiedTokens } from '../../apps/api/token-cache';

/** The verified-token cache: a hit skips verification only while the token is valid; it stays bounded. */
function counting(payloadFor: (token: string) => JWTPayload | Error) {
  const calls: string[] = [];
  const verify = async (token: string) => {
    calls.push(token);
    const p = payloadFor(token);
    if (p instanceof Error) throw p;
    return p;
  };
  return { calls, verify };
}

let clock = 1_000_000_000_000;
const now = () => clock;
const exp = (secondsFromNow: number) => Math.floor(clock / 1000) + secondsFromNow;

test('a valid token is verified once, then served from the cache until it expires', async () => {
  const { calls, verify } = counting(() => ({ sub: 'u', exp: exp(60) }));
  const cached = cacheVerifiedTokens(verify, { now });
  await cached('a');
  await cached('a');
  expect(calls).toEqual(['a']);
  clock += 61_000;
  await cached('a');
  expect(calls).toEqual(['a', 'a']);
});

test('no longer than maxAgeSeconds, even for a long-lived token', async () => {
  const { calls, verify } = counting(() => ({ sub: 'u', exp: exp(3600) }));
  const cached = cacheVerifiedTokens(verify, { now, maxAgeSeconds: 10 });
  await cached('a');
  clock += 9_000;
  await cached('a');
  expect(calls).toHaveLength(1);
  clock += 2_000;
  await cached('a');
  expect(calls).toHaveLength(2);
});

test('a failed verification is not remembered', async () => {
  let fail = true;
  const { calls, verify } = counting(() => (fail ? new Error('bad signature') : { sub: 'u', exp: exp(60) }));
  const cached = cacheVerifiedTokens(verify, { now });
  await expect(cached('a')).rejects.toThrow('bad signature');
  await expect(cached('a')).rejects.toThrow('bad signature');
  fail = false;
  await cached('a');
  expect(calls).toEqual(['a', 'a', 'a']);
});

test('the least recently used token leaves when the cache is full', async () => {
  const { calls, verify } = counting(() => ({ sub: 'u', exp: exp(60) }));
  const cached = cacheVerifiedTokens(verify, { now, max: 2 });
  await cached('a');
  await cached('b');
  await cached('a'); // a is now the most recently used
  await cached('c'); // evicts b
  await cached('a');
  expect(calls).toEqual(['a', 'b', 'c']);
  await cached('b');
  expect(calls).toEqual(['a', 'b', 'c', 'b']);
});
