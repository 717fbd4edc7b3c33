import { sql } from 'kysely';
import type { DB } from '../../../db/pool';
import { lockFor } from '../../../db/locks';
import { pauseMailbox } from '../../../db/queries/mailbox-protection';
import { oauthMailbox, storeRefreshToken } from '../../../db/queries/mailbox-oauth';
import { mailboxSecretContext, type SecretBox } from '../../../db/secrets';
import { asOrganization } from '../../../db/tenancy';
import { OAuthUnavailable, TOKEN_REQUEST_TIMEOUT_MS, type RefreshTokenStore } from './oauth';

/**
 * How long a refresh waits for the mailbox's turn: longer than one refresh may take (its token request
 * times out first), so a waiter gives up only when the holder is stuck, and hands its pooled connection back.
 */
export const REFRESH_LOCK_TIMEOUT_MS = TOKEN_REQUEST_TIMEOUT_MS + 10_000;

/**
 * The refresh tokens of OAuth mailboxes in PostgreSQL, sealed like passwords (SecretBox, bound to the
 * row). A refresh takes the mailbox's advisory lock for the whole grant, so that with rotating refresh
 * tokens two workers never spend the same one. Everything a refresh writes (a rotated token, the pause
 * of a refused one) goes through that same transaction: a refresh never needs a second connection
 * while it holds the lock other refreshes of the mailbox wait on with theirs.
 */
export function dbRefreshTokenStore(db: DB, secrets: SecretBox): RefreshTokenStore {
  return {
    withRefreshToken: async (m, fn) => {
      try {
        return await asOrganization(db, m.organizationId, async (tx) => {
          // The limit on the wait for the turn only; the transaction's own setting comes back after it.
          const { rows } = await sql<{
            prev: string;
          }>`SELECT current_setting('lock_timeout') AS prev, set_config('lock_timeout', ${`${REFRESH_LOCK_TIMEOUT_MS}ms`}, true)`.execute(tx);
          await lockFor(tx, `mailbox_oauth:${m.mailboxId}`);
          await sql`SELECT set_config('lock_timeout', ${rows[0]!.prev}, true)`.execute(tx);
          const row = await oauthMailbox(tx, m.mailboxId);
          if (!row?.secret_ciphertext || row.auth_type !== 'oauth2') throw new Error(`mailbox ${m.mailboxId} is not an OAuth mailbox`);
          const context = mailboxSecretContext(m.organizationId, m.mailboxId);
          return fn(secrets.open(row.secret_ciphertext, context), {
            save: (rotated) => storeRefreshToken(tx, m.mailboxId, secrets.seal(rotated, context)),
            pause: async (reason) => {
              await pauseMailbox(tx, m.mailboxId, 'auth', reason);
            },
          });
        });
      } catch (err) {
        // lock_not_available: another refresh of this mailbox held its turn too long; transient.
        if ((err as { code?: string }).code === '55P03')
          throw new OAuthUnavailable(`another refresh of mailbox ${m.mailboxId}'s token took longer than ${REFRESH_LOCK_TIMEOUT_MS} ms`);
        throw err;
      }
    },
  };
}
