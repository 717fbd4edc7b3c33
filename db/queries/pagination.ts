import { sql, SelectQueryBuilder } from 'kysely';
import type { DB } from '../database';

type Keyed =
  | 'sources'
  | 'signals'
  | 'opportunities'
  | 'companies'
  | 'contacts'
  | 'suppressions'
  | 'compliance_audit_log'
  | 'messages'
  | 'campaigns'
  | 'meetings'
  | 'mailboxes'
  | 'integrations'
  | 'enrollments'
  | 'tasks'
  | 'imports';

/**
 * Newest first, keyset pagination: rows strictly older than the `before` row, in
 * (created_at DESC, id DESC) order, which the (organization_id, created_at DESC, id DESC) indexes serve.
 */
export function newestFirst<D extends DB, T extends keyof D & string, O>(
  qb: SelectQueryBuilder<D, T, O>,
  table: Extract<T, Keyed>,
  opts: { limit: number; before?: string },
): SelectQueryBuilder<D, T, O> {
  let q = qb;
  if (opts.before) {
    q = q.where(
      sql<boolean>`(${sql.ref(`${table}.created_at`)}, ${sql.ref(`${table}.id`)}) < (SELECT b.created_at, b.id FROM ${sql.table(table)} b WHERE b.id = ${opts.before})`,
    );
  }
  return q
    .orderBy(sql.ref(`${table}.created_at`), 'desc')
    .orderBy(sql.ref(`${table}.id`), 'desc')
    .limit(opts.limit);
}
