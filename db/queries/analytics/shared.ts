import { sql, type RawBuilder } from 'kysely';
import type { Reader, Tx } from '../../tenancy';

/** SQL fragments the analytics sections share. */

/** The start of a window of `days` days ending now. */
export const windowStart = (days: number): RawBuilder<Date> => sql<Date>`(now() - make_interval(days => ${days}::int))`;

/** A timestamptz as the API's ISO 8601 UTC string (for timestamps built into JSON in SQL). */
export const isoUtc = (column: RawBuilder<unknown>): RawBuilder<string> => sql<string>`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The organization's meetings with the opportunity each belongs to: its own opportunity_id, else that
 * of the campaign its enrollment is in (a booking made through a link carries only the enrollment).
 */
export const meetingsWithOpportunity = (organizationId: string): RawBuilder<unknown> => sql`
  SELECT coalesce(m.opportunity_id, c.opportunity_id) AS opportunity_id, m.status
    FROM meetings m
    LEFT JOIN enrollments e ON e.organization_id = m.organization_id AND e.id = m.enrollment_id
    LEFT JOIN campaigns c ON c.organization_id = e.organization_id AND c.id = e.campaign_id
   WHERE m.organization_id = ${organizationId}`;

/**
 * Session settings of an analytics transaction: no JIT compilation. The sections are one statement
 * each over up to a few hundred thousand rows, where the planner's cost crosses jit_above_cost and
 * compiling costs more (about 70 ms at 100k messages, bench/analytics.ts) than it saves.
 */
export async function analyticsSession(tx: Tx | Reader): Promise<void> {
  await sql`SET LOCAL jit = off`.execute(tx);
}
