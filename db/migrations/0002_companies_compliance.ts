import { Kysely, sql } from 'kysely';

/**
 * Companies, contacts and compliance: signals and opportunities name the company they are about;
 * integrations remember their last test; contacts are found again by name within a company.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE signals ADD COLUMN company_id uuid;
    -- The company a publication names (from a source's field mapping or the text), for the enrichment stage.
    ALTER TABLE signals ADD COLUMN company_hint jsonb;
    ALTER TABLE signals ADD CONSTRAINT signals_company_fk FOREIGN KEY (organization_id, company_id) REFERENCES companies (organization_id, id);
    CREATE INDEX signals_org_company_idx ON signals (organization_id, company_id) WHERE company_id IS NOT NULL;

    ALTER TABLE opportunities ADD COLUMN company_id uuid;
    ALTER TABLE opportunities ADD CONSTRAINT opportunities_company_fk FOREIGN KEY (organization_id, company_id) REFERENCES companies (organization_id, id);

    ALTER TABLE integrations ADD COLUMN last_tested_at timestamptz;

    CREATE INDEX contacts_org_company_name_idx ON contacts (organization_id, company_id, lower(full_name));
    CREATE INDEX contacts_org_engaged_idx ON contacts (organization_id, (coalesce(last_engaged_at, created_at))) WHERE erased_at IS NULL;
    CREATE INDEX suppressions_org_value_idx ON suppressions (organization_id, value);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX IF EXISTS suppressions_org_value_idx;
    DROP INDEX IF EXISTS contacts_org_engaged_idx;
    DROP INDEX IF EXISTS contacts_org_company_name_idx;
    ALTER TABLE integrations DROP COLUMN IF EXISTS last_tested_at;
    ALTER TABLE opportunities DROP COLUMN IF EXISTS company_id;
    ALTER TABLE signals DROP COLUMN IF EXISTS company_hint;
    ALTER TABLE signals DROP COLUMN IF EXISTS company_id;
  `.execute(db);
}
