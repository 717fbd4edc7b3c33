import { Kysely, sql } from 'kysely';

/**
 * Whether a campaign enrolls contacts whose address is risky (a catch-all domain, a role address, a
 * probe that could not decide). Off by default: those are the addresses that bounce most.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE campaigns ADD COLUMN allow_risky boolean NOT NULL DEFAULT false`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE campaigns DROP COLUMN allow_risky`.execute(db);
}
