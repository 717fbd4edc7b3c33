import { sql } from 'kysely';
import { lockFor } from '../../../db/locks';
import type { DB } from '../../../db/pool';
import { integrationSecret, storeIntegrationSecret } from '../../../db/queries/integrations';
import { secretContext, type SecretBox } from '../../../db/secrets';
import { asOrganization } from '../../../db/tenancy';
import { ProviderRequestError } from '../outcome';
import type { SalesforceTokenStore } from './salesforce';

/**
 * How long a token refresh waits for the integration's turn: longer than one refresh may take (its
 * token request times out after 15 s), so a waiter gives up only when the holder is stuck.
 */
export const SALESFORCE_REFRESH_LOCK_TIMEOUT_MS = 25_000;

/** The advisory lock a refresh of the integration's token holds (syncs and POST /integrations/{id}/test alike). */
export const salesforceTokenLock = (integrationId: string) => `salesforce_oauth:${integrationId}`;

/**
 * The Salesforce integration's refresh token in PostgreSQL, sealed (SecretBox, bound to the row). A
 * refresh takes the integration's advisory lock for the whole grant and reads the token inside it, so
 * that with refresh-token rotation concurrent syncs of one organization never spend the same token:
 * the second waits, then reads the token the first stored. A rotated token is stored in that same
 * transaction, before the lock goes.
 */
export function dbSalesforceTokenStore(db: DB, secrets: SecretBox, organizationId: string, integrationId: string): SalesforceTokenStore {
  return {
    withRefreshToken: async (fn) => {
      try {
        return await asOrganization(db, organizationId, async (tx) => {
          // The limit on the wait for the turn only; the transaction's own setting comes back after it.
          const { rows } = await sql<{
            prev: string;
          }>`SELECT current_setting('lock_timeout') AS prev, set_config('lock_timeout', ${`${SALESFORCE_REFRESH_LOCK_TIMEOUT_MS}ms`}, true)`.execute(tx);
          await lockFor(tx, salesforceTokenLock(integrationId));
          await sql`SELECT set_config('lock_timeout', ${rows[0]!.prev}, true)`.execute(tx);
          const row = await integrationSecret(tx, integrationId);
          if (!row?.secret_ciphertext) throw new ProviderRequestError(`Salesforce: integration ${integrationId} has no refresh token`, null, false);
          const context = secretContext(organizationId, integrationId);
          return fn(secrets.open(row.secret_ciphertext, context), (rotated) => storeIntegrationSecret(tx, integrationId, secrets.seal(rotated, context)));
        });
      } catch (err) {
        // lock_not_available: another refresh of this integration held its turn too long; transient.
        if ((err as { code?: string }).code === '55P03')
          throw new ProviderRequestError(
            `Salesforce: another refresh of integration ${integrationId}'s token took longer than ${SALESFORCE_REFRESH_LOCK_TIMEOUT_MS} ms`,
            null,
            true,
          );
        throw err;
      }
    },
  };
}
