import type { Request } from 'express';
import { roleOf } from '../../db/queries/organizations';
import { asUser, NotAMemberError, readAsUser, readJsonAsUser, Reader, RoleTooLowError, Tx } from '../../db/tenancy';
import type { DB } from '../../db/pool';
import { forbidden, notFound, ProblemError } from './errors';
import type { Role } from './contract';

const RANK: Record<Role, number> = { viewer: 1, member: 2, admin: 3, owner: 4 };

/**
 * The caller's membership gate for one organization: not a member (or no such organization) is
 * 404, a member whose role is too low is 403. RLS enforces the same in the database; this gives the
 * precise answer.
 */
export async function requireRole(tx: Tx, req: Request, organizationId: string, minRole: Role): Promise<Role> {
  const role = (await roleOf(tx, organizationId, userOf(req))) as Role | undefined;
  if (!role) throw notFound('organization');
  if (RANK[role] < RANK[minRole]) throw forbidden(`This needs the ${minRole} role or higher; yours is ${role}`);
  return role;
}

export function userOf(req: Request): string {
  if (!req.user) throw new ProblemError('UNAUTHENTICATED', 'A bearer token is required');
  return req.user.userId;
}

/**
 * The record the loader finds, read as the caller (row-level security decides what is visible), or
 * 404: the GET-by-id shape of every resource. Visible means the caller is a member, so no role check.
 */
export async function visibleOr404<T>(db: DB, req: Request, what: string, load: (tx: Tx) => Promise<T | null | undefined>): Promise<T> {
  const found = await asCaller(db, req, load);
  if (found === null || found === undefined) throw notFound(what);
  return found;
}

/** Runs fn in a transaction under row-level security as the authenticated caller. */
export function asCaller<T>(db: DB, req: Request, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return asUser(db, userOf(req), fn);
}

/**
 * The common route shape: check the caller's role in an organization, then run fn in the same
 * transaction. The check travels with BEGIN and the caller's identity in one round trip
 * (db/tenancy.ts); its answers are requireRole's.
 */
export async function withRole<T>(db: DB, req: Request, organizationId: string, minRole: Role, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return gateProblems(minRole, () => asUser(db, userOf(req), fn, { organizationId, minRole }));
}

/**
 * withRole for a route that is one read query (the lists): the whole transaction in one round trip
 * (readAsUser). build returns the query unexecuted.
 */
export function readWithRole<O>(
  db: DB,
  req: Request,
  organizationId: string,
  minRole: Role,
  build: (qb: Reader) => { compile(): import('kysely').CompiledQuery<O>; execute(): Promise<O[]> },
): Promise<O[]> {
  return gateProblems(minRole, () => readAsUser(db, userOf(req), { organizationId, minRole }, build));
}

/**
 * readWithRole answering with the JSON array PostgreSQL builds (db/json-answers.ts): build returns
 * the query selecting jsonColumns. Send it with sendJsonText (json-text.ts).
 */
export function readJsonWithRole(
  db: DB,
  req: Request,
  organizationId: string,
  minRole: Role,
  build: (qb: Reader) => { compile(): import('kysely').CompiledQuery<unknown> },
): Promise<string> {
  return gateProblems(minRole, () => readJsonAsUser(db, userOf(req), { organizationId, minRole }, build));
}

export async function gateProblems<T>(minRole: Role, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof NotAMemberError) throw notFound('organization');
    if (err instanceof RoleTooLowError) throw forbidden(`This needs the ${minRole} role or higher; yours is ${err.role}`);
    throw err;
  }
}

/** How a route finds its record: what it is called in a 404, and how to read it as the caller. */
export interface RecordLoader<R extends { organization_id: string }> {
  what: string;
  load(tx: Tx): Promise<R | null | undefined>;
}

/**
 * The shape of every route that acts on one record, once: in one transaction as the caller, load the
 * record (row-level security hides other tenants' rows), 404 when it is absent or not visible, 403
 * when the caller's role in the record's organization is below minRole, else fn with the record.
 */
export function withRecordRole<R extends { organization_id: string }, T>(
  db: DB,
  req: Request,
  loader: RecordLoader<R>,
  minRole: Role,
  fn: (tx: Tx, record: R, role: Role) => Promise<T>,
): Promise<T> {
  return asCaller(db, req, async (tx) => {
    const record = await loader.load(tx);
    if (!record) throw notFound(loader.what);
    const role = await requireRole(tx, req, record.organization_id, minRole);
    return fn(tx, record, role);
  });
}

export function outranks(a: Role, b: Role): boolean {
  return RANK[a] >= RANK[b];
}
