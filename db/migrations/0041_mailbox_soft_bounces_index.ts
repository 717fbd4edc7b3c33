import { Kysely, sql } from 'kysely';

/**
 * A mailbox's soft bounces by time: the seven-day `sent` count (stats_7d and every protection
 * judgement) counts a refused attempt that never went out by its soft_bounced_at, per mailbox. Without
 * this index that branch read the organization's soft bounces of all time.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX messages_mailbox_soft_bounced_idx ON messages (organization_id, mailbox_id, soft_bounced_at) WHERE soft_bounced_at IS NOT NULL`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS messages_mailbox_soft_bounced_idx`.execute(db);
}
