import { readdirSync } from 'node:fs';
import path from 'node:path';
import { Pool } from 'pg';
import { dropDatabase, ensureDatabase, migrate } from '../../db/migrator';
import { testEnv } from '../helpers/tokens';

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
    // Every file in db/migrations, in name order.
    const names = readdirSync(path.join(__dirname, '../../db/migrations'))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => f.replace(/\.ts$/, ''))
      .sort();
    expect(names.slice(0, 3)).toEqual(['0001_foundation', '0002_companies_compliance', '0003_tenancy']);
    const up = await migrate(scratch);
    expect(up.results?.map((r) => [r.migrationName, r.direction, r.status])).toEqual(names.map((n) => [n, 'Up', 'Success']));
    expect(await tables()).toBeGreaterThanOrEqual(30);
    expect((await migrate(scratch)).results).toEqual([]); // idempotent

    // One step down at a time, newest first.
    for (const name of [...names].reverse()) {
      const down = await migrate(scratch, { direction: 'down' });
      expect(down.results?.map((r) => [r.migrationName, r.direction, r.status])).toEqual([[name, 'Down', 'Success']]);
    }
    expect(await tables()).toBe(0);

    await migrate(scratch);
    expect(await tables()).toBeGreaterThanOrEqual(30);
  } finally {
    await pool.end();
    await dropDatabase(scratch);
  }
});
