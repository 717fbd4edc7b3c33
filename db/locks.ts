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

/**
 * lockFor without waiting: takes the lock when it is free (true) or answers false at once when
 * another transaction holds it. Taken, it is held like lockFor's, until commit or rollback (or a
 * rollback to a savepoint taken before it).
 */
export async function tryLockFor(tx: Tx, name: string): Promise<boolean> {
  const r = await sql<{ ok: boolean }>`SELECT pg_try_advisory_xact_lock(hashtextextended(${name}, 0)) AS ok`.execute(tx);
  return r.rows[0]!.ok;
}

/**
 * tryLockFor over several names in one statement, in the order given: takes the first free one and
 * stops there (the filter runs row by row under LIMIT 1 over the array's scan, which keeps the
 * array's order). Answers the index of the name taken, or -1 when every one is held by others.
 */
export async function tryLockFirst(tx: Tx, names: readonly string[]): Promise<number> {
  if (names.length === 0) return -1;
  const r = await sql<{ i: number }>`
    SELECT (t.i - 1)::int AS i FROM unnest(${names}::text[]) WITH ORDINALITY AS t(n, i)
     WHERE pg_try_advisory_xact_lock(hashtextextended(t.n, 0)) LIMIT 1`.execute(tx);
  return r.rows[0]?.i ?? -1;
}
