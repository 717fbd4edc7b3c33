import { Kysely, sql } from 'kysely';

/**
 * Whether each contact's address exists: its status, when it was checked and the checks made
 * (domain/contacts/email-verification.ts). The status is checked in the table, so no code path can
 * write one accept does not know. Existing contacts start `unknown`; an index serves the runs that
 * verify an organization's contacts. Integrations gain the kind `verification`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE contacts
      ADD COLUMN email_status text NOT NULL DEFAULT 'unknown' CHECK (email_status IN ('unknown', 'valid', 'risky', 'invalid')),
      ADD COLUMN email_checked_at timestamptz,
      ADD COLUMN email_check jsonb CHECK (email_check IS NULL OR jsonb_typeof(email_check) = 'object')
  `.execute(db);
  // A verifier is an integration of its own kind (activities/providers/registry.ts INTEGRATION_KINDS).
  await sql`ALTER TABLE integrations DROP CONSTRAINT integrations_kind_check`.execute(db);
  await sql`ALTER TABLE integrations ADD CONSTRAINT integrations_kind_check CHECK (kind IN ('crm', 'calendar', 'enrichment', 'llm', 'verification'))`.execute(
    db,
  );
  // A run over an organization's contacts pages through them in id order.
  await sql`CREATE INDEX contacts_with_email_idx ON contacts (organization_id, id) WHERE email IS NOT NULL AND erased_at IS NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS contacts_with_email_idx`.execute(db);
  await sql`DELETE FROM integrations WHERE kind = 'verification'`.execute(db);
  await sql`ALTER TABLE integrations DROP CONSTRAINT integrations_kind_check`.execute(db);
  await sql`ALTER TABLE integrations ADD CONSTRAINT integrations_kind_check CHECK (kind IN ('crm', 'calendar', 'enrichment', 'llm'))`.execute(db);
  await sql`ALTER TABLE contacts DROP COLUMN email_check, DROP COLUMN email_checked_at, DROP COLUMN email_status`.execute(db);
}
