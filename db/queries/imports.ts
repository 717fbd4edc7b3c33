import { sql } from 'kysely';
import type { Json } from '../database';
import { IMPORT_LIST_LIMIT } from '../../domain/imports/csv';
import type { Tx } from '../tenancy';
import { newestFirst } from './pagination';

export const IMPORT_COLUMNS = [
  'id',
  'organization_id',
  'status',
  'total_rows',
  'processed_rows',
  'created_companies',
  'created_contacts',
  'updated_contacts',
  'skipped',
  'errors',
  'source_description',
  'workflow_id',
  'created_by',
  'created_at',
  'finished_at',
] as const;

export interface ImportSkip {
  row: number;
  reason: string;
}
export interface ImportError {
  row: number;
  field: string;
  message: string;
}

/** A new import (its id made by the caller, so that its run's id `import/<id>` is stored with it). */
export function insertImport(
  tx: Tx,
  i: {
    id: string;
    organizationId: string;
    sourceDescription: string;
    dedupe: 'organization' | 'none';
    createdBy: string;
    workflowId: string;
    errors: ImportError[];
  },
) {
  return tx
    .insertInto('imports')
    .values({
      id: i.id,
      organization_id: i.organizationId,
      source_description: i.sourceDescription,
      dedupe: i.dedupe,
      created_by: i.createdBy,
      workflow_id: i.workflowId,
      errors: JSON.stringify(i.errors),
    })
    .returning(IMPORT_COLUMNS)
    .executeTakeFirstOrThrow();
}

/** A batch of parsed records into the staging table (one INSERT). */
export async function stageImportRows(
  tx: Tx,
  organizationId: string,
  importId: string,
  rows: Array<{ n: number; emailKey: string | null; fields: Record<string, string> }>,
) {
  if (!rows.length) return;
  await tx
    .insertInto('import_rows')
    .values(rows.map((r) => ({ organization_id: organizationId, import_id: importId, n: r.n, email_key: r.emailKey, fields: JSON.stringify(r.fields) })))
    .execute();
}

export function setImportTotal(tx: Tx, importId: string, totalRows: number) {
  return tx
    .updateTable('imports')
    .set(totalRows === 0 ? { total_rows: 0, status: 'completed', finished_at: sql`now()` } : { total_rows: totalRows })
    .where('id', '=', importId)
    .returning(IMPORT_COLUMNS)
    .executeTakeFirstOrThrow();
}

export function getImport(tx: Tx, id: string) {
  return tx.selectFrom('imports').select(IMPORT_COLUMNS).where('id', '=', id).executeTakeFirst();
}

export function listImports(tx: Tx, f: { organizationId: string; limit: number; before?: string }) {
  return newestFirst(tx.selectFrom('imports').select(IMPORT_COLUMNS).where('organization_id', '=', f.organizationId), 'imports', f).execute();
}

/** The import's row, locked for its chunk: one chunk of an import runs at a time. */
export function lockImport(tx: Tx, id: string) {
  return tx
    .selectFrom('imports')
    .select([...IMPORT_COLUMNS, 'dedupe'])
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

/**
 * The staged rows n in [offset, offset + limit), in file order, each with whether an earlier chunk
 * imported a row with the same address (duplicate_in_file; the email index answers it). The rows of
 * the chunk itself are compared by the caller, in file order.
 */
export function stagedChunk(tx: Tx, organizationId: string, importId: string, offset: number, limit: number) {
  return tx
    .selectFrom('import_rows as r')
    .select(['r.n', 'r.fields'])
    .select((eb) =>
      eb
        .exists(
          eb
            .selectFrom('import_rows as e')
            .select(sql`1`.as('one'))
            .where('e.organization_id', '=', organizationId)
            .where('e.import_id', '=', importId)
            .whereRef('e.email_key', '=', 'r.email_key')
            .whereRef('e.n', '<', 'r.n')
            .where('e.imported', '=', true),
        )
        .as('duplicate'),
    )
    .where('r.organization_id', '=', organizationId)
    .where('r.import_id', '=', importId)
    .where('r.n', '>=', offset)
    .where('r.n', '<', offset + limit)
    .orderBy('r.n')
    .execute();
}

/** The chunk's rows that were imported (created or matched a contact), in the chunk's transaction. */
export async function markRowsImported(tx: Tx, organizationId: string, importId: string, rows: number[]) {
  if (!rows.length) return;
  await tx
    .updateTable('import_rows')
    .set({ imported: true })
    .where('organization_id', '=', organizationId)
    .where('import_id', '=', importId)
    .where('n', '=', sql<number>`ANY(${rows}::int[])`)
    .execute();
}

/**
 * A chunk's outcome, in the chunk's transaction: the counters grow, `skipped` and `errors` keep their
 * first `keep`, and processed_rows moves to `processedRows`. The last chunk ends the import and deletes
 * the staged file.
 */
export async function recordImportChunk(
  tx: Tx,
  importId: string,
  c: {
    processedRows: number;
    done: boolean;
    createdCompanies: number;
    createdContacts: number;
    updatedContacts: number;
    skipped: ImportSkip[];
    errors: ImportError[];
    keep: number;
  },
) {
  const append = (column: 'skipped' | 'errors', items: unknown[]) =>
    items.length
      ? sql<Json>`(SELECT coalesce(jsonb_agg(v ORDER BY i), '[]'::jsonb) FROM jsonb_array_elements(${sql.ref(column)} || ${JSON.stringify(items)}::jsonb) WITH ORDINALITY AS t(v, i) WHERE i <= ${c.keep})`
      : sql<Json>`${sql.ref(column)}`;
  const row = await tx
    .updateTable('imports')
    .set((eb) => ({
      processed_rows: c.processedRows,
      created_companies: eb('created_companies', '+', c.createdCompanies),
      created_contacts: eb('created_contacts', '+', c.createdContacts),
      updated_contacts: eb('updated_contacts', '+', c.updatedContacts),
      skipped: append('skipped', c.skipped),
      errors: append('errors', c.errors),
      ...(c.done ? { status: 'completed', finished_at: sql`now()` } : {}),
    }))
    .where('id', '=', importId)
    .returning(IMPORT_COLUMNS)
    .executeTakeFirstOrThrow();
  if (c.done) await tx.deleteFrom('import_rows').where('import_id', '=', importId).execute();
  return row;
}

/**
 * A run that could not finish: the import ends failed (its staged file is deleted), its reason the
 * last entry of `errors` even when the list is full (the 1,000th entry gives way to it).
 */
export async function failImport(tx: Tx, importId: string, message: string) {
  await tx.deleteFrom('import_rows').where('import_id', '=', importId).execute();
  return tx
    .updateTable('imports')
    .set((eb) => ({
      status: 'failed',
      finished_at: sql`now()`,
      errors: sql<Json>`(SELECT coalesce(jsonb_agg(v ORDER BY i), '[]'::jsonb) FROM jsonb_array_elements(${eb.ref('errors')}) WITH ORDINALITY AS t(v, i) WHERE i < ${IMPORT_LIST_LIMIT}) || ${JSON.stringify([{ row: 0, field: 'import', message }])}::jsonb`,
    }))
    .where('id', '=', importId)
    .where('status', '=', 'running')
    .execute();
}
