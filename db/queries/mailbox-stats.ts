import { sql } from 'kysely';

/**
 * A mailbox's last seven days: messages sent (a message refused during the SMTP conversation was
 * never sent, but was an attempt: it counts, or a mailbox of only refusals would never reach the sample), hard bounces
 * (bounced_at) and complaints (complained_at). Used by the answers and the judge alike.
 */
export function sevenDayCountsSql(mailboxRef: { org: string; id: string }) {
  const org = sql.ref(mailboxRef.org);
  const id = sql.ref(mailboxRef.id);
  return {
    sent: sql<number>`(SELECT count(*)::int FROM messages x WHERE x.organization_id = ${org} AND x.mailbox_id = ${id} AND (x.sent_at >= now() - interval '7 days' OR (x.sent_at IS NULL AND (x.bounced_at >= now() - interval '7 days' OR x.soft_bounced_at >= now() - interval '7 days'))))`,
    // Recipients, not reports: one recipient who reports several of our messages to them as bounced (a forged
    // report needs a Message-ID only its recipient has) adds one hard bounce at most.
    hardBounces: sql<number>`(SELECT count(DISTINCT coalesce(lower(x.to_address), x.id::text))::int FROM messages x WHERE x.organization_id = ${org} AND x.mailbox_id = ${id} AND x.bounced_at >= now() - interval '7 days')`,
    complaints: sql<number>`(SELECT count(*)::int FROM messages x WHERE x.organization_id = ${org} AND x.mailbox_id = ${id} AND x.complained_at >= now() - interval '7 days')`,
    // Blocks count recipients, not reports: one recipient forging reports of blocks adds at most one.
    blocks: sql<number>`(SELECT count(DISTINCT lower(x.to_address))::int FROM messages x WHERE x.organization_id = ${org} AND x.mailbox_id = ${id} AND x.bounce_reason IN ('blocked', 'spam', 'policy', 'auth_failure') AND x.soft_bounced_at >= now() - interval '7 days')`,
  };
}
