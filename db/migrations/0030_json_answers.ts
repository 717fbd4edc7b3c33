import { Kysely, sql } from 'kysely';

/**
 * JSON built in PostgreSQL: the list endpoints answer the
 * JSON array PostgreSQL builds, passed through without parsing and re-serialising. A timestamp must
 * then read as the API has always written it, Date.prototype.toISOString's form (UTC, milliseconds,
 * `Z`: 2026-11-21T09:30:00.123Z; the microseconds cut, as node-postgres cuts them when it parses a
 * timestamptz into a Date). app.json_ts writes that form. A plain SQL function without SET or
 * SECURITY DEFINER, STABLE like to_char: the planner inlines it, so it costs what the expression does.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION app.json_ts(t timestamptz) RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS
    $$ SELECT pg_catalog.to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP FUNCTION IF EXISTS app.json_ts(timestamptz)`.execute(db);
}
