import { log } from '@temporalio/activity';
import { eraseContact, staleContactIds } from '../db/queries/compliance';
import { asOrganization } from '../db/tenancy';
import type { DB } from '../db/pool';

/** Retention: erase the personal data of contacts not engaged within the organization's retention period. */
export function createRetentionActivities(deps: { db: DB; now?: () => Date }) {
  const now = deps.now ?? (() => new Date());
  return {
    async eraseStaleContacts(input: { organizationId: string; asOf?: string }): Promise<{ erased: number }> {
      const asOf = input.asOf ? new Date(input.asOf) : now();
      const ids = await asOrganization(deps.db, input.organizationId, (tx) => staleContactIds(tx, input.organizationId, asOf));
      let erased = 0;
      // One transaction per contact: a failure part-way keeps what was erased, and a retry finishes.
      for (const id of ids) {
        const r = await asOrganization(deps.db, input.organizationId, (tx) => eraseContact(tx, id, null, 'retention'));
        if (r && !r.alreadyErased) erased++;
      }
      log.info('retention sweep', { organizationId: input.organizationId, erased });
      return { erased };
    },
  };
}
