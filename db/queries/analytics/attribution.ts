import { sql } from 'kysely';
import type { Reader, Tx } from '../../tenancy';
import { meetingsWithOpportunity, windowStart } from './shared';

export interface AttributionRow {
  source_id: string;
  source_name: string;
  signals: number;
  opportunities: number;
  meetings: number;
  won: number;
  won_value: number;
}

/**
 * Attribution by source, one statement: of the signals a source produced in the window, how many
 * opened an opportunity, how many of those opportunities reached a meeting (booked and not cancelled
 * or missed: proposed or completed), and how many were won, with their value in euros. Outcomes
 * count whenever they happened: the cohort is the window's signals. Every source of the
 * organization is listed, with zeros when it produced nothing.
 */
export function attributionQuery(organizationId: string, days: number) {
  return sql<AttributionRow>`
    WITH sig AS (
      SELECT s.id, s.source_id FROM signals s
       WHERE s.organization_id = ${organizationId} AND s.created_at >= ${windowStart(days)}
    ), opp AS (
      SELECT o.id, sig.source_id, o.outcome, o.outcome_value FROM opportunities o
        JOIN sig ON sig.id = o.created_from_signal_id
       WHERE o.organization_id = ${organizationId}
    ), met AS (
      SELECT DISTINCT mo.opportunity_id FROM (${meetingsWithOpportunity(organizationId)}) mo
       WHERE mo.status IN ('proposed', 'completed') AND mo.opportunity_id IN (SELECT id FROM opp)
    )
    SELECT src.id AS source_id, src.name AS source_name,
           coalesce(s.signals, 0)::int AS signals,
           coalesce(o.opportunities, 0)::int AS opportunities,
           coalesce(o.meetings, 0)::int AS meetings,
           coalesce(o.won, 0)::int AS won,
           coalesce(o.won_value, 0)::float8 AS won_value
      FROM sources src
      LEFT JOIN (SELECT source_id, count(*) AS signals FROM sig GROUP BY source_id) s ON s.source_id = src.id
      LEFT JOIN (
        SELECT opp.source_id, count(*) AS opportunities,
               count(met.opportunity_id) AS meetings,
               count(*) FILTER (WHERE opp.outcome = 'won') AS won,
               sum(opp.outcome_value) FILTER (WHERE opp.outcome = 'won') AS won_value
          FROM opp LEFT JOIN met ON met.opportunity_id = opp.id
         GROUP BY opp.source_id
      ) o ON o.source_id = src.id
     WHERE src.organization_id = ${organizationId}
     ORDER BY src.name, src.id`;
}

export async function attribution(tx: Tx | Reader, organizationId: string, days: number): Promise<AttributionRow[]> {
  return (await attributionQuery(organizationId, days).execute(tx)).rows;
}
