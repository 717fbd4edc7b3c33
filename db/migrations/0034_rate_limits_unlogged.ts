import { Kysely, sql } from 'kysely';

/**
 * The shared rate limits' counters (rate_limits, migration 0021) are written on every lease an API
 * process takes (apps/api/rate-limit.ts). Unlogged, such a write costs no WAL and no flush to disk at
 * commit. What unlogged gives up is nothing they need: after a crash of PostgreSQL the table is empty
 * (every key starts a fresh one-minute window), and a standby has no copy (the limits are counted on
 * the primary only).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE rate_limits SET UNLOGGED`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE rate_limits SET LOGGED`.execute(db);
}
