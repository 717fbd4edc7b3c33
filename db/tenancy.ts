import { CompiledQuery, Kysely, sql, Transaction } from 'kysely';
import { createHash } from 'node:crypto';
import { DatabaseError, type PoolClient, type QueryResult } from 'pg';
import { DEFERRED_OPENING } from './deferred-opening';
import { highestPlaceholder, parameterLiterals, sqlInlinable, substitute } from './literals';
import type { DB as Database } from './database';
import { jsonArrayOf } from './json-answers';
import { DB, keepsPreparedStatements, poolOf } from './pool';

export type Tx = Transaction<Database>;
/** What a read query is built on: a transaction, or the pool (readAsUser compiles it without running it). */
export type Reader = Kysely<Database>;

export type MemberRole = 'owner' | 'admin' | 'member' | 'viewer';
const ROLES: readonly string[] = ['owner', 'admin', 'member', 'viewer'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The caller is not a member of the organization (or it does not exist): SQLSTATE OR404 of app.require_role. */
export class NotAMemberError extends Error {}
/** The caller's role is below the one required: SQLSTATE OR403 of app.require_role. */
export class RoleTooLowError extends Error {
  constructor(readonly role: MemberRole) {
    super(`role ${role} is too low`);
  }
}

function literalUuid(value: string, what: string): string {
  if (!UUID.test(value)) throw new Error(`${what} is not a UUID`);
  return `'${value.toLowerCase()}'`;
}

/**
 * Runs fn in a transaction as the given user: row-level security admits only rows of the
 * organizations that user is a member of. The setting is transaction-local, so a pooled connection
 * never carries it into another request.
 *
 * One round trip opens the transaction, sets the caller and, with `gate`, checks the caller's role in
 * an organization (app.require_role; NotAMemberError / RoleTooLowError), sent as one simple-protocol
 * query. The values are inlined, so they are checked to be UUIDs and a known role first.
 */
export interface Gate {
  organizationId: string;
  minRole: MemberRole;
}

function openingSql(userId: string, gate?: Gate): string {
  let opening = `BEGIN; SELECT set_config('app.user_id', ${literalUuid(userId, 'user id')}, true)`;
  if (gate) opening += `; SELECT ${roleGate(gate)}`;
  return opening;
}

function roleGate(gate: Gate): string {
  if (!ROLES.includes(gate.minRole)) throw new Error(`unknown role ${gate.minRole}`);
  return `app.require_role(${literalUuid(gate.organizationId, 'organization id')}, '${gate.minRole}')`;
}

/**
 * The opening of a one-trip read (inOneTrip): ONE select, no BEGIN. A simple-protocol query string of
 * several statements runs as one implicit transaction (committed after its last statement, rolled back
 * at its first error), so the settings are transaction-local as after BEGIN, and BEGIN and COMMIT
 * would be two more statements for PostgreSQL to parse and answer. The select's columns are evaluated
 * in order: the caller is set before the gate reads it. plan_cache_mode: every EXECUTE runs the
 * statement's generic plan (see inOneTrip).
 */
function oneTripOpening(setting: 'app.user_id' | 'app.organization_id', id: string, gate?: Gate): string {
  const settings = `set_config('${setting}', ${literalUuid(id, setting)}, true), set_config('plan_cache_mode', 'force_generic_plan', true)`;
  return `SELECT ${settings}${gate ? `, ${roleGate(gate)}` : ''}`;
}

export async function asUser<T>(db: DB, userId: string, fn: (tx: Tx) => Promise<T>, gate?: Gate): Promise<T> {
  return inTransaction(db, openingSql(userId, gate), fn, gateError);
}

/**
 * fn in a transaction whose opening (BEGIN and the settings, a simple-protocol query string) goes in
 * one round trip; COMMIT after fn, ROLLBACK when it throws. `openingFailed` maps the opening's errors.
 */
function inTransaction<T>(db: DB, opening: string, fn: (tx: Tx) => Promise<T>, openingFailed: (err: unknown) => never = rethrow): Promise<T> {
  return db.connection().execute(async (conn) => {
    // conn is bound to one pooled connection; within BEGIN..COMMIT it is the transaction.
    const tx = conn as unknown as Tx;
    try {
      await sql.raw(opening).execute(conn).catch(openingFailed);
      const result = await fn(tx);
      await sql.raw('COMMIT').execute(conn);
      return result;
    } catch (err) {
      await sql
        .raw('ROLLBACK')
        .execute(conn)
        .catch(() => undefined);
      throw err;
    }
  });
}

function rethrow(err: unknown): never {
  throw err;
}

interface ReadQuery<O> {
  compile(): CompiledQuery<O>;
  execute(): Promise<O[]>;
}

/**
 * One read query as the user, behind the role gate, in ONE round trip: the caller, the gate and the
 * query go as one simple-protocol query string (one implicit transaction), with the query's parameters inlined as
 * literals (quoted and escaped as pg's escapeLiteral does, untyped like the parameters pg sends, so
 * PostgreSQL resolves their types the same way). Used by the list endpoints, which are one query each;
 * anything else (writes, several queries) uses asUser. When the compiled query holds anything but
 * identifiers, keywords and $n placeholders (a string literal, a comment, a semicolon), or a parameter
 * that is not a plain value, it runs through asUser instead (three round trips).
 */
export function readAsUser<O>(db: DB, userId: string, gate: Gate, build: (qb: Reader) => ReadQuery<O>): Promise<O[]> {
  return readCompiledAsUser(db, userId, gate, build(db).compile());
}

/**
 * readAsUser answering the JSON array PostgreSQL builds from the query's rows (db/json-answers.ts),
 * as text to pass through: the same round trip, nothing parsed in node.
 */
export async function readJsonAsUser(db: DB, userId: string, gate: Gate, build: (qb: Reader) => { compile(): CompiledQuery<unknown> }): Promise<string> {
  const rows = await readCompiledAsUser(db, userId, gate, jsonArrayOf(build(db).compile()));
  return rows[0]!.json;
}

/**
 * Each list query is a prepared statement on the pooled connection that runs it (PREPARE the first
 * time, in the same query string; then EXECUTE): PostgreSQL plans it once per connection instead of
 * once per request (planning the inbox's seven-table join under row-level security cost more than
 * running it). Named by a hash of its SQL; at most MAX_PREPARED per connection, past that inlined as
 * before. Every EXECUTE runs the statement's generic plan.
 *
 * A search (a LIKE pattern) is different: its best plan depends on the word. A rare word is found
 * through the trigram index; a common one by reading the newest rows until the page is full (the
 * trigram index would fetch and sort every match: 35 ms for a word in one title of eight, against
 * 0.7). So a search's pattern and its LIMIT are written into the statement as literals and the
 * statement is named by the result: each connection plans a word once, for that word, and answers
 * every later search for it (any organization, any page) from that plan. Before this, every search
 * was planned afresh (a custom plan, about a quarter of the search's PostgreSQL time). These
 * per-word statements are kept per connection, the least recently used DEALLOCATEd past
 * MAX_PREPARED_SEARCHES, so they never crowd out the list shapes.
 */
interface HeldStatements {
  shapes: Set<string>;
  /** Per-word statements, least recently used first (a Map keeps insertion order). */
  searches: Map<string, true>;
}
const prepared = new WeakMap<PoolClient, HeldStatements>();
const MAX_PREPARED = 200;
export const MAX_PREPARED_SEARCHES = 32;
const SEARCH_PREFIX = 'search_';
const LIST_PREFIX = 'list_';
/** The names this module gives its statements (a name read back from the server is used in DEALLOCATE only if it is one). */
const HELD_NAME = /^(?:list|search)_[0-9a-f]{24}$/;

/**
 * What readCompiledAsUser learns once per SQL text (a list query's SQL is the same for every request
 * of its shape, db/query-shapes.ts): the prepared statement's name, whether its parameters may be
 * inlined, and which parameters shape its plan (a LIKE's pattern and the LIMIT of a search). Bounded:
 * forgotten all at once when full.
 */
interface StatementFacts {
  name: string;
  inlinable: boolean;
  highestPlaceholder: number;
  /** The placeholders written into a per-word statement (empty: one statement for every value). */
  planValues: ReadonlySet<number>;
}
const statementFacts = new Map<string, StatementFacts>();
const MAX_STATEMENT_FACTS = 1000;

function factsOf(text: string): StatementFacts {
  let facts = statementFacts.get(text);
  if (!facts) {
    if (statementFacts.size >= MAX_STATEMENT_FACTS) statementFacts.clear();
    const patterns = [...text.matchAll(/\blike\s+(?:lower\(\s*)?\$(\d+)/gi)].map((m) => Number(m[1]));
    const limits = patterns.length ? [...text.matchAll(/\blimit\s+\$(\d+)/gi)].map((m) => Number(m[1])) : [];
    facts = {
      name: `${LIST_PREFIX}${createHash('sha1').update(text).digest('hex').slice(0, 24)}`,
      inlinable: sqlInlinable(text),
      highestPlaceholder: highestPlaceholder(text),
      planValues: new Set([...patterns, ...limits]),
    };
    statementFacts.set(text, facts);
  }
  return facts;
}

/** The statement to PREPARE, its name and its EXECUTE arguments: a per-word statement when the facts say so. */
function statementOf(sqlText: string, facts: StatementFacts, literals: string[]): { name: string; text: string; args: string[] } {
  if (facts.planValues.size === 0) return { name: facts.name, text: sqlText, args: literals };
  const args: string[] = [];
  const renumbered = new Map<number, string>();
  const text = sqlText.replace(/\$(\d+)/g, (_m, n: string) => {
    const k = Number(n);
    if (facts.planValues.has(k)) return literals[k - 1]!;
    let placeholder = renumbered.get(k);
    if (!placeholder) {
      args.push(literals[k - 1]!);
      renumbered.set(k, (placeholder = `$${args.length}`));
    }
    return placeholder;
  });
  return { name: `${SEARCH_PREFIX}${createHash('sha1').update(text).digest('hex').slice(0, 24)}`, text, args };
}

async function readCompiledAsUser<O>(db: DB, userId: string, gate: Gate, query: CompiledQuery<O>): Promise<O[]> {
  return inOneTrip(db, oneTripOpening('app.user_id', userId, gate), query, gateError, () =>
    asUser(db, userId, async (tx) => (await tx.executeQuery(query)).rows, gate),
  );
}

/**
 * One statement in its own transaction in ONE round trip: the opening (the settings and the gate, one
 * select: oneTripOpening) and the statement as a prepared statement of the connection (PREPARE the
 * first time; with its literals written in where the connections keep no statements,
 * DB_NAMED_STATEMENTS=false), as one simple-protocol query string (one implicit transaction) with the
 * parameters inlined as literals. `fallback` runs it the usual
 * way when that is not plainly safe (the SQL holds a string literal, a parameter is not a plain value)
 * or the DB has no pool of its own. The PREPARE goes after the opening, so a caller the role gate
 * refuses prepares nothing; a prepared statement whose result type a migration changed ("cached plan
 * must not change result type") is dropped and the whole string sent once more.
 */
async function inOneTrip<O>(
  db: DB,
  opening: string,
  query: CompiledQuery<O>,
  openingFailed: (err: unknown) => never,
  fallback: () => Promise<O[]>,
  retried = false,
): Promise<O[]> {
  const pool = poolOf(db);
  const facts = pool ? factsOf(query.sql) : undefined;
  const literals = facts?.inlinable ? parameterLiterals(query.parameters, facts.highestPlaceholder) : undefined;
  if (!pool || !facts || literals === undefined) return fallback();
  const client = await pool.connect();
  let held = prepared.get(client);
  if (!held) prepared.set(client, (held = { shapes: new Set(), searches: new Map() }));
  const { name, text, args } = statementOf(query.sql, facts, literals);
  const perWord = name.startsWith(SEARCH_PREFIX);
  const known = perWord ? held.searches.has(name) : held.shapes.has(name);
  // Behind a pooler that does not keep sessions (DB_NAMED_STATEMENTS=false) a PREPAREd statement may be
  // on another server connection: nothing is prepared, the statement goes with its literals written in.
  const keeps = keepsPreparedStatements(db);
  // A per-word statement always finds room (the least recently used word goes); a shape only while there is room.
  const evict = keeps && perWord && !known && held.searches.size >= MAX_PREPARED_SEARCHES ? held.searches.keys().next().value : undefined;
  const prepare = keeps && !known && (perWord || held.shapes.size < MAX_PREPARED) ? `${evict ? `DEALLOCATE ${evict}; ` : ''}PREPARE ${name} AS ${text}; ` : '';
  const statement = known || prepare ? `EXECUTE ${name}${args.length ? `(${args.join(', ')})` : ''}` : substitute(query.sql, literals);
  let broken: Error | undefined;
  let stale = false;
  try {
    // The PREPARE (and DEALLOCATE) after the opening: a caller the gate refuses prepares and evicts nothing.
    // EXECUTE runs the generic plan (the opening sets plan_cache_mode): the same for every organization
    // and page (left to PostgreSQL's default, a connection kept planning the inbox afresh, a custom plan
    // looking cheaper). No BEGIN or COMMIT: the string is one implicit transaction (oneTripOpening).
    const results = (await client.query(`${opening}; ${prepare}${statement}`)) as unknown as QueryResult[];
    if (evict) held.searches.delete(evict);
    if (perWord && (known || prepare)) {
      held.searches.delete(name); // re-inserted: now the most recently used
      held.searches.set(name, true);
    } else if (prepare) held.shapes.add(name);
    return results[results.length - 1]!.rows as O[];
  } catch (err) {
    // PostgreSQL's error: the implicit transaction is rolled back and the connection idle again. Any
    // other (the connection failed): the client is not given back to the pool.
    if (!(err instanceof DatabaseError)) broken = err as Error;
    const code = (err as { code?: string }).code;
    if (!broken && known && code === '0A000') {
      // "cached plan must not change result type": a migration changed a column under the statement.
      // Dropped and prepared afresh (the transaction was rolled back, so running it again is safe), instead
      // of failing on this connection until it closes.
      await client.query(`DEALLOCATE ${name}`).catch((e: Error) => (broken = e));
      held.shapes.delete(name);
      held.searches.delete(name);
      stale = !broken && !retried;
    } else if (!broken && prepare && code !== 'OR404' && code !== 'OR403') {
      // The PREPARE (and DEALLOCATE) outlive a failure after them: learn what this connection holds.
      // (A gate's refusal comes before them: nothing was prepared.)
      const rows = await client.query<{ name: string }>('SELECT name FROM pg_prepared_statements').catch((e: Error) => ((broken = e), undefined));
      if (rows) {
        const names = rows.rows.map((r) => r.name).filter((n) => HELD_NAME.test(n));
        prepared.set(client, {
          shapes: new Set(names.filter((n) => n.startsWith(LIST_PREFIX))),
          searches: new Map(names.filter((n) => n.startsWith(SEARCH_PREFIX)).map((n) => [n, true])),
        });
      }
    }
    if (!stale) return openingFailed(err);
  } finally {
    client.release(broken);
  }
  return inOneTrip(db, opening, query, openingFailed, fallback, true);
}

/** The compiled query with its $n parameters as literals, or undefined when that is not plainly safe. */
export function inlineParameters(q: CompiledQuery): string | undefined {
  const literals = literalsOf(q);
  return literals === undefined ? undefined : substitute(q.sql, literals);
}

/** The parameters as escaped literals, or undefined when the SQL or a value is not plainly safe to inline. */
function literalsOf(q: CompiledQuery): string[] | undefined {
  return sqlInlinable(q.sql) ? parameterLiterals(q.parameters, highestPlaceholder(q.sql)) : undefined;
}

function gateError(err: unknown): never {
  const e = err as { code?: string; detail?: string };
  if (e.code === 'OR404') throw new NotAMemberError('not a member of the organization');
  if (e.code === 'OR403') throw new RoleTooLowError(e.detail as MemberRole);
  throw err;
}

/**
 * Runs fn in a transaction acting for one organization (activities and schedules). PostgreSQL honours
 * app.organization_id only for the worker's role (outreach_worker): on the API's connection this sees
 * and may change nothing. BEGIN and the setting (the id checked to be a UUID before it is inlined) go
 * with the transaction's first statement, in its round trip (db/deferred-opening.ts).
 */
export async function asOrganization<T>(db: DB, organizationId: string, fn: (tx: Tx) => Promise<T>): Promise<T> {
  // The opening cannot fail (the id is checked): it goes with the transaction's first statement (db/deferred-opening.ts).
  return inTransaction(db, DEFERRED_OPENING + organizationOpening(organizationId), fn);
}

function organizationOpening(organizationId: string): string {
  return `BEGIN; SELECT set_config('app.organization_id', ${literalUuid(organizationId, 'organization id')}, true)`;
}

/**
 * One statement acting for an organization, in ONE round trip (inOneTrip): for an activity whose whole
 * transaction is a single query (the pipeline's gate before every stage, the completion), three round
 * trips become one, on the worker's side and PostgreSQL's.
 */
export async function asOrganizationInOneTrip<O>(db: DB, organizationId: string, build: (qb: Reader) => ReadQuery<O>): Promise<O[]> {
  const query = build(db).compile();
  return inOneTrip(db, oneTripOpening('app.organization_id', organizationId), query, rethrow, () =>
    asOrganization(db, organizationId, async (tx) => (await tx.executeQuery(query)).rows),
  );
}
