import { suppressionValueHash } from '../../../domain/compliance/erasure';
import type { SuppressionKey } from '../../../domain/compliance/gate';
import type { Tx } from '../../tenancy';
import { writeAudit } from '../audit';
import { newestFirst } from '../pagination';
import { recordEvent } from '../webhook-events';

export const SUPPRESSION_COLUMNS = ['id', 'organization_id', 'scope', 'value', 'reason', 'note', 'created_by', 'created_at'] as const;

/** Idempotent on (scope, value): a repeat answers the existing record with created = false. */
export async function addSuppression(
  tx: Tx,
  s: { organizationId: string; scope: string; value: string; reason: string; note?: string | null; createdBy: string | null },
) {
  const inserted = await tx
    .insertInto('suppressions')
    .values({ organization_id: s.organizationId, scope: s.scope, value: s.value, reason: s.reason, note: s.note ?? null, created_by: s.createdBy })
    .onConflict((oc) => oc.columns(['organization_id', 'scope', 'value']).doNothing())
    .returning(SUPPRESSION_COLUMNS)
    .executeTakeFirst();
  if (inserted) await recordEvent(tx, 'suppression.created', { organizationId: s.organizationId, id: inserted.id }, getSuppression);
  if (inserted) return { suppression: inserted, created: true };
  const existing = await tx
    .selectFrom('suppressions')
    .select(SUPPRESSION_COLUMNS)
    .where('organization_id', '=', s.organizationId)
    .where('scope', '=', s.scope)
    .where('value', '=', s.value)
    .executeTakeFirstOrThrow();
  return { suppression: existing, created: false };
}

export function listSuppressions(tx: Tx, f: { organizationId: string; scope?: string; limit: number; before?: string }) {
  let q = tx.selectFrom('suppressions').select(SUPPRESSION_COLUMNS).where('organization_id', '=', f.organizationId);
  if (f.scope) q = q.where('scope', '=', f.scope);
  return newestFirst(q, 'suppressions', f).execute();
}

export function getSuppression(tx: Tx, id: string) {
  return tx.selectFrom('suppressions').select(SUPPRESSION_COLUMNS).where('id', '=', id).executeTakeFirst();
}

/**
 * Removal, audited in the same transaction. The append-only audit log never holds the suppressed
 * value itself (an address is personal data that outlives its suppression there): it holds the
 * suppression's id, scope and reason, and the value's sha256 (emailHash), so "was this address's
 * suppression removed?" can still be answered by hashing the address.
 */
export async function removeSuppression(tx: Tx, id: string, actorId: string) {
  const removed = await tx.deleteFrom('suppressions').where('id', '=', id).returning(SUPPRESSION_COLUMNS).executeTakeFirst();
  if (removed) {
    await writeAudit(tx, {
      organizationId: removed.organization_id,
      actorId,
      entity: 'suppression',
      entityId: removed.id,
      action: 'delete',
      changes: [{ field: removed.scope, before: { reason: removed.reason, value_sha256: suppressionValueHash(removed.scope, removed.value) }, after: null }],
    });
  }
  return removed;
}

/** The suppressions of an organization that match any of these keys (scope and value), oldest first. */
export async function findSuppressions(tx: Tx, organizationId: string, keys: ReadonlyArray<Pick<SuppressionKey, 'scope' | 'value'>>) {
  if (!keys.length) return [];
  return tx
    .selectFrom('suppressions')
    .select(SUPPRESSION_COLUMNS)
    .where('organization_id', '=', organizationId)
    .where((eb) => eb.or(keys.map((k) => eb.and([eb('scope', '=', k.scope), eb('value', '=', k.value)]))))
    .orderBy('created_at')
    .execute();
}

/** Whether an address, or its domain, is suppressed in the organization (a reply or reminder is checked this way). */
export async function addressSuppressed(tx: Tx, organizationId: string, address: string): Promise<boolean> {
  const found = await findSuppressions(tx, organizationId, addressSuppressionKeys(address));
  return found.length > 0;
}

/** The suppression keys that stop mail to an address: the address and its domain. */
export function addressSuppressionKeys(address: string): Array<Pick<SuppressionKey, 'scope' | 'value'>> {
  const a = address.toLowerCase();
  return [
    { scope: 'email', value: a },
    { scope: 'domain', value: a.split('@')[1] ?? '' },
  ];
}
