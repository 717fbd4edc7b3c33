import { Kysely, sql } from 'kysely';

/**
 * Contact import: import_rows.imported marks the staged rows a chunk imported (created or matched a
 * contact), in the chunk's transaction. A later row with the same address is a duplicate_in_file
 * only when an earlier row was imported: a row refused for its own fields (a bad phone number, no
 * name) does not shadow its corrected repeat further down the file.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE import_rows ADD COLUMN imported boolean NOT NULL DEFAULT false`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE import_rows DROP COLUMN IF EXISTS imported`.execute(db);
}
