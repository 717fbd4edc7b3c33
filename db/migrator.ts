import path from 'node:path';
import { promises as fs } from 'node:fs';
import { FileMigrationProvider, Kysely, Migrator, MigrationResultSet, PostgresDialect, sql } from 'kysely';
import { Pool } from 'pg';
import { API_DB_ROLE, WORKER_DB_ROLE } from './roles';

/**
 * Applies db/migrations with Kysely's Migrator, as the owner (DATABASE_URL). The owner must be a
 * superuser or have BYPASSRLS: the SECURITY DEFINER helpers of the RLS policies read memberships
 * as the owner, and forced RLS would otherwise hide them.
 */
export async function migrate(
  ownerUrl: string,
  opts: {
    direction?: 'latest' | 'down';
    /** Password for both login roles (outreach_api, outreach_worker); apiPassword/workerPassword override it. */
    appPassword?: string;
    apiPassword?: string;
    workerPassword?: string;
  } = {},
): Promise<MigrationResultSet> {
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new Pool({ connectionString: ownerUrl, max: 1 }) }) });
  try {
    const owner = await sql<{ ok: boolean }>`
      SELECT (rolsuper OR rolbypassrls) AS ok FROM pg_roles WHERE rolname = current_user`.execute(db);
    if (!owner.rows[0]?.ok) {
      throw new Error('Migrations must run as a superuser or a role with BYPASSRLS (see docs/architecture.md, "Database roles and tenancy")');
    }
    const migrator = new Migrator({
      db,
      provider: new FileMigrationProvider({ fs, path, migrationFolder: path.join(__dirname, 'migrations') }),
    });
    const result = opts.direction === 'down' ? await migrator.migrateDown() : await migrator.migrateToLatest();
    if (result.error) throw result.error;
    if (opts.direction !== 'down') {
      // Passwords are configuration, not schema: set here rather than in a migration.
      for (const [role, password] of [
        [API_DB_ROLE, opts.apiPassword ?? opts.appPassword],
        [WORKER_DB_ROLE, opts.workerPassword ?? opts.appPassword],
      ] as const) {
        if (password !== undefined) await sql`ALTER ROLE ${sql.id(role)} PASSWORD ${sql.lit(password)}`.execute(db);
      }
    }
    return result;
  } finally {
    await db.destroy();
  }
}

/** Creates a database (for the test run or the first dev start) when it does not exist. */
export async function ensureDatabase(ownerUrl: string): Promise<void> {
  const url = new URL(ownerUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, '')) || 'postgres';
  url.pathname = '/postgres';
  const pool = new Pool({ connectionString: url.toString(), max: 1 });
  try {
    const exists = await pool.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) await pool.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } finally {
    await pool.end();
  }
}

export async function dropDatabase(ownerUrl: string): Promise<void> {
  const url = new URL(ownerUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  url.pathname = '/postgres';
  const pool = new Pool({ connectionString: url.toString(), max: 1 });
  try {
    await pool.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`);
  } finally {
    await pool.end();
  }
}
