import { Kysely, sql } from 'kysely';

/**
 * Inbound mail:
 * - mailbox_inbox_states: per mailbox, the IMAP UIDVALIDITY and the highest UID stored, so the inbox
 *   poll reads nothing twice and loses nothing across restarts (a new UIDVALIDITY starts over), and
 *   when it last looked. A tenant table with the member policies of 0003/0007.
 * - messages.internet_message_id: the Message-ID of an inbound message (a hash of the raw message
 *   when it has none), unique per organization and mailbox among inbound messages: the same mail
 *   read twice (IMAP and the push endpoint, or a poll repeated) is stored once.
 * - messages.in_reply_to / references_ids: the ids it answers, for threading and for reading it back.
 * - an index on outbound Message-IDs (provider_message_id) for threading by In-Reply-To/References.
 */
const VISIBLE = `organization_id = ANY ((SELECT app.visible_organization_ids())::uuid[])`;
const WRITABLE = `organization_id = ANY ((SELECT app.writable_organization_ids('member'))::uuid[])`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE mailbox_inbox_states (
      organization_id uuid NOT NULL,
      mailbox_id uuid NOT NULL,
      uidvalidity bigint,
      last_uid bigint NOT NULL DEFAULT 0 CHECK (last_uid >= 0),
      last_checked_at timestamptz,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (organization_id, mailbox_id),
      FOREIGN KEY (organization_id, mailbox_id) REFERENCES mailboxes (organization_id, id) ON DELETE CASCADE
    );
    ALTER TABLE mailbox_inbox_states ENABLE ROW LEVEL SECURITY;
    ALTER TABLE mailbox_inbox_states FORCE ROW LEVEL SECURITY;

    ALTER TABLE messages ADD COLUMN internet_message_id text;
    ALTER TABLE messages ADD COLUMN in_reply_to text;
    ALTER TABLE messages ADD COLUMN references_ids text[] NOT NULL DEFAULT '{}';
    ALTER TABLE messages ADD CONSTRAINT messages_inbound_id_check CHECK (direction <> 'inbound' OR internet_message_id IS NOT NULL OR mailbox_id IS NULL);
    CREATE UNIQUE INDEX messages_inbound_dedup_idx ON messages (organization_id, mailbox_id, internet_message_id) WHERE direction = 'inbound';
    CREATE INDEX messages_org_provider_message_idx ON messages (organization_id, lower(provider_message_id)) WHERE provider_message_id IS NOT NULL;
    CREATE INDEX threads_org_mailbox_contact_idx ON threads (organization_id, mailbox_id, contact_id, created_at DESC);
  `.execute(db);
  await sql
    .raw(
      `CREATE POLICY mailbox_inbox_states_read ON mailbox_inbox_states FOR SELECT USING (${VISIBLE});
       CREATE POLICY mailbox_inbox_states_insert ON mailbox_inbox_states FOR INSERT WITH CHECK (${WRITABLE});
       CREATE POLICY mailbox_inbox_states_update ON mailbox_inbox_states FOR UPDATE USING (${WRITABLE}) WITH CHECK (${WRITABLE});
       CREATE POLICY mailbox_inbox_states_delete ON mailbox_inbox_states FOR DELETE USING (${WRITABLE});`,
    )
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX IF EXISTS threads_org_mailbox_contact_idx;
    DROP INDEX IF EXISTS messages_org_provider_message_idx;
    DROP INDEX IF EXISTS messages_inbound_dedup_idx;
    ALTER TABLE messages DROP CONSTRAINT IF EXISTS messages_inbound_id_check;
    ALTER TABLE messages DROP COLUMN IF EXISTS references_ids;
    ALTER TABLE messages DROP COLUMN IF EXISTS in_reply_to;
    ALTER TABLE messages DROP COLUMN IF EXISTS internet_message_id;
    DROP TABLE IF EXISTS mailbox_inbox_states;
  `.execute(db);
}
