import { sql, type Kysely } from 'kysely';
import type { DB as Database } from '../database';
import type { Tx } from '../tenancy';
import type { EnrichmentStopAt } from '../../domain/contacts/email-verification';
import { writeAudit } from './audit';

/**
 * The enrichment waterfall's settings (the organization's order of its enrichment integrations and
 * where the waterfall stops) and its runs, each with its steps in order.
 */

/** How many runs of a company are kept; older ones are deleted when a run starts. */
export const RUNS_KEPT_PER_COMPANY = 50;

export class NotEnrichmentIntegrationError extends Error {
  constructor(readonly index: number) {
    super('is not an enrichment integration of this organization');
  }
}

export async function enrichmentSettings(tx: Tx, organizationId: string) {
  const org = await tx.selectFrom('organizations').select(['id', 'enrichment_stop_at']).where('id', '=', organizationId).executeTakeFirst();
  if (!org) return undefined;
  return {
    organization_id: org.id,
    stop_at: org.enrichment_stop_at as EnrichmentStopAt,
    order: await orderedIntegrations(tx, organizationId),
  };
}

/** The ordered integrations, then the organization's other enrichment integrations oldest first (the order of an organization that set none). */
function orderedIntegrations(tx: Tx, organizationId: string) {
  return tx
    .selectFrom('integrations as i')
    .leftJoin('enrichment_order as o', (j) => j.onRef('o.integration_id', '=', 'i.id').onRef('o.organization_id', '=', 'i.organization_id'))
    .select(['i.id as integration_id', 'i.provider_key', 'i.status', sql<boolean>`o.position IS NOT NULL`.as('ordered')])
    .where('i.organization_id', '=', organizationId)
    .where('i.kind', '=', 'enrichment')
    .orderBy(sql`o.position IS NULL`)
    .orderBy('o.position')
    .orderBy('i.created_at')
    .orderBy('i.id')
    .execute();
}

/** Sets the order (the integrations named, in order; those not named follow, oldest first) and where the waterfall stops; audited. */
export async function changeEnrichmentSettings(
  tx: Tx,
  organizationId: string,
  actorId: string | null,
  change: { order?: string[]; stopAt?: EnrichmentStopAt },
) {
  const before = await enrichmentSettings(tx, organizationId);
  if (!before) return undefined;
  if (change.order) {
    const known = await tx
      .selectFrom('integrations')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('kind', '=', 'enrichment')
      .where('id', 'in', change.order.length ? change.order : ['00000000-0000-0000-0000-000000000000'])
      .execute();
    const ids = new Set(known.map((k) => k.id));
    const missing = change.order.findIndex((id) => !ids.has(id.toLowerCase()));
    if (missing >= 0) throw new NotEnrichmentIntegrationError(missing);
    await tx.deleteFrom('enrichment_order').where('organization_id', '=', organizationId).execute();
    if (change.order.length)
      await tx
        .insertInto('enrichment_order')
        .values(change.order.map((id, position) => ({ organization_id: organizationId, integration_id: id.toLowerCase(), position })))
        .execute();
  }
  if (change.stopAt)
    await tx
      .updateTable('organizations')
      .set({ enrichment_stop_at: change.stopAt, updated_at: sql`now()` })
      .where('id', '=', organizationId)
      .execute();
  const after = (await enrichmentSettings(tx, organizationId))!;
  const changes = [];
  const orderOf = (s: typeof after) => s.order.filter((o) => o.ordered).map((o) => o.integration_id);
  if (change.order && JSON.stringify(orderOf(before)) !== JSON.stringify(orderOf(after)))
    changes.push({ field: 'order', before: orderOf(before), after: orderOf(after) });
  if (before.stop_at !== after.stop_at) changes.push({ field: 'stop_at', before: before.stop_at, after: after.stop_at });
  if (changes.length) await writeAudit(tx, { organizationId, actorId, entity: 'enrichment_settings', entityId: organizationId, action: 'update', changes });
  return after;
}

export interface PlannedStep {
  position: number;
  provider: string;
  integrationId: string | null;
}

/**
 * The run of a workflow run: created with its planned steps on the first call, the same run on a
 * retry. Older runs of the company beyond RUNS_KEPT_PER_COMPANY are deleted.
 */
export async function startEnrichmentRun(
  tx: Tx,
  r: { organizationId: string; companyId: string; workflowRunId: string; stopAt: EnrichmentStopAt; steps: PlannedStep[] },
) {
  const inserted = await tx
    .insertInto('enrichment_runs')
    .values({ organization_id: r.organizationId, company_id: r.companyId, workflow_run_id: r.workflowRunId, stop_at: r.stopAt })
    .onConflict((oc) => oc.columns(['organization_id', 'workflow_run_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted) {
    // One enrichment workflow runs per company at a time (its workflow id): a run still `running` here
    // belongs to a workflow run that ended without finishing it.
    const abandoned = tx
      .selectFrom('enrichment_runs')
      .select('id')
      .where('organization_id', '=', r.organizationId)
      .where('company_id', '=', r.companyId)
      .where('status', '=', 'running')
      .where('id', '<>', inserted.id);
    await tx
      .updateTable('enrichment_run_steps')
      .set({ status: 'failed', error: 'the run ended without finishing this step', finished_at: sql`now()` })
      .where('run_id', 'in', abandoned)
      .where('status', 'in', ['pending', 'running'])
      .execute();
    await tx
      .updateTable('enrichment_runs')
      .set({ status: 'failed', finished_at: sql`now()` })
      .where('id', 'in', abandoned)
      .execute();
    if (r.steps.length)
      await tx
        .insertInto('enrichment_run_steps')
        .values(
          r.steps.map((s) => ({
            run_id: inserted.id,
            organization_id: r.organizationId,
            position: s.position,
            provider: s.provider,
            integration_id: s.integrationId,
          })),
        )
        .execute();
    await tx
      .deleteFrom('enrichment_runs')
      .where('company_id', '=', r.companyId)
      .where('organization_id', '=', r.organizationId)
      .where(
        'id',
        'not in',
        tx
          .selectFrom('enrichment_runs')
          .select('id')
          .where('company_id', '=', r.companyId)
          .where('organization_id', '=', r.organizationId)
          .orderBy('started_at', 'desc')
          .limit(RUNS_KEPT_PER_COMPANY),
      )
      .execute();
  }
  const run = await tx
    .selectFrom('enrichment_runs')
    .select(['id', 'stop_at'])
    .where('organization_id', '=', r.organizationId)
    .where('workflow_run_id', '=', r.workflowRunId)
    .executeTakeFirstOrThrow();
  const steps = await tx
    .selectFrom('enrichment_run_steps')
    .select(['position', 'provider', 'integration_id as integrationId'])
    .where('run_id', '=', run.id)
    .orderBy('position')
    .execute();
  return { runId: run.id, stopAt: run.stop_at as EnrichmentStopAt, steps };
}

/** A step's progress; a finished step (done or failed) is not changed again, so a late retry cannot undo it. */
export function updateEnrichmentStep(
  tx: Tx,
  runId: string,
  position: number,
  s: { status: 'running' | 'done' | 'failed'; requestId?: string; found?: number; verified?: number; costUnits?: number; error?: string | null },
) {
  const finished = s.status === 'done' || s.status === 'failed';
  return tx
    .updateTable('enrichment_run_steps')
    .set({
      status: s.status,
      ...(s.requestId !== undefined ? { request_id: s.requestId } : {}),
      ...(s.found !== undefined ? { found: s.found } : {}),
      // Never above what the step found (a check counted against a find a retry recorded anew).
      ...(s.verified !== undefined
        ? { verified: sql<number>`least(${s.verified}::int, ${s.found !== undefined ? sql`${s.found}::int` : sql.ref('found')})` }
        : {}),
      ...(s.costUnits !== undefined ? { cost_units: s.costUnits } : {}),
      ...(s.error !== undefined ? { error: s.error?.slice(0, 2000) ?? null } : {}),
      started_at: sql`coalesce(started_at, now())`,
      ...(finished ? { finished_at: sql`now()` } : {}),
    })
    .where('run_id', '=', runId)
    .where('position', '=', position)
    .where('status', 'in', ['pending', 'running'])
    .execute();
}

/**
 * Claims a batch step's request before it is sent: 'claimed' the first time; the request's id when one
 * was recorded (a retry polls it); 'lost' when a request was claimed but its id never recorded (sent
 * and maybe paid for, or not: it is not sent again).
 */
export async function claimBatchSubmit(tx: Tx, runId: string, position: number): Promise<'claimed' | 'lost' | { requestId: string }> {
  const claimed = await tx
    .updateTable('enrichment_run_steps')
    .set({ submitted_at: sql`now()`, status: 'running', started_at: sql`coalesce(started_at, now())` })
    .where('run_id', '=', runId)
    .where('position', '=', position)
    .where('submitted_at', 'is', null)
    .where('status', 'in', ['pending', 'running'])
    .returning('position')
    .executeTakeFirst();
  if (claimed) return 'claimed';
  const step = await enrichmentStep(tx, runId, position);
  return step?.request_id ? { requestId: step.request_id } : 'lost';
}

/** Records the claimed request's id (only once: a second id for the step is refused by the claim). */
export function recordBatchRequest(tx: Tx, runId: string, position: number, requestId: string) {
  return tx
    .updateTable('enrichment_run_steps')
    .set({ request_id: requestId })
    .where('run_id', '=', runId)
    .where('position', '=', position)
    .where('request_id', 'is', null)
    .execute();
}

/** Gives the claim back: the provider refused the request with an answer, so nothing was sent to be paid for. */
export function releaseBatchClaim(tx: Tx, runId: string, position: number) {
  return tx
    .updateTable('enrichment_run_steps')
    .set({ submitted_at: null })
    .where('run_id', '=', runId)
    .where('position', '=', position)
    .where('request_id', 'is', null)
    .execute();
}

/** The contacts whose address a step found (marked in contacts.found_by when it was stored), at most `limit`, with their number. */
export async function addressesFoundBy(tx: Tx, companyId: string, runId: string, position: number, limit: number) {
  const found = await tx
    .selectFrom('contacts')
    .select(['id', sql<number>`count(*) OVER ()::int`.as('total')])
    .where('company_id', '=', companyId)
    .where(sql<string>`found_by -> 'email' ->> 'run_id'`, '=', runId)
    .where(sql<string>`found_by -> 'email' ->> 'step'`, '=', String(position))
    .where('erased_at', 'is', null)
    .orderBy('id')
    .limit(limit)
    .execute();
  return { ids: found.map((f) => f.id), total: found[0]?.total ?? 0 };
}

export function enrichmentStep(tx: Tx, runId: string, position: number) {
  return tx
    .selectFrom('enrichment_run_steps')
    .select(['status', 'request_id', 'found', 'verified', 'cost_units', 'error'])
    .where('run_id', '=', runId)
    .where('position', '=', position)
    .executeTakeFirst();
}

/** Ends a run: the steps not reached are marked skipped. */
export async function finishEnrichmentRun(tx: Tx, runId: string, status: 'done' | 'failed', stoppedAtStep: number | null) {
  await tx.updateTable('enrichment_run_steps').set({ status: 'skipped' }).where('run_id', '=', runId).where('status', 'in', ['pending', 'running']).execute();
  await tx
    .updateTable('enrichment_runs')
    .set({ status, stopped_at_step: stoppedAtStep, finished_at: sql`now()` })
    .where('id', '=', runId)
    .where('status', '=', 'running')
    .execute();
}

export async function listEnrichmentRuns(tx: Tx, companyId: string, limit: number) {
  const runs = await tx
    .selectFrom('enrichment_runs')
    .select(['id', 'organization_id', 'company_id', 'status', 'stop_at', 'stopped_at_step', 'started_at', 'finished_at'])
    .where('company_id', '=', companyId)
    .orderBy('started_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  if (runs.length === 0) return [];
  const steps = await tx
    .selectFrom('enrichment_run_steps')
    .select(['run_id', 'position', 'provider', 'integration_id', 'status', 'found', 'verified', 'cost_units', 'error', 'started_at', 'finished_at'])
    .where(
      'run_id',
      'in',
      runs.map((r) => r.id),
    )
    .orderBy('position')
    .execute();
  return runs.map((r) => ({
    ...r,
    steps: steps.filter((s) => s.run_id === r.id).map(({ run_id: _run, ...s }) => s),
  }));
}

/** Companies left enriching longer than olderThanSeconds, in every organization (ids only: app.stuck_enrichments). */
export async function stuckEnrichmentIds(db: Kysely<Database>, olderThanSeconds: number, limit: number) {
  const rows = await sql<{ organization_id: string; company_id: string }>`
    SELECT organization_id, company_id FROM app.stuck_enrichments(${olderThanSeconds}::int, ${limit}::int)`.execute(db);
  return rows.rows;
}

/** The ones among these companies still enriching, read as their organization (RLS). */
export function enrichingCompanies(tx: Tx, ids: string[]) {
  return tx.selectFrom('companies').select(['id', 'organization_id']).where('id', 'in', ids).where('enrichment_status', '=', 'running').execute();
}
