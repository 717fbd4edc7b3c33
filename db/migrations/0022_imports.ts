import { Kysely, sql } from 'kysely';

/**
 * Contact import:
 * - imports: one CSV upload, its progress (processed_rows of total_rows), what it did and what it
 *   skipped or refused (the first 1,000 of each), and the source recorded on every contact for the
 *   Art. 14 notice. The durable run `import/<id>` advances processed_rows chunk by chunk, each in the
 *   transaction that imports the chunk's rows, so a killed worker goes on where it stopped.
 * - import_rows: the staged file, one parsed CSV record per row (n counts data records from 0),
 *   written by the API while it streams the upload; email_key (the lowered address) finds the earlier
 *   rows of the same person (duplicate_in_file). Deleted when the import ends.
 * Tenant tables with the member policies of 0003/0007.
 *
 * Threads: threads.assigned_to, the member who answers the thread (a user id,
 * checked against the memberships by the API), and the index of the thread list's filter.
 */
const VISIBLE = `organization_id = ANY ((SELECT app.visible_organization_ids())::uuid[])`;
const WRITABLE = `organization_id = ANY ((SELECT app.writable_organization_ids('member'))::uuid[])`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE imports (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'completed', 'failed')),
      dedupe text NOT NULL DEFAULT 'organization' CHECK (dedupe IN ('organization', 'none')),
      source_description text NOT NULL CHECK (length(source_description) BETWEEN 1 AND 1000),
      total_rows integer NOT NULL DEFAULT 0 CHECK (total_rows >= 0),
      processed_rows integer NOT NULL DEFAULT 0 CHECK (processed_rows BETWEEN 0 AND total_rows),
      created_companies integer NOT NULL DEFAULT 0,
      created_contacts integer NOT NULL DEFAULT 0,
      updated_contacts integer NOT NULL DEFAULT 0,
      skipped jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(skipped) = 'array' AND jsonb_array_length(skipped) <= 1000),
      errors jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(errors) = 'array' AND jsonb_array_length(errors) <= 1000),
      workflow_id text NOT NULL,
      created_by uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz,
      UNIQUE (organization_id, id),
      CHECK ((status = 'running') = (finished_at IS NULL))
    );
    CREATE INDEX imports_org_created_idx ON imports (organization_id, created_at DESC, id DESC);
    ALTER TABLE imports ENABLE ROW LEVEL SECURITY;
    ALTER TABLE imports FORCE ROW LEVEL SECURITY;

    CREATE TABLE import_rows (
      organization_id uuid NOT NULL,
      import_id uuid NOT NULL,
      n integer NOT NULL CHECK (n >= 0),
      email_key text,
      fields jsonb NOT NULL,
      PRIMARY KEY (organization_id, import_id, n),
      FOREIGN KEY (organization_id, import_id) REFERENCES imports (organization_id, id) ON DELETE CASCADE
    );
    CREATE INDEX import_rows_email_idx ON import_rows (organization_id, import_id, email_key, n) WHERE email_key IS NOT NULL;
    ALTER TABLE import_rows ENABLE ROW LEVEL SECURITY;
    ALTER TABLE import_rows FORCE ROW LEVEL SECURITY;

    ALTER TABLE threads ADD COLUMN assigned_to uuid;
    CREATE INDEX threads_org_assigned_idx ON threads (organization_id, assigned_to) WHERE assigned_to IS NOT NULL;
  `.execute(db);
  for (const table of ['imports', 'import_rows']) {
    await sql
      .raw(
        `CREATE POLICY ${table}_read ON ${table} FOR SELECT USING (${VISIBLE});
         CREATE POLICY ${table}_insert ON ${table} FOR INSERT WITH CHECK (${WRITABLE});
         CREATE POLICY ${table}_update ON ${table} FOR UPDATE USING (${WRITABLE}) WITH CHECK (${WRITABLE});
         CREATE POLICY ${table}_delete ON ${table} FOR DELETE USING (${WRITABLE});`,
      )
      .execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX IF EXISTS threads_org_assigned_idx;
    ALTER TABLE threads DROP COLUMN IF EXISTS assigned_to;
    DROP TABLE IF EXISTS import_rows;
    DROP TABLE IF EXISTS imports;
  `.execute(db);
}
