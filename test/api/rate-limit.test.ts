import { LeasedCounter, leaseSizeOf, TokenBuckets } from '../../apps/api/rate-limit';
import { randomUUID } from 'node:crypto';
import { addMember, expectProblem, newOrganization, startApi, TestApi } from '../helpers/api';
import { Pool } from 'pg';
import { newUser, testEnv } from '../helpers/tokens';

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
    for (let i = 0; i < 3; i++)
      expect((await api.call('POST', '/sources', { token: outsider.token, body: { organizationId: orgId, providerKey: 'rss' } })).status).toBe(400);
    for (const user of [owner, member, owner, member])
      expect((await api.call('GET', `/sources?organizationId=${orgId}`, { token: user.token })).status).toBe(200);
    const limited = await api.call('POST', '/sources', {
      token: member.token,
      body: { organizationId: orgId, providerKey: 'rss', name: 'x', config: { url: 'https://feeds.example/rss' } },
    });
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
    expectProblem(
      await api.call('POST', hook, { rawBody: '{}', headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.9' } }),
      404,
      'NOT_FOUND',
    );
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
  /** The points the shared count holds for a key (read as the owner: the table has no row-level security). */
  const storedPoints = async (key: string) => {
    const owner = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 1 });
    try {
      const { rows } = await owner.query<{ points: number }>('SELECT points FROM rate_limits WHERE key = $1', [key]);
      return rows[0]?.points;
    } finally {
      await owner.end();
    }
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
    expect(await storedPoints(`user:${greedy.id}`)).toBe(6);
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

  test('leases of 2 (200 a minute) through the API: two instances admit exactly 200 between them, then refuse on either', async () => {
    const [a, b] = [await instance({ userPerMinute: 200, orgPerMinute: 0 }), await instance({ userPerMinute: 200, orgPerMinute: 0 })];
    const greedy = await newUser();
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) for (const api of [a, b]) statuses.push((await api.call('GET', '/organizations', { token: greedy.token })).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(200);
    for (const api of [a, b]) expectProblem(await api.call('GET', '/organizations', { token: greedy.token }), 429, 'RATE_LIMITED');
    expect(await storedPoints(`user:${greedy.id}`)).toBe(204); // 100 leases of 2, then a refused one on each instance
  });

  describe('leases: a process takes its points in PostgreSQL several at a time, not one a request', () => {
    const apiProcess = (options = '') => {
      const store = new Pool({ connectionString: testEnv('TEST_APP_DB_URL'), max: 4, options });
      pools.push(store);
      return { store, trips: jest.spyOn(store, 'query') };
    };
    const ownerPool = () => {
      const owner = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 2 });
      pools.push(owner);
      return owner;
    };
    /** Takes `n` points at once and answers how many were allowed. */
    const hammer = async (counter: LeasedCounter, key: string, n: number) =>
      (await Promise.all(Array.from({ length: n }, () => counter.take(key)))).filter((t) => t.waitMs === 0).length;
    afterEach(() => jest.restoreAllMocks());

    test('two processes hammering one key admit exactly the allowance together, in a dozen round trips, the last lease cut to what was left', async () => {
      const [a, b] = [apiProcess(), apiProcess()];
      const key = randomUUID();
      const [onA, onB] = [new LeasedCounter(a.store, 'user', 95, { leaseSize: 10 }), new LeasedCounter(b.store, 'user', 95, { leaseSize: 10 })];
      const [admittedA, admittedB] = await Promise.all([hammer(onA, key, 150), hammer(onB, key, 150)]);
      expect(admittedA + admittedB).toBe(95);
      // Nine whole leases and the last one's 5 points; then each process learns the window is spent.
      expect(a.trips.mock.calls.length + b.trips.mock.calls.length).toBe(11);
      // Spent: refused from memory until the window ends, with the time left of it.
      const { waitMs } = await onA.take(key);
      expect(waitMs).toBeGreaterThan(50_000);
      expect(waitMs).toBeLessThanOrEqual(60_000);
      expect(a.trips.mock.calls.length + b.trips.mock.calls.length).toBe(11);
    });

    test('a point given back is spent again without a round trip; another key has its own lease', async () => {
      const { store, trips } = apiProcess();
      const counter = new LeasedCounter(store, 'organization', 2, { leaseSize: 1 });
      const key = randomUUID();
      const first = await counter.take(key);
      expect((await counter.take(key)).waitMs).toBe(0);
      expect((await counter.take(key)).waitMs).toBeGreaterThan(0);
      expect(trips).toHaveBeenCalledTimes(3);
      counter.refund(key, first.window!);
      expect((await counter.take(key)).waitMs).toBe(0);
      expect((await counter.take(key)).waitMs).toBeGreaterThan(0);
      expect(trips).toHaveBeenCalledTimes(3);
      expect((await counter.take(randomUUID())).waitMs).toBe(0);
      expect(trips).toHaveBeenCalledTimes(4);
    });

    test('a point given back while the next lease is on its way is kept', async () => {
      const { store, trips } = apiProcess();
      const counter = new LeasedCounter(store, 'organization', 10, { leaseSize: 1 });
      const key = randomUUID();
      const first = await counter.take(key);
      const second = counter.take(key); // the lease is empty: a new one is asked for
      counter.refund(key, first.window!);
      expect((await second).waitMs).toBe(0);
      expect((await counter.take(key)).waitMs).toBe(0); // the point given back
      expect(trips).toHaveBeenCalledTimes(2);
    });

    test('a new window opens a new lease; a point of the ended window given back is not spent in the new one', async () => {
      let now = Date.now();
      jest.spyOn(Date, 'now').mockImplementation(() => now); // the library writes Date.now() into its SQL too
      const { store, trips } = apiProcess();
      const counter = new LeasedCounter(store, 'organization', 2, { leaseSize: 1 });
      const key = randomUUID();
      const old = await counter.take(key);
      expect((await counter.take(key)).waitMs).toBe(0);
      expect((await counter.take(key)).waitMs).toBe(60_000);
      now += 60_000;
      expect((await counter.take(key)).window).toBe(now + 60_000);
      expect((await counter.take(key)).waitMs).toBe(0);
      counter.refund(key, old.window!); // a request of the old window that ended 404 after the new one began
      expect((await counter.take(key)).waitMs).toBe(60_000);
      expect(trips).toHaveBeenCalledTimes(6);
    });

    test('a failed lease fails the request that asked for it; the ones waiting ask again and share the next', async () => {
      const key = randomUUID();
      const owner = ownerPool();
      const holder = await owner.connect();
      try {
        // Another session holds the key's row: this process's store gives up on it after 300 ms.
        await holder.query('BEGIN');
        await holder.query(`INSERT INTO rate_limits VALUES ($1, 0, $2)`, [`user:${key}`, Date.now() + 60_000]);
        const { store, trips } = apiProcess('-c lock_timeout=300');
        const counter = new LeasedCounter(store, 'user', 1000, { leaseSize: 10 });
        const takes = Array.from({ length: 5 }, () => counter.take(key));
        // The row is let go once the first lease has failed (not after a fixed time, which a loaded machine outruns).
        const release = takes[0]!.catch(() => undefined).then(() => holder.query('COMMIT'));
        const results = await Promise.allSettled(takes);
        await release;
        expect(results.map((r) => (r.status === 'fulfilled' ? r.value.waitMs : 'failed'))).toEqual(['failed', 0, 0, 0, 0]);
        expect(trips).toHaveBeenCalledTimes(2);
      } finally {
        holder.release();
      }
    });

    test('a row without an end (none this limiter writes) settles: refused, or a lease for a second, never a loop', async () => {
      const { store, trips } = apiProcess();
      const owner = ownerPool();
      const [spent, open] = [randomUUID(), randomUUID()];
      await owner.query(`INSERT INTO rate_limits VALUES ($1, 5, NULL), ($2, 0, NULL)`, [`user:${spent}`, `user:${open}`]);
      const counter = new LeasedCounter(store, 'user', 2, { leaseSize: 1 });
      expect((await counter.take(spent)).waitMs).toBe(1000);
      expect((await counter.take(spent)).waitMs).toBeGreaterThan(0);
      expect((await counter.take(open)).waitMs).toBe(0);
      expect(trips).toHaveBeenCalledTimes(4);
    });

    test('the map of leases stays within maxKeys', async () => {
      const { store } = apiProcess();
      const counter = new LeasedCounter(store, 'user', 100, { maxKeys: 10 });
      for (let i = 0; i < 25; i++) await counter.take(randomUUID());
      expect(counter.size).toBeLessThanOrEqual(10);
      expect(counter.size).toBeGreaterThan(0);
    });

    test('a lease is a hundredth of the allowance, at least 1 and at most 50', () => {
      expect([4, 120, 600, 3000, 2_000_000_000].map(leaseSizeOf)).toEqual([1, 1, 6, 30, 50]);
    });
  });
});
