import { sql } from 'kysely';
import type { Tx } from '../../tenancy';
import { diff, writeAudit } from '../audit';
import { newestFirst } from '../pagination';

export const SETTINGS_COLUMNS = [
  'organization_id',
  'default_country',
  'default_locale',
  'default_formality',
  'retention_months',
  'ai_disclosure',
  'sender_legal_name',
  'sender_address',
  'privacy_url',
  'unsubscribe_mailto',
  'feedback_loop_senders',
  'created_at',
  'updated_at',
] as const;

export function complianceSettings(tx: Tx, organizationId: string) {
  return tx.selectFrom('compliance_settings').select(SETTINGS_COLUMNS).where('organization_id', '=', organizationId).executeTakeFirst();
}

export type SettingsPatch = Partial<{
  default_country: string;
  default_locale: string;
  default_formality: string;
  retention_months: number;
  ai_disclosure: string;
  sender_legal_name: string | null;
  sender_address: string | null;
  privacy_url: string | null;
  unsubscribe_mailto: string | null;
  feedback_loop_senders: string[];
}>;

/** The change and one audit row per changed field (actor, time, before, after) commit together. */
export async function changeComplianceSettings(tx: Tx, organizationId: string, actorId: string, patch: SettingsPatch) {
  const current = await tx
    .selectFrom('compliance_settings')
    .select(SETTINGS_COLUMNS)
    .where('organization_id', '=', organizationId)
    .forUpdate()
    .executeTakeFirst();
  if (!current) return undefined;
  const changes = diff(current as unknown as Record<string, unknown>, patch);
  if (!changes.length) return current;
  const updated = await tx
    .updateTable('compliance_settings')
    .set({ ...Object.fromEntries(changes.map((c) => [c.field, c.after])), updated_at: sql`now()` })
    .where('organization_id', '=', organizationId)
    .returning(SETTINGS_COLUMNS)
    .executeTakeFirstOrThrow();
  await writeAudit(tx, { organizationId, actorId, entity: 'compliance_settings', entityId: organizationId, action: 'update', changes });
  return updated;
}

/** The organization's own feedback-loop senders (domain/replies/feedback-loops.ts), none when unset. */
export async function feedbackLoopSenders(tx: Tx, organizationId: string): Promise<string[]> {
  const row = await tx.selectFrom('compliance_settings').select('feedback_loop_senders').where('organization_id', '=', organizationId).executeTakeFirst();
  return row?.feedback_loop_senders ?? [];
}

/** The append-only compliance audit log, newest first. */
export function listAudit(tx: Tx, f: { organizationId: string; entity?: string; limit: number; before?: string }) {
  let q = tx
    .selectFrom('compliance_audit_log')
    .select(['id', 'organization_id', 'actor_id', 'entity', 'entity_id', 'action', 'field', 'before', 'after', 'created_at'])
    .where('organization_id', '=', f.organizationId);
  if (f.entity) q = q.where('entity', '=', f.entity);
  return newestFirst(q, 'compliance_audit_log', f).execute();
}
