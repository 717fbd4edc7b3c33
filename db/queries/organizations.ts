import { sql } from 'kysely';
import type { Tx } from '../tenancy';

export async function createOrganization(tx: Tx, name: string) {
  // app.create_organization inserts the organization and the caller's owner membership together.
  const { rows } = await sql<{ id: string }>`SELECT app.create_organization(${name}) AS id`.execute(tx);
  return getOrganization(tx, rows[0]!.id);
}

export function getOrganization(tx: Tx, id: string) {
  return tx.selectFrom('organizations').select(['id', 'name', 'created_at', 'updated_at']).where('id', '=', id).executeTakeFirst();
}

/** The caller's role in an organization, or undefined when the caller is not a member. */
export async function roleOf(tx: Tx, organizationId: string, userId: string): Promise<string | undefined> {
  const row = await tx.selectFrom('memberships').select('role').where('organization_id', '=', organizationId).where('user_id', '=', userId).executeTakeFirst();
  return row?.role;
}

const MEMBERSHIP_COLUMNS = ['organization_id', 'user_id', 'role', 'created_at', 'updated_at'] as const;

/**
 * Adds a member, or sets the role of an existing one; `created` says which. Idempotent under
 * concurrency: of parallel identical adds exactly one inserts, the others (waiting on its unique
 * key) find the row and answer it unchanged. updated_at moves only when the role does.
 */
export async function addOrChangeMembership(tx: Tx, organizationId: string, userId: string, role: string) {
  const inserted = await tx
    .insertInto('memberships')
    .values({ organization_id: organizationId, user_id: userId, role })
    .onConflict((oc) => oc.columns(['organization_id', 'user_id']).doNothing())
    .returning(MEMBERSHIP_COLUMNS)
    .executeTakeFirst();
  if (inserted) return { membership: inserted, created: true };
  const membership = await tx
    .updateTable('memberships')
    .set({ role, updated_at: sql`CASE WHEN role = ${role} THEN updated_at ELSE now() END` })
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .returning(MEMBERSHIP_COLUMNS)
    .executeTakeFirst();
  return { membership, created: false };
}
