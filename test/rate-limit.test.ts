import { LeasedCounter, leaseSizeOf, TokenBuckets } from '../apps/api/rate-limit';
import { randomUUID } from 'node:crypto';
import { addMember, expectProblem, newOrganization, startApi, TestApi } from './helpers/api';
import { Pool } from 'pg';
import { newUser, testEnv } from './helpers/tokens';

test('a token bucket allows its minute’s burst, then one request per refill interval, per key', () => {
  let now = 1_000_000;
  const b = new TokenBuckets(3, () => now);
  for (let i = 0; i < 3; i++) {
    expect(b.waitMs('a')).toBe(0);
    b.take('a');
  }
  expect(b.waitMs('a')).toBe(20_000); // 3 per minute: one every 20 s
  expect(b.waitMs('b')).toBe(0); // another key has its own bucket
  now += 19_999;
  expect(b.waitMs('a')).toBe(1);
  now += 1;
  expect(b.waitMs('a')).toBe(0);
  b.take('a');
  b.refund('a');
  expect(b.waitMs('a')).toBe(0);
});

test('the bucket map forgets full buckets instead of growing without bound', () => {
  let now = 0;
  const b = new TokenBuckets(60, () => now, 100);
  for (let i = 0; i < 100; i++) b.take(`k${i}`);
  now += 60_000; // all refilled
  b.take('new');
  expect(b.size).toBe(1);
});

describe('through the API', () => {
  let now = Date.now();
  let api: TestApi;
  afterEach(() => api.close());

  test('per user: 429 RATE_LIMITED with Retry-After once the user’s allowance is spent; other users are not affected', async () => {
    api = await startApi({ rateLimits: { userPerMinute: 3, orgPerMinute: 0, now: () => now } });
    const [greedy, other] = [await newUser(), await newUser()];
    for (let i = 0; i < 3; i++) expect((await api.call('GET', '/organizations', { token: greedy.token })).status).toBe(200);
    const limited = await api.call('GET', '/organizations', { token: greedy.token });
    expectProblem(limited, 429, 'RATE_LIMITED');
    expect(limited.headers.get('retry-after')).toBe('20');
    expect(limited.body).toMatchObject({ scope: 'user', retry_after: 20 });
    expect((await api.call('GET', '/organizations', { token: other.token })).status).toBe(200);
    // Unauthenticated probes are not counted against anyone; health stays open.
    expect((await api.call('GET', '/healthz')).status).toBe(200);
    now += 20_000;
    expect((await api.call('GET', '/organizations', { token: greedy.token })).status).toBe(200);
    expectProblem(await api.call('GET', '/organizations', { token: greedy.token }), 429, 'RATE_LIMITED');
  });

  test('per organization: members share its allowance; another organization, and requests a non-member makes in its name, do not spend it', async () => {
    api = await startApi({ rateLimits: { userPerMinute: 0, orgPerMinute: 4, now: () => now } });
    const { owner, orgId } = await newOrganization(api, 'Busy B.V.');
    const member = await addMember(api, owner, orgId, 'member');
    const quiet = await newOrganization(api, 'Quiet B.V.');
    const outsider = await newUser();
    // A non-member naming the organization gets 404 (or 400 for a bad body) and uses up nothing.
    for (let i = 0; i < 10; i++) expect((await api.call('GET', `/sources?organizationId=${orgId}`, { token: outsider.token })).status).toBe(404);
    for (let i = 0; i < 3; i++) expect((await api.call('POST', '/sources', { token: outsider.token, body: { organizationId: orgId, providerKey: 'rss' } })).status).toBe(400);
    for (const user of [owner, member, owner, member]) expect((await api.call('GET', `/sources?organizationId=${orgId}`, { token: user.token })).status).toBe(200);
    const limited = await api.call('POST', '/sources', { token: member.token, body: { organizationId: orgId, providerKey: 'rss', name: 'x', config: { url: 'https://feeds.example/rss' } } });
    expectProblem(limited, 429, 'RATE_LIMITED');
    expect(limited.body.scope).toBe('organization');
    expect(Number(limited.headers.get('retry-after'))).toBe(15);
    expect((await api.call('GET', `/sources?organizationId=${quiet.orgId}`, { token: quiet.owner.token })).status).toBe(200);
    // Requests that name no organization count against the user only.
    expect((await api.call('GET', '/organizations', { token: owner.token })).status).toBe(200);
  });

  test('per address on the public routes (/webhooks/*, /u/*): 429 once the address’s allowance is spent; a forged X-Forwarded-For changes nothing; authenticated routes are not affected', async () => {
    api = await startApi({ rateLimits: { userPerMinute: 0, orgPerMinute: 0, publicPerMinute: 4, now: () => now } });
    const { owner } = await newOrganization(api, 'Public B.V.');
    const hook = `/webhooks/calcom/${'0'.repeat(8)}-0000-4000-8000-000000000000`;
    // Unknown integration and a bad token: still requests that cost the database and crypto, so they count.
    expectProblem(await api.call('POST', hook, { rawBody: '{}', headers: { 'content-type': 'application/json' } }), 404, 'NOT_FOUND');
    expect((await api.call('GET', '/u/not-a-token')).status).toBeLessThan(500);
    expectProblem(await api.call('POST', hook, { rawBody: '{}', headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.9' } }), 404, 'NOT_FOUND');
    expect((await api.call('GET', '/u/not-a-token', { headers: { 'x-forwarded-for': '198.51.100.7' } })).status).toBeLessThan(500);
    const limited = await api.call('POST', hook, { rawBody: '{}', headers: { 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.1' } });
    expectProblem(limited, 429, 'RATE_LIMITED');
    expect(limited.body).toMatchObject({ scope: 'address', retry_after: 15 });
    expectProblem(await api.call('GET', '/u/not-a-token'), 429, 'RATE_LIMITED');
    // The token routes, health and the other limits are their own.
    expect((await api.call('GET', '/organizations', { token: owner.token })).status).toBe(200);
    expect((await api.call('GET', '/healthz')).status).toBe(200);
    now += 15_000;
    expectProblem(await api.call('POST', hook, { rawBody: '{}', headers: { 'content-type': 'application/json' } }), 404, 'NOT_FOUND');
  });
});

describe('shared by all API processes (PostgreSQL store)', () => {
  const pools: Pool[] = [];
  const apis: TestApi[] = [];
  /** An API instance with its own pool, as a second process behind the balancer would have. */
  const instance = async (limits: { userPerMinute: number; orgPerMinute: number }) => {
    const store = new Pool({ connectionString: testEnv('TEST_APP_DB_URL'), max: 2 });
    pools.push(store);
    const api = await startApi({ rateLimits: { ...limits, store } });
    apis.push(api);
    return api;
  };
  afterEach(async () => {
    await Promise.all(apis.splice(0).map((a) => a.close()));
    await Promise.all(pools.splice(0).map((p) => p.end()));
  });

  test('two API instances share one user limit: the fifth request is refused on either, another user goes on', async () => {
    const [a, b] = [await instance({ userPerMinute: 4, orgPerMinute: 0 }), await instance({ userPerMinute: 4, orgPerMinute: 0 })];
    const [greedy, other] = [await newUser(), await newUser()];
    for (const api of [a, b, a, b]) expect((await api.call('GET', '/organizations', { token: greedy.token })).status).toBe(200);
    for (const api of [a, b]) {
      const limited = await api.call('GET', '/organizations', { token: greedy.token });
      expectProblem(limited, 429, 'RATE_LIMITED');
      expect(limited.body).toMatchObject({ scope: 'user' });
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter >= 1 && retryAfter <= 60).toBe(true);
    }
    expect((await b.call('GET', '/organizations', { token: other.token })).status).toBe(200);
    const owner = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 1 });
    try {
      const { rows } = await owner.query('SELECT points FROM rate_limits WHERE key = $1', [`user:${greedy.id}`]);
      expect(rows).toEqual([{ points: 6 }]);
    } finally {
      await owner.end();
    }
  });

  test('an organization’s allowance is shared too, and a non-member’s refused requests are given back on any instance', async () => {
    const [a, b] = [await instance({ userPerMinute: 0, orgPerMinute: 3 }), await instance({ userPerMinute: 0, orgPerMinute: 3 })];
    const { owner, orgId } = await newOrganization(a, 'Shared B.V.');
    const outsider = await newUser();
    for (const api of [a, b, a, b]) expect((await api.call('GET', `/sources?organizationId=${orgId}`, { token: outsider.token })).status).toBe(404);
    for (const api of [a, b, a]) expect((await api.call('GET', `/sources?organizationId=${orgId}`, { token: owner.token })).status).toBe(200);
    const limited = await b.call('GET', `/sources?organizationId=${orgId}`, { token: owner.token });
    expectProblem(limited, 429, 'RATE_LIMITED');
    expect(limited.body.scope).toBe('organization');
  });

  describe('leases: a process takes its points in PostgreSQL ten at a time, not one a request', () => {
    const process = () => {
      const store = new Pool({ connectionString: testEnv('TEST_APP_DB_URL'), max: 4 });
      pools.push(store);
      return { store, trips: jest.spyOn(store, 'query') };
    };
    /** Takes `n` points at once and answers how many were allowed. */
    const hammer = async (counter: LeasedCounter, key: string, n: number) =>
      (await Promise.all(Array.from({ length: n }, () => counter.take(key)))).filter((wait) => wait === 0).length;

    test('two processes hammering one key admit exactly the allowance together, in a dozen round trips, the last lease cut to what was left', async () => {
      const [a, b] = [process(), process()];
      const key = randomUUID();
      const [onA, onB] = [new LeasedCounter(a.store, 'user', 95, 10), new LeasedCounter(b.store, 'user', 95, 10)];
      const [admittedA, admittedB] = await Promise.all([hammer(onA, key, 150), hammer(onB, key, 150)]);
      expect(admittedA + admittedB).toBe(95);
      // Nine whole leases and the last one's 5 points; then each process learns the window is spent.
      expect(a.trips.mock.calls.length + b.trips.mock.calls.length).toBe(11);
      // Spent: refused from memory until the window ends, with the time left of it.
      const wait = await onA.take(key);
      expect(wait).toBeGreaterThan(50_000);
      expect(wait).toBeLessThanOrEqual(60_000);
      expect(a.trips.mock.calls.length + b.trips.mock.calls.length).toBe(11);
    });

    test('a point given back is spent again without a round trip; another key has its own lease', async () => {
      const { store, trips } = process();
      const counter = new LeasedCounter(store, 'organization', 2, 1);
      const key = randomUUID();
      expect(await counter.take(key)).toBe(0);
      expect(await counter.take(key)).toBe(0);
      expect(await counter.take(key)).toBeGreaterThan(0);
      expect(trips).toHaveBeenCalledTimes(3);
      counter.refund(key);
      expect(await counter.take(key)).toBe(0);
      expect(await counter.take(key)).toBeGreaterThan(0);
      expect(trips).toHaveBeenCalledTimes(3);
      expect(await counter.take(randomUUID())).toBe(0);
      expect(trips).toHaveBeenCalledTimes(4);
    });

    test('a lease is a hundredth of the allowance, at least 1 and at most 50', () => {
      expect([4, 120, 600, 3000, 2_000_000_000].map(leaseSizeOf)).toEqual([1, 1, 6, 30, 50]);
    });
  });
});
