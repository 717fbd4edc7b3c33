import type { Tx } from '../tenancy';

/**
 * What every new organization starts with. Later stages add their defaults here (scoring config
 * and rules, industry profile), so an organization created through the API is usable at once.
 */
export async function seedOrganizationDefaults(tx: Tx, organizationId: string): Promise<void> {
  await tx
    .insertInto('compliance_settings')
    .values({ organization_id: organizationId })
    .onConflict((oc) => oc.column('organization_id').doNothing())
    .execute();
}
