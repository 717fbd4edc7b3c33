import { sql } from 'kysely';
import type { Tx } from '../tenancy';
import { newestFirst } from './pagination';
import { writeAudit, type FieldChange } from './audit';

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

/**
 * Records a check's outcome, fenced by what was checked: only while the row still holds that config
 * and that sealed secret (undefined when either changed meanwhile, or the integration was deleted).
 */
export function recordIntegrationTest(tx: Tx, id: string, outcome: { ok: boolean; message?: string }, checked: { config: unknown; sealedSecret: Buffer }) {
  return tx
    .updateTable('integrations')
    .set({
      status: outcome.ok ? 'connected' : 'error',
      last_error: outcome.ok ? null : (outcome.message ?? 'verification failed'),
      last_tested_at: sql`now()`,
      updated_at: sql`now()`,
    })
    .where('id', '=', id)
    .where('secret_ciphertext', '=', checked.sealedSecret)
    .where(sql<boolean>`config = ${JSON.stringify(checked.config ?? {})}::jsonb`)
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

/**
 * Changes an integration's config, mapping or sealed secret, audited (a secret's value never: only
 * that it was replaced). A new config or secret puts its status back to `disconnected` (untested) and
 * clears its last error, so an integration that failed its test is used again once it has been mended.
 */
export async function changeIntegration(
  tx: Tx,
  current: { id: string; organization_id: string; config: unknown; mapping: unknown },
  actorId: string | null,
  patch: { config?: Record<string, unknown>; mapping?: Record<string, unknown>; sealedSecret?: Buffer },
) {
  const changes: FieldChange[] = [];
  if (patch.config !== undefined) changes.push({ field: 'config', before: current.config, after: patch.config });
  if (patch.mapping !== undefined) changes.push({ field: 'mapping', before: current.mapping, after: patch.mapping });
  if (patch.sealedSecret) changes.push({ field: 'secret', before: null, after: 'replaced' });
  const updated = await tx
    .updateTable('integrations')
    .set({
      ...(patch.config !== undefined ? { config: JSON.stringify(patch.config) } : {}),
      ...(patch.mapping !== undefined ? { mapping: JSON.stringify(patch.mapping) } : {}),
      ...(patch.sealedSecret ? { secret_ciphertext: patch.sealedSecret } : {}),
      // A new key or config is untested; a mapping alone changes nothing the last check saw.
      ...(patch.config !== undefined || patch.sealedSecret ? { status: 'disconnected', last_error: null } : {}),
      updated_at: sql`now()`,
    })
    .where('id', '=', current.id)
    .returning(INTEGRATION_COLUMNS)
    .executeTakeFirstOrThrow();
  await writeAudit(tx, { organizationId: current.organization_id, actorId, entity: 'integration', entityId: current.id, action: 'update', changes });
  return updated;
}

/** Deletes an integration with its sealed secret, audited; its place in the enrichment order goes with it (foreign key). */
export async function deleteIntegration(tx: Tx, current: { id: string; organization_id: string; provider_key: string; kind: string }, actorId: string | null) {
  await tx.deleteFrom('integrations').where('id', '=', current.id).execute();
  await writeAudit(tx, {
    organizationId: current.organization_id,
    actorId,
    entity: 'integration',
    entityId: current.id,
    action: 'delete',
    changes: [
      { field: 'provider_key', before: current.provider_key, after: null },
      { field: 'kind', before: current.kind, after: null },
    ],
  });
}
