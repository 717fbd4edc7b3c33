import type { DB } from '../../../db/pool';
import { lockFor } from '../../../db/locks';
import { pauseMailbox } from '../../../db/queries/mailbox-protection';
import { oauthMailbox, storeRefreshToken } from '../../../db/queries/mailbox-oauth';
import { mailboxSecretContext, type SecretBox } from '../../../db/secrets';
import { asOrganization } from '../../../db/tenancy';
import type { MailboxCredentialRef, RefreshTokenStore } from './oauth';

/**
 * The refresh tokens of OAuth mailboxes in PostgreSQL, sealed like passwords (SecretBox, bound to the
 * row). A refresh takes the mailbox's advisory lock for the whole grant, so that with rotating refresh
 * tokens two workers never spend the same one; a dead grant pauses the mailbox (`auth`).
 */
export function dbRefreshTokenStore(db: DB, secrets: SecretBox): RefreshTokenStore {
  return {
    withRefreshToken: (m, fn) =>
      asOrganization(db, m.organizationId, async (tx) => {
        await lockFor(tx, `mailbox_oauth:${m.mailboxId}`);
        const row = await oauthMailbox(tx, m.mailboxId);
        if (!row?.secret_ciphertext || row.auth_type !== 'oauth2') throw new Error(`mailbox ${m.mailboxId} is not an OAuth mailbox`);
        const context = mailboxSecretContext(m.organizationId, m.mailboxId);
        return fn(secrets.open(row.secret_ciphertext, context), (rotated) => storeRefreshToken(tx, m.mailboxId, secrets.seal(rotated, context)));
      }),
    revoked: async (m: MailboxCredentialRef, reason: string) => {
      await asOrganization(db, m.organizationId, (tx) => pauseMailbox(tx, m.mailboxId, 'auth', reason));
    },
  };
}
