import { Kysely, sql } from 'kysely';

/**
 * Events out and machine clients:
 * - webhook_endpoints: an organization's receivers. The signing secret is sealed like the other
 *   secrets (db/secrets.ts, webhookSecretContext); after a rotation the previous one is kept, sealed,
 *   until previous_secret_expires_at (24 h) and signs too. Managed by owners and admins.
 * - webhook_events: the outbox. recordEvent writes the event (the whole body that is sent) in the
 *   same transaction as the change it reports, with one webhook_deliveries row per subscribed endpoint.
 * - webhook_deliveries: one per endpoint and event: pending (next_attempt_at set), delivered or failed.
 * - api_keys: a key acts as its own identity: its id is the user id of a membership in its
 *   organization with its role, so every policy admits it exactly as a person of that role. Only a
 *   SHA-256 of the key is kept; revoking removes the membership and stamps revoked_at.
 * - idempotency_keys: the first answer to a POST per (caller, Idempotency-Key), for 24 hours. Not a
 *   tenant table: a caller reads and writes only its own rows.
 */
const VISIBLE = `organization_id = ANY ((SELECT app.visible_organization_ids())::uuid[])`;
const WRITABLE = (role: 'member' | 'admin') => `organization_id = ANY ((SELECT app.writable_organization_ids('${role}'))::uuid[])`;

function policies(table: string, role: 'member' | 'admin'): string {
  return `CREATE POLICY ${table}_read ON ${table} FOR SELECT USING (${VISIBLE});
    CREATE POLICY ${table}_insert ON ${table} FOR INSERT WITH CHECK (${WRITABLE(role)});
    CREATE POLICY ${table}_update ON ${table} FOR UPDATE USING (${WRITABLE(role)}) WITH CHECK (${WRITABLE(role)});
    CREATE POLICY ${table}_delete ON ${table} FOR DELETE USING (${WRITABLE(role)});`;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE webhook_endpoints (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      url text NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
      events text[] NOT NULL CHECK (cardinality(events) BETWEEN 1 AND 50),
      description text CHECK (length(description) <= 500),
      enabled boolean NOT NULL DEFAULT true,
      disabled_reason text,
      secret_ciphertext bytea NOT NULL,
      previous_secret_ciphertext bytea,
      previous_secret_expires_at timestamptz,
      created_by uuid NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, id),
      CHECK ((previous_secret_ciphertext IS NULL) = (previous_secret_expires_at IS NULL))
    );
    CREATE INDEX webhook_endpoints_org_idx ON webhook_endpoints (organization_id, created_at DESC);

    CREATE TABLE webhook_events (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      type text NOT NULL CHECK (type ~ '^[a-z_]+\\.[a-z_]+$'),
      payload jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, id)
    );

    CREATE TABLE webhook_deliveries (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL,
      endpoint_id uuid NOT NULL,
      event_id uuid NOT NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
      attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
      last_status_code integer,
      last_error text CHECK (length(last_error) <= 1000),
      next_attempt_at timestamptz DEFAULT now(),
      delivered_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (endpoint_id, event_id),
      FOREIGN KEY (organization_id, endpoint_id) REFERENCES webhook_endpoints (organization_id, id) ON DELETE CASCADE,
      FOREIGN KEY (organization_id, event_id) REFERENCES webhook_events (organization_id, id) ON DELETE CASCADE,
      CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL)),
      CHECK ((status = 'delivered') = (delivered_at IS NOT NULL))
    );
    CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (endpoint_id, next_attempt_at) WHERE status = 'pending';
    CREATE INDEX webhook_deliveries_list_idx ON webhook_deliveries (organization_id, endpoint_id, created_at DESC, id DESC);
    CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (organization_id, event_id);

    CREATE TABLE api_keys (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      role text NOT NULL CHECK (role IN ('viewer', 'member', 'admin')),
      prefix text NOT NULL CHECK (prefix ~ '^osk_[A-Za-z0-9_-]{8}$'),
      key_hash bytea NOT NULL UNIQUE CHECK (length(key_hash) = 32),
      created_by uuid NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_used_at timestamptz,
      revoked_at timestamptz
    );
    CREATE INDEX api_keys_org_idx ON api_keys (organization_id, created_at DESC);

    CREATE TABLE idempotency_keys (
      user_id uuid NOT NULL,
      key text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
      method text NOT NULL,
      path text NOT NULL,
      body_hash bytea NOT NULL,
      status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done')),
      response_status integer,
      response_type text,
      response_body text,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL DEFAULT now() + interval '24 hours',
      PRIMARY KEY (user_id, key),
      CHECK ((status = 'done') = (response_status IS NOT NULL))
    );
    CREATE INDEX idempotency_keys_expiry_idx ON idempotency_keys (expires_at);
  `.execute(db);
  await sql
    .raw(
      ['webhook_endpoints', 'webhook_events', 'webhook_deliveries', 'api_keys', 'idempotency_keys']
        .map((t) => `ALTER TABLE ${t} ENABLE ROW LEVEL SECURITY; ALTER TABLE ${t} FORCE ROW LEVEL SECURITY;`)
        .join('\n') +
        policies('webhook_endpoints', 'admin') +
        policies('webhook_events', 'member') +
        policies('webhook_deliveries', 'member') +
        policies('api_keys', 'admin') +
        `CREATE POLICY idempotency_keys_own ON idempotency_keys FOR SELECT USING (user_id = (SELECT app.current_user_id()));
         CREATE POLICY idempotency_keys_insert ON idempotency_keys FOR INSERT WITH CHECK (user_id = (SELECT app.current_user_id()));
         CREATE POLICY idempotency_keys_update ON idempotency_keys FOR UPDATE USING (user_id = (SELECT app.current_user_id())) WITH CHECK (user_id = (SELECT app.current_user_id()));
         CREATE POLICY idempotency_keys_delete ON idempotency_keys FOR DELETE USING (user_id = (SELECT app.current_user_id()));`,
    )
    .execute(db);
  // Authentication by key, before there is a caller: the key's identity when it is live (not revoked,
  // its membership in place), stamping last_used_at at most once a minute. Only the API calls it.
  await sql`
    CREATE FUNCTION app.api_key_identity(hash bytea) RETURNS TABLE (key_id uuid, organization_id uuid, role text)
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public AS
    $$
    BEGIN
      RETURN QUERY
        WITH k AS (
          SELECT a.id, a.organization_id, m.role FROM public.api_keys a
            JOIN public.memberships m ON m.organization_id = a.organization_id AND m.user_id = a.id
           WHERE a.key_hash = hash AND a.revoked_at IS NULL
        ), touched AS (
          UPDATE public.api_keys a SET last_used_at = now()
            FROM k WHERE a.id = k.id AND (a.last_used_at IS NULL OR a.last_used_at < now() - interval '1 minute')
        )
        SELECT k.id, k.organization_id, k.role FROM k;
    END
    $$;
    REVOKE ALL ON FUNCTION app.api_key_identity(bytea) FROM PUBLIC;
  `.execute(db);
  await sql`
    DO $$ BEGIN
      IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_api') THEN
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_app') THEN
          REVOKE EXECUTE ON FUNCTION app.api_key_identity(bytea) FROM outreach_app;
        END IF;
        GRANT EXECUTE ON FUNCTION app.api_key_identity(bytea) TO outreach_api;
      ELSIF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_app') THEN
        GRANT EXECUTE ON FUNCTION app.api_key_identity(bytea) TO outreach_app;
      END IF;
    END $$;
  `.execute(db);
  // The workers' sweep: endpoints with a delivery due, in every organization (ids only, as the owner;
  // the delivery itself reads under row-level security as the endpoint's organization).
  await sql`
    CREATE FUNCTION app.webhook_endpoints_due(max_rows integer)
      RETURNS TABLE (organization_id uuid, endpoint_id uuid)
      LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS
    $$ SELECT e.organization_id, e.id FROM public.webhook_endpoints e
        WHERE e.enabled AND EXISTS (SELECT 1 FROM public.webhook_deliveries d
                                     WHERE d.endpoint_id = e.id AND d.status = 'pending' AND d.next_attempt_at <= now())
        LIMIT least(greatest(max_rows, 0), 10000) $$;
    REVOKE ALL ON FUNCTION app.webhook_endpoints_due(integer) FROM PUBLIC;
    DO $do$ BEGIN
      IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_worker') THEN
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_app') THEN
          REVOKE EXECUTE ON FUNCTION app.webhook_endpoints_due(integer) FROM outreach_app;
        END IF;
        GRANT EXECUTE ON FUNCTION app.webhook_endpoints_due(integer) TO outreach_worker;
      ELSIF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_app') THEN
        GRANT EXECUTE ON FUNCTION app.webhook_endpoints_due(integer) TO outreach_app;
      END IF;
    END $do$;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP FUNCTION IF EXISTS app.webhook_endpoints_due(integer);
    DROP FUNCTION IF EXISTS app.api_key_identity(bytea);
    DROP TABLE IF EXISTS idempotency_keys;
    DROP TABLE IF EXISTS api_keys;
    DROP TABLE IF EXISTS webhook_deliveries;
    DROP TABLE IF EXISTS webhook_events;
    DROP TABLE IF EXISTS webhook_endpoints;
  `.execute(db);
}
