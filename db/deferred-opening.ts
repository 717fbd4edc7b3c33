import type { PoolClient, QueryResult } from 'pg';
import { highestPlaceholder, parameterLiterals, sqlInlinable, substitute } from './literals';

/**
 * A transaction's opening sent with its first statement: one round trip fewer per transaction.
 *
 * Every activity acts for its organization in a transaction (asOrganization, db/tenancy.ts): BEGIN and
 * the organization setting, then its queries, then COMMIT, each a round trip. A round trip costs the
 * worker about as much CPU as PostgreSQL spends on a small query (the socket write wakes the backend),
 * and most activities' transactions are a few queries long. So an opening marked with DEFERRED_OPENING
 * is not sent at once: the connection keeps it and sends it in front of the transaction's first
 * statement, as one simple-protocol query string, and answers that statement's result as pg would
 * have. Only an opening that cannot fail is deferred (the organization setting, its UUID checked before
 * it is written in): a role gate's refusal must come from the opening itself (asUser sends it at once).
 *
 * The statement goes along only where its parameters can be written in as literals (db/literals.ts),
 * else the opening is sent on its own first, as before. How it goes is the connection's to say
 * (db/pool.ts, `StatementName`): a statement the connection has already parsed under a name (the named
 * statements) is run by that name (`EXECUTE q_3('…')`), so PostgreSQL neither parses nor plans it
 * again; one it will name on its next use goes on its own this once, so that it is parsed and named;
 * one it never names (ON CONFLICT, named statements off, the connection's names used up) goes with its
 * literals written in. A COMMIT or ROLLBACK with the opening still kept (the transaction ran no
 * statement) sends nothing.
 */
export const DEFERRED_OPENING = '/* deferred opening */ ';

/** How the connection runs a statement: by the name it was parsed under, later by name (not yet parsed), or never named. */
export type StatementName = { name: string } | 'later' | 'inline';

/** The connection's named statements (db/pool.ts): how it runs a statement, and what to do when one failed. */
export interface StatementNames {
  nameOf(sql: string): StatementName;
  /** A statement failed: one whose result type changed under it (a migration) is named afresh next time. */
  failed(sql: string, err: unknown): void;
}

type AnyQuery = (...args: unknown[]) => unknown;

export function deferOpenings(client: PoolClient, names: StatementNames): void {
  const query = client.query.bind(client) as AnyQuery;
  let kept: string | undefined;
  (client as unknown as { query: AnyQuery }).query = (config: unknown, values?: unknown, callback?: unknown) => {
    const noValues = values === undefined || (Array.isArray(values) && values.length === 0);
    if (typeof config === 'string' && config.startsWith(DEFERRED_OPENING) && noValues && callback === undefined) {
      kept = config.slice(DEFERRED_OPENING.length);
      return Promise.resolve(emptyResult('SELECT'));
    }
    if (kept === undefined) return query(config, values, callback);
    const opening = kept;
    kept = undefined;
    // The transaction ran no statement: there is nothing to commit or undo, and nothing is sent.
    if ((config === 'COMMIT' || config === 'ROLLBACK') && noValues && callback === undefined) return Promise.resolve(emptyResult(config));
    const together =
      typeof config === 'string' && typeof callback !== 'function' && (values === undefined || Array.isArray(values))
        ? withOpening(opening, config, (values as unknown[] | undefined) ?? [], names.nameOf)
        : undefined;
    if (together === undefined) return (query(opening) as Promise<unknown>).then(() => query(config, values, callback));
    return (query(together) as Promise<QueryResult[]>).then(
      (results) => results[results.length - 1],
      (err: unknown) => {
        names.failed(config as string, err); // run by its name, it failed as the named statement would have
        throw err;
      },
    );
  };
}

/** The opening and the statement as one query string, or undefined when the statement cannot go along. */
function withOpening(opening: string, sql: string, values: unknown[], nameOf: (sql: string) => StatementName): string | undefined {
  if (values.length === 0) return sql.includes(';') ? undefined : `${opening}; ${sql}`;
  if (!sqlInlinable(sql)) return undefined;
  const literals = parameterLiterals(values, highestPlaceholder(sql));
  if (!literals) return undefined;
  const how = nameOf(sql);
  if (how === 'later') return undefined;
  return `${opening}; ${how === 'inline' ? substitute(sql, literals) : `EXECUTE ${how.name}(${literals.join(', ')})`}`;
}

function emptyResult(command: string): Partial<QueryResult> {
  return { command, rowCount: null, rows: [], fields: [] };
}
