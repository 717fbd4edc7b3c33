import { Kysely, sql } from 'kysely';

/**
 * Who may connect which mailbox:
 * - domains: the mail domains an organization has proven it controls, by a DNS TXT record of a value
 *   it was given (`pending` until POST /domains/{id}/verify finds it, then `verified`). The OAuth
 *   callback connects a mailbox only for an address of a verified domain of its organization. Managed
 *   by owners and admins; a domain is listed once per organization (in lower case).
 * - oauth_states: `address`, the mailbox the start named (sent as login_hint; the callback connects no
 *   other address). app.claim_oauth_state now deletes the state it answers, and with it every state that
 *   expired more than a day ago, so the table holds only the flows of the last day.
 */
const VISIBLE = `organization_id = ANY ((SELECT app.visible_organization_ids())::uuid[])`;
const ADMIN = `organization_id = ANY ((SELECT app.writable_organization_ids('admin'))::uuid[])`;

const GRANT_CLAIM = sql`
  DO $$ BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_api') THEN
      IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_app') THEN
        REVOKE EXECUTE ON FUNCTION app.claim_oauth_state(bytea) FROM outreach_app;
      END IF;
      GRANT EXECUTE ON FUNCTION app.claim_oauth_state(bytea) TO outreach_api;
    ELSIF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_app') THEN
      GRANT EXECUTE ON FUNCTION app.claim_oauth_state(bytea) TO outreach_app;
    END IF;
  END $$;
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE domains (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      domain text NOT NULL CHECK (domain = lower(domain) AND length(domain) BETWEEN 3 AND 253),
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'verified')),
      token text NOT NULL CHECK (length(token) BETWEEN 32 AND 128),
      verified_at timestamptz,
      created_by uuid NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, domain),
      CHECK ((status = 'verified') = (verified_at IS NOT NULL))
    );
    CREATE INDEX domains_list_idx ON domains (organization_id, created_at DESC, id DESC);
    ALTER TABLE domains ENABLE ROW LEVEL SECURITY;
    ALTER TABLE domains FORCE ROW LEVEL SECURITY;

    ALTER TABLE oauth_states ADD COLUMN address text CHECK (length(address) <= 320);
    DELETE FROM oauth_states WHERE used_at IS NOT NULL OR expires_at < now() - interval '1 day';

    DROP FUNCTION app.claim_oauth_state(bytea);
    -- The callback's only way in: consumes the state with this hash and says whose it was. The state is
    -- deleted (a second use finds nothing), and so is every state that expired more than a day ago.
    CREATE FUNCTION app.claim_oauth_state(p_state_hash bytea)
      RETURNS TABLE (id uuid, organization_id uuid, user_id uuid, provider text, address text, verifier_ciphertext bytea, expired boolean)
      LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public AS
    $$
      WITH stale AS (
        DELETE FROM public.oauth_states s WHERE s.expires_at < now() - interval '1 day' AND s.state_hash <> p_state_hash
      )
      DELETE FROM public.oauth_states s
      WHERE s.state_hash = p_state_hash
      RETURNING s.id, s.organization_id, s.user_id, s.provider, s.address, s.verifier_ciphertext, s.expires_at <= now();
    $$;
    REVOKE ALL ON FUNCTION app.claim_oauth_state(bytea) FROM PUBLIC;
  `.execute(db);
  await sql
    .raw(
      `CREATE POLICY domains_read ON domains FOR SELECT USING (${VISIBLE});
       CREATE POLICY domains_insert ON domains FOR INSERT WITH CHECK (${ADMIN});
       CREATE POLICY domains_update ON domains FOR UPDATE USING (${ADMIN}) WITH CHECK (${ADMIN});
       CREATE POLICY domains_delete ON domains FOR DELETE USING (${ADMIN});`,
    )
    .execute(db);
  await GRANT_CLAIM.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP FUNCTION IF EXISTS app.claim_oauth_state(bytea);
    CREATE FUNCTION app.claim_oauth_state(p_state_hash bytea)
      RETURNS TABLE (id uuid, organization_id uuid, user_id uuid, provider text, verifier_ciphertext bytea, expired boolean)
      LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public AS
    $$
      UPDATE public.oauth_states s SET used_at = now()
      WHERE s.state_hash = p_state_hash AND s.used_at IS NULL
      RETURNING s.id, s.organization_id, s.user_id, s.provider, s.verifier_ciphertext, s.expires_at <= now();
    $$;
    REVOKE ALL ON FUNCTION app.claim_oauth_state(bytea) FROM PUBLIC;
    ALTER TABLE oauth_states DROP COLUMN IF EXISTS address;
    DROP TABLE IF EXISTS domains;
  `.execute(db);
  await GRANT_CLAIM.execute(db);
}
