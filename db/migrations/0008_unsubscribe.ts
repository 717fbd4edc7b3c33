import { Kysely, sql } from 'kysely';

/**
 * One-click unsubscribe (RFC 8058). The request carries no
 * user, only a token naming one outbound message, so its effects run in PostgreSQL through
 * app.unsubscribe_message(message_id): a narrowly scoped SECURITY DEFINER function, executable by the
 * API role only, that within the message's organization, and nothing more:
 *   1. suppresses the address the message went to (scope email, reason unsubscribe, a note naming
 *      the message), once (a repeat finds it in place);
 *   2. skips the contact's (and that address's) outbound messages still pending_approval, approved,
 *      scheduled or task_open;
 *   3. stops the contact's active or paused enrollments (stopped_reason 'unsubscribed').
 * It answers the organization and what it did, or no row for an unknown (or inbound) message.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION app.unsubscribe_message(p_message_id uuid)
      RETURNS TABLE (organization_id uuid, suppression_created boolean, skipped_message_ids uuid[], stopped_enrollment_ids uuid[])
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public AS
    $$
    #variable_conflict use_column
    DECLARE
      v_org uuid;
      v_contact uuid;
      v_address text;
      v_created boolean := false;
      v_skipped uuid[];
      v_stopped uuid[] := '{}';
      v_clear_pause boolean;
    BEGIN
      SELECT m.organization_id, m.contact_id, lower(btrim(coalesce(m.to_address, c.email)))
        INTO v_org, v_contact, v_address
        FROM public.messages m
        LEFT JOIN public.contacts c ON c.organization_id = m.organization_id AND c.id = m.contact_id
       WHERE m.id = p_message_id AND m.direction = 'outbound';
      IF v_org IS NULL THEN
        RETURN;
      END IF;

      IF v_address IS NOT NULL AND v_address <> '' THEN
        INSERT INTO public.suppressions (organization_id, scope, value, reason, note, created_by)
        VALUES (v_org, 'email', v_address, 'unsubscribe', 'one-click unsubscribe from message ' || p_message_id, NULL)
        ON CONFLICT (organization_id, scope, value) DO NOTHING;
        v_created := FOUND;
      END IF;

      WITH skipped AS (
        UPDATE public.messages m SET status = 'skipped', updated_at = now()
         WHERE m.organization_id = v_org
           AND m.direction = 'outbound'
           AND m.status IN ('pending_approval', 'approved', 'scheduled', 'task_open')
           AND ((v_contact IS NOT NULL AND m.contact_id = v_contact)
                OR (v_address IS NOT NULL AND lower(btrim(m.to_address)) = v_address))
        RETURNING m.id)
      SELECT coalesce(array_agg(id ORDER BY id), '{}') INTO v_skipped FROM skipped;

      -- A paused enrollment also carries pause_reason and resume_at (0009_campaigns, with a CHECK tying
      -- pause_reason to status paused): cleared when those columns exist, so this works before and after.
      v_clear_pause := EXISTS (SELECT 1 FROM pg_catalog.pg_attribute
                                WHERE attrelid = 'public.enrollments'::regclass AND attname = 'pause_reason' AND NOT attisdropped);
      IF v_contact IS NOT NULL THEN
        EXECUTE format(
          'WITH stopped AS (UPDATE public.enrollments e SET status = %L, stopped_reason = %L, updated_at = now()%s'
          ' WHERE e.organization_id = $1 AND e.contact_id = $2 AND e.status IN (%L, %L) RETURNING e.id)'
          ' SELECT coalesce(array_agg(id ORDER BY id), %L) FROM stopped',
          'stopped', 'unsubscribed', CASE WHEN v_clear_pause THEN ', pause_reason = NULL, resume_at = NULL' ELSE '' END,
          'active', 'paused', '{}')
          INTO v_stopped USING v_org, v_contact;
      END IF;

      RETURN QUERY SELECT v_org, v_created, v_skipped, v_stopped;
    END
    $$;
    REVOKE ALL ON FUNCTION app.unsubscribe_message(uuid) FROM PUBLIC;
  `.execute(db);
  // Only the API calls it (the public POST /u/{token}): its role when the roles are split (0003; the
  // default privileges of schema app would also give it to the workers through the shared group role).
  await sql`
    DO $$ BEGIN
      IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_api') THEN
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_app') THEN
          REVOKE EXECUTE ON FUNCTION app.unsubscribe_message(uuid) FROM outreach_app;
        END IF;
        GRANT EXECUTE ON FUNCTION app.unsubscribe_message(uuid) TO outreach_api;
      ELSIF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_app') THEN
        GRANT EXECUTE ON FUNCTION app.unsubscribe_message(uuid) TO outreach_app;
      END IF;
    END $$;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP FUNCTION IF EXISTS app.unsubscribe_message(uuid);`.execute(db);
}
