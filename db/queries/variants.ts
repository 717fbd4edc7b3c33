import { sql } from 'kysely';
import type { Tx } from '../tenancy';
import { REPLY_FILTER, receivedAt } from './analytics/deliverability';

export interface VariantResultRow {
  position: number;
  variant_key: string;
  sent: number;
  replied: number;
  positive_replies: number;
  meetings: number;
  won: number;
}

/** Reply intents counted as positive. */
export const POSITIVE_INTENTS = ['interested', 'meeting_request'] as const;

/**
 * How long after the last sent step of an enrollment a reply or meeting still answers it. A reply
 * that comes later, or a later campaign's, is not this variant's doing.
 */
export const VARIANT_ATTRIBUTION_DAYS = 30;

/**
 * Results per step variant of a campaign (GET /campaigns/{id}/variants), one row per variant of each
 * step that has variants (in the step's order), zeros included. Every figure counts sent messages
 * (outbound, status sent) of the variant, one per enrollment and step. A message "answers" what
 * happened in its window: from its sent_at until the next message of its enrollment was sent, and
 * for the enrollment's last sent message until VARIANT_ATTRIBUTION_DAYS after it. What happened must
 * belong to the message's enrollment: a reply or meeting recorded on that enrollment or in one of its
 * threads; a meeting recorded on neither (booked outside any thread) counts for the contact's
 * messages whose window holds it. A contact in several campaigns thereby credits only the campaign
 * whose thread they answered.
 * - sent: the variant's sent messages;
 * - replied: those answered by a reply as analytics counts replies (inbound, matched to the contact,
 *   with an intent: REPLY_FILTER), out-of-office answers left out;
 * - positive_replies: those whose reply had intent interested or meeting_request;
 * - meetings: those followed by a meeting that was not cancelled;
 * - won: those counted in meetings whose campaign's opportunity has outcome won.
 * Opens are not measured. Runs under the caller's row-level security.
 */
/** The row (alias) is recorded on the sent message's enrollment (s) or in one of its threads. */
function ofEnrollment(alias: 'x' | 'mt') {
  const a = sql.raw(alias);
  return sql`(${a}.enrollment_id = s.enrollment_id
           OR EXISTS (SELECT 1 FROM threads t WHERE t.id = ${a}.thread_id AND t.enrollment_id = s.enrollment_id))`;
}

export async function variantResults(tx: Tx, campaignId: string): Promise<VariantResultRow[]> {
  const { rows } = await sql<VariantResultRow>`
    WITH variants AS (
      SELECT s.id AS step_id, s.position, v.value->>'key' AS variant_key, v.ord
        FROM campaigns c
        JOIN sequences q ON q.campaign_id = c.id
        JOIN sequence_steps s ON s.sequence_id = q.id
        CROSS JOIN LATERAL jsonb_array_elements(s.variants) WITH ORDINALITY AS v(value, ord)
       WHERE c.id = ${campaignId}
    ), sent AS (
      SELECT m.id, m.step_id, m.variant_key, m.contact_id, m.enrollment_id, m.sent_at,
             coalesce(lead(m.sent_at) OVER (PARTITION BY m.enrollment_id ORDER BY m.sent_at, m.id),
                      m.sent_at + make_interval(days => ${VARIANT_ATTRIBUTION_DAYS})) AS window_end
        FROM messages m
       WHERE m.campaign_id = ${campaignId} AND m.direction = 'outbound' AND m.status = 'sent'
         AND m.sent_at IS NOT NULL AND m.enrollment_id IS NOT NULL
    ), judged AS (
      SELECT s.step_id, s.variant_key,
             EXISTS (
               SELECT 1 FROM messages x
                WHERE x.contact_id = s.contact_id AND ${REPLY_FILTER} AND x.intent <> 'out_of_office'
                  AND ${receivedAt} >= s.sent_at AND ${receivedAt} < s.window_end AND ${ofEnrollment('x')}
             ) AS replied,
             EXISTS (
               SELECT 1 FROM messages x
                WHERE x.contact_id = s.contact_id AND ${REPLY_FILTER} AND x.intent IN (${sql.join(POSITIVE_INTENTS.map((i) => sql`${i}`))})
                  AND ${receivedAt} >= s.sent_at AND ${receivedAt} < s.window_end AND ${ofEnrollment('x')}
             ) AS positive,
             EXISTS (
               SELECT 1 FROM meetings mt
                WHERE mt.contact_id = s.contact_id AND mt.status <> 'cancelled'
                  AND mt.created_at >= s.sent_at AND mt.created_at < s.window_end
                  AND (${ofEnrollment('mt')} OR (mt.enrollment_id IS NULL AND mt.thread_id IS NULL))
             ) AS met
        FROM sent s
       WHERE s.variant_key IS NOT NULL
    )
    SELECT v.position, v.variant_key,
           count(j.step_id)::int AS sent,
           count(*) FILTER (WHERE j.replied)::int AS replied,
           count(*) FILTER (WHERE j.positive)::int AS positive_replies,
           count(*) FILTER (WHERE j.met)::int AS meetings,
           count(*) FILTER (WHERE j.met AND o.outcome = 'won')::int AS won
      FROM variants v
      LEFT JOIN judged j ON j.step_id = v.step_id AND j.variant_key = v.variant_key
      LEFT JOIN campaigns c ON c.id = ${campaignId}
      LEFT JOIN opportunities o ON o.id = c.opportunity_id
     GROUP BY v.position, v.ord, v.variant_key
     ORDER BY v.position, v.ord
  `.execute(tx);
  return rows;
}
