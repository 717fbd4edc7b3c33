import { sql, Transaction } from 'kysely';
import type { DB as Database } from './database';
import type { DB } from './pool';

export type Tx = Transaction<Database>;

/**
 * Runs fn in a transaction as the given user: row-level security admits only rows of the
 * organizations that user is a member of. The setting is transaction-local, so a pooled
 * connection never carries it into another request.
 */
export function asUser<T>(db: DB, userId: string, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (tx) => {
    await sql`SELECT set_config('app.user_id', ${userId}, true)`.execute(tx);
    return fn(tx);
  });
}

/** Runs fn in a transaction acting for one organization (activities and schedules). */
export function asOrganization<T>(db: DB, organizationId: string, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (tx) => {
    await sql`SELECT set_config('app.organization_id', ${organizationId}, true)`.execute(tx);
    return fn(tx);
  });
}
