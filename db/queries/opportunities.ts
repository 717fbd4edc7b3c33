import { sql } from 'kysely';
import type { Tx } from '../tenancy';
import { newestFirst } from './pagination';
import { recordEvent } from './webhook-events';

/** The spec's Opportunity fields plus company_id (the company the enrichment stage linked; documented in docs/api.md). */
export const OPPORTUNITY_COLUMNS = [
  'id', 'organization_id', 'project_id', 'created_from_signal_id', 'company_id', 'status', 'score', 'summary', 'outcome', 'outcome_at',
  'outcome_value', 'created_at', 'updated_at',
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
  if (inserted) await recordEvent(tx, 'opportunity.created', { organizationId: o.organizationId, id: inserted.id });
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
        : { outcome, status: 'closed', outcome_at: sql`now()`, outcome_value: outcome === 'won' ? value : null, updated_at: sql`now()` },
    )
    .where('id', '=', id)
    .returning(OPPORTUNITY_COLUMNS)
    .executeTakeFirst();
}
