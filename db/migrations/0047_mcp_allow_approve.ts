import { Kysely, sql } from 'kysely';

/**
 * Whether AI assistants (the MCP tools) may do a person's acts for the organization: accept a
 * proposal, approve a draft. Off by default: those tools answer an id for a person.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE organizations ADD COLUMN mcp_allow_approve boolean NOT NULL DEFAULT false`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE organizations DROP COLUMN mcp_allow_approve`.execute(db);
}
