import { sql } from 'kysely';
import type { Tx } from '../tenancy';
import { newestFirst } from './pagination';

/** Never the secret: it is write-only and leaves the database only to be decrypted for a provider call. */
export const INTEGRATION_COLUMNS = [
  'id',
  'organization_id',
  'provider_key',
  'kind',
  'status',
  'config',
  'mapping',
  'last_error',
  'last_tested_at',
  'created_at',
  'updated_at',
] as const;

export function insertIntegration(
  tx: Tx,
  i: {
    id: string;
    organizationId: string;
    providerKey: string;
    kind: string;
    config: Record<string, unknown>;
    mapping: Record<string, unknown>;
    secret: Buffer;
  },
) {
  return tx
    .insertInto('integrations')
    .values({
      id: i.id,
      organization_id: i.organizationId,
      provider_key: i.providerKey,
      kind: i.kind,
      status: 'disconnected',
      config: JSON.stringify(i.config),
      mapping: JSON.stringify(i.mapping),
      secret_ciphertext: i.secret,
    })
    .returning(INTEGRATION_COLUMNS)
    .executeTakeFirstOrThrow();
}

export function getIntegration(tx: Tx, id: string) {
  return tx.selectFrom('integrations').select(INTEGRATION_COLUMNS).where('id', '=', id).executeTakeFirst();
}

export function integrationSecret(tx: Tx, id: string) {
  return tx.selectFrom('integrations').select(['id', 'organization_id', 'secret_ciphertext']).where('id', '=', id).executeTakeFirst();
}

/** Replaces the integration's sealed secret (a rotated OAuth refresh token). */
export async function storeIntegrationSecret(tx: Tx, id: string, sealed: Buffer): Promise<void> {
  await tx
    .updateTable('integrations')
    .set({ secret_ciphertext: sealed, updated_at: sql`now()` })
    .where('id', '=', id)
    .execute();
}

export function listIntegrations(tx: Tx, f: { organizationId: string; kind?: string; limit: number; before?: string }) {
  let q = tx.selectFrom('integrations').select(INTEGRATION_COLUMNS).where('organization_id', '=', f.organizationId);
  if (f.kind) q = q.where('kind', '=', f.kind);
  return newestFirst(q, 'integrations', f).execute();
}

/** The organization's newest usable integration of a kind (not in error). */
export function usableIntegration(tx: Tx, organizationId: string, kind: string) {
  return tx
    .selectFrom('integrations')
    .select(['id', 'organization_id', 'provider_key', 'config', 'mapping', 'secret_ciphertext'])
    .where('organization_id', '=', organizationId)
    .where('kind', '=', kind)
    .where('status', '<>', 'error')
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
}

export function recordIntegrationTest(tx: Tx, id: string, outcome: { ok: boolean; message?: string }) {
  return tx
    .updateTable('integrations')
    .set({
      status: outcome.ok ? 'connected' : 'error',
      last_error: outcome.ok ? null : (outcome.message ?? 'verification failed'),
      last_tested_at: sql`now()`,
      updated_at: sql`now()`,
    })
    .where('id', '=', id)
    .returning(INTEGRATION_COLUMNS)
    .executeTakeFirst();
}

/** The organization's CRM integration as the API reads it (no secret): which provider, its config and mapping. */
export function crmIntegrationLink(tx: Tx, organizationId: string) {
  return tx
    .selectFrom('integrations')
    .select(['provider_key', 'config', 'mapping'])
    .where('organization_id', '=', organizationId)
    .where('kind', '=', 'crm')
    .where('status', '<>', 'error')
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
}
