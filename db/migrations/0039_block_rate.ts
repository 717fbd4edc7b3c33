import { Kysely, sql } from 'kysely';

/**
 * Soft bounces that count: messages.soft_bounced_at and bounce_reason (domain/replies/bounce-reasons.ts)
 * record a soft bounce of a sent message. Three of one address within 30 days suppress it; the ones
 * that say the receiver refused the sender (blocked, spam, policy, auth_failure) are a mailbox's
 * blocks, and a block rate above mailboxes.max_block_rate pauses it (paused_reason block_rate). The
 * two partial indexes serve those counts (per address, per mailbox) without reading other messages.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE messages ADD COLUMN soft_bounced_at timestamptz, ADD COLUMN bounce_reason text CHECK (bounce_reason IS NULL OR length(bounce_reason) <= 40)`.execute(
    db,
  );
  await sql`ALTER TABLE mailboxes ADD COLUMN max_block_rate numeric(6,5) NOT NULL DEFAULT 0.05 CHECK (max_block_rate BETWEEN 0 AND 1)`.execute(db);
  await sql`ALTER TABLE mailboxes DROP CONSTRAINT IF EXISTS mailboxes_paused_reason_check`.execute(db);
  await sql`ALTER TABLE mailboxes ADD CONSTRAINT mailboxes_paused_reason_check CHECK (paused_reason IN ('bounce_rate', 'complaint_rate', 'block_rate', 'health', 'auth', 'manual'))`.execute(
    db,
  );
  await sql`CREATE INDEX messages_mailbox_blocks_idx ON messages (organization_id, mailbox_id, soft_bounced_at) WHERE bounce_reason IN ('blocked', 'spam', 'policy', 'auth_failure')`.execute(
    db,
  );
  await sql`CREATE INDEX messages_address_soft_bounces_idx ON messages (organization_id, lower(to_address), soft_bounced_at) WHERE soft_bounced_at IS NOT NULL`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS messages_address_soft_bounces_idx`.execute(db);
  await sql`DROP INDEX IF EXISTS messages_mailbox_blocks_idx`.execute(db);
  await sql`UPDATE mailboxes SET status = 'paused', paused_reason = 'manual' WHERE paused_reason = 'block_rate'`.execute(db);
  await sql`ALTER TABLE mailboxes DROP CONSTRAINT IF EXISTS mailboxes_paused_reason_check`.execute(db);
  await sql`ALTER TABLE mailboxes ADD CONSTRAINT mailboxes_paused_reason_check CHECK (paused_reason IN ('bounce_rate', 'complaint_rate', 'health', 'auth', 'manual'))`.execute(
    db,
  );
  await sql`ALTER TABLE mailboxes DROP COLUMN IF EXISTS max_block_rate`.execute(db);
  await sql`ALTER TABLE messages DROP COLUMN IF EXISTS bounce_reason, DROP COLUMN IF EXISTS soft_bounced_at`.execute(db);
}
