import { Kysely, sql } from 'kysely';

/**
 * Erasure markers by name: an erased person is remembered as sha256(company id, normalized name)
 * (suppression scope `person_hash`) beside the hash of their address, so enrichment does not
 * re-create a person erased without an e-mail address.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE suppressions DROP CONSTRAINT suppressions_scope_check;
    ALTER TABLE suppressions ADD CONSTRAINT suppressions_scope_check
      CHECK (scope IN ('email', 'domain', 'kvk_number', 'email_hash', 'person_hash'));
  `.execute(db);
}

/** Down drops the name markers (the old CHECK cannot hold them): erased people found by name alone could come back. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DELETE FROM suppressions WHERE scope = 'person_hash';
    ALTER TABLE suppressions DROP CONSTRAINT suppressions_scope_check;
    ALTER TABLE suppressions ADD CONSTRAINT suppressions_scope_check CHECK (scope IN ('email', 'domain', 'kvk_number', 'email_hash'));
  `.execute(db);
}
