import { sql, Transaction } from 'kysely';
import type { DB as Database } from './database';
import type { DB } from './pool';

export type Tx = Transaction<Database>;

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
export async function asUser<T>(
  db: DB,
  userId: string,
  fn: (tx: Tx) => Promise<T>,
  gate?: { organizationId: string; minRole: MemberRole },
): Promise<T> {
  let opening = `BEGIN; SELECT set_config('app.user_id', ${literalUuid(userId, 'user id')}, true)`;
  if (gate) {
    if (!ROLES.includes(gate.minRole)) throw new Error(`unknown role ${gate.minRole}`);
    opening += `; SELECT app.require_role(${literalUuid(gate.organizationId, 'organization id')}, '${gate.minRole}')`;
  }
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
