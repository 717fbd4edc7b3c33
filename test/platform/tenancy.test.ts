import { newOrganization, addMember, expectProblem } from '../helpers/api';
import type { Schema } from '../helpers/client';
import { startFeedServer, FeedServer } from '../helpers/feed-server';
import { testEnv, TestUser } from '../helpers/tokens';
import { createDb, poolOf } from '../../db/pool';
import { asOrganization, asOrganizationInOneTrip } from '../../db/tenancy';
import { markProcessedQuery, signalForPipelineQuery } from '../../db/queries/pipeline';
import { assertApiRole, WORKER_DB_ROLE } from '../../db/roles';
import { Kysely } from 'kysely';
import { Pool } from 'pg';
import { useStack } from '../helpers/stack';

/**
 * Another tenant's records are invisible (404) on every endpoint, and a viewer cannot write.
 * New endpoints add a row to the table below.
 */
const { api } = useStack({ api: true });
let feeds: FeedServer;
let a: { owner: TestUser; orgId: string };
let b: { owner: TestUser; orgId: string };
let sourceId: string;
let signalId: string;
let companyId: string;
let contactId: string;

beforeAll(async () => {
  feeds = await startFeedServer();
  a = await newOrganization(api, 'Tenant A');
  b = await newOrganization(api, 'Tenant B');
  feeds.set('/a.xml', { fixture: 'feeds/permits-rss.xml' });
  const src = await api.call('POST', '/sources', {
    token: a.owner.token,
    body: { organizationId: a.orgId, providerKey: 'rss', name: 'A feed', config: { url: `${feeds.url}/a.xml` } },
  });
  sourceId = src.body.id;
  const started = await api.call('POST', `/sources/${sourceId}/run`, { token: a.owner.token, body: {} });
  const outcome = await api.temporal.workflow.getHandle(started.body.workflow_id, started.body.run_id).result();
  await Promise.all(outcome.signalIds.map((id: string) => api.temporal.workflow.getHandle(`signal/${id}`).result()));
  const signals = await api.call('GET', `/signals?organizationId=${a.orgId}`, { token: a.owner.token });
  signalId = signals.body[0].id;
  const company = await api.call('POST', '/companies', {
    token: a.owner.token,
    body: { organizationId: a.orgId, name: 'A Bouw B.V.', timezone: 'Europe/Amsterdam' },
  });
  companyId = company.body.id;
  const contact = await api.call('POST', '/contacts', {
    token: a.owner.token,
    body: { organizationId: a.orgId, companyId, fullName: 'Anna de Vries', timezone: 'Europe/Amsterdam' },
  });
  contactId = contact.body.id;
});
afterAll(async () => {
  await feeds.close();
});

const endpoints = (): Array<[string, string, unknown?]> => [
  ['GET', `/organizations/${a.orgId}`],
  ['POST', `/organizations/${a.orgId}/members`, { userId: b.owner.id, role: 'admin' }],
  ['GET', `/sources?organizationId=${a.orgId}`],
  ['POST', '/sources', { organizationId: a.orgId, providerKey: 'rss', name: 'x', config: { url: 'https://x.example/f' } }],
  ['GET', `/sources/${sourceId}`],
  ['PATCH', `/sources/${sourceId}`, { name: 'taken over' }],
  ['POST', `/sources/${sourceId}/run`, {}],
  ['GET', `/signals?organizationId=${a.orgId}`],
  ['GET', `/signals/${signalId}`],
  ['PATCH', `/companies/${companyId}`, { timezone: 'Asia/Tokyo' }],
  ['PATCH', `/contacts/${contactId}`, { timezone: 'Asia/Tokyo' }],
];

test('the owner of A sees A’s records', async () => {
  for (const [method, path] of endpoints().filter(([m]) => m === 'GET')) {
    const res = await api.call(method, path, { token: a.owner.token });
    expect({ path, status: res.status }).toEqual({ path, status: 200 });
  }
});

test('a user of organization B gets 404 for all of A, and changes nothing', async () => {
  for (const [method, path, body] of endpoints()) {
    const res = await api.call(method, path, { token: b.owner.token, body });
    expect({ method, path, status: res.status, code: res.body?.code }).toEqual({ method, path, status: 404, code: 'NOT_FOUND' });
  }
  const source = await api.call('GET', `/sources/${sourceId}`, { token: a.owner.token });
  expect(source.body.name).toBe('A feed');
  expect((await api.call('GET', `/companies/${companyId}`, { token: a.owner.token })).body.timezone).toBe('Europe/Amsterdam');
  expect((await api.call('GET', `/contacts/${contactId}`, { token: a.owner.token })).body.timezone).toBe('Europe/Amsterdam');
  const own = await api.call('GET', `/signals?organizationId=${b.orgId}`, { token: b.owner.token });
  expect(own.body).toEqual([]);
  const orgs = await api.call('GET', '/organizations', { token: b.owner.token });
  expect(orgs.body.map((o: Schema<'Organization'>) => o.id)).toEqual([b.orgId]);
});

test('a viewer of A reads but cannot write', async () => {
  const viewer = await addMember(api, a.owner, a.orgId, 'viewer');
  for (const [method, path, body] of endpoints()) {
    const res = await api.call(method, path, { token: viewer.token, body });
    if (method === 'GET') expect({ path, status: res.status }).toEqual({ path, status: 200 });
    else {
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 403 });
      expectProblem(res, 403, 'FORBIDDEN');
    }
  }
});

test('a member of A can write sources but cannot manage members', async () => {
  const member = await addMember(api, a.owner, a.orgId, 'member');
  const patch = await api.call('PATCH', `/sources/${sourceId}`, { token: member.token, body: { name: 'A feed' } });
  expect(patch.status).toBe(200);
  const res = await api.call('POST', `/organizations/${a.orgId}/members`, { token: member.token, body: { userId: b.owner.id, role: 'viewer' } });
  expectProblem(res, 403, 'FORBIDDEN');
});

test('signals filter by status and title search, newest first, with keyset pagination', async () => {
  const all = await api.call('GET', `/signals?organizationId=${a.orgId}`, { token: a.owner.token });
  expect(all.body).toHaveLength(3);
  const q = await api.call('GET', `/signals?organizationId=${a.orgId}&q=WONINGEN`, { token: a.owner.token });
  expect(q.body.map((s: Schema<'Signal'>) => s.external_id)).toEqual(['utrecht-2026-118233']);
  const none = await api.call('GET', `/signals?organizationId=${a.orgId}&q=100%25`, { token: a.owner.token });
  expect(none.body).toEqual([]);
  const ignored = await api.call('GET', `/signals?organizationId=${a.orgId}&status=ignored`, { token: a.owner.token });
  expect(ignored.body.map((s: Schema<'Signal'>) => s.external_id)).toEqual(['utrecht-2026-118101']); // the tree-felling permit
  expect((await api.call('GET', `/signals?organizationId=${a.orgId}&status=failed`, { token: a.owner.token })).body).toEqual([]);

  const page1 = await api.call('GET', `/signals?organizationId=${a.orgId}&limit=2`, { token: a.owner.token });
  const page2 = await api.call('GET', `/signals?organizationId=${a.orgId}&limit=2&before=${page1.body[1].id}`, { token: a.owner.token });
  expect(page1.body).toHaveLength(2);
  expect(page2.body).toHaveLength(1);
  expect([...page1.body, ...page2.body].map((s: Schema<'Signal'>) => s.id)).toEqual(all.body.map((s: Schema<'Signal'>) => s.id));
});

test('GET /signals/{id} answers the spec’s shape with exactly the spec’s Signal fields', async () => {
  const res = await api.call('GET', `/signals/${signalId}`, { token: a.owner.token });
  expect(Object.keys(res.body)).toEqual(['signal', 'classification', 'score', 'components', 'breakdown']);
  expect(Object.keys(res.body.signal).sort()).toEqual(
    [
      'id',
      'organization_id',
      'source_id',
      'raw_publication_id',
      'project_id',
      'external_id',
      'status',
      'signal_type',
      'title',
      'summary',
      'published_at',
      'effective_start',
      'effective_end',
      'source_url',
      'current_score',
      'dedupe_key',
      'created_at',
      'updated_at',
    ].sort(),
  );
});

test('the API’s database role cannot act for an organization; the worker’s can', async () => {
  // A stray asOrganization (set_config('app.organization_id')) on the API's own pool crosses no tenant.
  const viaApi = await asOrganization(api.db, a.orgId, (tx) => tx.selectFrom('signals').select('id').execute());
  expect(viaApi).toEqual([]);
  const workerDb = createDb(testEnv('TEST_WORKER_DB_URL'), 1);
  try {
    const viaWorker = await asOrganization(workerDb, a.orgId, (tx) => tx.selectFrom('signals').select(['id', 'organization_id']).execute());
    expect(viaWorker).toHaveLength(3);
    expect(new Set(viaWorker.map((s) => s.organization_id))).toEqual(new Set([a.orgId]));
  } finally {
    await workerDb.destroy();
  }
});

/**
 * What reaches PostgreSQL from a DB's connections: one entry per round trip (a simple-protocol query
 * string, or an extended-protocol exchange ending in Sync, shown as `[name] text`).
 */
function serverTrips(db: ReturnType<typeof createDb>): { trips: string[]; restore: () => void } {
  const trips: string[] = [];
  const pool = poolOf(db)!;
  const connect = pool.connect.bind(pool);
  pool.connect = (async () => {
    const client = await connect();
    const connection = (client as unknown as { connection: Record<string, (...a: unknown[]) => unknown> }).connection;
    if (!connection.counted) {
      type Fn = (...a: unknown[]) => unknown;
      const [query, parse, bind, sync] = [connection.query!, connection.parse!, connection.bind!, connection.sync!].map((f) => f.bind(connection)) as [
        Fn,
        Fn,
        Fn,
        Fn,
      ];
      let extended = '';
      connection.query = (text: unknown) => (trips.push(text as string), query(text));
      connection.parse = (q: unknown) => ((extended = `[${(q as { name?: string }).name ?? ''}] ${(q as { text: string }).text}`), parse(q));
      connection.bind = (c: unknown) => ((extended ||= `[${(c as { statement?: string }).statement ?? ''}]`), bind(c));
      connection.sync = () => (trips.push(extended), (extended = ''), sync());
      connection.counted = () => true;
    }
    return client;
  }) as typeof pool.connect;
  return { trips, restore: () => (pool.connect = connect as typeof pool.connect) };
}

test('asOrganization: BEGIN and the setting go with the first statement (its literals written in, run by its name once the connection has parsed it), COMMIT after, ROLLBACK on a throw; an id that is no UUID is refused before any query', async () => {
  const workerDb = createDb(testEnv('TEST_WORKER_DB_URL'), 1);
  const { trips, restore } = serverTrips(workerDb);
  try {
    const read = () => asOrganization(workerDb, a.orgId, (tx) => tx.selectFrom('signals').select('id').where('organization_id', '=', a.orgId).execute());
    // First use on the connection: the opening alone, then the statement parsed and named, then COMMIT.
    expect(await read()).toHaveLength(3);
    expect(trips).toHaveLength(3);
    expect(trips[0]).toMatch(/^BEGIN; SELECT set_config\('app.organization_id', '[0-9a-f-]{36}', true\)$/);
    expect(trips[1]).toMatch(/^\[q_\d+\] select "id" from "signals"/);
    expect(trips[2]).toBe('COMMIT');
    // Every later use: the opening and the statement by its name in one round trip, then COMMIT.
    trips.length = 0;
    expect(await read()).toHaveLength(3);
    expect(trips).toHaveLength(2);
    expect(trips[0]).toMatch(/^BEGIN; SELECT set_config\('app.organization_id', '[0-9a-f-]{36}', true\); EXECUTE q_\d+\('[0-9a-f-]{36}'\)$/);
    expect(trips[1]).toBe('COMMIT');
    // A statement that is never named (ON CONFLICT) goes along with its literals written in (here it conflicts: nothing is added).
    const existing = await asOrganization(workerDb, a.orgId, (tx) =>
      tx.selectFrom('signals').select('external_id').where('id', '=', signalId).executeTakeFirstOrThrow(),
    );
    trips.length = 0;
    const inserted = await asOrganization(workerDb, a.orgId, (tx) =>
      tx
        .insertInto('signals')
        .values({ organization_id: a.orgId, source_id: sourceId, external_id: existing.external_id, title: 'x', dedupe_key: 'deferred-1' })
        .onConflict((oc) => oc.columns(['source_id', 'external_id']).doNothing())
        .executeTakeFirst(),
    );
    expect(Number(inserted.numInsertedOrUpdatedRows)).toBe(0);
    expect(trips[0]).toMatch(
      /^BEGIN; SELECT set_config\(.*\); insert into "signals" .* values \('[0-9a-f-]{36}', '[0-9a-f-]{36}', '.+', 'x', 'deferred-1'\) on conflict/,
    );
    expect(trips).toHaveLength(2);
    // A throw part-way rolls back what the transaction wrote.
    trips.length = 0;
    await expect(
      asOrganization(workerDb, a.orgId, async (tx) => {
        await tx.updateTable('signals').set({ title: 'rolled back' }).where('id', '=', signalId).execute();
        throw new Error('part-way');
      }),
    ).rejects.toThrow('part-way');
    expect(trips.at(-1)).toBe('ROLLBACK');
    const title = await asOrganization(workerDb, a.orgId, (tx) => tx.selectFrom('signals').select('title').where('id', '=', signalId).executeTakeFirst());
    expect(title?.title).not.toBe('rolled back');
    // A statement that fails as the first: its error, nothing written, and the connection is usable after it.
    await expect(
      asOrganization(workerDb, a.orgId, (tx) => tx.updateTable('signals').set({ status: 'not-a-status' }).where('id', '=', signalId).execute()),
    ).rejects.toThrow(/signals_status_check/);
    expect((await read()).length).toBe(3);
    // A transaction that runs no statement sends nothing; one that throws before its first sends nothing either.
    trips.length = 0;
    expect(await asOrganization(workerDb, a.orgId, async () => 1)).toBe(1);
    await expect(asOrganization(workerDb, a.orgId, async () => Promise.reject(new Error('before any query')))).rejects.toThrow('before any query');
    expect(trips).toEqual([]);
    trips.length = 0;
    await expect(asOrganization(workerDb, `${a.orgId}', true); --`, async () => 1)).rejects.toThrow(/not a UUID/);
    expect(trips).toEqual([]);
  } finally {
    restore();
    await workerDb.destroy();
  }
});

test('asOrganizationInOneTrip: one statement in one round trip, as asOrganization answers it, only the organization’s rows; a write commits, a failure changes nothing', async () => {
  const workerDb = createDb(testEnv('TEST_WORKER_DB_URL'), 1);
  const { trips: sent, restore } = serverTrips(workerDb);
  try {
    const expected = await asOrganization(workerDb, a.orgId, (tx) => signalForPipelineQuery(tx, signalId).execute());
    expect(expected).toHaveLength(1);
    for (const round of [1, 2]) {
      // The first round PREPAREs the statement on the connection, the second EXECUTEs it: one round trip each.
      sent.length = 0;
      expect(await asOrganizationInOneTrip(workerDb, a.orgId, (qb) => signalForPipelineQuery(qb, signalId))).toEqual(expected);
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatch(
        round === 1
          ? /PREPARE list_\w+ AS select/
          : /^SELECT set_config\('app.organization_id', '[0-9a-f-]{36}', true\), set_config\('plan_cache_mode', 'force_generic_plan', true\); EXECUTE list_\w+\('[0-9a-f-]{36}'\)$/,
      );
    }
    // Acting for B, A's signal is not there.
    expect(await asOrganizationInOneTrip(workerDb, b.orgId, (qb) => signalForPipelineQuery(qb, signalId))).toEqual([]);
    // A write commits (read back through another transaction).
    await asOrganization(workerDb, a.orgId, (tx) => tx.updateTable('signals').set({ processed_at: null }).where('id', '=', signalId).execute());
    await asOrganizationInOneTrip(workerDb, a.orgId, (qb) => markProcessedQuery(qb, signalId));
    const marked = await asOrganization(workerDb, a.orgId, (tx) =>
      tx.selectFrom('signals').select('processed_at').where('id', '=', signalId).executeTakeFirstOrThrow(),
    );
    expect(marked.processed_at).toBeInstanceOf(Date);
    // A statement that fails changes nothing, and the connection is usable after it.
    await expect(
      asOrganizationInOneTrip(workerDb, a.orgId, (qb) => qb.updateTable('signals').set({ status: 'not-a-status' }).where('id', '=', signalId)),
    ).rejects.toThrow(/signals_status_check/);
    const status = await asOrganizationInOneTrip(workerDb, a.orgId, (qb) => qb.selectFrom('signals').select('status').where('id', '=', signalId));
    expect(status[0]?.status).not.toBe('not-a-status');
    sent.length = 0;
    await expect(asOrganizationInOneTrip(workerDb, `${a.orgId}', true); --`, (qb) => signalForPipelineQuery(qb, signalId))).rejects.toThrow(/not a UUID/);
    expect(sent).toEqual([]);
  } finally {
    restore();
    await workerDb.destroy();
  }
});

test('a statement whose result type a migration changed: the one-trip read prepares it afresh and answers; a first statement run by its name fails once, then is named afresh', async () => {
  const owner = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 1 });
  const table = `stale_${Date.now().toString(36)}`;
  await owner.query(
    `CREATE TABLE ${table} (id uuid PRIMARY KEY, v varchar(10)); INSERT INTO ${table} VALUES ('${a.orgId}', 'a'); GRANT SELECT ON ${table} TO ${WORKER_DB_ROLE}`,
  );
  const workerDb = createDb(testEnv('TEST_WORKER_DB_URL'), 1);
  // The scratch table is not in the schema's types.
  const scratch = (qb: unknown) => qb as Kysely<Record<string, { id: string; v: string; z: number | null }>>;
  try {
    const oneTrip = () => asOrganizationInOneTrip(workerDb, a.orgId, (qb) => scratch(qb).selectFrom(table).select(['id', 'v']).where('id', '=', a.orgId));
    const firstStatement = () => asOrganization(workerDb, a.orgId, (tx) => scratch(tx).selectFrom(table).selectAll().where('id', '=', a.orgId).execute());
    for (let i = 0; i < 2; i++) {
      expect(await oneTrip()).toEqual([{ id: a.orgId, v: 'a' }]); // PREPAREd, then EXECUTEd, on the pool's one connection
      expect(await firstStatement()).toEqual([{ id: a.orgId, v: 'a' }]); // parsed under a name, then run by it
    }
    await owner.query(`ALTER TABLE ${table} ALTER COLUMN v TYPE text, ADD COLUMN z int`);
    expect(await oneTrip()).toEqual([{ id: a.orgId, v: 'a' }]);
    await expect(firstStatement()).rejects.toThrow(/cached plan must not change result type/);
    expect(await firstStatement()).toEqual([{ id: a.orgId, v: 'a', z: null }]);
    expect(await firstStatement()).toEqual([{ id: a.orgId, v: 'a', z: null }]);
  } finally {
    await workerDb.destroy();
    await owner.query(`DROP TABLE ${table}`);
    await owner.end();
  }
});

test('the API refuses to start on a role that could cross tenants (the worker role, the owner)', async () => {
  const check = async (url: string) => {
    const db = createDb(url, 1);
    try {
      await assertApiRole(db);
      return 'accepted';
    } catch (err) {
      return (err as Error).message;
    } finally {
      await db.destroy();
    }
  };
  expect(await check(testEnv('TEST_APP_DB_URL'))).toBe('accepted');
  expect(await check(testEnv('TEST_WORKER_DB_URL'))).toMatch(/outreach_worker, which holds outreach_worker: the API must use outreach_api/);
  expect(await check(testEnv('TEST_OWNER_DB_URL'))).toMatch(/is a superuser/);
});
