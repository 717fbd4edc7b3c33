import { sql } from 'kysely';
import type { DB } from '../pool';
import type { Tx } from '../tenancy';

/**
 * OAuth mailboxes' stored state: the single-use states of the consent flow (oauth_states, migrations
 * 0020 and 0035) and the sealed refresh token (the mailbox's secret, sealed by the caller with SecretBox).
 */
export function insertOAuthState(
  tx: Tx,
  s: { organizationId: string; userId: string; provider: string; address: string | null; stateHash: Buffer; verifier: Buffer; expiresAt: Date },
) {
  return tx
    .insertInto('oauth_states')
    .values({
      organization_id: s.organizationId,
      user_id: s.userId,
      provider: s.provider,
      address: s.address,
      state_hash: s.stateHash,
      verifier_ciphertext: s.verifier,
      expires_at: s.expiresAt,
    })
    .returning(['id'])
    .executeTakeFirstOrThrow();
}

/** Deletes the organization's states that expired more than a day ago (flows started and never completed). */
export async function deleteStaleOAuthStates(tx: Tx, organizationId: string): Promise<void> {
  await tx
    .deleteFrom('oauth_states')
    .where('organization_id', '=', organizationId)
    .where('expires_at', '<', sql<Date>`now() - interval '1 day'`)
    .execute();
}

/**
 * Consumes the state with this hash (app.claim_oauth_state: deletes it, in any organization, since the
 * callback has no user; and sweeps states expired more than a day ago). Null when unknown or used.
 */
export async function claimOAuthState(db: DB, stateHash: Buffer) {
  const { rows } = await sql<{
    id: string;
    organization_id: string;
    user_id: string;
    provider: string;
    address: string | null;
    verifier_ciphertext: Buffer;
    expired: boolean;
  }>`
    SELECT id, organization_id, user_id, provider, address, verifier_ciphertext, expired FROM app.claim_oauth_state(${stateHash})`.execute(db);
  return rows[0] ?? null;
}

/** The OAuth mailboxes' sealed refresh token and who it belongs to, for the token source (in a turn taken by the caller). */
export function oauthMailbox(tx: Tx, mailboxId: string) {
  return tx
    .selectFrom('mailboxes')
    .select(['id', 'organization_id', 'address', 'auth_type', 'auth_provider', 'secret_ciphertext'])
    .where('id', '=', mailboxId)
    .executeTakeFirst();
}

/** Stores a rotated refresh token (sealed by the caller). */
export async function storeRefreshToken(tx: Tx, mailboxId: string, sealed: Buffer): Promise<void> {
  await tx
    .updateTable('mailboxes')
    .set({ secret_ciphertext: sealed, updated_at: sql`now()` })
    .where('id', '=', mailboxId)
    .execute();
}

/** Makes the mailbox an OAuth mailbox of this provider (its secret is then the refresh token). */
export async function setMailboxAuth(tx: Tx, mailboxId: string, provider: string): Promise<void> {
  await tx
    .updateTable('mailboxes')
    .set({ auth_type: 'oauth2', auth_provider: provider, updated_at: sql`now()` })
    .where('id', '=', mailboxId)
    .execute();
}
