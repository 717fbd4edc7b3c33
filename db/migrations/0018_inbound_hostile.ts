import { Kysely, sql } from 'kysely';

/**
 * Inbound mail is hostile input:
 * - messages.processing_error: an inbound message that could not be processed (its parse ran over the
 *   time budget, the database refused it, an error) is kept with the error, `unprocessed` while set;
 *   the mailbox's read position moves on past it and the next poll retries it.
 * - messages.inbound_source: the raw message of an unprocessed one, for that retry (at most 10 MB;
 *   cleared once processed; only while processing_error is set).
 * - messages.bounced_at / complained_at: set on our outbound message when a hard-bounce delivery
 *   report or an abuse feedback report (ARF) matched to it by the original's Message-ID arrives.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE messages ADD COLUMN processing_error text;
    ALTER TABLE messages ADD COLUMN inbound_source bytea;
    ALTER TABLE messages ADD COLUMN bounced_at timestamptz;
    ALTER TABLE messages ADD COLUMN complained_at timestamptz;
    ALTER TABLE messages ADD CONSTRAINT messages_inbound_source_check
      CHECK (inbound_source IS NULL OR (processing_error IS NOT NULL AND direction = 'inbound' AND octet_length(inbound_source) <= 10485760));
    ALTER TABLE messages ADD CONSTRAINT messages_processing_error_check CHECK (processing_error IS NULL OR direction = 'inbound');
    CREATE INDEX messages_org_mailbox_unprocessed_idx ON messages (organization_id, mailbox_id, created_at) WHERE processing_error IS NOT NULL;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX IF EXISTS messages_org_mailbox_unprocessed_idx;
    ALTER TABLE messages DROP CONSTRAINT IF EXISTS messages_processing_error_check;
    ALTER TABLE messages DROP CONSTRAINT IF EXISTS messages_inbound_source_check;
    ALTER TABLE messages DROP COLUMN IF EXISTS complained_at;
    ALTER TABLE messages DROP COLUMN IF EXISTS bounced_at;
    ALTER TABLE messages DROP COLUMN IF EXISTS inbound_source;
    ALTER TABLE messages DROP COLUMN IF EXISTS processing_error;
  `.execute(db);
}
