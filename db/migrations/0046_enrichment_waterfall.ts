import { Kysely, sql } from 'kysely';

/**
 * The enrichment waterfall (activities/enrichment.ts, workflows/enrich-company.ts).
 *
 * - `enrichment_order`: the organization's order of its enrichment integrations. The composite
 *   foreign key keeps an entry to an integration of the same organization, and deleting the
 *   integration takes it out of the order.
 * - `organizations.enrichment_stop_at`: the waterfall stops at the first address whose check is at
 *   least this good (`valid`, or `risky` to take catch-all and role addresses too).
 * - `enrichment_runs` and `enrichment_run_steps`: what each run tried, in order, with what each step
 *   found, how many of its addresses the check made valid, what it cost at the provider and why it
 *   failed. A step's `submitted_at` claims a batch provider's request (Dropcontact) before it is sent,
 *   and `request_id` keeps its id: a retry polls the same batch, and a request whose id was lost is
 *   never sent (and paid for) again. They hold no personal data.
 * - `contacts.found_by`: which provider, run and step found the contact and each value filled in
 *   later (the source for the Art. 14 notice); erasure empties it.
 */
const VISIBLE = `organization_id = ANY ((SELECT app.visible_organization_ids())::uuid[])`;
const MEMBER = `organization_id = ANY ((SELECT app.writable_organization_ids('member'))::uuid[])`;
const ADMIN = `organization_id = ANY ((SELECT app.writable_organization_ids('admin'))::uuid[])`;

function policies(table: string, write: string) {
  return sql.raw(
    `ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY;
     ALTER TABLE ${table} FORCE ROW LEVEL SECURITY;
     CREATE POLICY ${table}_read ON ${table} FOR SELECT USING (${VISIBLE});
     CREATE POLICY ${table}_insert ON ${table} FOR INSERT WITH CHECK (${write});
     CREATE POLICY ${table}_update ON ${table} FOR UPDATE USING (${write}) WITH CHECK (${write});
     CREATE POLICY ${table}_delete ON ${table} FOR DELETE USING (${write});`,
  );
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE UNIQUE INDEX integrations_org_id_key ON integrations (organization_id, id);
    CREATE TABLE enrichment_order (
      organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      integration_id uuid NOT NULL,
      position smallint NOT NULL CHECK (position BETWEEN 0 AND 49),
      PRIMARY KEY (organization_id, integration_id),
      UNIQUE (organization_id, position),
      FOREIGN KEY (organization_id, integration_id) REFERENCES integrations (organization_id, id) ON DELETE CASCADE
    );
    ALTER TABLE organizations ADD COLUMN enrichment_stop_at text NOT NULL DEFAULT 'valid' CHECK (enrichment_stop_at IN ('valid', 'risky'));

    CREATE TABLE enrichment_runs (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      company_id uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
      workflow_run_id text NOT NULL CHECK (length(workflow_run_id) BETWEEN 1 AND 200),
      stop_at text NOT NULL CHECK (stop_at IN ('valid', 'risky')),
      status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done', 'failed')),
      stopped_at_step smallint,
      started_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz,
      UNIQUE (organization_id, workflow_run_id),
      CHECK ((status = 'running') = (finished_at IS NULL))
    );
    CREATE INDEX enrichment_runs_company_idx ON enrichment_runs (organization_id, company_id, started_at DESC);

    CREATE TABLE enrichment_run_steps (
      run_id uuid NOT NULL REFERENCES enrichment_runs (id) ON DELETE CASCADE,
      organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      position smallint NOT NULL CHECK (position BETWEEN 0 AND 50),
      provider text NOT NULL CHECK (provider ~ '^[a-z_]{1,40}$'),
      integration_id uuid REFERENCES integrations (id) ON DELETE SET NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'done', 'failed', 'skipped')),
      request_id text CHECK (length(request_id) BETWEEN 1 AND 500),
      submitted_at timestamptz,
      found integer NOT NULL DEFAULT 0 CHECK (found >= 0),
      verified integer NOT NULL DEFAULT 0 CHECK (verified >= 0 AND verified <= found),
      cost_units numeric NOT NULL DEFAULT 0 CHECK (cost_units >= 0),
      error text CHECK (length(error) <= 2000),
      started_at timestamptz,
      finished_at timestamptz,
      PRIMARY KEY (run_id, position)
    );

    ALTER TABLE contacts ADD COLUMN found_by jsonb NOT NULL DEFAULT '{}'::jsonb;
    -- NOT VALID: existing rows hold the default, an object, so the check need not scan contacts under the lock.
    ALTER TABLE contacts ADD CONSTRAINT contacts_found_by_object CHECK (jsonb_typeof(found_by) = 'object') NOT VALID;
  `.execute(db);
  await policies('enrichment_order', ADMIN).execute(db);
  await policies('enrichment_runs', MEMBER).execute(db);
  await policies('enrichment_run_steps', MEMBER).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE contacts DROP COLUMN found_by;
    DROP TABLE enrichment_run_steps;
    DROP TABLE enrichment_runs;
    ALTER TABLE organizations DROP COLUMN enrichment_stop_at;
    DROP TABLE enrichment_order;
    DROP INDEX integrations_org_id_key;
  `.execute(db);
}
