import { Kysely, sql } from 'kysely';

/**
 * Salesforce outcomes: a won or lost outcome updates the StageName of the
 * Salesforce Opportunity the CRM integration's `mapping.opportunities` links it to (the run
 * `crm-outcome/<opportunityId>`). The opportunity keeps when that last succeeded (crm_synced_at)
 * and the CRM's last refusal (crm_error, a 4xx that no retry heals), as meetings do.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE opportunities ADD COLUMN crm_synced_at timestamptz;
    ALTER TABLE opportunities ADD COLUMN crm_error text CONSTRAINT opportunities_crm_error_length CHECK (crm_error IS NULL OR length(crm_error) <= 1000);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE opportunities DROP COLUMN IF EXISTS crm_error;
    ALTER TABLE opportunities DROP COLUMN IF EXISTS crm_synced_at;
  `.execute(db);
}
