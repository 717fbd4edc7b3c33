import { Kysely, sql } from 'kysely';

/**
 * The send path checks again at the moment of sending:
 * - mailboxes.send_hold_reason: a setup error of the mailbox (SMTP 535, relay denied) holds its sends
 *   until the mailbox's SMTP settings or secret change (db/queries/sending.ts mailboxSendBlock);
 * - app.unsubscribe_message (0008) leaves a claimed message (`scheduled` with send_attempted_at: its
 *   SMTP conversation is under way) to its send instead of marking a delivered e-mail `skipped`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE mailboxes ADD COLUMN send_hold_reason text CHECK (length(send_hold_reason) <= 1000);
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
  await sql`ALTER TABLE mailboxes DROP COLUMN send_hold_reason;`.execute(db);
}
