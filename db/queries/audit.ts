import type { Tx } from '../tenancy';

export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

/** One audit row per changed field, in the caller's transaction (so a change and its audit commit together). */
export async function writeAudit(
  tx: Tx,
  a: { organizationId: string; actorId: string | null; entity: string; entityId: string | null; action: string; changes: FieldChange[] },
): Promise<void> {
  const rows = a.changes.length ? a.changes : [{ field: null, before: null, after: null }];
  await tx
    .insertInto('compliance_audit_log')
    .values(
      rows.map((c) => ({
        organization_id: a.organizationId,
        actor_id: a.actorId,
        entity: a.entity,
        entity_id: a.entityId,
        action: a.action,
        field: c.field,
        before: c.before === undefined ? null : JSON.stringify(c.before),
        after: c.after === undefined ? null : JSON.stringify(c.after),
      })),
    )
    .execute();
}

/** The fields of `patch` whose value differs from `current`, as audit changes. */
export function diff<T extends Record<string, unknown>>(current: T, patch: Partial<T>): FieldChange[] {
  return Object.entries(patch)
    .filter(([k, v]) => v !== undefined && JSON.stringify(current[k] ?? null) !== JSON.stringify(v))
    .map(([field, after]) => ({ field, before: current[field] ?? null, after }));
}
