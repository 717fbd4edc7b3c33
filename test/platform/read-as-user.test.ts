import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { Pool } from 'pg';
import { listSignals } from '../../db/queries/signals';
import { createDb, DB, poolOf } from '../../db/pool';
import { asUser, inlineParameters, MAX_PREPARED_SEARCHES, NotAMemberError, readAsUser, RoleTooLowError } from '../../db/tenancy';
import { testEnv } from '../helpers/tokens';

/**
 * readAsUser runs a list query in one round trip with its parameters inlined: it must answer exactly
 * what the same query answers with bound parameters, whatever the input, and gate like withRole.
 */
let owner: Pool;
let db: DB;
const org = randomUUID();
const user = randomUUID();
const viewer = randomUUID();
const titles = [`O'Brien's "loods" 100% klaar`, 'pad C:\\bouw\\fase_1', 'warmtepomp_installatie', 'Ünïcödé straat 😀', "'; DROP TABLE signals; --", 'gewoon'];

beforeAll(async () => {
  owner = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 1 });
  db = createDb(testEnv('TEST_APP_DB_URL'), 2);
  await owner.query(`INSERT INTO organizations (id, name, created_by) VALUES ($1, 'Inline', $2)`, [org, user]);
  await owner.query(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'owner'), ($1, $3, 'viewer')`, [org, user, viewer]);
  const source = await owner.query(`INSERT INTO sources (organization_id, provider_key, name) VALUES ($1, 'rss', 's') RETURNING id`, [org]);
  for (const [i, title] of titles.entries()) {
    await owner.query(
      `INSERT INTO signals (organization_id, source_id, external_id, title, dedupe_key, created_at) VALUES ($1, $2, $3, $4, $3, now() - make_interval(secs => $5))`,
      [org, source.rows[0].id, `x-${i}`, title, i],
    );
  }
});
afterAll(async () => {
  await db.destroy();
  await owner.end();
});

const gate = { organizationId: org, minRole: 'viewer' as const };

/** How many queries fn sends to PostgreSQL through db's pool (each client.query is one round trip). */
async function roundTrips<T>(fn: () => Promise<T>): Promise<{ result: T; trips: number }> {
  const pool = poolOf(db)!;
  const connect = pool.connect.bind(pool);
  let trips = 0;
  pool.connect = (async () => {
    const client = await connect();
    const query = client.query.bind(client);
    client.query = ((...args: Parameters<typeof query>) => {
      trips++;
      return query(...args);
    }) as typeof client.query;
    return client;
  }) as typeof pool.connect;
  try {
    return { result: await fn(), trips };
  } finally {
    pool.connect = connect as typeof pool.connect;
  }
}

test.each([
  [{}],
  [{ q: "O'Brien" }],
  [{ q: '100%' }],
  [{ q: 'C:\\bouw' }],
  [{ q: '_installatie' }],
  [{ q: 'ünïcödé' }],
  [{ q: "'; DROP TABLE signals; --" }],
  [{ q: '\\' }],
  [{ status: 'ingested', limit: 2 }],
])('the one-round-trip read answers what the bound query answers: %j', async (filters) => {
  const f = { organizationId: org, limit: 50, ...filters };
  const bound = await asUser(db, user, (tx) => listSignals(tx, f).execute(), gate);
  const { result: inlined, trips } = await roundTrips(() => readAsUser(db, user, gate, (qb) => listSignals(qb, f)));
  expect(inlined).toEqual(bound);
  expect(trips).toBe(1); // it did take the one-round-trip path
});

test('keyset pagination: the before cursor is inlined too', async () => {
  const page1 = await readAsUser(db, user, gate, (qb) => listSignals(qb, { organizationId: org, limit: 2 }));
  const page2 = await readAsUser(db, user, gate, (qb) => listSignals(qb, { organizationId: org, limit: 50, before: page1[1]!.id }));
  expect([...page1, ...page2].map((s) => s.title)).toEqual(titles);
});

test('a Date is written in as pg would send it as a parameter (its local time with the offset), and answers the same rows', async () => {
  const at = new Date(Date.now() + 60_000);
  const build = (qb: DB) => qb.selectFrom('signals').select('title').where('organization_id', '=', org).where('created_at', '<', at).orderBy('title');
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- pg/lib/utils has no type declarations
  expect(inlineParameters(build(db).compile())).toContain(`'${String((require('pg/lib/utils') as { prepareValue(v: unknown): unknown }).prepareValue(at))}'`);
  const bound = await asUser(db, user, (tx) => build(tx).execute());
  expect(bound).toHaveLength(titles.length);
  expect(await readAsUser(db, user, gate, build)).toEqual(bound);
});

test('where connections keep no statements (DB_NAMED_STATEMENTS=false) nothing is PREPAREd: the list goes with its literals written in, in one round trip, and answers the same', async () => {
  const unpooled = createDb(testEnv('TEST_APP_DB_URL'), 1, { namedStatements: false });
  const sent: string[] = [];
  const pool = poolOf(unpooled)!;
  const connect = pool.connect.bind(pool);
  const watched = new WeakSet<object>();
  pool.connect = (async () => {
    const client = await connect();
    if (!watched.has(client)) {
      watched.add(client);
      const query = client.query.bind(client);
      client.query = ((...args: Parameters<typeof query>) => (sent.push(String(args[0])), query(...args))) as typeof client.query;
    }
    return client;
  }) as typeof pool.connect;
  try {
    // Each twice: a second run must not take the statement for prepared.
    const search = { organizationId: org, limit: 50, q: 'warmtepomp' };
    for (const f of [{ organizationId: org, limit: 50 }, search, { organizationId: org, limit: 50 }, search]) {
      sent.length = 0;
      const rows = await readAsUser(unpooled, user, gate, (qb) => listSignals(qb, f));
      expect(rows).toEqual(await readAsUser(db, user, gate, (qb) => listSignals(qb, f)));
      expect(sent).toHaveLength(1);
      expect(sent[0]).not.toMatch(/PREPARE|EXECUTE/);
    }
    await expect(readAsUser(unpooled, randomUUID(), gate, (qb) => listSignals(qb, { organizationId: org, limit: 5 }))).rejects.toBeInstanceOf(NotAMemberError);
  } finally {
    pool.connect = connect as typeof pool.connect;
    await unpooled.destroy();
  }
});

test('a query holding a literal or a cast is not inlined, and still answers through bound parameters', async () => {
  const build = (qb: DB) =>
    qb
      .selectFrom('signals')
      .select('title')
      .where(sql<boolean>`title = ${"O'x"}::text OR true`)
      .where('organization_id', '=', org);
  expect(inlineParameters(build(db).compile())).toBeUndefined();
  expect(
    inlineParameters(
      db
        .selectFrom('signals')
        .select(sql<string>`'x'`.as('x'))
        .compile(),
    ),
  ).toBeUndefined();
  const { result: rows, trips } = await roundTrips(() => readAsUser(db, user, gate, build));
  expect(rows).toHaveLength(titles.length);
  expect(trips).toBeGreaterThan(1);
});

test('only a placeholder that is a token of its own is written in, and only with exactly its parameters; every connection speaks UTF-8', async () => {
  // Each of these would read otherwise inlined than bound: E$1 an escape string, int4$1 and "int4"$1 a
  // typed constant, a$1 one identifier, $1 and $2 on two lines one joined string constant.
  for (const text of ['select E$1', 'select int4$1', 'select "int4"$1', 'select a$1', 'select $1$2', 'select $1\n$2', 'select\u00a0$1']) {
    expect({ text, inlined: inlineParameters({ sql: text, parameters: ['x', 'y'].slice(0, text.split('$').length - 1) } as never) }).toEqual({
      text,
      inlined: undefined,
    });
  }
  expect(inlineParameters({ sql: 'select "a" from t where b = $1 and c in ($2, $3)', parameters: ['x', 1, null] } as never)).toBe(
    `select "a" from t where b = 'x' and c in ('1', NULL)`,
  );
  // A parameter the SQL does not use, or one it lacks: bound, PostgreSQL refuses both; written in, it would not.
  expect(inlineParameters({ sql: 'select $1', parameters: ['x', 'y'] } as never)).toBeUndefined();
  expect(inlineParameters({ sql: 'select $1, $2', parameters: ['x'] } as never)).toBeUndefined();
  // Literals are written as UTF-8, and a connection reads them so whatever else asks for another client
  // encoding (SJIS here; in another, a multibyte character's second byte could swallow an escaping
  // backslash): pg sends client_encoding=UTF8 in every startup, which outranks the options and a role's
  // or a database's setting. The code never sets it; this guards what the literals rely on.
  const url = new URL(testEnv('TEST_APP_DB_URL'));
  url.searchParams.set('options', '-c client_encoding=SJIS');
  const sjis = createDb(url.toString(), 1);
  try {
    const client = await poolOf(sjis)!.connect();
    try {
      expect((await client.query('SHOW client_encoding')).rows[0].client_encoding).toBe('UTF8');
    } finally {
      client.release();
    }
  } finally {
    await sjis.destroy();
  }
});

test('the gate: a non-member and a too-low role are refused, and the transaction leaves nothing behind', async () => {
  await expect(readAsUser(db, randomUUID(), gate, (qb) => listSignals(qb, { organizationId: org, limit: 5 }))).rejects.toBeInstanceOf(NotAMemberError);
  await expect(
    readAsUser(db, viewer, { organizationId: org, minRole: 'member' }, (qb) => listSignals(qb, { organizationId: org, limit: 5 })),
  ).rejects.toMatchObject({ role: 'viewer' });
  await expect(
    readAsUser(db, viewer, { organizationId: org, minRole: 'member' }, (qb) => listSignals(qb, { organizationId: org, limit: 5 })),
  ).rejects.toBeInstanceOf(RoleTooLowError);
  // The pooled connections carry no caller afterwards.
  const leftover = await Promise.all([1, 2].map(() => db.selectFrom('signals').select('id').execute()));
  expect(leftover).toEqual([[], []]);
});

test('a one-trip read is its own transaction without BEGIN: its settings end with it, answered or refused, and the connection is left outside any transaction', async () => {
  const pool = poolOf(db)!;
  /** Each pooled connection's caller, plan_cache_mode and whether a transaction is open past this statement. */
  const sessions = async () => {
    const clients = await Promise.all([pool.connect(), pool.connect()]);
    try {
      const rows = await Promise.all(
        clients.map((c) =>
          c.query(`SELECT coalesce(current_setting('app.user_id', true), '') AS caller, current_setting('plan_cache_mode') AS plans, xact_start <> query_start AS open
                     FROM pg_stat_activity WHERE pid = pg_backend_pid()`),
        ),
      );
      return rows.map((r) => r.rows[0]);
    } finally {
      clients.forEach((c) => c.release());
    }
  };
  const clean = [1, 2].map(() => ({ caller: '', plans: 'auto', open: false }));
  const f = { organizationId: org, limit: 50 };
  await Promise.all([1, 2].map(() => readAsUser(db, user, gate, (qb) => listSignals(qb, f))));
  expect(await sessions()).toEqual(clean);
  const refused = await roundTrips(() => readAsUser(db, randomUUID(), gate, (qb) => listSignals(qb, f)).catch((e: unknown) => e));
  expect(refused.result).toBeInstanceOf(NotAMemberError);
  expect(refused.trips).toBe(1); // nothing to roll back: PostgreSQL ended the implicit transaction at the error
  expect(await sessions()).toEqual(clean);
});

/** The list statements prepared on the pool's idle connections (each readAsUser PREPAREs its SQL once per connection). */
async function preparedOnIdle(): Promise<string[]> {
  const pool = poolOf(db)!;
  const clients = await Promise.all([pool.connect(), pool.connect()]);
  try {
    const held = await Promise.all(
      clients.map((c) => c.query<{ name: string; statement: string }>(`SELECT name, statement FROM pg_prepared_statements WHERE name LIKE 'list\\_%'`)),
    );
    return held.flatMap((h) => h.rows.map((r) => r.statement));
  } finally {
    clients.forEach((c) => c.release());
  }
}

test('a list is a prepared statement per connection: prepared once, executed after, the same answers; a caller the gate refuses prepares nothing', async () => {
  const f = { organizationId: org, limit: 50, projectId: randomUUID() }; // a shape no other test uses
  const empty = await readAsUser(db, user, gate, (qb) => listSignals(qb, f));
  expect(empty).toEqual([]);
  expect((await preparedOnIdle()).some((s) => s.includes('"project_id" = $'))).toBe(true);
  // Refused on a fresh shape (status and project): nothing answered, nothing prepared (the gate comes
  // before the PREPARE in the string), and nothing to look up or roll back afterwards: the string alone.
  const g = { organizationId: org, limit: 50, status: 'ingested', projectId: randomUUID() };
  const ofShapeG = (s: string) => s.includes('"status" = $') && s.includes('"project_id" = $');
  const refused = await roundTrips(() => readAsUser(db, randomUUID(), gate, (qb) => listSignals(qb, g)).catch((e: unknown) => e));
  expect(refused.result).toBeInstanceOf(NotAMemberError);
  expect(refused.trips).toBe(1);
  expect((await preparedOnIdle()).some(ofShapeG)).toBe(false);
  expect(await readAsUser(db, user, gate, (qb) => listSignals(qb, g))).toEqual([]);
  expect((await preparedOnIdle()).some(ofShapeG)).toBe(true);
  for (let i = 0; i < 4; i++) {
    const q = titles[i]!.slice(0, 4);
    const h = { organizationId: org, limit: 50, q };
    const bound = await asUser(db, user, (tx) => listSignals(tx, h).execute(), gate);
    const { result, trips } = await roundTrips(() => readAsUser(db, user, gate, (qb) => listSignals(qb, h)));
    expect({ q, result }).toEqual({ q, result: bound });
    expect(trips).toBe(1);
    expect(await readAsUser(db, user, gate, (qb) => listSignals(qb, g))).toEqual([]);
  }
});

/** The per-word search statements held by each of the pool's two connections. */
async function searchesHeld(): Promise<Array<Array<{ name: string; statement: string }>>> {
  const pool = poolOf(db)!;
  const clients = await Promise.all([pool.connect(), pool.connect()]);
  try {
    const held = await Promise.all(
      clients.map((c) => c.query<{ name: string; statement: string }>(`SELECT name, statement FROM pg_prepared_statements WHERE name LIKE 'search\\_%'`)),
    );
    return held.map((h) => h.rows);
  } finally {
    clients.forEach((c) => c.release());
  }
}

test('a search is planned once per word and connection: its pattern and limit written in, every page and caller after served by it; the least recently used word goes', async () => {
  const word = 'gewoon';
  const h = { organizationId: org, limit: 50, q: word };
  expect(await readAsUser(db, user, gate, (qb) => listSignals(qb, h))).toEqual(await asUser(db, user, (tx) => listSignals(tx, h).execute(), gate));
  const statements = (await searchesHeld()).flat().filter((s) => s.statement.includes(`'%${word}%'`));
  expect(statements).toHaveLength(1);
  expect(statements[0]!.statement).toMatch(/limit '50'/i); // the limit written in too: the plan knows how many rows it needs
  expect(statements[0]!.statement).toMatch(/"organization_id" = \$1/); // the organization stays a parameter
  // Another page of the same word (a before cursor) and another caller: no new statement for the word on
  // this connection beyond one per shape of the filter.
  const first = (await readAsUser(db, user, gate, (qb) => listSignals(qb, { ...h, limit: 1 })))[0]!;
  expect(await readAsUser(db, user, gate, (qb) => listSignals(qb, { ...h, before: first.id }))).toEqual([]);
  // Past the cap the least recently used words are deallocated, and every search still answers right.
  const words = Array.from({ length: 2 * MAX_PREPARED_SEARCHES + 4 }, (_, i) => `w${i}`); // enough for either connection to overflow
  for (const q of words) expect(await readAsUser(db, user, gate, (qb) => listSignals(qb, { organizationId: org, limit: 50, q }))).toEqual([]);
  const held = await searchesHeld();
  for (const connection of held) expect(connection.length).toBeLessThanOrEqual(MAX_PREPARED_SEARCHES);
  const names = held.flat().map((s) => s.statement);
  expect(names.some((s) => s.includes(`'%${words.at(-1)}%'`))).toBe(true); // the newest kept
  expect(names.some((s) => s.includes(`'%${words[0]}%'`))).toBe(false); // the oldest gone
  for (const title of titles) {
    const f = { organizationId: org, limit: 50, q: title.slice(1, 6) };
    expect(await readAsUser(db, user, gate, (qb) => listSignals(qb, f))).toEqual(await asUser(db, user, (tx) => listSignals(tx, f).execute(), gate));
  }
});
