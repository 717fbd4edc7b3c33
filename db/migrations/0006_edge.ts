import { Kysely, sql } from 'kysely';

/**
 * The edge: a json_api source's request headers may carry credentials, so they are kept like
 * integration secrets: sealed with AES-256-GCM (db/secrets.ts, bound to the source's
 * organization and id) in `secret_headers`, their names alone in `header_names` (what the API answers).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE sources ADD COLUMN secret_headers bytea;
    ALTER TABLE sources ADD COLUMN header_names text[] NOT NULL DEFAULT '{}';
    -- Headers written into config before this migration move out of the readable config.
    UPDATE sources SET config = config - 'headers' WHERE config ? 'headers';
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE sources DROP COLUMN IF EXISTS header_names;
    ALTER TABLE sources DROP COLUMN IF EXISTS secret_headers;
  `.execute(db);
}
