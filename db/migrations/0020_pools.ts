import { Kysely, sql } from 'kysely';

/**
 * Sending at scale: mailbox pools, ramp-up, protection,
 * OAuth mailboxes and the recipient's time.
 *
 * mailboxes: `status` (active, paused) with `paused_reason` and `paused_at` (set together, only when
 * paused); protection limits (`max_bounce_rate`, `max_complaint_rate`, `min_sample`); the ramp-up
 * (`ramp_start_cap`, `ramp_daily_increase`, `ramp_starts_on`: all set or none); `gap_jitter_seconds`;
 * `auth_type` (password, oauth2) with `auth_provider` (google, microsoft) for OAuth only.
 * messages: `bounced_at`, `complained_at` (IF NOT EXISTS: the inbound branch adds them as well).
 * contacts, companies: `timezone` (IANA, checked by the API). campaigns: `send_in`.
 * campaign_mailboxes: a campaign's pool (1..50 mailboxes of its organization, in order).
 * enrollments: `mailbox_id`, pinned when the first e-mail is booked, and never changed after.
 * oauth_states: the single-use state of the authorization-code flow (its SHA-256 only), bound to the
 * user and organization, with the PKCE verifier sealed; app.claim_oauth_state reads and consumes one
 * for the callback, which has no bearer token.
 */
const VISIBLE = `organization_id = ANY ((SELECT app.visible_organization_ids())::uuid[])`;
const WRITABLE = `organization_id = ANY ((SELECT app.writable_organization_ids('member'))::uuid[])`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE mailboxes
      ADD COLUMN status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused')),
      ADD COLUMN paused_reason text CHECK (paused_reason IN ('bounce_rate', 'complaint_rate', 'health', 'auth', 'manual')),
      ADD COLUMN paused_at timestamptz,
      ADD COLUMN paused_note text CHECK (length(paused_note) <= 500),
      ADD COLUMN max_bounce_rate numeric(6,5) NOT NULL DEFAULT 0.03 CHECK (max_bounce_rate BETWEEN 0 AND 1),
      ADD COLUMN max_complaint_rate numeric(6,5) NOT NULL DEFAULT 0.001 CHECK (max_complaint_rate BETWEEN 0 AND 1),
      ADD COLUMN min_sample int NOT NULL DEFAULT 20 CHECK (min_sample BETWEEN 1 AND 100000),
      ADD COLUMN ramp_start_cap int CHECK (ramp_start_cap BETWEEN 1 AND 500),
      ADD COLUMN ramp_daily_increase int CHECK (ramp_daily_increase BETWEEN 0 AND 100),
      ADD COLUMN ramp_starts_on date,
      ADD COLUMN gap_jitter_seconds int NOT NULL DEFAULT 0 CHECK (gap_jitter_seconds BETWEEN 0 AND 900),
      ADD COLUMN auth_type text NOT NULL DEFAULT 'password' CHECK (auth_type IN ('password', 'oauth2')),
      ADD COLUMN auth_provider text CHECK (auth_provider IN ('google', 'microsoft')),
      ADD CONSTRAINT mailboxes_paused_check CHECK ((status = 'paused') = (paused_reason IS NOT NULL AND paused_at IS NOT NULL)),
      ADD CONSTRAINT mailboxes_ramp_up_check CHECK (
        (ramp_start_cap IS NULL) = (ramp_daily_increase IS NULL) AND (ramp_start_cap IS NULL) = (ramp_starts_on IS NULL)),
      ADD CONSTRAINT mailboxes_auth_check CHECK ((auth_type = 'oauth2') = (auth_provider IS NOT NULL));

    ALTER TABLE messages ADD COLUMN IF NOT EXISTS bounced_at timestamptz;
    ALTER TABLE messages ADD COLUMN IF NOT EXISTS complained_at timestamptz;
    CREATE INDEX IF NOT EXISTS messages_mailbox_sent_idx ON messages (organization_id, mailbox_id, sent_at) WHERE sent_at IS NOT NULL;

    ALTER TABLE contacts ADD COLUMN timezone text CHECK (length(timezone) <= 100);
    ALTER TABLE companies ADD COLUMN timezone text CHECK (length(timezone) <= 100);

    ALTER TABLE campaigns ADD COLUMN send_in text NOT NULL DEFAULT 'mailbox' CHECK (send_in IN ('mailbox', 'recipient'));
    CREATE TABLE campaign_mailboxes (
      organization_id uuid NOT NULL,
      campaign_id uuid NOT NULL,
      mailbox_id uuid NOT NULL,
      position int NOT NULL CHECK (position BETWEEN 0 AND 49),
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (campaign_id, mailbox_id),
      UNIQUE (campaign_id, position) DEFERRABLE INITIALLY DEFERRED,
      FOREIGN KEY (organization_id, campaign_id) REFERENCES campaigns (organization_id, id) ON DELETE CASCADE,
      FOREIGN KEY (organization_id, mailbox_id) REFERENCES mailboxes (organization_id, id) ON DELETE CASCADE
    );
    CREATE INDEX campaign_mailboxes_mailbox_idx ON campaign_mailboxes (organization_id, mailbox_id);
    INSERT INTO campaign_mailboxes (organization_id, campaign_id, mailbox_id, position)
      SELECT organization_id, id, mailbox_id, 0 FROM campaigns WHERE mailbox_id IS NOT NULL;
    ALTER TABLE campaign_mailboxes ENABLE ROW LEVEL SECURITY;
    ALTER TABLE campaign_mailboxes FORCE ROW LEVEL SECURITY;

    ALTER TABLE enrollments ADD COLUMN mailbox_id uuid;
    ALTER TABLE enrollments ADD CONSTRAINT enrollments_mailbox_fk FOREIGN KEY (organization_id, mailbox_id) REFERENCES mailboxes (organization_id, id);
    CREATE INDEX enrollments_mailbox_idx ON enrollments (organization_id, mailbox_id) WHERE mailbox_id IS NOT NULL;

    CREATE TABLE oauth_states (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      user_id uuid NOT NULL,
      provider text NOT NULL CHECK (provider IN ('google', 'microsoft')),
      state_hash bytea NOT NULL UNIQUE CHECK (length(state_hash) = 32),
      verifier_ciphertext bytea NOT NULL,
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX oauth_states_expires_idx ON oauth_states (expires_at);
    ALTER TABLE oauth_states ENABLE ROW LEVEL SECURITY;
    ALTER TABLE oauth_states FORCE ROW LEVEL SECURITY;

    -- The callback's only way in: consumes the state with this hash (once) and says whose it was.
    CREATE FUNCTION app.claim_oauth_state(p_state_hash bytea)
      RETURNS TABLE (id uuid, organization_id uuid, user_id uuid, provider text, verifier_ciphertext bytea, expired boolean)
      LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public AS
    $$
      UPDATE public.oauth_states s SET used_at = now()
      WHERE s.state_hash = p_state_hash AND s.used_at IS NULL
      RETURNING s.id, s.organization_id, s.user_id, s.provider, s.verifier_ciphertext, s.expires_at <= now();
    $$;
    REVOKE ALL ON FUNCTION app.claim_oauth_state(bytea) FROM PUBLIC;
  `.execute(db);
  await sql
    .raw(
      `CREATE POLICY campaign_mailboxes_read ON campaign_mailboxes FOR SELECT USING (${VISIBLE});
       CREATE POLICY campaign_mailboxes_insert ON campaign_mailboxes FOR INSERT WITH CHECK (${WRITABLE});
       CREATE POLICY campaign_mailboxes_update ON campaign_mailboxes FOR UPDATE USING (${WRITABLE}) WITH CHECK (${WRITABLE});
       CREATE POLICY campaign_mailboxes_delete ON campaign_mailboxes FOR DELETE USING (${WRITABLE});
       CREATE POLICY oauth_states_read ON oauth_states FOR SELECT USING (${VISIBLE});
       CREATE POLICY oauth_states_insert ON oauth_states FOR INSERT WITH CHECK (${WRITABLE});
       CREATE POLICY oauth_states_update ON oauth_states FOR UPDATE USING (${WRITABLE}) WITH CHECK (${WRITABLE});
       CREATE POLICY oauth_states_delete ON oauth_states FOR DELETE USING (${WRITABLE});`,
    )
    .execute(db);
  await sql`
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
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP FUNCTION IF EXISTS app.claim_oauth_state(bytea);
    DROP TABLE IF EXISTS oauth_states;
    ALTER TABLE enrollments DROP COLUMN IF EXISTS mailbox_id;
    DROP TABLE IF EXISTS campaign_mailboxes;
    ALTER TABLE campaigns DROP COLUMN IF EXISTS send_in;
    ALTER TABLE companies DROP COLUMN IF EXISTS timezone;
    ALTER TABLE contacts DROP COLUMN IF EXISTS timezone;
    DROP INDEX IF EXISTS messages_mailbox_sent_idx;
    ALTER TABLE mailboxes
      DROP CONSTRAINT IF EXISTS mailboxes_auth_check,
      DROP CONSTRAINT IF EXISTS mailboxes_ramp_up_check,
      DROP CONSTRAINT IF EXISTS mailboxes_paused_check,
      DROP COLUMN IF EXISTS auth_provider,
      DROP COLUMN IF EXISTS auth_type,
      DROP COLUMN IF EXISTS gap_jitter_seconds,
      DROP COLUMN IF EXISTS ramp_starts_on,
      DROP COLUMN IF EXISTS ramp_daily_increase,
      DROP COLUMN IF EXISTS ramp_start_cap,
      DROP COLUMN IF EXISTS min_sample,
      DROP COLUMN IF EXISTS max_complaint_rate,
      DROP COLUMN IF EXISTS max_bounce_rate,
      DROP COLUMN IF EXISTS paused_note,
      DROP COLUMN IF EXISTS paused_at,
      DROP COLUMN IF EXISTS paused_reason,
      DROP COLUMN IF EXISTS status;
  `.execute(db);
}
