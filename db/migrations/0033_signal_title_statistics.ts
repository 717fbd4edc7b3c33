import { Kysely, sql } from 'kysely';

/**
 * The title search's plan (GET /signals?q=) rests on how many titles the planner thinks hold the
 * word: few, and it reads the trigram index and sorts the matches; many, and it reads
 * the newest signals until the page is full. For a word inside a title it can only count the word
 * in the column's histogram, which holds 100 titles by default: a word in one title of a thousand
 * was estimated at 1 % whenever ANALYZE happened to sample it (about one ANALYZE in ten in
 * bench/api), and the search then read every signal of the organization (20-60 ms instead of 1).
 * A 1,000-title histogram estimates it right (15 of 15 ANALYZEs, where 100 titles got 2 of 15 wrong).
 * Its cost is planning: a larger histogram to match, which readAsUser now pays once per word and
 * connection (db/tenancy.ts), no longer once per search; and ANALYZE samples more rows of the table.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE signals ALTER COLUMN title_folded SET STATISTICS 1000`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE signals ALTER COLUMN title_folded SET STATISTICS -1`.execute(db);
}
