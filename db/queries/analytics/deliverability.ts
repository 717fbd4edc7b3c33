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
 * How a bounce is written on a failed outbound message, and only a bounce: a delivery report matched
 * to it (db/queries/inbound-actions.ts: `bounced: <status> <diagnostic>`), or the recipient refused
 * in the SMTP conversation (activities/providers/mail/smtp.ts: `SMTP RCPT TO refused: …`). Any other
 * failure (535 authentication, configuration, a refused DATA) is not the recipient's address failing.
 */
export const BOUNCE_ERROR_PATTERNS = ['bounced:%', 'SMTP RCPT TO refused:%'] as const;

/**
 * Replies, as analytics count them: inbound messages matched to a contact and classified (DSNs and
 * automatic replies carry no intent, a stranger's mail no contact; an out-of-office is an automatic
 * answer, not a reply), timed by when they were received (mail read from history keeps its own date).
 */
export const REPLY_FILTER = sql`x.direction = 'inbound' AND x.contact_id IS NOT NULL AND x.intent IS NOT NULL`;
export const receivedAt = sql`coalesce(x.received_at, x.created_at)`;

/**
 * Deliverability per mailbox, one statement: delivery attempts in the window (outbound e-mails that
 * reached `sent` or `failed`, timed by sent_at, else by their last change), of which bounced (the
 * address failed: BOUNCE_ERROR_PATTERNS), replies received in the window (REPLY_FILTER, minus
 * out-of-office answers, of the mailbox or of a thread of the mailbox), and the newest health check.
 */
export function deliverabilityQuery(organizationId: string, days: number) {
  const since = windowStart(days);
  return sql<DeliverabilityRow>`
    WITH outbound AS (
      SELECT x.mailbox_id, count(*) AS sent,
             count(*) FILTER (WHERE x.status = 'failed' AND x.error LIKE ANY (${sql.val([...BOUNCE_ERROR_PATTERNS])}::text[])) AS bounced,
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
       WHERE x.organization_id = ${organizationId} AND ${REPLY_FILTER} AND x.intent <> 'out_of_office' AND ${receivedAt} >= ${since}
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
