import { sql } from 'kysely';
import { createDb, DB, MAX_NAMED_STATEMENTS, NAMED_STATEMENT_PREFIX } from '../../db/pool';
import { testEnv } from '../helpers/tokens';

/**
 * Named statements (db/pool.ts): a query with parameters is parsed once per connection and kept by
 * name; what cannot be kept stays unnamed; a statement whose result changed under it is named afresh.
 * One connection per pool, so every query below runs on the same session (temporary tables included).
 */
const dbs: DB[] = [];
const open = (namedStatements?: boolean) => {
  const db = createDb(testEnv('TEST_OWNER_DB_URL'), 1, namedStatements === undefined ? {} : { namedStatements });
  dbs.push(db);
  return db;
};
afterAll(async () => {
  for (const db of dbs) await db.destroy();
});

const held = async (db: DB) =>
  (await sql<{ name: string; statement: string }>`SELECT name, statement FROM pg_prepared_statements ORDER BY name`.execute(db)).rows.filter((r) =>
    r.name.startsWith(NAMED_STATEMENT_PREFIX),
  );

test('a query with parameters is parsed once per connection and kept by name; each answer is its own', async () => {
  const db = open();
  for (const n of [1, 2, 3]) expect((await sql<{ n: number }>`SELECT ${n}::int + 1 AS n`.execute(db)).rows).toEqual([{ n: n + 1 }]);
  const [one, ...rest] = await held(db);
  expect(rest).toEqual([]);
  expect(one!.statement).toBe('SELECT $1::int + 1 AS n');
  await sql`SELECT ${'x'}::text AS s`.execute(db);
  expect((await held(db)).map((r) => r.statement)).toEqual(['SELECT $1::int + 1 AS n', 'SELECT $1::text AS s']);
  // Without parameters: simple protocol, nothing named (BEGIN and the settings of db/tenancy.ts go this way).
  await sql`SELECT 1 AS one`.execute(db);
  expect(await held(db)).toHaveLength(2);
});

test('turned off (DB_NAMED_STATEMENTS=false), nothing is named', async () => {
  const db = open(false);
  await sql`SELECT ${1}::int AS n`.execute(db);
  expect(await held(db)).toEqual([]);
});

test('ON CONFLICT against a partial unique index with a parameter in its predicate works (left unnamed)', async () => {
  const db = open();
  await sql`CREATE TEMP TABLE deals (k int NOT NULL, status text NOT NULL)`.execute(db);
  await sql`CREATE UNIQUE INDEX deals_open_k ON deals (k) WHERE status <> 'closed'`.execute(db);
  for (let i = 0; i < 7; i++) {
    await sql`INSERT INTO deals (k, status) VALUES (${1}, ${'open'}) ON CONFLICT (k) WHERE status <> ${'closed'} DO NOTHING`.execute(db);
  }
  expect((await sql<{ n: number }>`SELECT count(*)::int AS n FROM deals WHERE k = ${1}`.execute(db)).rows).toEqual([{ n: 1 }]);
  expect((await held(db)).filter((r) => /on conflict/i.test(r.statement))).toEqual([]);
});

test('a select * whose columns change under it (a migration) fails once, then runs named afresh with the new columns', async () => {
  const db = open();
  await sql`CREATE TEMP TABLE notes (id int NOT NULL)`.execute(db);
  await sql`INSERT INTO notes (id) VALUES (1)`.execute(db);
  const read = () => sql<Record<string, unknown>>`SELECT * FROM notes WHERE id = ${1}`.execute(db);
  expect((await read()).rows).toEqual([{ id: 1 }]);
  await sql`ALTER TABLE notes ADD COLUMN body text DEFAULT 'hallo'`.execute(db);
  await expect(read()).rejects.toMatchObject({ code: '0A000' });
  expect((await read()).rows).toEqual([{ id: 1, body: 'hallo' }]);
  expect((await read()).rows).toEqual([{ id: 1, body: 'hallo' }]);
});

test(`at most ${MAX_NAMED_STATEMENTS} named statements per connection; later queries still answer, unnamed`, async () => {
  const db = open();
  for (let i = 0; i < MAX_NAMED_STATEMENTS + 5; i++) {
    expect((await sql<{ n: number }>`SELECT ${i}::int + ${sql.raw(String(i))} AS n`.execute(db)).rows).toEqual([{ n: 2 * i }]);
  }
  expect(await held(db)).toHaveLength(MAX_NAMED_STATEMENTS);
});
