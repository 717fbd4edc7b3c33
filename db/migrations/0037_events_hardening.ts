import { Kysely, sql } from 'kysely';

/**
 * Machine clients, events and erasure:
 * - idempotency_keys: the kept answer is sealed (response_sealed, SecretBox under the caller and the
 *   key); response_body stays for rows written before, and those that held a key or a signing secret
 *   are deleted here. app.purge_idempotency_keys deletes expired rows (the workers' sweep calls it).
 * - webhook_events.contact_id: the person an event is about (the record's contact_id), so erasure finds
 *   and deletes their events (and with them the pending deliveries). app.purge_webhook_events deletes
 *   events 30 days after their last delivery attempt.
 * - At most 20 webhook endpoints per organization, counted under a per-organization lock.
 * - An API key's membership is the key's own: no other membership may name a key's id, and keys'
 *   memberships are brought back to the key's role.
 * - threads carry their summary (last_message_at, last_inbound_at, last_intent, message_count), kept by
 *   a trigger on messages, and last_activity_at with an index, so GET /threads reads the newest threads
 *   of an organization by index instead of aggregating every message.
 * - app.webhook_endpoints_due answers the longest-waiting endpoints first.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE idempotency_keys ADD COLUMN response_sealed bytea;
    DELETE FROM idempotency_keys WHERE response_body ~ '"(key|secret)":"(osk|whsec)_';

    CREATE FUNCTION app.purge_idempotency_keys(max_rows integer) RETURNS integer
      LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public AS
    $$ WITH gone AS (
         DELETE FROM public.idempotency_keys k
          WHERE (k.user_id, k.key) IN (SELECT x.user_id, x.key FROM public.idempotency_keys x
                                        WHERE x.expires_at < now() ORDER BY x.expires_at
                                        LIMIT least(greatest(max_rows, 0), 10000) FOR UPDATE SKIP LOCKED)
         RETURNING 1)
       SELECT count(*)::int FROM gone $$;
    REVOKE ALL ON FUNCTION app.purge_idempotency_keys(integer) FROM PUBLIC;

    ALTER TABLE webhook_events ADD COLUMN contact_id uuid;
    UPDATE webhook_events SET contact_id = (payload->'data'->>'contact_id')::uuid
     WHERE payload->'data'->>'contact_id' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
    CREATE INDEX webhook_events_contact_idx ON webhook_events (organization_id, contact_id) WHERE contact_id IS NOT NULL;
    CREATE INDEX webhook_events_created_idx ON webhook_events (created_at);

    CREATE FUNCTION app.purge_webhook_events(max_rows integer) RETURNS integer
      LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public AS
    $$ WITH gone AS (
         DELETE FROM public.webhook_events e
          WHERE e.id IN (SELECT x.id FROM public.webhook_events x
                          WHERE x.created_at < now() - interval '30 days'
                            AND NOT EXISTS (SELECT 1 FROM public.webhook_deliveries d
                                             WHERE d.organization_id = x.organization_id AND d.event_id = x.id
                                               AND (d.status = 'pending' OR d.updated_at >= now() - interval '30 days'))
                          ORDER BY x.created_at
                          LIMIT least(greatest(max_rows, 0), 10000) FOR UPDATE SKIP LOCKED)
         RETURNING 1)
       SELECT count(*)::int FROM gone $$;
    REVOKE ALL ON FUNCTION app.purge_webhook_events(integer) FROM PUBLIC;

    CREATE FUNCTION app.webhook_endpoints_limit() RETURNS trigger
      LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS
    $$
    BEGIN
      -- Two concurrent inserts of one organization count one after the other (each statement of a
      -- READ COMMITTED function sees what committed before it).
      PERFORM pg_advisory_xact_lock(hashtextextended('webhook_endpoints:' || NEW.organization_id::text, 0));
      IF (SELECT count(*) FROM public.webhook_endpoints WHERE organization_id = NEW.organization_id) >= 20 THEN
        RAISE EXCEPTION 'an organization has at most 20 webhook endpoints'
          USING ERRCODE = 'unique_violation', CONSTRAINT = 'webhook_endpoints_per_organization';
      END IF;
      RETURN NEW;
    END
    $$;
    -- A trigger function fires whatever its EXECUTE grant; nobody calls it directly.
    REVOKE ALL ON FUNCTION app.webhook_endpoints_limit() FROM PUBLIC;
    CREATE TRIGGER webhook_endpoints_limit BEFORE INSERT ON webhook_endpoints FOR EACH ROW EXECUTE FUNCTION app.webhook_endpoints_limit();

    UPDATE memberships m SET role = a.role, updated_at = now()
      FROM api_keys a WHERE m.user_id = a.id AND m.organization_id = a.organization_id AND m.role <> a.role;
    DELETE FROM memberships m USING api_keys a WHERE m.user_id = a.id AND m.organization_id <> a.organization_id;
    CREATE FUNCTION app.memberships_not_api_keys() RETURNS trigger
      LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS
    $$
    BEGIN
      -- A key's membership is written before its api_keys row (insertApiKey); once the key exists,
      -- no membership may name it: a key never gains a role or an organization.
      IF EXISTS (SELECT 1 FROM public.api_keys a WHERE a.id = NEW.user_id) THEN
        RAISE EXCEPTION 'an API key''s membership cannot be changed'
          USING ERRCODE = 'unique_violation', CONSTRAINT = 'memberships_api_key';
      END IF;
      RETURN NEW;
    END
    $$;
    -- A trigger function fires whatever its EXECUTE grant; nobody calls it directly.
    REVOKE ALL ON FUNCTION app.memberships_not_api_keys() FROM PUBLIC;
    CREATE TRIGGER memberships_not_api_keys BEFORE INSERT OR UPDATE ON memberships FOR EACH ROW EXECUTE FUNCTION app.memberships_not_api_keys();

    ALTER TABLE threads
      ADD COLUMN last_message_at timestamptz,
      ADD COLUMN last_inbound_at timestamptz,
      ADD COLUMN last_intent text,
      ADD COLUMN message_count integer NOT NULL DEFAULT 0 CHECK (message_count >= 0),
      ADD COLUMN last_activity_at timestamptz GENERATED ALWAYS AS (coalesce(last_message_at, created_at)) STORED;

    CREATE FUNCTION app.refresh_thread_summary(thread uuid) RETURNS void
      LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS
    $$
    BEGIN
      -- The row lock first: the summary is then read in a statement that sees every message committed
      -- by a concurrent writer of the same thread, which waited for (or held) this lock. NO KEY UPDATE:
      -- each writer already holds KEY SHARE on the thread (the messages' foreign key), which a FOR
      -- UPDATE would wait for, both ways (a deadlock); the summary changes no key.
      PERFORM 1 FROM public.threads WHERE id = thread FOR NO KEY UPDATE;
      UPDATE public.threads t
         SET (last_message_at, last_inbound_at, last_intent, message_count) = (
           SELECT max(coalesce(m.sent_at, m.received_at, m.created_at)),
                  max(coalesce(m.received_at, m.created_at)) FILTER (WHERE m.direction = 'inbound'),
                  (array_agg(m.intent ORDER BY coalesce(m.received_at, m.created_at) DESC) FILTER (WHERE m.direction = 'inbound' AND m.intent IS NOT NULL))[1],
                  count(*)::int
             FROM public.messages m WHERE m.organization_id = t.organization_id AND m.thread_id = t.id)
       WHERE t.id = thread;
    END
    $$;
    REVOKE ALL ON FUNCTION app.refresh_thread_summary(uuid) FROM PUBLIC;

    CREATE FUNCTION app.messages_thread_summary() RETURNS trigger
      LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS
    $$
    BEGIN
      IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.thread_id IS NOT NULL THEN
        PERFORM app.refresh_thread_summary(OLD.thread_id);
      END IF;
      IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.thread_id IS NOT NULL
         AND (TG_OP = 'INSERT' OR NEW.thread_id IS DISTINCT FROM OLD.thread_id OR OLD.thread_id IS NULL) THEN
        PERFORM app.refresh_thread_summary(NEW.thread_id);
      END IF;
      RETURN NULL;
    END
    $$;
    REVOKE ALL ON FUNCTION app.messages_thread_summary() FROM PUBLIC;
    CREATE TRIGGER messages_thread_summary
      AFTER INSERT OR DELETE OR UPDATE OF thread_id, direction, intent, sent_at, received_at, created_at ON messages
      FOR EACH ROW EXECUTE FUNCTION app.messages_thread_summary();

    UPDATE threads t
       SET (last_message_at, last_inbound_at, last_intent, message_count) = (
         SELECT max(coalesce(m.sent_at, m.received_at, m.created_at)),
                max(coalesce(m.received_at, m.created_at)) FILTER (WHERE m.direction = 'inbound'),
                (array_agg(m.intent ORDER BY coalesce(m.received_at, m.created_at) DESC) FILTER (WHERE m.direction = 'inbound' AND m.intent IS NOT NULL))[1],
                count(*)::int
           FROM messages m WHERE m.organization_id = t.organization_id AND m.thread_id = t.id);
    CREATE INDEX threads_org_activity_idx ON threads (organization_id, last_activity_at DESC, id DESC);

    -- The sweep answers the endpoints whose oldest delivery has waited longest first: past max_rows,
    -- the ones it leaves are the ones that came due last, never always the same.
    CREATE OR REPLACE FUNCTION app.webhook_endpoints_due(max_rows integer)
      RETURNS TABLE (organization_id uuid, endpoint_id uuid)
      LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS
    $$ SELECT e.organization_id, e.id FROM public.webhook_endpoints e
         CROSS JOIN LATERAL (SELECT min(d.next_attempt_at) AS due FROM public.webhook_deliveries d
                              WHERE d.endpoint_id = e.id AND d.status = 'pending') x
        WHERE e.enabled AND x.due <= now()
        ORDER BY x.due
        LIMIT least(greatest(max_rows, 0), 10000) $$;
  `.execute(db);
  await sql`
    DO $do$ BEGIN
      IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_worker') THEN
        GRANT EXECUTE ON FUNCTION app.purge_idempotency_keys(integer) TO outreach_worker;
        GRANT EXECUTE ON FUNCTION app.purge_webhook_events(integer) TO outreach_worker;
      ELSIF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_app') THEN
        GRANT EXECUTE ON FUNCTION app.purge_idempotency_keys(integer) TO outreach_app;
        GRANT EXECUTE ON FUNCTION app.purge_webhook_events(integer) TO outreach_app;
      END IF;
    END $do$;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION app.webhook_endpoints_due(max_rows integer)
      RETURNS TABLE (organization_id uuid, endpoint_id uuid)
      LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS
    $$ SELECT e.organization_id, e.id FROM public.webhook_endpoints e
        WHERE e.enabled AND EXISTS (SELECT 1 FROM public.webhook_deliveries d
                                     WHERE d.endpoint_id = e.id AND d.status = 'pending' AND d.next_attempt_at <= now())
        LIMIT least(greatest(max_rows, 0), 10000) $$;
    DROP INDEX IF EXISTS threads_org_activity_idx;
    DROP TRIGGER IF EXISTS messages_thread_summary ON messages;
    DROP FUNCTION IF EXISTS app.messages_thread_summary();
    DROP FUNCTION IF EXISTS app.refresh_thread_summary(uuid);
    ALTER TABLE threads DROP COLUMN IF EXISTS last_activity_at, DROP COLUMN IF EXISTS message_count, DROP COLUMN IF EXISTS last_intent,
      DROP COLUMN IF EXISTS last_inbound_at, DROP COLUMN IF EXISTS last_message_at;
    DROP TRIGGER IF EXISTS memberships_not_api_keys ON memberships;
    DROP FUNCTION IF EXISTS app.memberships_not_api_keys();
    DROP TRIGGER IF EXISTS webhook_endpoints_limit ON webhook_endpoints;
    DROP FUNCTION IF EXISTS app.webhook_endpoints_limit();
    DROP FUNCTION IF EXISTS app.purge_webhook_events(integer);
    DROP INDEX IF EXISTS webhook_events_created_idx;
    DROP INDEX IF EXISTS webhook_events_contact_idx;
    ALTER TABLE webhook_events DROP COLUMN IF EXISTS contact_id;
    DROP FUNCTION IF EXISTS app.purge_idempotency_keys(integer);
    DELETE FROM idempotency_keys WHERE response_sealed IS NOT NULL;
    ALTER TABLE idempotency_keys DROP COLUMN IF EXISTS response_sealed;
  `.execute(db);
}
