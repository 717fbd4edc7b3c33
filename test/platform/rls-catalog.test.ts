import { randomUUID } from 'node:crypto';
import { Pool, PoolClient } from 'pg';
import { HARDENING_SQL } from '../../db/migrations/0017_surface_hardening';
import { testEnv } from '../helpers/tokens';

/**
 * Tenancy is enforced by PostgreSQL: this walks the catalog so a new table cannot forget it, states
 * the exact policies and grants, and checks what the policies do, as the API role, with the
 * application's checks out of the way.
 */
let owner: Pool;
let api: Pool;
let worker: Pool;
beforeAll(() => {
  owner = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 1 });
  api = new Pool({ connectionString: testEnv('TEST_APP_DB_URL'), max: 2 });
  worker = new Pool({ connectionString: testEnv('TEST_WORKER_DB_URL'), max: 1 });
});
afterAll(async () => {
  await owner.end();
  await api.end();
  await worker.end();
});

// The policy expressions as PostgreSQL prints them: membership is one InitPlan per statement.
const READ = (col = 'organization_id') => `(${col} = ANY (( SELECT app.visible_organization_ids() AS visible_organization_ids)::uuid[]))`;
const WRITE = (role: 'member' | 'admin', col = 'organization_id') =>
  `(${col} = ANY (( SELECT app.writable_organization_ids('${role}'::text) AS writable_organization_ids)::uuid[]))`;
const select = (using: string) => `SELECT using ${using}`;
const insert = (check: string) => `INSERT check ${check}`;
const update = (p: string) => `UPDATE using ${p} check ${p}`;
const del = (using: string) => `DELETE using ${using}`;
const memberWrites = [select(READ()), insert(WRITE('member')), update(WRITE('member')), del(WRITE('member'))];

/** Every table with organization_id gets memberWrites unless it is listed here. */
const EXPECTED_POLICIES: Record<string, string[]> = {
  organizations: [select(READ('id')), update(WRITE('admin', 'id'))],
  memberships: [
    select(`((user_id = ( SELECT app.current_user_id() AS current_user_id)) OR ${READ()})`),
    insert(WRITE('admin')),
    update(WRITE('admin')),
    del(WRITE('admin')),
  ],
  compliance_settings: [select(READ()), insert(WRITE('admin')), update(WRITE('admin')), del(WRITE('admin'))],
  suppressions: [select(READ()), insert(WRITE('member')), del(WRITE('admin'))],
  compliance_audit_log: [select(READ()), insert(WRITE('member'))],
  webhook_endpoints: [select(READ()), insert(WRITE('admin')), update(WRITE('admin')), del(WRITE('admin'))],
  api_keys: [select(READ()), insert(WRITE('admin')), update(WRITE('admin')), del(WRITE('admin'))],
  domains: [select(READ()), insert(WRITE('admin')), update(WRITE('admin')), del(WRITE('admin'))],
  // The order of the enrichment providers is a setting (PATCH /settings/enrichment, admin).
  enrichment_order: [select(READ()), insert(WRITE('admin')), update(WRITE('admin')), del(WRITE('admin'))],
  // A kept answer to an Idempotency-Key belongs to its caller (a person or an API key), not to an organization.
  idempotency_keys: ['SELECT', 'INSERT', 'UPDATE', 'DELETE'].map((cmd) => {
    const own = '(user_id = ( SELECT app.current_user_id() AS current_user_id))';
    return cmd === 'INSERT' ? `INSERT check ${own}` : cmd === 'UPDATE' ? `UPDATE using ${own} check ${own}` : `${cmd} using ${own}`;
  }),
};

/**
 * Tenant tables are found by what PostgreSQL enforces, not by a column name: every table with row-level
 * security or a policy, plus every table with organization_id (which must then have them). A table that
 * has neither must be listed in NOT_TENANT_TABLES, so a new tenant table without organization_id cannot
 * slip past the checks below by leaving RLS off.
 */
// rate_limits (0021): the shared request counters, keyed by user, organization or client address across
// tenants by design (rate-limiter-flexible's store); it holds counts, no tenant data.
const NOT_TENANT_TABLES = ['kysely_migration', 'kysely_migration_lock', 'rate_limits'];

async function tenantTables(): Promise<Array<{ table: string; enabled: boolean; forced: boolean }>> {
  const { rows } = await owner.query(`
    SELECT c.relname AS table, c.relrowsecurity AS enabled, c.relforcerowsecurity AS forced
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
       AND (c.relrowsecurity OR c.relforcerowsecurity
            OR EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = c.oid)
            OR EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'organization_id' AND NOT a.attisdropped))
     ORDER BY 1`);
  return rows;
}

test('every table is a tenant table (found by its RLS flag, policies or organization_id) or listed as not one', async () => {
  const tenant = new Set((await tenantTables()).map((t) => t.table));
  const { rows } = await owner.query(`
    SELECT c.relname AS table FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY 1`);
  expect(rows.map((r) => r.table).filter((t: string) => !tenant.has(t))).toEqual(NOT_TENANT_TABLES);
});

async function policiesByTable(): Promise<Map<string, Array<{ name: string; text: string; permissive: boolean }>>> {
  const { rows } = await owner.query(`
    SELECT c.relname AS table, p.polname AS name, p.polpermissive AS permissive,
           CASE p.polcmd WHEN 'r' THEN 'SELECT' WHEN 'a' THEN 'INSERT' WHEN 'w' THEN 'UPDATE' WHEN 'd' THEN 'DELETE' ELSE 'ALL' END AS cmd,
           pg_get_expr(p.polqual, p.polrelid) AS using, pg_get_expr(p.polwithcheck, p.polrelid) AS check
      FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public'`);
  const map = new Map<string, Array<{ name: string; text: string; permissive: boolean }>>();
  for (const r of rows) {
    const text = [r.cmd, r.using !== null ? `using ${r.using}` : null, r.check !== null ? `check ${r.check}` : null].filter(Boolean).join(' ');
    map.set(r.table, [...(map.get(r.table) ?? []), { name: r.name, text, permissive: r.permissive }]);
  }
  return map;
}

test('every tenant table has row-level security enabled and forced', async () => {
  const tables = await tenantTables();
  expect(tables.length).toBeGreaterThanOrEqual(31);
  expect(tables.filter((t) => !t.enabled || !t.forced).map((t) => t.table)).toEqual([]);
});

test('every tenant table has exactly its read, insert, update and delete policies, with the organization predicate', async () => {
  const policies = await policiesByTable();
  const mismatches: unknown[] = [];
  for (const { table } of await tenantTables()) {
    const actual = (policies.get(table) ?? []).map((p) => p.text).sort();
    const expected = [...(EXPECTED_POLICIES[table] ?? memberWrites)].sort();
    if (JSON.stringify(actual) !== JSON.stringify(expected)) mismatches.push({ table, actual, expected });
  }
  expect(mismatches).toEqual([]);
  const all = [...policies.values()].flat();
  expect(all.filter((p) => !p.permissive || p.text.startsWith('ALL')).map((p) => p.name)).toEqual([]);
});

test('no policy calls a function per row: every call is an uncorrelated sub-select (one InitPlan per statement)', async () => {
  const perRow = [...(await policiesByTable()).entries()].flatMap(([table, ps]) =>
    ps
      .map((p) => ({ table, name: p.name, rest: p.text.replace(/\( SELECT app\.\w+\([^()]*\) AS \w+\)/g, '<initplan>') }))
      .filter((p) => /[A-Za-z_][\w.]*\(/.test(p.rest)),
  );
  expect(perRow).toEqual([]);
});

describe('schemas and SECURITY DEFINER functions', () => {
  // Definer functions that any role may execute (none: each migration grants them to the roles that need them).
  const PUBLIC_DEFINER_FUNCTIONS: string[] = [];

  test('no role but the owner may create objects in schema public (REVOKE CREATE ... FROM PUBLIC, migration 0017)', async () => {
    const { rows } = await owner.query(`
      SELECT r.rolname AS role, has_schema_privilege(r.rolname, 'public', 'CREATE') AS can_create
        FROM pg_roles r WHERE r.rolname IN ('outreach_app', 'outreach_api', 'outreach_worker') ORDER BY 1`);
    expect(rows).toEqual([
      { role: 'outreach_api', can_create: false },
      { role: 'outreach_app', can_create: false },
      { role: 'outreach_worker', can_create: false },
    ]);
    const acl = await owner.query(`
      SELECT count(*)::int AS n FROM pg_namespace ns, aclexplode(coalesce(ns.nspacl, acldefault('n', ns.nspowner))) a
       WHERE ns.nspname = 'public' AND a.grantee = 0 AND a.privilege_type = 'CREATE'`);
    expect(acl.rows[0].n).toBe(0);
    // And as the API role itself: creating a function (or operator) in public is refused.
    await expect(api.query(`CREATE FUNCTION public.planted() RETURNS int LANGUAGE sql AS 'SELECT 1'`)).rejects.toMatchObject({ code: '42501' });
  });

  test('on a cluster set up the pre-15 way (public writable by PUBLIC, definer functions executable by PUBLIC), 0017 closes both', async () => {
    const client = await owner.connect();
    const state = async () =>
      (
        await client.query(`
        SELECT has_schema_privilege('outreach_api', 'public', 'CREATE') AS api_creates,
               EXISTS (SELECT 1 FROM pg_proc p, aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a
                        WHERE p.oid = 'app.is_member(uuid)'::regprocedure AND a.grantee = 0 AND a.privilege_type = 'EXECUTE') AS public_executes`)
      ).rows[0];
    try {
      await client.query('BEGIN');
      await client.query('GRANT CREATE ON SCHEMA public TO PUBLIC; GRANT EXECUTE ON FUNCTION app.is_member(uuid) TO PUBLIC');
      expect(await state()).toEqual({ api_creates: true, public_executes: true });
      await client.query(HARDENING_SQL);
      expect(await state()).toEqual({ api_creates: false, public_executes: false });
      // The application roles keep what the policies need.
      expect((await client.query(`SELECT has_function_privilege('outreach_api', 'app.is_member(uuid)', 'EXECUTE') AS api`)).rows[0]).toEqual({ api: true });
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  test('every SECURITY DEFINER function in app pins its search_path and is not executable by PUBLIC unless listed', async () => {
    const { rows } = await owner.query(`
      SELECT p.oid::regprocedure::text AS fn,
             coalesce(array_to_string(p.proconfig, ','), '') LIKE '%search_path=%' AS pinned,
             EXISTS (SELECT 1 FROM aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a WHERE a.grantee = 0 AND a.privilege_type = 'EXECUTE') AS public_execute
        FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = 'app' AND p.prosecdef ORDER BY 1`);
    expect(rows.length).toBeGreaterThanOrEqual(1);
    expect(rows.filter((r) => !r.pinned).map((r) => r.fn)).toEqual([]);
    expect(rows.filter((r) => r.public_execute).map((r) => r.fn)).toEqual(PUBLIC_DEFINER_FUNCTIONS);
  });
});

describe('roles', () => {
  test('outreach_api and outreach_worker log in without BYPASSRLS; outreach_app is a group role that cannot log in', async () => {
    const { rows } = await owner.query(`
      SELECT rolname, rolcanlogin, rolsuper, rolbypassrls, rolcreatedb, rolcreaterole, rolinherit,
             pg_has_role(rolname, 'outreach_app', 'USAGE') AS inherits_app,
             pg_has_role(rolname, 'outreach_worker', 'MEMBER') AS is_worker
        FROM pg_roles WHERE rolname IN ('outreach_app', 'outreach_api', 'outreach_worker') ORDER BY rolname`);
    const base = { rolsuper: false, rolbypassrls: false, rolcreatedb: false, rolcreaterole: false, rolinherit: true, inherits_app: true };
    expect(rows).toEqual([
      { rolname: 'outreach_api', rolcanlogin: true, ...base, is_worker: false },
      { rolname: 'outreach_app', rolcanlogin: false, ...base, is_worker: false },
      { rolname: 'outreach_worker', rolcanlogin: true, ...base, is_worker: true },
    ]);
  });

  test('the application roles own nothing in the database', async () => {
    const { rows } = await owner.query(`
      SELECT 'relation ' || relname AS object FROM pg_class WHERE pg_get_userbyid(relowner) LIKE 'outreach\\_%'
      UNION ALL SELECT 'function ' || proname FROM pg_proc WHERE pg_get_userbyid(proowner) LIKE 'outreach\\_%'
      UNION ALL SELECT 'schema ' || nspname FROM pg_namespace WHERE pg_get_userbyid(nspowner) LIKE 'outreach\\_%'`);
    expect(rows).toEqual([]);
  });

  test('each login role holds exactly the expected table privileges', async () => {
    const privileges = ['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER'];
    const { rows } = await owner.query(
      `SELECT r.rolname AS role, c.relname AS table,
              array(SELECT p FROM unnest($1::text[]) p WHERE has_table_privilege(r.rolname, c.oid, p)) AS granted
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace, pg_roles r
        WHERE n.nspname = 'public' AND c.relkind = 'r' AND r.rolname IN ('outreach_api', 'outreach_worker')`,
      [privileges],
    );
    const expectedFor = (table: string): string[] => {
      if (table.startsWith('kysely_')) return []; // the migrator's bookkeeping
      if (table === 'compliance_audit_log') return ['SELECT', 'INSERT']; // append-only
      if (table === 'organizations') return ['SELECT', 'UPDATE']; // created only by app.create_organization
      return ['SELECT', 'INSERT', 'UPDATE', 'DELETE'];
    };
    expect(rows.length).toBeGreaterThanOrEqual(64);
    const wrong = rows.filter((r) => JSON.stringify(r.granted) !== JSON.stringify(expectedFor(r.table)));
    expect(wrong).toEqual([]);
  });

  test('tables and functions that later migrations create are granted to the application roles by default', async () => {
    const client = await owner.connect();
    try {
      await client.query('BEGIN');
      await client.query('CREATE TABLE later_table (id int)');
      await client.query('CREATE FUNCTION app.later_function() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$');
      const { rows } = await client.query(`
        SELECT r.rolname AS role,
               has_table_privilege(r.rolname, 'later_table', 'SELECT, INSERT, UPDATE, DELETE') AS table_dml,
               has_table_privilege(r.rolname, 'later_table', 'TRUNCATE') AS table_truncate,
               has_function_privilege(r.rolname, 'app.later_function()', 'EXECUTE') AS execute,
               has_schema_privilege(r.rolname, 'app', 'USAGE') AS app_schema
          FROM pg_roles r WHERE r.rolname IN ('outreach_api', 'outreach_worker') ORDER BY 1`);
      expect(rows).toEqual([
        { role: 'outreach_api', table_dml: true, table_truncate: false, execute: true, app_schema: true },
        { role: 'outreach_worker', table_dml: true, table_truncate: false, execute: true, app_schema: true },
      ]);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });
});

// ---- What the policies do, as the API role (the application's own role checks are not involved).

async function inTx<T>(pool: Pool, settings: Record<string, string>, fn: (c: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    for (const [k, v] of Object.entries(settings)) await client.query('SELECT set_config($1, $2, true)', [k, v]);
    return await fn(client);
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}
const asUser = <T>(userId: string, fn: (c: PoolClient) => Promise<T>) => inTx(api, { 'app.user_id': userId }, fn);

describe('policy semantics', () => {
  const org = randomUUID();
  const other = randomUUID();
  type Role = 'owner' | 'admin' | 'member' | 'viewer' | 'outsider';
  const users: Record<Role, string> = { owner: randomUUID(), admin: randomUUID(), member: randomUUID(), viewer: randomUUID(), outsider: randomUUID() };
  const sourceId = randomUUID();
  const suppressionId = randomUUID();

  beforeAll(async () => {
    await owner.query(`INSERT INTO organizations (id, name, created_by) VALUES ($1, 'Policy org', $2), ($3, 'Other org', $4)`, [
      org,
      users.owner,
      other,
      users.outsider,
    ]);
    for (const role of ['owner', 'admin', 'member', 'viewer'] as const) {
      await owner.query('INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, $3)', [org, users[role], role]);
    }
    await owner.query(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'owner')`, [other, users.outsider]);
    await owner.query(`INSERT INTO sources (id, organization_id, provider_key, name) VALUES ($1, $2, 'rss', 's')`, [sourceId, org]);
    await owner.query(`INSERT INTO compliance_settings (organization_id) VALUES ($1)`, [org]);
    await owner.query(`INSERT INTO suppressions (id, organization_id, scope, value) VALUES ($1, $2, 'email', 'x@example.org')`, [suppressionId, org]);
    await owner.query(`INSERT INTO compliance_audit_log (organization_id, entity, action) VALUES ($1, 'test', 'created')`, [org]);
  });

  const count = (c: PoolClient, sql: string, params: unknown[] = []) => c.query(sql, params).then((r) => r.rowCount);
  const refused = (c: PoolClient, sql: string, params: unknown[] = []) =>
    c.query('SAVEPOINT s').then(() =>
      c.query(sql, params).then(
        () => c.query('RELEASE SAVEPOINT s').then(() => 'allowed'),
        (e: { code?: string }) => c.query('ROLLBACK TO SAVEPOINT s').then(() => (e.code === '42501' ? 'refused' : `error ${e.code}`)),
      ),
    );

  // [what, the lowest role allowed, the attempt: rows it touched, or whether the statement was allowed]
  const cases: Array<[string, Role, (c: PoolClient) => Promise<number | string | null>]> = [
    ['read sources', 'viewer', (c) => count(c, 'SELECT 1 FROM sources WHERE organization_id = $1', [org])],
    ['read compliance settings', 'viewer', (c) => count(c, 'SELECT 1 FROM compliance_settings WHERE organization_id = $1', [org])],
    ['read the audit log', 'viewer', (c) => count(c, 'SELECT 1 FROM compliance_audit_log WHERE organization_id = $1', [org])],
    ['insert a source', 'member', (c) => refused(c, `INSERT INTO sources (organization_id, provider_key, name) VALUES ($1, 'rss', 'n')`, [org])],
    ['update a source', 'member', (c) => count(c, `UPDATE sources SET name = 'u' WHERE id = $1`, [sourceId])],
    ['delete a source', 'member', (c) => count(c, 'DELETE FROM sources WHERE id = $1', [sourceId])],
    ['add a suppression', 'member', (c) => refused(c, `INSERT INTO suppressions (organization_id, scope, value) VALUES ($1, 'domain', 'y.example')`, [org])],
    ['remove a suppression', 'admin', (c) => count(c, 'DELETE FROM suppressions WHERE id = $1', [suppressionId])],
    ['write the audit log', 'member', (c) => refused(c, `INSERT INTO compliance_audit_log (organization_id, entity, action) VALUES ($1, 't', 'a')`, [org])],
    ['change compliance settings', 'admin', (c) => count(c, 'UPDATE compliance_settings SET retention_months = 12 WHERE organization_id = $1', [org])],
    ['delete compliance settings', 'admin', (c) => count(c, 'DELETE FROM compliance_settings WHERE organization_id = $1', [org])],
    ['rename the organization', 'admin', (c) => count(c, `UPDATE organizations SET name = 'n' WHERE id = $1`, [org])],
    ['add a member', 'admin', (c) => refused(c, `INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, gen_random_uuid(), 'viewer')`, [org])],
    ['change a member', 'admin', (c) => count(c, `UPDATE memberships SET role = 'member' WHERE organization_id = $1 AND user_id = $2`, [org, users.viewer])],
  ];
  const ranks: Role[] = ['outsider', 'viewer', 'member', 'admin', 'owner'];

  test.each(cases)('%s needs the %s role', async (_what, minRole, attempt) => {
    const outcomes: Record<string, unknown> = {};
    for (const who of ranks) outcomes[who] = await asUser(users[who], attempt);
    const counted = typeof outcomes.owner === 'number';
    const expected = Object.fromEntries(
      ranks.map((who) => [who, ranks.indexOf(who) >= ranks.indexOf(minRole) ? (counted ? 1 : 'allowed') : counted ? 0 : 'refused']),
    );
    expect(outcomes).toEqual(expected);
  });

  test('the audit log cannot be changed or emptied, whatever the role', async () => {
    await expect(asUser(users.owner, (c) => c.query(`UPDATE compliance_audit_log SET action = 'x' WHERE organization_id = $1`, [org]))).rejects.toMatchObject({
      code: '42501',
    });
    await expect(asUser(users.owner, (c) => c.query('DELETE FROM compliance_audit_log WHERE organization_id = $1', [org]))).rejects.toMatchObject({
      code: '42501',
    });
  });

  test('without a caller the API role sees no tenant rows, although they exist', async () => {
    const total = await owner.query('SELECT count(*)::int AS n FROM sources WHERE organization_id = $1', [org]);
    expect(total.rows[0].n).toBe(1);
    const seen = await inTx(api, {}, async (c) => [
      (await c.query('SELECT count(*)::int AS n FROM organizations')).rows[0].n,
      (await c.query('SELECT count(*)::int AS n FROM sources')).rows[0].n,
    ]);
    expect(seen).toEqual([0, 0]);
  });

  test('the API role cannot act for an organization: app.organization_id shows it nothing and lets it write nothing', async () => {
    const seen = await inTx(api, { 'app.organization_id': org }, async (c) => ({
      current_org: (await c.query('SELECT app.current_org_id() AS id')).rows[0].id,
      organizations: (await c.query('SELECT count(*)::int AS n FROM organizations')).rows[0].n,
      sources: (await c.query('SELECT count(*)::int AS n FROM sources')).rows[0].n,
      updated: await count(c, `UPDATE sources SET name = 'taken' WHERE id = $1`, [sourceId]),
      insert: await refused(c, `INSERT INTO sources (organization_id, provider_key, name) VALUES ($1, 'rss', 'n')`, [org]),
    }));
    expect(seen).toEqual({ current_org: null, organizations: 0, sources: 0, updated: 0, insert: 'refused' });
    // Nor does it add to a user's own rights: the outsider still sees only their organization.
    const outsider = await inTx(api, { 'app.user_id': users.outsider, 'app.organization_id': org }, async (c) =>
      (await c.query('SELECT id FROM organizations')).rows.map((r) => r.id),
    );
    expect(outsider).toEqual([other]);
  });

  test('the worker role acts for exactly the organization it names', async () => {
    const seen = await inTx(worker, { 'app.organization_id': org }, async (c) => ({
      organizations: (await c.query('SELECT id FROM organizations')).rows.map((r) => r.id),
      sources: (await c.query('SELECT count(*)::int AS n FROM sources')).rows[0].n,
      updated: await count(c, `UPDATE sources SET name = 'renamed' WHERE id = $1`, [sourceId]),
      otherOrg: await refused(c, `INSERT INTO sources (organization_id, provider_key, name) VALUES ($1, 'rss', 'n')`, [other]),
    }));
    expect(seen).toEqual({ organizations: [org], sources: 1, updated: 1, otherOrg: 'refused' });
  });

  test('title and name search can use the trigram indexes as the API role', async () => {
    // Under row-level security only LEAKPROOF operators may be evaluated before the policy, so an
    // index serves LIKE/ILIKE only when the migration marked them so.
    const leakproof = await owner.query(`SELECT proname, proleakproof FROM pg_proc WHERE proname IN ('textlike', 'texticlike') ORDER BY 1`);
    expect(leakproof.rows).toEqual([
      { proname: 'texticlike', proleakproof: true },
      { proname: 'textlike', proleakproof: true },
    ]);
    await owner.query(
      // Seeded as processed ('ignored', processed_at set): left 'ingested' they would be 20,000 stuck signals
      // in the shared database, filling app.stuck_signals' 10,000-row page for every later test file.
      `INSERT INTO signals (organization_id, source_id, external_id, title, dedupe_key, status, processed_at)
       SELECT $1, $2, 'plan-' || i, 'Omgevingsvergunning kavel ' || i, 'plan-' || i, 'ignored', now() FROM generate_series(1, 20000) i`,
      [org, sourceId],
    );
    await owner.query(
      `INSERT INTO companies (organization_id, name, normalized_name) SELECT $1, 'Bedrijf ' || md5(i::text), 'bedrijf ' || md5(i::text) FROM generate_series(1, 3000) i`,
      [org],
    );
    // Enough rows that this organization dominates the statistics whatever other test files left in the
    // shared database (with 3,000 the planner once estimated 702 rows and preferred the organization index).
    await owner.query('VACUUM ANALYZE signals, companies'); // moves the new rows out of the GIN pending lists
    const plans = await asUser(users.viewer, async (c) => {
      await c.query('SET LOCAL enable_seqscan = off');
      const plan = async (sql: string) => (await c.query(`EXPLAIN ${sql}`, [org])).rows.map((r) => r['QUERY PLAN']).join('\n');
      return {
        signals: await plan(
          `SELECT id FROM signals WHERE organization_id = $1 AND title_folded LIKE '%warmtepomp%' ORDER BY created_at DESC, id DESC LIMIT 50`,
        ),
        companies: await plan(
          `SELECT id FROM companies WHERE organization_id = $1 AND normalized_name LIKE '%abcdef%' ORDER BY created_at DESC, id DESC LIMIT 50`,
        ),
      };
    });
    expect(plans.signals).toContain('signals_title_folded_trgm_idx');
    expect(plans.companies).toContain('companies_normalized_name_trgm_idx');
  });
});
