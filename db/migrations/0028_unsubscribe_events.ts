import { Kysely, sql } from 'kysely';

/**
 * The one-click unsubscribe reports itself: app.unsubscribe_message (0008, 0015) has
 * no caller to run recordEvent (db/queries/webhook-events.ts) as, so it writes the outbox itself, in
 * its own transaction: `suppression.created` for the suppression it makes and `enrollment.stopped`
 * for each enrollment it stops, with `data` the record as the API answers it (GET
 * /compliance/suppressions, GET /enrollments/{id}: the columns of SUPPRESSION_COLUMNS and
 * ENROLLMENT_COLUMNS, timestamps as JSON.stringify writes a Date: UTC, milliseconds, `Z`).
 * - app.record_webhook_event(org, type, data): recordEvent in SQL: nothing without an enabled
 *   endpoint subscribed to the type (or `*`); else the event, one pending delivery per endpoint and a
 *   NOTIFY on webhook_deliveries per endpoint (delivered at commit; the dispatcher's sweep finds it
 *   anyway). Called by the owner's functions only (no EXECUTE for anyone else).
 * - app.suppression_answer(id), app.enrollment_answer(id): the records as jsonb.
 * - Stopping now also clears next_action_at, as every other stop does (transitionEnrollment).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION app.json_time(t timestamptz) RETURNS text
      LANGUAGE sql IMMUTABLE STRICT SET search_path = pg_catalog AS
    $$ SELECT to_char(date_trunc('milliseconds', t AT TIME ZONE 'UTC'), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;

    CREATE FUNCTION app.suppression_answer(p_id uuid) RETURNS jsonb
      LANGUAGE sql STABLE SET search_path = pg_catalog, public AS
    $$ SELECT jsonb_build_object(
         'id', s.id, 'organization_id', s.organization_id, 'scope', s.scope, 'value', s.value, 'reason', s.reason,
         'note', s.note, 'created_by', s.created_by, 'created_at', app.json_time(s.created_at))
         FROM public.suppressions s WHERE s.id = p_id $$;

    CREATE FUNCTION app.enrollment_answer(p_id uuid) RETURNS jsonb
      LANGUAGE sql STABLE SET search_path = pg_catalog, public AS
    $$ SELECT jsonb_build_object(
         'id', e.id, 'organization_id', e.organization_id, 'campaign_id', e.campaign_id, 'contact_id', e.contact_id,
         'status', e.status, 'current_step', e.current_step, 'next_action_at', app.json_time(e.next_action_at),
         'pause_reason', e.pause_reason, 'resume_at', app.json_time(e.resume_at), 'stopped_reason', e.stopped_reason,
         'workflow_id', e.workflow_id, 'mailbox_id', e.mailbox_id,
         'created_at', app.json_time(e.created_at), 'updated_at', app.json_time(e.updated_at))
         FROM public.enrollments e WHERE e.id = p_id $$;

    CREATE FUNCTION app.record_webhook_event(p_org uuid, p_type text, p_data jsonb) RETURNS uuid
      LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, public AS
    $$
    DECLARE
      v_endpoints uuid[];
      v_event uuid;
    BEGIN
      SELECT array_agg(e.id) INTO v_endpoints FROM public.webhook_endpoints e
       WHERE e.organization_id = p_org AND e.enabled AND (e.events @> ARRAY[p_type] OR e.events @> ARRAY['*']);
      IF v_endpoints IS NULL OR p_data IS NULL THEN
        RETURN NULL;
      END IF;
      INSERT INTO public.webhook_events (organization_id, type, payload)
      VALUES (p_org, p_type, jsonb_build_object('type', p_type, 'timestamp', app.json_time(clock_timestamp()), 'organization_id', p_org, 'data', p_data))
      RETURNING id INTO v_event;
      INSERT INTO public.webhook_deliveries (organization_id, endpoint_id, event_id)
      SELECT p_org, x, v_event FROM unnest(v_endpoints) x;
      PERFORM pg_notify('webhook_deliveries', p_org::text || ':' || x::text) FROM unnest(v_endpoints) x;
      RETURN v_event;
    END
    $$;

    REVOKE ALL ON FUNCTION app.json_time(timestamptz) FROM PUBLIC;
    REVOKE ALL ON FUNCTION app.suppression_answer(uuid) FROM PUBLIC;
    REVOKE ALL ON FUNCTION app.enrollment_answer(uuid) FROM PUBLIC;
    REVOKE ALL ON FUNCTION app.record_webhook_event(uuid, text, jsonb) FROM PUBLIC;
  `.execute(db);
  await sql`
    CREATE OR REPLACE FUNCTION app.unsubscribe_message(p_message_id uuid)
      RETURNS TABLE (organization_id uuid, suppression_created boolean, skipped_message_ids uuid[], stopped_enrollment_ids uuid[])
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public AS
    $$
    #variable_conflict use_column
    DECLARE
      v_org uuid;
      v_contact uuid;
      v_address text;
      v_created boolean := false;
      v_suppression uuid;
      v_skipped uuid[];
      v_stopped uuid[] := '{}';
      v_enrollment uuid;
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
        ON CONFLICT (organization_id, scope, value) DO NOTHING
        RETURNING id INTO v_suppression;
        v_created := v_suppression IS NOT NULL;
      END IF;
      IF v_created THEN
        PERFORM app.record_webhook_event(v_org, 'suppression.created', app.suppression_answer(v_suppression));
      END IF;

      WITH skipped AS (
        UPDATE public.messages m SET status = 'skipped', updated_at = now()
         WHERE m.organization_id = v_org
           AND m.direction = 'outbound'
           AND m.status IN ('pending_approval', 'approved', 'scheduled', 'task_open')
           -- A claimed send (its SMTP conversation under way) is left to its send: recordSent records the truth.
           AND NOT (m.status = 'scheduled' AND m.send_attempted_at IS NOT NULL)
           AND ((v_contact IS NOT NULL AND m.contact_id = v_contact)
                OR (v_address IS NOT NULL AND lower(btrim(m.to_address)) = v_address))
        RETURNING m.id)
      SELECT coalesce(array_agg(id ORDER BY id), '{}') INTO v_skipped FROM skipped;

      -- As transitionEnrollment's stop (db/queries/enrollments.ts): the reason kept, pause and next action cleared.
      IF v_contact IS NOT NULL THEN
        WITH stopped AS (
          UPDATE public.enrollments e
             SET status = 'stopped', stopped_reason = 'unsubscribed', next_action_at = NULL, pause_reason = NULL, resume_at = NULL, updated_at = now()
           WHERE e.organization_id = v_org AND e.contact_id = v_contact AND e.status IN ('active', 'paused')
          RETURNING e.id)
        SELECT coalesce(array_agg(id ORDER BY id), '{}') INTO v_stopped FROM stopped;
      END IF;
      FOREACH v_enrollment IN ARRAY v_stopped LOOP
        PERFORM app.record_webhook_event(v_org, 'enrollment.stopped', app.enrollment_answer(v_enrollment));
      END LOOP;

      RETURN QUERY SELECT v_org, v_created, v_skipped, v_stopped;
    END
    $$;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION app.unsubscribe_message(p_message_id uuid)
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
           -- A claimed send (its SMTP conversation under way) is left to its send: recordSent records the truth.
           AND NOT (m.status = 'scheduled' AND m.send_attempted_at IS NOT NULL)
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
  `.execute(db);
  await sql`
    DROP FUNCTION IF EXISTS app.record_webhook_event(uuid, text, jsonb);
    DROP FUNCTION IF EXISTS app.enrollment_answer(uuid);
    DROP FUNCTION IF EXISTS app.suppression_answer(uuid);
    DROP FUNCTION IF EXISTS app.json_time(timestamptz);
  `.execute(db);
}
