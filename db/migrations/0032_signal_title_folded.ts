import { Kysely, sql } from 'kysely';

/**
 * The title search matches a lower-cased copy of the title.
 *
 * `title ILIKE p` lower-cases every candidate title again on every search (PostgreSQL's ILIKE in a
 * multibyte encoding lowers both sides per row), about half of a rare word's search time in
 * bench/api. `title_folded` holds lower(title), written once with the row; the search is
 * `title_folded LIKE lower(p)`, the same rows ILIKE matched (ILIKE is lower() then LIKE), and the
 * trigram index moves to it. Adding a stored generated column rewrites the table once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE signals ADD COLUMN title_folded text GENERATED ALWAYS AS (lower(title)) STORED;
    CREATE INDEX signals_title_folded_trgm_idx ON signals USING gin (title_folded gin_trgm_ops);
    DROP INDEX signals_title_trgm_idx;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX signals_title_trgm_idx ON signals USING gin (title gin_trgm_ops);
    ALTER TABLE signals DROP COLUMN title_folded;
  `.execute(db);
}
