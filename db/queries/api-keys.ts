import { sql } from 'kysely';
import type { DB } from '../pool';
import type { Reader, Tx } from '../tenancy';

/**
 * API keys. A key's identity is a membership: its id is the user id of a membership in its
 * organization with its role, so row-level security admits it exactly as a person of that role, in
 * that organization only. Revoking deletes the membership in the same transaction.
 */
export const API_KEY_COLUMNS = ['id', 'organization_id', 'name', 'role', 'prefix', 'created_by', 'created_at', 'last_used_at'] as const;

export async function insertApiKey(
  tx: Tx,
  k: { id: string; organizationId: string; name: string; role: string; prefix: string; keyHash: Buffer; createdBy: string },
) {
  await tx.insertInto('memberships').values({ organization_id: k.organizationId, user_id: k.id, role: k.role }).execute();
  return tx
    .insertInto('api_keys')
    .values({ id: k.id, organization_id: k.organizationId, name: k.name, role: k.role, prefix: k.prefix, key_hash: k.keyHash, created_by: k.createdBy })
    .returning(API_KEY_COLUMNS)
    .executeTakeFirstOrThrow();
}

/** Live keys, newest first (api_keys_org_idx); `before` (a key id) pages on. */
export function listApiKeys(qb: Reader, f: { organizationId: string; limit: number; before?: string }) {
  let q = qb.selectFrom('api_keys').select(API_KEY_COLUMNS).where('organization_id', '=', f.organizationId).where('revoked_at', 'is', null);
  if (f.before) q = q.where(sql<boolean>`(created_at, id) < (SELECT b.created_at, b.id FROM api_keys b WHERE b.id = ${f.before})`);
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(f.limit);
}

export function getApiKey(tx: Tx, id: string) {
  return tx.selectFrom('api_keys').select(API_KEY_COLUMNS).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
}

export async function revokeApiKey(tx: Tx, id: string, organizationId: string): Promise<void> {
  await tx
    .updateTable('api_keys')
    .set({ revoked_at: sql`now()` })
    .where('id', '=', id)
    .execute();
  await tx.deleteFrom('memberships').where('organization_id', '=', organizationId).where('user_id', '=', id).execute();
}

/** Authentication: the live key with this SHA-256, stamping last_used_at at most once a minute (app.api_key_identity). */
export async function apiKeyIdentity(db: DB, keyHash: Buffer): Promise<{ keyId: string; organizationId: string; role: string } | null> {
  const { rows } = await sql<{
    key_id: string;
    organization_id: string;
    role: string;
  }>`SELECT key_id, organization_id, role FROM app.api_key_identity(${keyHash})`.execute(db);
  const row = rows[0];
  return row ? { keyId: row.key_id, organizationId: row.organization_id, role: row.role } : null;
}
