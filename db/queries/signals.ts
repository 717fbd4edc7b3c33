import { sql } from 'kysely';
import { CompanyHint, extractCompanyHint } from '../../domain/companies/extract';
import type { Tx } from '../tenancy';
import { newestFirst } from './pagination';

/** Exactly the spec's Signal fields. */
export const SIGNAL_COLUMNS = [
  'id', 'organization_id', 'source_id', 'raw_publication_id', 'project_id', 'external_id', 'status', 'signal_type',
  'title', 'summary', 'published_at', 'effective_start', 'effective_end', 'source_url', 'current_score', 'dedupe_key',
  'created_at', 'updated_at',
] as const;

export function getSignal(tx: Tx, id: string) {
  return tx.selectFrom('signals').select(SIGNAL_COLUMNS).where('id', '=', id).executeTakeFirst();
}

export function listSignals(
  tx: Tx,
  f: { organizationId: string; status?: string; projectId?: string; q?: string; limit: number; before?: string },
) {
  let q = tx.selectFrom('signals').select(SIGNAL_COLUMNS).where('organization_id', '=', f.organizationId);
  if (f.status) q = q.where('status', '=', f.status);
  if (f.projectId) q = q.where('project_id', '=', f.projectId);
  if (f.q) q = q.where('title', 'ilike', `%${f.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  return newestFirst(q, 'signals', f).execute();
}

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

/**
 * Stores one batch idempotently: raw publications upsert on (source, external_id); a signal is
 * created only for a publication whose external id and dedupe key are both new for the source.
 * Returns the ids of the signals this call created (none on a repeat).
 */
export async function storePublicationBatch(
  tx: Tx,
  organizationId: string,
  sourceId: string,
  items: NormalizedPublication[],
): Promise<string[]> {
  if (items.length === 0) return [];
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

  const knownKeys = new Set(
    (
      await tx
        .selectFrom('signals')
        .select('dedupe_key')
        .where('source_id', '=', sourceId)
        .where('dedupe_key', 'in', items.map((i) => i.dedupeKey))
        .execute()
    ).map((r) => r.dedupe_key),
  );
  const fresh: NormalizedPublication[] = [];
  for (const p of items) {
    if (knownKeys.has(p.dedupeKey)) continue;
    knownKeys.add(p.dedupeKey); // the same item twice in one feed counts once
    fresh.push(p);
  }
  if (fresh.length === 0) return [];
  // Signals with the same dedupe key describe the same real project, whichever source they came from.
  const projects = await tx
    .insertInto('projects')
    .values(
      [...new Map(fresh.map((p) => [p.dedupeKey, p])).values()].map((p) => ({
        organization_id: organizationId,
        dedupe_key: p.dedupeKey,
        title: p.title,
        location_text: p.locationText,
        lat: p.lat,
        lng: p.lng,
      })),
    )
    .onConflict((oc) => oc.columns(['organization_id', 'dedupe_key']).doUpdateSet({ updated_at: sql`now()` }))
    .returning(['id', 'dedupe_key'])
    .execute();
  const projectByKey = new Map(projects.map((p) => [p.dedupe_key, p.id]));
  const created = await tx
    .insertInto('signals')
    .values(
      fresh.map((p) => ({
        organization_id: organizationId,
        source_id: sourceId,
        raw_publication_id: rawIdByExternal.get(p.externalId) ?? null,
        project_id: projectByKey.get(p.dedupeKey) ?? null,
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
  return created.map((r) => r.id);
}

/** GET /signals/{id}: the signal with its current classification, score and score components. */
export async function getSignalDetail(tx: Tx, id: string) {
  const signal = await getSignal(tx, id);
  if (!signal) return undefined;
  const classification = await tx
    .selectFrom('classifications')
    .select([
      'id', 'signal_id', 'organization_id', 'version', 'model', 'prompt_key', 'prompt_version', 'prompt_hash', 'output',
      'confidence', 'commercial_relevance', 'relevance_reasons', 'project_category', 'project_stage', 'estimated_size',
      'is_current', 'created_at', 'updated_at',
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
