import { CompiledQuery, Kysely, sql, Transaction } from 'kysely';
import { escapeLiteral, QueryResult } from 'pg';
import type { DB as Database } from './database';
import { DB, poolOf } from './pool';

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
  if (gate) {
    if (!ROLES.includes(gate.minRole)) throw new Error(`unknown role ${gate.minRole}`);
    opening += `; SELECT app.require_role(${literalUuid(gate.organizationId, 'organization id')}, '${gate.minRole}')`;
  }
  return opening;
}

export async function asUser<T>(db: DB, userId: string, fn: (tx: Tx) => Promise<T>, gate?: Gate): Promise<T> {
  const opening = openingSql(userId, gate);
  return db.connection().execute(async (conn) => {
    // conn is bound to one pooled connection; within BEGIN..COMMIT it is the transaction.
    const tx = conn as unknown as Tx;
    try {
      await sql.raw(opening).execute(conn).catch(gateError);
      const result = await fn(tx);
      await sql.raw('COMMIT').execute(conn);
      return result;
    } catch (err) {
      await sql.raw('ROLLBACK').execute(conn).catch(() => undefined);
      throw err;
    }
  });
}

interface ReadQuery<O> {
  compile(): CompiledQuery<O>;
  execute(): Promise<O[]>;
}

/**
 * One read query as the user, behind the role gate, in ONE round trip: BEGIN, the caller, the gate,
 * the query and COMMIT go as one simple-protocol query string, with the query's parameters inlined as
 * literals (quoted and escaped as pg's escapeLiteral does, untyped like the parameters pg sends, so
 * PostgreSQL resolves their types the same way). Used by the list endpoints, which are one query each;
 * anything else (writes, several queries) uses asUser. When the compiled query holds anything but
 * identifiers, keywords and $n placeholders (a string literal, a comment, a semicolon), or a parameter
 * that is not a plain value, it runs through asUser instead (three round trips).
 */
export async function readAsUser<O>(db: DB, userId: string, gate: Gate, build: (qb: Reader) => ReadQuery<O>): Promise<O[]> {
  const opening = openingSql(userId, gate);
  const pool = poolOf(db);
  const inlined = pool ? inlineParameters(build(db).compile()) : undefined;
  if (!pool || inlined === undefined) return asUser(db, userId, (tx) => build(tx).execute(), gate);
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    const results = (await client.query(`${opening}; ${inlined}; COMMIT`)) as unknown as QueryResult[];
    return results[results.length - 2]!.rows as O[];
  } catch (err) {
    await client.query('ROLLBACK').catch((e: Error) => (broken = e));
    return gateError(err);
  } finally {
    client.release(broken);
  }
}

const SAFE_SQL = /^(?:[A-Za-z0-9_.,()<>=!*+\-\s]|\$\d+|"[A-Za-z_][A-Za-z0-9_]*")*$/;

/** The compiled query with its $n parameters as literals, or undefined when that is not plainly safe. */
export function inlineParameters(q: CompiledQuery): string | undefined {
  if (!SAFE_SQL.test(q.sql) || q.sql.includes('--')) return undefined;
  const literals: string[] = [];
  for (const v of q.parameters) {
    let text: string;
    if (typeof v === 'string') text = v;
    else if (typeof v === 'number' && Number.isFinite(v)) text = String(v);
    else if (typeof v === 'boolean') text = String(v);
    else if (v instanceof Date && !Number.isNaN(v.getTime())) text = v.toISOString();
    else if (v === null) {
      literals.push('NULL');
      continue;
    } else return undefined;
    if (text.includes('\0')) return undefined; // PostgreSQL refuses NUL either way; let it say so as usual
    literals.push(escapeLiteral(text));
  }
  let bad = false;
  const out = q.sql.replace(/\$(\d+)/g, (_m, n: string) => {
    const lit = literals[Number(n) - 1];
    if (lit === undefined) bad = true;
    return lit ?? '';
  });
  return bad ? undefined : out;
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
 * and may change nothing.
 */
export function asOrganization<T>(db: DB, organizationId: string, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (tx) => {
    await sql`SELECT set_config('app.organization_id', ${organizationId}, true)`.execute(tx);
    return fn(tx);
  });
}
