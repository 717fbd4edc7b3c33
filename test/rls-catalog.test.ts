import { Pool } from 'pg';
import { testEnv } from './helpers/tokens';

/** Tenancy is enforced by PostgreSQL: this walks the catalog so a new table cannot forget it. */
let owner: Pool;
let app: Pool;
beforeAll(() => {
  owner = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 1 });
  app = new Pool({ connectionString: testEnv('TEST_APP_DB_URL'), max: 1 });
});
afterAll(async () => {
  await owner.end();
  await app.end();
});

test('every table with organization_id has row-level security enabled, forced, and a policy', async () => {
  const { rows } = await owner.query(`
    SELECT c.relname AS table, c.relrowsecurity AS enabled, c.relforcerowsecurity AS forced,
           (SELECT count(*) FROM pg_policy p WHERE p.polrelid = c.oid)::int AS policies
      FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind = 'r'
       AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'organization_id' AND NOT a.attisdropped)
     ORDER BY 1`);
  expect(rows.length).toBeGreaterThanOrEqual(25);
  const offenders = rows.filter((r) => !r.enabled || !r.forced || r.policies === 0).map((r) => r.table);
  expect(offenders).toEqual([]);
});

test('the app role cannot bypass row-level security and owns no table', async () => {
  const { rows } = await app.query(`SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user`);
  expect(rows[0]).toEqual({ rolsuper: false, rolbypassrls: false });
  const owned = await app.query(`SELECT count(*)::int AS n FROM pg_tables WHERE tableowner = current_user`);
  expect(owned.rows[0].n).toBe(0);
});

test('without a caller the app role sees no tenant rows, even though they exist', async () => {
  const total = await owner.query('SELECT count(*)::int AS n FROM organizations');
  const seen = await app.query('SELECT count(*)::int AS n FROM organizations');
  const seenSources = await app.query('SELECT count(*)::int AS n FROM sources');
  expect(seen.rows[0].n).toBe(0);
  expect(seenSources.rows[0].n).toBe(0);
  expect(total.rows[0].n).toBeGreaterThanOrEqual(0);
});

test('a user cannot insert rows into an organization they do not belong to', async () => {
  const client = await app.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SELECT set_config('app.user_id', '11111111-1111-4111-8111-111111111111', true)`);
    const org = await owner.query(`INSERT INTO organizations (name, created_by) VALUES ('Other', gen_random_uuid()) RETURNING id`);
    await expect(
      client.query(`INSERT INTO sources (organization_id, provider_key, name) VALUES ($1, 'rss', 'x')`, [org.rows[0].id]),
    ).rejects.toMatchObject({ code: '42501' });
    await client.query('ROLLBACK');
  } finally {
    client.release();
  }
});

test('the compliance audit log is append-only for the app role', async () => {
  const { rows } = await owner.query(
    `SELECT privilege_type FROM information_schema.role_table_grants WHERE grantee = 'outreach_app' AND table_name = 'compliance_audit_log'`,
  );
  expect(rows.map((r) => r.privilege_type).sort()).toEqual(expect.not.arrayContaining(['DELETE', 'UPDATE']));
  expect(rows.map((r) => r.privilege_type)).toEqual(expect.arrayContaining(['INSERT', 'SELECT']));
});
