import { Kysely, sql } from 'kysely';
import type { DB as Database } from '../database';
import { DIMENSIONS } from '../../domain/scoring/engine';
import type { Reader, Tx } from '../tenancy';

/** Rules in the canonical dimension order, so breakdowns always list components the same way. */
export const RULE_ORDER = sql`array_position(${sql.raw(`ARRAY[${DIMENSIONS.map((d) => `'${d}'`).join(',')}]::text[]`)}, dimension)`;

/** What the signal pipeline's stages read and write. Each write is one transaction of the caller's. */

export function signalForPipeline(tx: Tx, signalId: string) {
  return signalForPipelineQuery(tx, signalId).executeTakeFirst();
}

/** signalForPipeline's query, not run (the pipeline's gate runs it in one round trip: asOrganizationInOneTrip). */
export function signalForPipelineQuery(qb: Reader, signalId: string) {
  return qb
    .selectFrom('signals')
    .innerJoin('sources', 'sources.id', 'signals.source_id')
    .select([
      'signals.id',
      'signals.organization_id',
      'signals.status',
      'signals.title',
      'signals.summary',
      'signals.signal_type',
      'signals.published_at',
      'signals.lat',
      'signals.lng',
      'signals.project_id',
      'signals.current_score',
      'signals.source_id',
      'signals.ignored_at',
      'sources.provider_key as source_kind',
      'sources.language',
    ])
    .where('signals.id', '=', signalId);
}

/** Locks the signal row so that concurrent runs of one stage take versions one after the other. */
export async function lockSignal(tx: Tx, signalId: string) {
  return tx.selectFrom('signals').select(['id', 'status', 'ignored_at']).where('id', '=', signalId).forUpdate().executeTakeFirst();
}

export async function industryProfile(tx: Tx, organizationId: string) {
  const profile = await tx.selectFrom('industry_profiles').selectAll().where('organization_id', '=', organizationId).executeTakeFirst();
  if (!profile) return undefined;
  const [personas, products] = await Promise.all([
    tx.selectFrom('personas').selectAll().where('industry_profile_id', '=', profile.id).orderBy('priority', 'desc').orderBy('created_at').execute(),
    tx.selectFrom('products').selectAll().where('industry_profile_id', '=', profile.id).orderBy('created_at').execute(),
  ]);
  return { profile, personas, products };
}

export async function activeScoringConfig(tx: Tx, organizationId: string) {
  const config = await tx
    .selectFrom('scoring_configs')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('is_active', '=', true)
    .executeTakeFirst();
  if (!config) return undefined;
  const rules = await tx.selectFrom('scoring_rules').selectAll().where('scoring_config_id', '=', config.id).orderBy(RULE_ORDER).orderBy('rule_key').execute();
  return { config, rules };
}

export function currentClassification(tx: Tx, signalId: string) {
  return tx.selectFrom('classifications').selectAll().where('signal_id', '=', signalId).where('is_current', '=', true).executeTakeFirst();
}

/** Writes the next version of a stage's result and makes it the current one. */
async function nextVersion(tx: Tx, table: 'classifications' | 'scores', signalId: string): Promise<number> {
  const row = await tx
    .selectFrom(table)
    .select(sql<number>`coalesce(max(version), 0) + 1`.as('v'))
    .where('signal_id', '=', signalId)
    .executeTakeFirstOrThrow();
  await tx
    .updateTable(table)
    .set({ is_current: false, updated_at: sql`now()` })
    .where('signal_id', '=', signalId)
    .where('is_current', '=', true)
    .execute();
  return row.v;
}

export async function insertClassification(
  tx: Tx,
  c: {
    organizationId: string;
    signalId: string;
    model: string;
    promptKey: string | null;
    promptVersion: string | null;
    promptHash: string | null;
    output: Record<string, unknown>;
    confidence: number;
    commercialRelevance: boolean;
    relevanceReasons: string[];
    projectCategory: string;
    projectStage: string | null;
    estimatedSize: number | null;
  },
) {
  const version = await nextVersion(tx, 'classifications', c.signalId);
  return tx
    .insertInto('classifications')
    .values({
      organization_id: c.organizationId,
      signal_id: c.signalId,
      version,
      model: c.model,
      prompt_key: c.promptKey,
      prompt_version: c.promptVersion,
      prompt_hash: c.promptHash,
      output: JSON.stringify(c.output),
      confidence: c.confidence,
      commercial_relevance: c.commercialRelevance,
      relevance_reasons: c.relevanceReasons,
      project_category: c.projectCategory,
      project_stage: c.projectStage,
      estimated_size: c.estimatedSize,
      is_current: true,
    })
    .returning(['id', 'version'])
    .executeTakeFirstOrThrow();
}

export async function insertScore(
  tx: Tx,
  s: {
    organizationId: string;
    signalId: string;
    scoringConfigId: string;
    total: number;
    decision: string;
    components: Array<{ dimension: string; rule_key: string; origin: string; raw_value: number; weight: number; points: number; reason: string }>;
  },
) {
  const version = await nextVersion(tx, 'scores', s.signalId);
  const score = await tx
    .insertInto('scores')
    .values({
      organization_id: s.organizationId,
      signal_id: s.signalId,
      scoring_config_id: s.scoringConfigId,
      version,
      total: s.total,
      decision: s.decision,
      is_current: true,
    })
    .returning(['id', 'version'])
    .executeTakeFirstOrThrow();
  if (s.components.length) {
    await tx
      .insertInto('score_components')
      .values(s.components.map((c, position) => ({ ...c, organization_id: s.organizationId, score_id: score.id, position })))
      .execute();
  }
  return score;
}

/** A stage's new status; the signal is mid-pipeline again until the run finishes (processed_at). */
export function setSignalState(tx: Tx, signalId: string, patch: { status: string; current_score?: number | null; failure_reason?: string | null }) {
  return tx
    .updateTable('signals')
    .set({ ...patch, processed_at: null, updated_at: sql`now()` })
    .where('id', '=', signalId)
    .returning(['id', 'status'])
    .executeTakeFirst();
}

/** Marks the signal's pipeline finished (not run: the completion runs it in one round trip). */
export function markProcessedQuery(qb: Reader, signalId: string) {
  return qb
    .updateTable('signals')
    .set({ processed_at: sql`now()` })
    .where('id', '=', signalId);
}

/** Statuses of a signal whose pipeline has not finished (with processed_at null). */
export const UNFINISHED_STATUSES = ['ingested', 'classified', 'scored', 'qualified', 'ready'] as const;

/**
 * Signals left unfinished for longer than olderThanSeconds, in every organization: ids only, through
 * the SECURITY DEFINER function app.stuck_signals (the caller has no tenant context).
 */
export async function stuckSignalIds(db: Kysely<Database>, olderThanSeconds: number, limit: number) {
  const rows = await sql<{ organization_id: string; signal_id: string }>`
    SELECT organization_id, signal_id FROM app.stuck_signals(${olderThanSeconds}::int, ${limit}::int)`.execute(db);
  return rows.rows;
}

/** The unfinished ones among these signals, read as their organization (RLS). */
export function unfinishedSignals(tx: Tx, ids: string[]) {
  return tx
    .selectFrom('signals')
    .select(['id', 'organization_id', 'source_id', 'status'])
    .where('id', 'in', ids)
    .where('processed_at', 'is', null)
    .where('status', 'in', [...UNFINISHED_STATUSES])
    .execute();
}
