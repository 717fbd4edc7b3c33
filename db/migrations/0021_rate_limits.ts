import { Kysely, sql } from 'kysely';

/**
 * Request rate limits shared by every API process: rate-limiter-flexible's PostgreSQL store
 * keeps one row per limited key (`user:<id>`, `organization:<id>`) with the points taken in the current
 * window and when the window ends (epoch ms). Not tenant data (no organization_id, no row-level
 * security): the limiter reads and writes it before the caller's identity reaches the database.
 * The columns are the ones the library expects.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE rate_limits (
      key varchar(255) PRIMARY KEY,
      points integer NOT NULL DEFAULT 0,
      expire bigint
    );
    CREATE INDEX rate_limits_expire_idx ON rate_limits (expire);
    GRANT SELECT, INSERT, UPDATE, DELETE ON rate_limits TO outreach_app;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS rate_limits`.execute(db);
}
