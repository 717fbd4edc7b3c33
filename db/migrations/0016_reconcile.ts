import { Kysely, sql } from 'kysely';

/**
 * One person, and one inbox, in at most one running sequence, and the indexes
 * of the outreach core's hot queries:
 * - enrollments.route_address: the e-mail address the enrollment's e-mail steps go to, resolved at
 *   accept (the contact's own, or the company's generic one); NULL when the campaign has no e-mail
 *   step or the contact none.
 * - partial unique indexes: a contact, and a route address (case-insensitive), is in at most one
 *   active or paused enrollment of the organization. Rows that break this already (older data) keep
 *   the oldest running one; the others are stopped with a reason first.
 * - messages (organization_id, lower(to_address)) for outbound mail: emailedBefore's address branch;
 *   threads (organization_id, enrollment_id, created_at): a send's thread lookup.
 * - what reconcile/outreach looks for, across organizations, through SECURITY DEFINER functions that
 *   answer ids only (the workers read the rows as each organization): running enrollments (keyset by
 *   id) and approved or scheduled messages outside a sequence, each older than a few minutes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE enrollments ADD COLUMN route_address text;
    UPDATE enrollments e SET status = 'stopped', stopped_reason = 'duplicate enrollment (one sequence at a time per person)',
        next_action_at = NULL, pause_reason = NULL, resume_at = NULL, updated_at = now()
      FROM (
        SELECT id, row_number() OVER (PARTITION BY organization_id, contact_id ORDER BY created_at, id) AS n
        FROM enrollments WHERE status IN ('active', 'paused')
      ) d
      WHERE e.id = d.id AND d.n > 1;
    CREATE UNIQUE INDEX enrollments_running_contact_idx ON enrollments (organization_id, contact_id)
      WHERE status IN ('active', 'paused');
    CREATE UNIQUE INDEX enrollments_running_route_idx ON enrollments (organization_id, lower(route_address))
      WHERE status IN ('active', 'paused') AND route_address IS NOT NULL;
    CREATE INDEX messages_org_to_address_idx ON messages (organization_id, lower(to_address))
      WHERE direction = 'outbound' AND to_address IS NOT NULL;
    CREATE INDEX threads_org_enrollment_idx ON threads (organization_id, enrollment_id, created_at)
      WHERE enrollment_id IS NOT NULL;
    CREATE INDEX enrollments_running_idx ON enrollments (id) WHERE status IN ('active', 'paused');
    CREATE INDEX messages_unsequenced_waiting_idx ON messages (updated_at)
      WHERE enrollment_id IS NULL AND direction = 'outbound' AND status IN ('approved', 'scheduled');

    CREATE FUNCTION app.running_enrollments(older_than_seconds integer, after_id uuid, max_rows integer, only_org uuid)
      RETURNS TABLE (organization_id uuid, enrollment_id uuid)
      LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS
    $$ SELECT e.organization_id, e.id FROM public.enrollments e
        WHERE e.status IN ('active', 'paused')
          AND e.id > coalesce(after_id, '00000000-0000-0000-0000-000000000000'::uuid)
          AND (only_org IS NULL OR e.organization_id = only_org)
          AND e.created_at < now() - make_interval(secs => greatest(older_than_seconds, 0))
        ORDER BY e.id
        LIMIT least(greatest(max_rows, 0), 10000) $$;
    CREATE FUNCTION app.unsequenced_waiting_messages(older_than_seconds integer, max_rows integer, only_org uuid)
      RETURNS TABLE (organization_id uuid, message_id uuid)
      LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS
    $$ SELECT m.organization_id, m.id FROM public.messages m
        WHERE m.enrollment_id IS NULL AND m.direction = 'outbound' AND m.status IN ('approved', 'scheduled')
          AND (only_org IS NULL OR m.organization_id = only_org)
          AND m.updated_at < now() - make_interval(secs => greatest(older_than_seconds, 0))
        ORDER BY m.updated_at
        LIMIT least(greatest(max_rows, 0), 10000) $$;
    REVOKE ALL ON FUNCTION app.running_enrollments(integer, uuid, integer, uuid) FROM PUBLIC;
    REVOKE ALL ON FUNCTION app.unsequenced_waiting_messages(integer, integer, uuid) FROM PUBLIC;
  `.execute(db);
  // Only the workers call them (as 0004 does for app.stuck_signals).
  await sql`
    DO $$ BEGIN
      IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_worker') THEN
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_app') THEN
          REVOKE EXECUTE ON FUNCTION app.running_enrollments(integer, uuid, integer, uuid) FROM outreach_app;
          REVOKE EXECUTE ON FUNCTION app.unsequenced_waiting_messages(integer, integer, uuid) FROM outreach_app;
        END IF;
        GRANT EXECUTE ON FUNCTION app.running_enrollments(integer, uuid, integer, uuid) TO outreach_worker;
        GRANT EXECUTE ON FUNCTION app.unsequenced_waiting_messages(integer, integer, uuid) TO outreach_worker;
      ELSIF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_app') THEN
        GRANT EXECUTE ON FUNCTION app.running_enrollments(integer, uuid, integer, uuid) TO outreach_app;
        GRANT EXECUTE ON FUNCTION app.unsequenced_waiting_messages(integer, integer, uuid) TO outreach_app;
      END IF;
    END $$;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP FUNCTION IF EXISTS app.unsequenced_waiting_messages(integer, integer, uuid);
    DROP FUNCTION IF EXISTS app.running_enrollments(integer, uuid, integer, uuid);
    DROP INDEX IF EXISTS messages_unsequenced_waiting_idx;
    DROP INDEX IF EXISTS enrollments_running_idx;
    DROP INDEX IF EXISTS threads_org_enrollment_idx;
    DROP INDEX IF EXISTS messages_org_to_address_idx;
    DROP INDEX IF EXISTS enrollments_running_route_idx;
    DROP INDEX IF EXISTS enrollments_running_contact_idx;
    ALTER TABLE enrollments DROP COLUMN IF EXISTS route_address;
  `.execute(db);
}
