import { Kysely, sql } from 'kysely';

/**
 * Analytics and prompt evals:
 * - prompt_evals.message_id: the approved draft an eval row scores (its original and sent text stay
 *   on the message, so erasure redacts them there); one row per message, which makes recording an
 *   eval idempotent. Rows without a message (none are written yet) stay possible.
 * - indexes the analytics sections read by: outbound and inbound messages by time, delivery attempts
 *   by time, the sent drafts of a thread with their prompt version (the draft a reply answers), a
 *   prompt version's eval rows, meetings by enrollment (by opportunity: 0012's index), opportunities by the
 *   signal they came from.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE prompt_evals ADD COLUMN message_id uuid;
    ALTER TABLE prompt_evals ADD CONSTRAINT prompt_evals_message_fk
      FOREIGN KEY (organization_id, message_id) REFERENCES messages (organization_id, id) ON DELETE CASCADE;
    CREATE UNIQUE INDEX prompt_evals_org_message_idx ON prompt_evals (organization_id, message_id) WHERE message_id IS NOT NULL;
    CREATE INDEX prompt_evals_org_version_idx ON prompt_evals (organization_id, prompt_key, prompt_version, created_at DESC);

    CREATE INDEX messages_org_direction_created_idx ON messages (organization_id, direction, created_at);
    CREATE INDEX messages_org_thread_sent_idx ON messages (organization_id, thread_id, sent_at) INCLUDE (prompt_version)
      WHERE direction = 'outbound' AND thread_id IS NOT NULL AND sent_at IS NOT NULL;
    CREATE INDEX messages_org_delivery_idx ON messages (organization_id, (coalesce(sent_at, updated_at)))
      WHERE direction = 'outbound' AND status IN ('sent', 'failed');
    CREATE INDEX meetings_org_enrollment_idx ON meetings (organization_id, enrollment_id) WHERE enrollment_id IS NOT NULL;
    CREATE INDEX opportunities_org_signal_idx ON opportunities (organization_id, created_from_signal_id) WHERE created_from_signal_id IS NOT NULL;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX IF EXISTS opportunities_org_signal_idx;
    DROP INDEX IF EXISTS meetings_org_enrollment_idx;
    DROP INDEX IF EXISTS messages_org_delivery_idx;
    DROP INDEX IF EXISTS messages_org_thread_sent_idx;
    DROP INDEX IF EXISTS messages_org_direction_created_idx;
    DROP INDEX IF EXISTS prompt_evals_org_version_idx;
    DROP INDEX IF EXISTS prompt_evals_org_message_idx;
    ALTER TABLE prompt_evals DROP CONSTRAINT IF EXISTS prompt_evals_message_fk;
    ALTER TABLE prompt_evals DROP COLUMN IF EXISTS message_id;
  `.execute(db);
}
