import { Kysely, sql } from 'kysely';

/**
 * The sequence run's messages:
 * - draft_key: what makes writing a draft idempotent: `<enrollment>:<step position>:<attempt>` (a
 *   redraft after a rejection is the next attempt), unique per organization;
 * - campaign_id: the campaign a draft belongs to (the inbox filters and names it without a join);
 * - prompt_key, redraft_of, rejected_reason, redraft_requested, rejected_by/at, completed_by/at, completed_note: who
 *   decided what about a draft or a task;
 * - send_attempted_at: set, and committed, right before the e-mail is handed to the SMTP server; a
 *   send that finds it set on a message that is not `sent` cannot know whether the server took it
 *   (the worker died in between), so it flags the message (`needs_check`) instead of sending again;
 * - the inbox index: pending drafts of an organization newest first, with the campaign filter.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE messages ADD COLUMN draft_key text;
    ALTER TABLE messages ADD COLUMN campaign_id uuid;
    ALTER TABLE messages ADD COLUMN prompt_key text;
    ALTER TABLE messages ADD COLUMN redraft_of uuid;
    ALTER TABLE messages ADD COLUMN rejected_reason text;
    ALTER TABLE messages ADD COLUMN redraft_requested boolean NOT NULL DEFAULT false;
    ALTER TABLE messages ADD COLUMN rejected_by uuid;
    ALTER TABLE messages ADD COLUMN rejected_at timestamptz;
    ALTER TABLE messages ADD COLUMN completed_by uuid;
    ALTER TABLE messages ADD COLUMN completed_at timestamptz;
    ALTER TABLE messages ADD COLUMN completed_note text;
    ALTER TABLE messages ADD COLUMN send_attempted_at timestamptz;
    ALTER TABLE messages ADD COLUMN needs_check boolean NOT NULL DEFAULT false;
    ALTER TABLE messages ADD CONSTRAINT messages_campaign_fk
      FOREIGN KEY (organization_id, campaign_id) REFERENCES campaigns (organization_id, id) ON DELETE CASCADE;
    ALTER TABLE messages ADD CONSTRAINT messages_redraft_of_fk
      FOREIGN KEY (organization_id, redraft_of) REFERENCES messages (organization_id, id);
    CREATE UNIQUE INDEX messages_draft_key_idx ON messages (organization_id, draft_key) WHERE draft_key IS NOT NULL;
    CREATE INDEX messages_org_campaign_status_idx ON messages (organization_id, campaign_id, status, created_at DESC, id DESC);
    CREATE INDEX messages_org_provider_id_idx ON messages (organization_id, provider_message_id) WHERE provider_message_id IS NOT NULL;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX IF EXISTS messages_org_provider_id_idx;
    DROP INDEX IF EXISTS messages_org_campaign_status_idx;
    DROP INDEX IF EXISTS messages_draft_key_idx;
    ALTER TABLE messages DROP CONSTRAINT IF EXISTS messages_redraft_of_fk;
    ALTER TABLE messages DROP CONSTRAINT IF EXISTS messages_campaign_fk;
    ALTER TABLE messages DROP COLUMN IF EXISTS needs_check;
    ALTER TABLE messages DROP COLUMN IF EXISTS send_attempted_at;
    ALTER TABLE messages DROP COLUMN IF EXISTS completed_note;
    ALTER TABLE messages DROP COLUMN IF EXISTS completed_at;
    ALTER TABLE messages DROP COLUMN IF EXISTS completed_by;
    ALTER TABLE messages DROP COLUMN IF EXISTS rejected_at;
    ALTER TABLE messages DROP COLUMN IF EXISTS rejected_by;
    ALTER TABLE messages DROP COLUMN IF EXISTS redraft_requested;
    ALTER TABLE messages DROP COLUMN IF EXISTS rejected_reason;
    ALTER TABLE messages DROP COLUMN IF EXISTS redraft_of;
    ALTER TABLE messages DROP COLUMN IF EXISTS prompt_key;
    ALTER TABLE messages DROP COLUMN IF EXISTS campaign_id;
    ALTER TABLE messages DROP COLUMN IF EXISTS draft_key;
  `.execute(db);
}
