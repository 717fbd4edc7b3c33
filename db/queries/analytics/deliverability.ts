import { sql } from 'kysely';
import type { Reader, Tx } from '../../tenancy';
import { windowStart } from './shared';

export interface DeliverabilityRow {
  mailbox_id: string;
  address: string;
  sent: number;
  bounced: number;
  replied: number;
  health_score: number | null;
  sendable: boolean | null;
  checked_at: Date | null;
  /** Sending at scale (migration 0020): complaints (complained_at) among the attempts, the two rates, the mailbox's status. */
  complaints: number;
  bounce_rate: number;
  complaint_rate: number;
  status: 'active' | 'paused';
}

/**
 * Deliverability per mailbox, one statement: delivery attempts in the window (outbound e-mails that
 * reached `sent` or `failed`, timed by sent_at, else by their last change), of which bounced (failed:
 * the server refused or a bounce came back), replies received in the window (inbound messages of the
 * mailbox, or of a thread of the mailbox), and the newest health check (score, sendable, when).
 */
export function deliverabilityQuery(organizationId: string, days: number) {
  const since = windowStart(days);
  return sql<DeliverabilityRow>`
    WITH outbound AS (
      SELECT x.mailbox_id, count(*) AS sent, count(*) FILTER (WHERE x.status = 'failed') AS bounced,
             count(*) FILTER (WHERE x.complained_at IS NOT NULL) AS complaints
        FROM messages x
       WHERE x.organization_id = ${organizationId} AND x.direction = 'outbound' AND x.channel = 'email'
         AND x.mailbox_id IS NOT NULL AND x.status IN ('sent', 'failed')
         AND coalesce(x.sent_at, x.updated_at) >= ${since}
       GROUP BY x.mailbox_id
    ), replies AS (
      SELECT coalesce(x.mailbox_id, t.mailbox_id) AS mailbox_id, count(*) AS replied
        FROM messages x
        LEFT JOIN threads t ON t.organization_id = x.organization_id AND t.id = x.thread_id
       WHERE x.organization_id = ${organizationId} AND x.direction = 'inbound' AND x.created_at >= ${since}
       GROUP BY 1
    )
    SELECT mb.id AS mailbox_id, mb.address,
           coalesce(o.sent, 0)::int AS sent, coalesce(o.bounced, 0)::int AS bounced, coalesce(r.replied, 0)::int AS replied,
           h.score::float8 AS health_score, h.sendable, h.created_at AS checked_at,
           coalesce(o.complaints, 0)::int AS complaints,
           CASE WHEN coalesce(o.sent, 0) > 0 THEN round(o.bounced::numeric / o.sent, 4)::float8 ELSE 0 END AS bounce_rate,
           CASE WHEN coalesce(o.sent, 0) > 0 THEN round(o.complaints::numeric / o.sent, 4)::float8 ELSE 0 END AS complaint_rate,
           mb.status
      FROM mailboxes mb
      LEFT JOIN outbound o ON o.mailbox_id = mb.id
      LEFT JOIN replies r ON r.mailbox_id = mb.id
      LEFT JOIN LATERAL (
        SELECT c.score, c.sendable, c.created_at FROM mailbox_health_checks c
         WHERE c.organization_id = mb.organization_id AND c.mailbox_id = mb.id
         ORDER BY c.created_at DESC LIMIT 1
      ) h ON true
     WHERE mb.organization_id = ${organizationId}
     ORDER BY mb.address, mb.id`;
}

export async function deliverability(tx: Tx | Reader, organizationId: string, days: number): Promise<DeliverabilityRow[]> {
  return (await deliverabilityQuery(organizationId, days).execute(tx)).rows;
}
