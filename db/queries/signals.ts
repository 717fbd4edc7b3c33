import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { CompanyHint, extractCompanyHint } from '../../domain/companies/extract';
import { linkProjects, uniqueByExternalId } from '../../domain/signals/projects';
import { lockForAll } from '../locks';
import type { Reader, Tx } from '../tenancy';
import { jsonColumns } from '../json-answers';
import { listPerShape } from '../query-shapes';
import { newestFirst } from './pagination';

/** Exactly the spec's Signal fields. */
export const SIGNAL_COLUMNS = [
  'id',
  'organization_id',
  'source_id',
  'raw_publication_id',
  'project_id',
  'external_id',
  'status',
  'signal_type',
  'title',
  'summary',
  'published_at',
  'effective_start',
  'effective_end',
  'source_url',
  'current_score',
  'dedupe_key',
  'created_at',
  'updated_at',
] as const;

export function getSignal(tx: Tx, id: string) {
  return tx.selectFrom('signals').select(SIGNAL_COLUMNS).where('id', '=', id).executeTakeFirst();
}

/** A person ignores a signal: only this stops its pipeline (an ignore by its score does not). */
export function ignoreSignal(tx: Tx, id: string, userId: string) {
  return tx
    .updateTable('signals')
    .set({ status: 'ignored', ignored_by: userId, ignored_at: sql`now()`, updated_at: sql`now()` })
    .where('id', '=', id)
    .returning(SIGNAL_COLUMNS)
    .executeTakeFirstOrThrow();
}

/**
 * A reprocess was accepted: the signal is mid-pipeline again until its run completes, so the scheduled
 * reconcile picks it up if that run dies before its first stage writes.
 */
export function markSignalReprocessing(tx: Tx, id: string) {
  return tx
    .updateTable('signals')
    .set({ processed_at: null, updated_at: sql`now()` })
    .where('id', '=', id)
    .execute();
}

export interface SignalFilter {
  organizationId: string;
  status?: string;
  projectId?: string;
  q?: string;
  limit: number;
  before?: string;
}

/** What the list query is built from: the filter, its title search as a LIKE pattern (q's wildcards escaped). */
type SignalListValues = Omit<SignalFilter, 'q'> & { titlePattern?: string };

function listValues({ q, ...f }: SignalFilter): SignalListValues {
  return q ? { ...f, titlePattern: `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%` } : f;
}

function fromSignals(tx: Reader, v: SignalListValues) {
  let q = tx.selectFrom('signals').where('organization_id', '=', v.organizationId);
  if (v.status) q = q.where('status', '=', v.status);
  if (v.projectId) q = q.where('project_id', '=', v.projectId);
  // Case-insensitive: the lower-cased title (migration 0032) against the lower-cased pattern, which is
  // what ILIKE does, without lowering every candidate title again.
  if (v.titlePattern) q = q.where('title_folded', 'like', sql<string>`lower(${v.titlePattern})`);
  return q;
}

/** The list query, not run: the route runs it in one round trip (readWithRole). */
export function listSignals(tx: Reader, f: SignalFilter) {
  const v = listValues(f);
  return newestFirst(fromSignals(tx, v).select(SIGNAL_COLUMNS), 'signals', v);
}

const SIGNAL_JSON_COLUMNS = jsonColumns(SIGNAL_COLUMNS, {
  timestamps: ['published_at', 'effective_start', 'effective_end', 'created_at', 'updated_at'],
  numbers: ['current_score'],
});
const signalsJson = listPerShape((qb: Reader, v: SignalListValues) => newestFirst(fromSignals(qb, v).select(SIGNAL_JSON_COLUMNS), 'signals', v), listValues);

/**
 * listSignals built as JSON in PostgreSQL (GET /signals answers it as it is; readJsonWithRole,
 * db/json-answers.ts), compiled once per shape of the filter (db/query-shapes.ts).
 */
export const listSignalsJson = signalsJson.perShape;
/** listSignalsJson compiled afresh on every call. */
export const listSignalsJsonAfresh = signalsJson.afresh;

/** A publication as a source provider normalises it, ready to become a raw publication and a signal. */
export interface NormalizedPublication {
  externalId: string;
  dedupeKey: string;
  title: string;
  summary: string | null;
  url: string | null;
  publishedAt: string | null;
  effectiveStart: string | null;
  effectiveEnd: string | null;
  signalType: string;
  locationText: string | null;
  municipality: string | null;
  lat: number | null;
  lng: number | null;
  contentHash: string;
  payload: Record<string, unknown>;
  /** The company the publication names, when the source maps it. */
  company?: Partial<CompanyHint> | null;
}

export interface StoredBatch {
  /** Signals this call created. */
  created: number;
  /** Every signal of the batch still `ingested` (also those an earlier attempt stored): to be processed. */
  pending: string[];
}

/**
 * Stores one batch idempotently: raw publications upsert on (source, external_id); a signal is
 * created for every publication whose external id is new for the source (an item listed twice
 * counts once). The dedupe key links a new signal to a project only within `projectWindowMs` of
 * that project's latest signal. Returns the number created and every signal of the batch still
 * waiting to be processed, so a retried run hands on what an earlier attempt stored.
 */
export async function storePublicationBatch(
  tx: Tx,
  organizationId: string,
  sourceId: string,
  batch: NormalizedPublication[],
  opts: { projectWindowMs: number; now: Date },
): Promise<StoredBatch> {
  const items = uniqueByExternalId(batch);
  if (items.length === 0) return { created: 0, pending: [] };
  const externalIds = items.map((p) => p.externalId);
  const raws = await tx
    .insertInto('raw_publications')
    .values(
      items.map((p) => ({
        organization_id: organizationId,
        source_id: sourceId,
        external_id: p.externalId,
        url: p.url,
        title: p.title,
        payload: JSON.stringify(p.payload),
        content_hash: p.contentHash,
      })),
    )
    .onConflict((oc) =>
      oc.columns(['source_id', 'external_id']).doUpdateSet((eb) => ({
        payload: eb.ref('excluded.payload'),
        content_hash: eb.ref('excluded.content_hash'),
        fetched_at: sql`now()`,
      })),
    )
    .returning(['id', 'external_id'])
    .execute();
  const rawIdByExternal = new Map(raws.map((r) => [r.external_id, r.id]));

  const known = new Set(
    (await tx.selectFrom('signals').select('external_id').where('source_id', '=', sourceId).where('external_id', 'in', externalIds).execute()).map(
      (r) => r.external_id,
    ),
  );
  const fresh = items.filter((p) => !known.has(p.externalId)).map((p) => ({ ...p, at: p.publishedAt ? new Date(p.publishedAt) : opts.now }));
  let created = 0;
  if (fresh.length > 0) {
    const projectOf = await linkToProjects(tx, organizationId, fresh, opts.projectWindowMs);
    const rows = await tx
      .insertInto('signals')
      .values(
        fresh.map((p) => ({
          organization_id: organizationId,
          source_id: sourceId,
          raw_publication_id: rawIdByExternal.get(p.externalId) ?? null,
          project_id: projectOf.get(p) ?? null,
          external_id: p.externalId,
          status: 'ingested',
          signal_type: p.signalType,
          title: p.title,
          summary: p.summary,
          published_at: p.publishedAt,
          effective_start: p.effectiveStart,
          effective_end: p.effectiveEnd,
          source_url: p.url,
          dedupe_key: p.dedupeKey,
          location_text: p.locationText,
          municipality: p.municipality,
          lat: p.lat,
          lng: p.lng,
          company_hint: jsonOrNull(extractCompanyHint(`${p.title}\n${p.summary ?? ''}`, p.company)),
        })),
      )
      .onConflict((oc) => oc.columns(['source_id', 'external_id']).doNothing())
      .returning('id')
      .execute();
    created = rows.length;
  }
  const pending = await tx
    .selectFrom('signals')
    .select('id')
    .where('source_id', '=', sourceId)
    .where('external_id', 'in', externalIds)
    .where('status', '=', 'ingested')
    .execute();
  return { created, pending: pending.map((r) => r.id) };
}

/**
 * Projects of new signals: signals with the same dedupe key, from any source, share a project while
 * they fall within the window of its latest signal. The keys are locked for the transaction, so two
 * sources storing the same project at once open it only once.
 */
async function linkToProjects<T extends NormalizedPublication & { at: Date }>(
  tx: Tx,
  organizationId: string,
  items: T[],
  windowMs: number,
): Promise<Map<T, string>> {
  const keys = [...new Set(items.map((p) => p.dedupeKey))];
  await lockForAll(
    tx,
    keys.map((k) => `${organizationId}/${k}`),
  );
  const existing = await tx
    .selectFrom('projects')
    .select(['id', 'dedupe_key', 'last_seen_at'])
    .where('organization_id', '=', organizationId)
    .where('dedupe_key', 'in', keys)
    .execute();
  const links = linkProjects(
    items,
    existing.map((p) => ({ id: p.id, dedupeKey: p.dedupe_key, lastSeenAt: new Date(p.last_seen_at) })),
    windowMs,
    randomUUID,
  );
  if (links.created.length > 0) {
    const first = new Map<string, T>();
    for (const p of items) if (!first.has(links.projectOf.get(p)!)) first.set(links.projectOf.get(p)!, p);
    await tx
      .insertInto('projects')
      .values(
        links.created.map((project) => {
          const p = first.get(project.id)!;
          return {
            id: project.id,
            organization_id: organizationId,
            dedupe_key: project.dedupeKey,
            title: p.title,
            location_text: p.locationText,
            lat: p.lat,
            lng: p.lng,
            last_seen_at: project.lastSeenAt,
          };
        }),
      )
      .execute();
  }
  if (links.moved.length > 0) {
    await sql`UPDATE projects p SET last_seen_at = greatest(p.last_seen_at, m.at), updated_at = now()
                FROM unnest(${links.moved.map((m) => m.id)}::uuid[], ${links.moved.map((m) => m.lastSeenAt.toISOString())}::timestamptz[]) AS m(id, at)
               WHERE p.id = m.id`.execute(tx);
  }
  return links.projectOf;
}

/** Signals of a source still waiting to be processed (a run whose document did not change hands these on). */
export async function pendingSignalsOfSource(tx: Tx, sourceId: string, limit: number): Promise<string[]> {
  const rows = await tx
    .selectFrom('signals')
    .select('id')
    .where('source_id', '=', sourceId)
    .where('status', '=', 'ingested')
    .orderBy('created_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** GET /signals/{id}: the signal with its current classification, score and score components. */
export async function getSignalDetail(tx: Tx, id: string) {
  const signal = await getSignal(tx, id);
  if (!signal) return undefined;
  const classification = await tx
    .selectFrom('classifications')
    .select([
      'id',
      'signal_id',
      'organization_id',
      'version',
      'model',
      'prompt_key',
      'prompt_version',
      'prompt_hash',
      'output',
      'confidence',
      'commercial_relevance',
      'relevance_reasons',
      'project_category',
      'project_stage',
      'estimated_size',
      'is_current',
      'created_at',
      'updated_at',
    ])
    .where('signal_id', '=', id)
    .where('is_current', '=', true)
    .executeTakeFirst();
  const score = await tx
    .selectFrom('scores')
    .select(['id', 'signal_id', 'scoring_config_id', 'organization_id', 'total', 'decision', 'is_current', 'created_at', 'updated_at'])
    .where('signal_id', '=', id)
    .where('is_current', '=', true)
    .executeTakeFirst();
  const components = score
    ? await tx
        .selectFrom('score_components')
        .select(['dimension', 'rule_key', 'origin', 'raw_value', 'weight', 'points', 'reason'])
        .where('score_id', '=', score.id)
        .orderBy('position')
        .execute()
    : undefined;
  return { signal, classification, score, components };
}

const jsonOrNull = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));
