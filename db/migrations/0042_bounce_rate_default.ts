import { Kysely, sql } from 'kysely';

/**
 * A mailbox's hard-bounce limit defaults to 2 % (DEFAULT_PROTECTION), the rate the large mailbox
 * providers hold senders to: a mailbox created without protection limits takes the column's default.
 * Existing mailboxes keep the value they have.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE mailboxes ALTER COLUMN max_bounce_rate SET DEFAULT 0.02`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE mailboxes ALTER COLUMN max_bounce_rate SET DEFAULT 0.03`.execute(db);
}
