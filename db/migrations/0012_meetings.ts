import { Kysely, sql } from 'kysely';

/**
 * Meetings: CRM sync, reminders and booking webhooks.
 *
 * - meetings: who recorded it (created_by; null for a booking that came through a webhook), the CRM
 *   record it was synced to (crm_external_id) and the CRM's last refusal (crm_error), when the
 *   reminder is due (reminder_at) and when it was created (reminded_at, with the task and the draft
 *   it made), when the status last changed (status_changed_at, what analytics count by);
 * - organizations.meeting_reminder_lead_minutes: how long before a meeting its reminder comes
 *   (default 24 hours; GET/PATCH /settings/meetings);
 * - tasks: work for a person (the meeting reminder for the owner of the enrollment or campaign), a
 *   tenant table with the member policies of 0003;
 * - app.webhook_integration(id, provider): the one thing the public booking webhooks may read without
 *   a user: a calendar integration's organization and sealed signing secret, executable by the API
 *   role only. The API verifies the signature with it and hands the booking to the worker, which
 *   writes the meeting acting for that organization; the API role gains no organization context.
 */
const VISIBLE = `organization_id = ANY ((SELECT app.visible_organization_ids())::uuid[])`;
const WRITABLE = `organization_id = ANY ((SELECT app.writable_organization_ids('member'))::uuid[])`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE organizations ADD COLUMN meeting_reminder_lead_minutes integer NOT NULL DEFAULT 1440
      CHECK (meeting_reminder_lead_minutes BETWEEN 0 AND 20160);

    CREATE TABLE tasks (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL,
      kind text NOT NULL CHECK (kind IN ('meeting_reminder')),
      status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'done', 'cancelled')),
      assignee_user_id uuid,
      meeting_id uuid,
      contact_id uuid,
      title text NOT NULL,
      body text,
      due_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, id),
      FOREIGN KEY (organization_id, meeting_id) REFERENCES meetings (organization_id, id) ON DELETE CASCADE,
      FOREIGN KEY (organization_id, contact_id) REFERENCES contacts (organization_id, id)
    );
    CREATE INDEX tasks_org_created_idx ON tasks (organization_id, created_at DESC, id DESC);
    CREATE INDEX tasks_org_assignee_idx ON tasks (organization_id, assignee_user_id, status);
    ALTER TABLE tasks ENABLE ROW LEVEL SECURITY;
    ALTER TABLE tasks FORCE ROW LEVEL SECURITY;

    ALTER TABLE meetings ADD COLUMN created_by uuid;
    ALTER TABLE meetings ADD COLUMN crm_external_id text;
    ALTER TABLE meetings ADD COLUMN crm_error text;
    ALTER TABLE meetings ADD COLUMN reminder_at timestamptz;
    ALTER TABLE meetings ADD COLUMN reminded_at timestamptz;
    ALTER TABLE meetings ADD COLUMN reminder_task_id uuid;
    ALTER TABLE meetings ADD COLUMN reminder_message_id uuid;
    ALTER TABLE meetings ADD COLUMN status_changed_at timestamptz;
    ALTER TABLE meetings ADD CONSTRAINT meetings_reminder_task_fk FOREIGN KEY (organization_id, reminder_task_id) REFERENCES tasks (organization_id, id) ON DELETE SET NULL (reminder_task_id);
    ALTER TABLE meetings ADD CONSTRAINT meetings_reminder_message_fk FOREIGN KEY (organization_id, reminder_message_id) REFERENCES messages (organization_id, id) ON DELETE SET NULL (reminder_message_id);
    CREATE INDEX meetings_org_opportunity_idx ON meetings (organization_id, opportunity_id);
    CREATE INDEX meetings_org_status_idx ON meetings (organization_id, status, status_changed_at);
  `.execute(db);
  await sql
    .raw(
      `CREATE POLICY tasks_read ON tasks FOR SELECT USING (${VISIBLE});
       CREATE POLICY tasks_insert ON tasks FOR INSERT WITH CHECK (${WRITABLE});
       CREATE POLICY tasks_update ON tasks FOR UPDATE USING (${WRITABLE}) WITH CHECK (${WRITABLE});
       CREATE POLICY tasks_delete ON tasks FOR DELETE USING (${WRITABLE});`,
    )
    .execute(db);
  await sql`
    CREATE FUNCTION app.webhook_integration(p_integration_id uuid, p_provider text)
      RETURNS TABLE (organization_id uuid, secret_ciphertext bytea)
      LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS
    $$
      SELECT i.organization_id, i.secret_ciphertext FROM public.integrations i
       WHERE i.id = p_integration_id AND i.kind = 'calendar' AND i.provider_key = p_provider
         AND i.secret_ciphertext IS NOT NULL
    $$;
    REVOKE ALL ON FUNCTION app.webhook_integration(uuid, text) FROM PUBLIC;
  `.execute(db);
  await sql`
    DO $$ BEGIN
      IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_api') THEN
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_app') THEN
          REVOKE EXECUTE ON FUNCTION app.webhook_integration(uuid, text) FROM outreach_app;
        END IF;
        GRANT EXECUTE ON FUNCTION app.webhook_integration(uuid, text) TO outreach_api;
      ELSIF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_app') THEN
        GRANT EXECUTE ON FUNCTION app.webhook_integration(uuid, text) TO outreach_app;
      END IF;
    END $$;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP FUNCTION IF EXISTS app.webhook_integration(uuid, text);
    DROP INDEX IF EXISTS meetings_org_status_idx;
    DROP INDEX IF EXISTS meetings_org_opportunity_idx;
    ALTER TABLE meetings DROP CONSTRAINT IF EXISTS meetings_reminder_message_fk;
    ALTER TABLE meetings DROP CONSTRAINT IF EXISTS meetings_reminder_task_fk;
    ALTER TABLE meetings DROP COLUMN IF EXISTS status_changed_at;
    ALTER TABLE meetings DROP COLUMN IF EXISTS reminder_message_id;
    ALTER TABLE meetings DROP COLUMN IF EXISTS reminder_task_id;
    ALTER TABLE meetings DROP COLUMN IF EXISTS reminded_at;
    ALTER TABLE meetings DROP COLUMN IF EXISTS reminder_at;
    ALTER TABLE meetings DROP COLUMN IF EXISTS crm_error;
    ALTER TABLE meetings DROP COLUMN IF EXISTS crm_external_id;
    ALTER TABLE meetings DROP COLUMN IF EXISTS created_by;
    DROP TABLE IF EXISTS tasks;
    ALTER TABLE organizations DROP COLUMN IF EXISTS meeting_reminder_lead_minutes;
  `.execute(db);
}
