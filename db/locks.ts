import { sql } from 'kysely';
import type { Tx } from './tenancy';

/**
 * Makes transactions that change the same thing take turns: a transaction-scoped advisory lock on a
 * name (for example `scoring_configs:<organizationId>`), released at commit or rollback. Use it where
 * a change reads the current state and writes the next one (a version number, the one current
 * record), so that concurrent changes each read what the previous one committed instead of failing
 * on a unique key.
 */
export async function lockFor(tx: Tx, name: string): Promise<void> {
  await lockForAll(tx, [name]);
}

/**
 * The same for several names at once, taken in sorted order in one statement, so two transactions
 * that need overlapping sets of names cannot deadlock on each other.
 */
export async function lockForAll(tx: Tx, names: readonly string[]): Promise<void> {
  const sorted = [...new Set(names)].sort();
  if (sorted.length === 0) return;
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(n, 0)) FROM (SELECT n FROM unnest(${sorted}::text[]) AS n ORDER BY n) AS ordered`.execute(tx);
}
