import { sql, type Kysely } from 'kysely';
import type { DB as Database } from '../database';
import type { Tx } from '../tenancy';
import { newestFirst } from './pagination';
import { recordEvent } from './webhook-events';

/**
 * The spec's Opportunity fields plus company_id (the company the enrichment stage linked) and the CRM
 * sync of its outcome (crm_synced_at, crm_error; documented in docs/api.md).
 */
export const OPPORTUNITY_COLUMNS = [
  'id',
  'organization_id',
  'project_id',
  'created_from_signal_id',
  'company_id',
  'status',
  'score',
  'summary',
  'outcome',
  'outcome_at',
  'outcome_value',
  'crm_synced_at',
  'crm_error',
  'created_at',
  'updated_at',
] as const;

export function getOpportunity(tx: Tx, id: string) {
  return tx.selectFrom('opportunities').select(OPPORTUNITY_COLUMNS).where('id', '=', id).executeTakeFirst();
}

export function openOpportunityForProject(tx: Tx, organizationId: string, projectId: string) {
  return tx
    .selectFrom('opportunities')
    .select(OPPORTUNITY_COLUMNS)
    .where('organization_id', '=', organizationId)
    .where('project_id', '=', projectId)
    .where('status', '<>', 'closed')
    .executeTakeFirst();
}

/**
 * Opens an opportunity; when the project already has an open one, that one is returned with
 * created = false (at most one open opportunity per project, enforced by a unique index).
 */
export async function openOpportunity(
  tx: Tx,
  o: { organizationId: string; projectId: string | null; signalId: string | null; score: number | null; summary: string | null; createdBy?: string },
) {
  const inserted = await tx
    .insertInto('opportunities')
    .values({
      organization_id: o.organizationId,
      project_id: o.projectId,
      created_from_signal_id: o.signalId,
      status: 'ready',
      score: o.score,
      summary: o.summary,
      created_by: o.createdBy ?? null,
    })
    .onConflict((oc) => oc.columns(['organization_id', 'project_id']).where('project_id', 'is not', null).where('status', '<>', 'closed').doNothing())
    .returning(OPPORTUNITY_COLUMNS)
    .executeTakeFirst();
  if (inserted) await recordEvent(tx, 'opportunity.created', { organizationId: o.organizationId, id: inserted.id }, getOpportunity);
  if (inserted) return { opportunity: inserted, created: true };
  const existing = await openOpportunityForProject(tx, o.organizationId, o.projectId!);
  return { opportunity: existing!, created: false };
}

export function listOpportunities(tx: Tx, f: { organizationId: string; status?: string; outcome?: string; limit: number; before?: string }) {
  let q = tx.selectFrom('opportunities').select(OPPORTUNITY_COLUMNS).where('organization_id', '=', f.organizationId);
  if (f.status) q = q.where('status', '=', f.status);
  if (f.outcome) q = q.where('outcome', '=', f.outcome);
  return newestFirst(q, 'opportunities', f).execute();
}

/** won/lost close the opportunity; open reopens it (outcome_at and value cleared). */
export function setOutcome(tx: Tx, id: string, outcome: 'won' | 'lost' | 'open', value: number | null) {
  return tx
    .updateTable('opportunities')
    .set(
      outcome === 'open'
        ? { outcome, status: 'ready', outcome_at: null, outcome_value: null, updated_at: sql`now()` }
        : // A new won/lost outcome is judged by the CRM afresh: an earlier refusal no longer stands for it.
          { outcome, status: 'closed', outcome_at: sql`now()`, outcome_value: outcome === 'won' ? value : null, crm_error: null, updated_at: sql`now()` },
    )
    .where('id', '=', id)
    .returning(OPPORTUNITY_COLUMNS)
    .executeTakeFirst();
}

/** The outcome as the CRM sync reads it (the latest, whatever the run was woken for), with when it was set (as text: exact to the microsecond). */
export function opportunityOutcome(tx: Tx, id: string) {
  return tx
    .selectFrom('opportunities')
    .select(['id', 'organization_id', 'outcome', sql<string | null>`outcome_at::text`.as('outcome_at')])
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * The CRM's answer to the outcome's sync: done (crm_error cleared) or refused for good (a 4xx, kept in
 * crm_error). Recorded only while the outcome is still the one that was sent (`outcomeAt` as read): an
 * outcome changed meanwhile stays unsynced, for its own run or reconcile/outreach to send.
 */
export function recordOutcomeCrmSync(tx: Tx, id: string, outcomeAt: string | null, r: { ok: true } | { error: string }) {
  return tx
    .updateTable('opportunities')
    .set('ok' in r ? { crm_synced_at: sql`now()`, crm_error: null } : { crm_error: r.error.slice(0, 1000) })
    .where('id', '=', id)
    .where(sql<boolean>`outcome_at IS NOT DISTINCT FROM ${outcomeAt}::timestamptz`)
    .execute();
}

/**
 * Won or lost outcomes that no sync has written since they were set, unchanged for olderThanSeconds, in
 * every organization whose Salesforce integration auto-syncs and links them (reconcile/outreach): ids
 * only (app.crm_outcomes_unsynced, migration 0031); the rows are read again as their organization.
 */
export async function unsyncedCrmOutcomeIds(db: Kysely<Database>, olderThanSeconds: number, limit: number, onlyOrganizationId: string | null = null) {
  const rows = await sql<{ organization_id: string; opportunity_id: string }>`
    SELECT organization_id, opportunity_id FROM app.crm_outcomes_unsynced(${olderThanSeconds}::int, ${limit}::int, ${onlyOrganizationId}::uuid)`.execute(db);
  return rows.rows;
}

/** Of these opportunities, those still won or lost, not synced since, with no CRM refusal, read as their organization. */
export function unsyncedCrmOutcomes(tx: Tx, ids: string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return tx
    .selectFrom('opportunities')
    .select(['id', 'organization_id'])
    .where('id', 'in', ids)
    .where('outcome', 'in', ['won', 'lost'])
    .where('crm_error', 'is', null)
    .where((eb) => eb.or([eb('crm_synced_at', 'is', null), eb('crm_synced_at', '<', eb.ref('outcome_at'))]))
    .execute();
}
