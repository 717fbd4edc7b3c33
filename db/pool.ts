import { Kysely, PostgresDialect } from 'kysely';
import { Pool, PoolClient, types } from 'pg';
import type { DB as Database } from './database';
import { deferOpenings, type StatementNames } from './deferred-opening';

// numeric (scores, amounts) as JS numbers rather than strings; values stay far below 2^53.
types.setTypeParser(types.builtins.NUMERIC, (v) => (v === null ? null : Number(v)));
types.setTypeParser(types.builtins.INT8, (v) => (v === null ? null : Number(v)));

export type DB = Kysely<Database>;

const pools = new WeakMap<DB, Pool>();
/** The DBs whose connections keep prepared statements across transactions (namedStatements, not off). */
const keepsStatements = new WeakSet<DB>();

export interface DbOptions {
  /** Parse each query once per connection and keep it as a named statement (default true; namedStatements below). */
  namedStatements?: boolean;
  /** How long a query or transaction waits for a pooled connection before it fails (default CONNECTION_TIMEOUT_MS). */
  connectionTimeoutMs?: number;
}

/**
 * A caller waits at most this long for a free connection, then fails (and its request or activity is
 * answered or retried) instead of waiting for ever behind connections that are stuck.
 */
export const CONNECTION_TIMEOUT_MS = 30_000;

export function createDb(connectionString: string, max = 10, opts: DbOptions = {}): DB {
  const pool = new Pool({ connectionString, max, application_name: 'outreach', connectionTimeoutMillis: opts.connectionTimeoutMs ?? CONNECTION_TIMEOUT_MS });
  // An idle connection cut by the server (a PostgreSQL restart or failover) is an 'error' event on the
  // pool; unhandled, it would end the process. The pool drops that connection and the next query opens a new one.
  pool.on('error', () => undefined);
  // A connection checked out (a query or a transaction under way) has no pool listener: the server
  // cutting it emits 'error' on the client itself, which unhandled would end the process too. The query
  // fails (and is retried by its activity); the pool then drops the broken connection.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
    const named = (opts.namedStatements ?? true) ? nameStatements(client) : undefined;
    deferOpenings(client, named ?? { nameOf: () => 'inline', failed: () => undefined });
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  pools.set(db, pool);
  if (opts.namedStatements ?? true) keepsStatements.add(db);
  return db;
}

/**
 * Whether the DB's connections may keep prepared statements (PREPARE, named statements): not behind a
 * pooler that hands a transaction any server connection (DB_NAMED_STATEMENTS=false).
 */
export function keepsPreparedStatements(db: DB): boolean {
  return keepsStatements.has(db);
}

/** The pg Pool behind a DB made by createDb (its use is exported as metrics). */
export function poolOf(db: DB): Pool | undefined {
  return pools.get(db);
}

/** At most this many named statements per connection; later queries go unnamed, as before. */
export const MAX_NAMED_STATEMENTS = 200;
/** The prefix of the statements nameStatements makes (db/tenancy.ts's PREPAREd list statements have their own). */
export const NAMED_STATEMENT_PREFIX = 'q_';

/**
 * Named statements: each pooled connection parses a query's SQL once and keeps it under a name of its
 * own (pg sends Parse the first time, then only Bind and Execute), and PostgreSQL keeps its plan,
 * planning anew only while a custom plan looks cheaper than the generic one (plan_cache_mode auto:
 * the first five runs, and whenever the parameters make a difference). Kysely sends every query as
 * SQL text with parameters; before this PostgreSQL parsed and planned every one, row-level security's
 * policies included, which was most of its CPU in the signal pipeline (bench/pipeline.ts: 9.5-10.6
 * signals a second before, 10.3-11.8 after). asyncpg and JDBC do the same by default.
 *
 * Left unnamed: a query without parameters (a simple-protocol string: BEGIN and the settings, the list
 * reads of db/tenancy.ts, which PREPARE their own), one with ON CONFLICT (PostgreSQL infers the arbiter
 * index when it plans, and a partial unique index's predicate cannot be matched against a parameter
 * it does not know: "there is no unique or exclusion constraint matching the ON CONFLICT
 * specification"), and any past MAX_NAMED_STATEMENTS. A statement whose result columns changed under
 * it (a migration adding a column to a `select *`: "cached plan must not change result type") fails
 * once and is named afresh for the next run, which the activity's retry or the next request makes.
 * Needs connections kept per session (PgBouncer in transaction mode before 1.21 does not): set
 * DB_NAMED_STATEMENTS=false there.
 */
function nameStatements(client: PoolClient): StatementNames {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const names = new Map<string, string>();
  let made = 0;
  const parsed = (client as unknown as { connection: { parsedStatements: Record<string, string> } }).connection.parsedStatements;
  const forget = (text: string, err: unknown) => {
    if ((err as { code?: string } | null)?.code === '0A000') names.delete(text);
  };
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (config: unknown, values?: unknown, callback?: unknown) => {
    if (typeof config !== 'string' || !Array.isArray(values) || values.length === 0 || /\bon\s+conflict\b/i.test(config))
      return query(config, values, callback);
    let name = names.get(config);
    if (!name) {
      if (made >= MAX_NAMED_STATEMENTS) return query(config, values, callback);
      names.set(config, (name = `${NAMED_STATEMENT_PREFIX}${++made}`));
    }
    const named = { name, text: config, values };
    if (typeof callback === 'function') {
      return query(named, (err: unknown, res: unknown) => {
        if (err) forget(config, err);
        (callback as (e: unknown, r: unknown) => void)(err, res);
      });
    }
    return (query(named) as Promise<unknown>).catch((err: unknown) => {
      forget(config, err);
      throw err;
    });
  };
  return {
    nameOf: (sql) => {
      if (/\bon\s+conflict\b/i.test(sql)) return 'inline';
      const name = names.get(sql);
      if (name) return parsed[name] === sql ? { name } : 'later';
      return made >= MAX_NAMED_STATEMENTS ? 'inline' : 'later';
    },
    failed: forget,
  };
}
