import { Kysely, sql } from 'kysely';

/**
 * The moment a send hands its message to the SMTP server (so nothing is lost when a worker dies
 * mid-send). `messages.handover_at` is committed by the claim's owner right before the envelope and
 * DATA, and only while its claim (`send_attempted_at`) is still the message's. A claim found set
 * without a hand-over means the attempt died before the server could have the message: the next
 * attempt takes the claim over and sends. With a hand-over recorded and no outcome, delivery is
 * unknown and the message is flagged for checking, as before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE messages ADD COLUMN handover_at timestamptz`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE messages DROP COLUMN IF EXISTS handover_at`.execute(db);
}
