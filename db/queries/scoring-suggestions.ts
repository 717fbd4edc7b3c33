import { sql } from 'kysely';
import { suggestWeights, type Observation } from '../../domain/analytics/suggestions';
import type { Tx } from '../tenancy';
import { analyticsSession, meetingsWithOpportunity, windowStart } from './analytics/shared';
import { activeScoringConfig } from './pipeline';

interface OutcomeRow {
  outcome: string;
  meeting_completed: boolean;
  no_show: boolean;
  points: Record<string, number>;
}

/**
 * The learning loop's evidence, one statement: each opportunity opened in the window from a signal,
 * with its outcome, whether a meeting on it took place or was missed, and the points each rule gave
 * the signal (its current score's components).
 */
export function outcomesQuery(organizationId: string, days: number) {
  return sql<OutcomeRow>`
    WITH mo AS (${meetingsWithOpportunity(organizationId)}),
    met AS (
      SELECT mo.opportunity_id, bool_or(mo.status = 'completed') AS completed, bool_or(mo.status = 'no_show') AS no_show
        FROM mo WHERE mo.opportunity_id IS NOT NULL GROUP BY mo.opportunity_id
    )
    SELECT o.outcome,
           coalesce(met.completed, false) AS meeting_completed,
           coalesce(met.no_show, false) AS no_show,
           coalesce((SELECT jsonb_object_agg(c.rule_key, c.points)
                       FROM scores sc
                       JOIN score_components c ON c.organization_id = sc.organization_id AND c.score_id = sc.id
                      WHERE sc.organization_id = o.organization_id AND sc.signal_id = o.created_from_signal_id AND sc.is_current), '{}'::jsonb) AS points
      FROM opportunities o
      LEFT JOIN met ON met.opportunity_id = o.id
     WHERE o.organization_id = ${organizationId} AND o.created_from_signal_id IS NOT NULL AND o.created_at >= ${windowStart(days)}`;
}

/** GET /settings/scoring/suggestions: reads only; an admin applies a suggestion with PATCH /settings/scoring. */
export async function scoringSuggestions(tx: Tx, organizationId: string, days: number) {
  const active = await activeScoringConfig(tx, organizationId);
  if (!active) return undefined;
  await analyticsSession(tx);
  const rows = (await outcomesQuery(organizationId, days).execute(tx)).rows;
  const observations: Observation[] = rows.map((r) => ({
    points: Object.fromEntries(Object.entries(r.points).map(([k, v]) => [k, Number(v)])),
    won: r.outcome === 'won',
    lost: r.outcome === 'lost',
    meetingCompleted: r.meeting_completed,
    noShow: r.no_show,
  }));
  return {
    window_days: days,
    scoring_config_id: active.config.id,
    scoring_config_version: active.config.version,
    based_on: {
      opportunities: observations.length,
      won: observations.filter((o) => o.won).length,
      lost: observations.filter((o) => o.lost).length,
      meetings_completed: observations.filter((o) => o.meetingCompleted).length,
      no_shows: observations.filter((o) => o.noShow).length,
    },
    suggestions: suggestWeights(
      active.rules.map((r) => ({ ruleKey: r.rule_key, dimension: r.dimension, weight: Number(r.weight) })),
      observations,
    ),
  };
}
