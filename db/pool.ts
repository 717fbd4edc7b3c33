import { Kysely, PostgresDialect } from 'kysely';
import { Pool, types } from 'pg';
import type { DB as Database } from './database';

// numeric (scores, amounts) as JS numbers rather than strings; values stay far below 2^53.
types.setTypeParser(types.builtins.NUMERIC, (v) => (v === null ? null : Number(v)));
types.setTypeParser(types.builtins.INT8, (v) => (v === null ? null : Number(v)));

export type DB = Kysely<Database>;

const pools = new WeakMap<DB, Pool>();

export function createDb(connectionString: string, max = 10): DB {
  const pool = new Pool({ connectionString, max, application_name: 'outreach' });
  // An idle connection cut by the server (a PostgreSQL restart or failover) is an 'error' event on the
  // pool; unhandled, it would end the process. The pool drops that connection and the next query opens a new one.
  pool.on('error', () => undefined);
  // A connection checked out (a query or a transaction under way) has no pool listener: the server
  // cutting it emits 'error' on the client itself, which unhandled would end the process too. The query
  // fails (and is retried by its activity); the pool then drops the broken connection.
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  pools.set(db, pool);
  return db;
}

/** The pg Pool behind a DB made by createDb (its use is exported as metrics). */
export function poolOf(db: DB): Pool | undefined {
  return pools.get(db);
}
