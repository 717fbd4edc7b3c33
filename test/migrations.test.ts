import { Pool } from 'pg';
import { dropDatabase, ensureDatabase, migrate } from '../db/migrator';
import { testEnv } from './helpers/tokens';

/** Migrations go up, down and up again on a scratch database of the run's server. */
test('migrations apply, roll back to an empty schema, and re-apply', async () => {
  const url = new URL(testEnv('TEST_OWNER_DB_URL'));
  url.pathname = `${url.pathname}_migrations`;
  const scratch = url.toString();
  await ensureDatabase(scratch);
  const pool = new Pool({ connectionString: scratch, max: 1 });
  const tables = async () =>
    (await pool.query(`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public' AND tablename NOT LIKE 'kysely_%'`)).rows[0].n;
  try {
    const up = await migrate(scratch);
    expect(up.results?.map((r) => [r.migrationName, r.direction, r.status])).toEqual([
      ['0001_foundation', 'Up', 'Success'],
      ['0002_companies_compliance', 'Up', 'Success'],
    ]);
    expect(await tables()).toBeGreaterThanOrEqual(30);
    expect((await migrate(scratch)).results).toEqual([]); // idempotent

    // One step down at a time, newest first.
    const second = await migrate(scratch, { direction: 'down' });
    expect(second.results?.map((r) => [r.migrationName, r.direction])).toEqual([['0002_companies_compliance', 'Down']]);
    const first = await migrate(scratch, { direction: 'down' });
    expect(first.results?.map((r) => [r.migrationName, r.direction])).toEqual([['0001_foundation', 'Down']]);
    expect(await tables()).toBe(0);

    await migrate(scratch);
    expect(await tables()).toBeGreaterThanOrEqual(30);
  } finally {
    await pool.end();
    await dropDatabase(scratch);
  }
});
