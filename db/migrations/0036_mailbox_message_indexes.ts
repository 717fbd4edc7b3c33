import { Kysely, sql } from 'kysely';

/**
 * Per-mailbox reads of a mailbox's messages that ran on the organization's whole history:
 * - the latest claimed send (`max(send_attempted_at)`), read by every booking (reserveSendSlot) and
 *   every claim (the gap check); the latest send has messages_mailbox_sent_idx already;
 * - the seven-day hard bounces and complaints (`bounced_at`, `complained_at`), read by every
 *   protection judgement and every mailbox answer (stats_7d).
 * Partial indexes: only the few messages that carry the timestamp are indexed, and a per-mailbox
 * `max()` or range count reads the end of one mailbox's part of the index.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX IF NOT EXISTS messages_mailbox_attempted_idx ON messages (organization_id, mailbox_id, send_attempted_at) WHERE send_attempted_at IS NOT NULL;
    CREATE INDEX IF NOT EXISTS messages_mailbox_bounced_idx ON messages (organization_id, mailbox_id, bounced_at) WHERE bounced_at IS NOT NULL;
    CREATE INDEX IF NOT EXISTS messages_mailbox_complained_idx ON messages (organization_id, mailbox_id, complained_at) WHERE complained_at IS NOT NULL;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX IF EXISTS messages_mailbox_complained_idx;
    DROP INDEX IF EXISTS messages_mailbox_bounced_idx;
    DROP INDEX IF EXISTS messages_mailbox_attempted_idx;
  `.execute(db);
}
