import { Kysely, sql } from 'kysely';

/**
 * Campaigns and enrollments:
 * - opportunities.brief: the outreach brief the drafting stage writes (facts with their source URLs,
 *   score reasons, product and persona fit), as jsonb;
 * - campaigns: who wrote the proposal (model, prompt key/version/hash), the per-contact channel plan
 *   (suggested_contacts), and why a person dismissed it (dismissed_reason);
 * - enrollments: `paused` (with pause_reason and resume_at), current_step (was current_position) and
 *   next_action_at, when the sequence acts next.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE opportunities ADD COLUMN brief jsonb;

    ALTER TABLE campaigns ADD COLUMN model text;
    ALTER TABLE campaigns ADD COLUMN prompt_key text;
    ALTER TABLE campaigns ADD COLUMN prompt_version text;
    ALTER TABLE campaigns ADD COLUMN prompt_hash text;
    ALTER TABLE campaigns ADD COLUMN suggested_contacts jsonb NOT NULL DEFAULT '[]'::jsonb;
    ALTER TABLE campaigns ADD COLUMN dismissed_reason text;
    CREATE INDEX campaigns_org_status_idx ON campaigns (organization_id, status, created_at DESC, id DESC);

    ALTER TABLE enrollments DROP CONSTRAINT enrollments_status_check;
    ALTER TABLE enrollments ADD CONSTRAINT enrollments_status_check CHECK (status IN ('active', 'paused', 'stopped', 'completed', 'failed'));
    ALTER TABLE enrollments RENAME COLUMN current_position TO current_step;
    ALTER TABLE enrollments ADD COLUMN next_action_at timestamptz;
    ALTER TABLE enrollments ADD COLUMN pause_reason text CHECK (pause_reason IN ('out_of_office', 'account_replied'));
    ALTER TABLE enrollments ADD COLUMN resume_at timestamptz;
    ALTER TABLE enrollments ADD CONSTRAINT enrollments_paused_reason_check CHECK ((status = 'paused') = (pause_reason IS NOT NULL));
    CREATE INDEX enrollments_org_created_idx ON enrollments (organization_id, created_at DESC, id DESC);
    CREATE INDEX enrollments_org_campaign_idx ON enrollments (organization_id, campaign_id, status);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX IF EXISTS enrollments_org_campaign_idx;
    DROP INDEX IF EXISTS enrollments_org_created_idx;
    ALTER TABLE enrollments DROP CONSTRAINT IF EXISTS enrollments_paused_reason_check;
    ALTER TABLE enrollments DROP COLUMN IF EXISTS resume_at;
    ALTER TABLE enrollments DROP COLUMN IF EXISTS pause_reason;
    ALTER TABLE enrollments DROP COLUMN IF EXISTS next_action_at;
    ALTER TABLE enrollments RENAME COLUMN current_step TO current_position;
    UPDATE enrollments SET status = 'stopped', stopped_reason = coalesce(stopped_reason, 'paused when the migration was rolled back') WHERE status = 'paused';
    ALTER TABLE enrollments DROP CONSTRAINT enrollments_status_check;
    ALTER TABLE enrollments ADD CONSTRAINT enrollments_status_check CHECK (status IN ('active', 'stopped', 'completed', 'failed'));

    DROP INDEX IF EXISTS campaigns_org_status_idx;
    ALTER TABLE campaigns DROP COLUMN IF EXISTS dismissed_reason;
    ALTER TABLE campaigns DROP COLUMN IF EXISTS suggested_contacts;
    ALTER TABLE campaigns DROP COLUMN IF EXISTS prompt_hash;
    ALTER TABLE campaigns DROP COLUMN IF EXISTS prompt_version;
    ALTER TABLE campaigns DROP COLUMN IF EXISTS prompt_key;
    ALTER TABLE campaigns DROP COLUMN IF EXISTS model;

    ALTER TABLE opportunities DROP COLUMN IF EXISTS brief;
  `.execute(db);
}
