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
  const row = await tx
    .selectFrom('memberships')
    .select('role')
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row?.role;
}

export function upsertMembership(tx: Tx, organizationId: string, userId: string, role: string) {
  return tx
    .insertInto('memberships')
    .values({ organization_id: organizationId, user_id: userId, role })
    .onConflict((oc) => oc.columns(['organization_id', 'user_id']).doUpdateSet({ role, updated_at: sql`now()` }))
    .returning(['organization_id', 'user_id', 'role', 'created_at', 'updated_at'])
    .executeTakeFirstOrThrow();
}
