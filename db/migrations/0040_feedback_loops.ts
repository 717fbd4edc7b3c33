import { Kysely, sql } from 'kysely';

/**
 * The organization's own feedback loops: senders (an exact address, or '@domain' for any address at
 * that domain) whose structured complaints count toward a mailbox's complaint rate, beside the loops
 * the service knows (domain/replies/feedback-loops.ts). Part of the audited compliance settings.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE compliance_settings ADD COLUMN feedback_loop_senders text[] NOT NULL DEFAULT '{}'
    CHECK (cardinality(feedback_loop_senders) <= 20 AND octet_length(array_to_string(feedback_loop_senders, ',')) <= 20 * 255)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE compliance_settings DROP COLUMN IF EXISTS feedback_loop_senders`.execute(db);
}
