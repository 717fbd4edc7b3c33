import { sql } from 'kysely';
import type { Tx } from '../tenancy';
import { newestFirst } from './pagination';

/**
 * The columns a Source answers with: the spec's fields plus the documented run state, and the names
 * (never the values) of its request headers. `secret_headers` leaves the database only for a fetch.
 */
const SOURCE_COLUMNS = [
  'id',
  'organization_id',
  'provider_key',
  'name',
  'config',
  'enabled',
  'schedule',
  'country_code',
  'language',
  'header_names',
  'last_run_at',
  'last_run_status',
  'last_error',
  'created_at',
  'updated_at',
] as const;

/** A source's request headers, sealed (db/secrets.ts, sourceSecretContext), with their names in the clear. */
export interface SealedHeaders {
  names: string[];
  sealed: Buffer | null;
}

export interface NewSource {
  id?: string;
  organization_id: string;
  provider_key: string;
  name: string;
  config: Record<string, unknown>;
  enabled?: boolean;
  schedule?: string | null;
  country_code?: string;
  language?: string;
}

export function insertSource(tx: Tx, s: NewSource, headers?: SealedHeaders) {
  return tx
    .insertInto('sources')
    .values({ ...s, config: JSON.stringify(s.config), ...(headers ? { header_names: headers.names, secret_headers: headers.sealed } : {}) })
    .returning(SOURCE_COLUMNS)
    .executeTakeFirstOrThrow();
}

export function getSource(tx: Tx, id: string) {
  return tx.selectFrom('sources').select(SOURCE_COLUMNS).where('id', '=', id).executeTakeFirst();
}

export function listSources(tx: Tx, organizationId: string, page: { limit: number; before?: string }) {
  return newestFirst(tx.selectFrom('sources').select(SOURCE_COLUMNS).where('organization_id', '=', organizationId), 'sources', page).execute();
}

export function updateSource(
  tx: Tx,
  id: string,
  patch: { name?: string; config?: Record<string, unknown>; enabled?: boolean; schedule?: string | null },
  headers?: SealedHeaders,
) {
  const { config, ...rest } = patch;
  return tx
    .updateTable('sources')
    .set({
      ...rest,
      ...(config ? { config: JSON.stringify(config) } : {}),
      ...(headers ? { header_names: headers.names, secret_headers: headers.sealed } : {}),
      updated_at: sql`now()`,
    })
    .where('id', '=', id)
    .returning(SOURCE_COLUMNS)
    .executeTakeFirst();
}

/** What a fetch needs: config plus the validators of the last successful fetch. */
export function getSourceForFetch(tx: Tx, id: string) {
  return tx
    .selectFrom('sources')
    .select(['id', 'organization_id', 'provider_key', 'config', 'enabled', 'etag', 'last_modified', 'country_code', 'language', 'secret_headers'])
    .where('id', '=', id)
    .executeTakeFirst();
}

export function recordSourceRun(
  tx: Tx,
  id: string,
  run: { status: 'running' | 'succeeded' | 'not_modified' | 'failed'; error?: string | null; etag?: string | null; lastModified?: string | null },
) {
  return tx
    .updateTable('sources')
    .set({
      last_run_status: run.status,
      last_run_at: sql`now()`,
      last_error: run.status === 'failed' ? (run.error ?? 'unknown error') : null,
      ...(run.etag !== undefined ? { etag: run.etag } : {}),
      ...(run.lastModified !== undefined ? { last_modified: run.lastModified } : {}),
    })
    .where('id', '=', id)
    .execute();
}
