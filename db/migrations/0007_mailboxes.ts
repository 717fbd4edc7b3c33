import { Kysely, sql } from 'kysely';

/**
 * Mailboxes as the outreach contract describes them, and send-slot reservations.
 *
 * mailboxes: `min_interval_seconds` becomes `min_gap_seconds` (0..3600, default 120), `window_days`
 * becomes `sending_days` (ISO weekdays 1..7, at least one, no duplicates), `daily_cap` 1..500, the
 * window may end at 24:00 (PostgreSQL's `time` holds 24:00:00) and must end after it starts; new:
 * `imap_config`, `secret_ciphertext` (the SMTP/IMAP password sealed with AES-256-GCM, bound to the
 * row), `holiday_country` (backfilled from the organization's compliance default country),
 * `holiday_region`, `last_error`.
 *
 * send_slots: one reservation per message (the instant it may be sent, and the mailbox's local day it
 * counts against), so that the daily cap and the gap hold across workers. A tenant table with the
 * member policies of 0003.
 */
const VISIBLE = `organization_id = ANY ((SELECT app.visible_organization_ids())::uuid[])`;
const WRITABLE = `organization_id = ANY ((SELECT app.writable_organization_ids('member'))::uuid[])`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE mailboxes RENAME COLUMN min_interval_seconds TO min_gap_seconds;
    ALTER TABLE mailboxes DROP CONSTRAINT IF EXISTS mailboxes_min_interval_seconds_check;
    UPDATE mailboxes SET min_gap_seconds = LEAST(min_gap_seconds, 3600);
    ALTER TABLE mailboxes ALTER COLUMN min_gap_seconds SET DEFAULT 120;
    ALTER TABLE mailboxes ADD CONSTRAINT mailboxes_min_gap_seconds_check CHECK (min_gap_seconds BETWEEN 0 AND 3600);

    ALTER TABLE mailboxes DROP CONSTRAINT IF EXISTS mailboxes_daily_cap_check;
    UPDATE mailboxes SET daily_cap = LEAST(daily_cap, 500);
    ALTER TABLE mailboxes ADD CONSTRAINT mailboxes_daily_cap_check CHECK (daily_cap BETWEEN 1 AND 500);

    ALTER TABLE mailboxes RENAME COLUMN window_days TO sending_days;
    ALTER TABLE mailboxes ADD CONSTRAINT mailboxes_sending_days_check
      CHECK (cardinality(sending_days) BETWEEN 1 AND 7 AND sending_days <@ '{1,2,3,4,5,6,7}'::int[]);
    ALTER TABLE mailboxes ADD CONSTRAINT mailboxes_window_check CHECK (window_end > window_start);

    ALTER TABLE mailboxes ADD COLUMN imap_config jsonb;
    ALTER TABLE mailboxes ADD COLUMN secret_ciphertext bytea;
    ALTER TABLE mailboxes ADD COLUMN holiday_country text CHECK (holiday_country ~ '^[A-Z]{2}$');
    UPDATE mailboxes m SET holiday_country = COALESCE(
      (SELECT s.default_country FROM compliance_settings s WHERE s.organization_id = m.organization_id), 'NL');
    ALTER TABLE mailboxes ALTER COLUMN holiday_country SET NOT NULL;
    ALTER TABLE mailboxes ADD COLUMN holiday_region text;
    ALTER TABLE mailboxes ADD COLUMN last_error text;
    CREATE INDEX mailboxes_org_created_idx ON mailboxes (organization_id, created_at DESC, id DESC);

    CREATE TABLE send_slots (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL,
      mailbox_id uuid NOT NULL,
      message_id uuid NOT NULL,
      slot_at timestamptz NOT NULL,
      local_day date NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, id),
      UNIQUE (organization_id, message_id),
      FOREIGN KEY (organization_id, mailbox_id) REFERENCES mailboxes (organization_id, id) ON DELETE CASCADE,
      FOREIGN KEY (organization_id, message_id) REFERENCES messages (organization_id, id) ON DELETE CASCADE
    );
    CREATE INDEX send_slots_mailbox_day_idx ON send_slots (organization_id, mailbox_id, local_day);
    CREATE INDEX send_slots_mailbox_slot_idx ON send_slots (organization_id, mailbox_id, slot_at DESC);
    ALTER TABLE send_slots ENABLE ROW LEVEL SECURITY;
    ALTER TABLE send_slots FORCE ROW LEVEL SECURITY;
  `.execute(db);
  await sql
    .raw(
      `CREATE POLICY send_slots_read ON send_slots FOR SELECT USING (${VISIBLE});
       CREATE POLICY send_slots_insert ON send_slots FOR INSERT WITH CHECK (${WRITABLE});
       CREATE POLICY send_slots_update ON send_slots FOR UPDATE USING (${WRITABLE}) WITH CHECK (${WRITABLE});
       CREATE POLICY send_slots_delete ON send_slots FOR DELETE USING (${WRITABLE});`,
    )
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP TABLE IF EXISTS send_slots;
    DROP INDEX IF EXISTS mailboxes_org_created_idx;
    ALTER TABLE mailboxes DROP COLUMN IF EXISTS last_error;
    ALTER TABLE mailboxes DROP COLUMN IF EXISTS holiday_region;
    ALTER TABLE mailboxes DROP COLUMN IF EXISTS holiday_country;
    ALTER TABLE mailboxes DROP COLUMN IF EXISTS secret_ciphertext;
    ALTER TABLE mailboxes DROP COLUMN IF EXISTS imap_config;
    ALTER TABLE mailboxes DROP CONSTRAINT IF EXISTS mailboxes_window_check;
    ALTER TABLE mailboxes DROP CONSTRAINT IF EXISTS mailboxes_sending_days_check;
    ALTER TABLE mailboxes RENAME COLUMN sending_days TO window_days;
    ALTER TABLE mailboxes DROP CONSTRAINT IF EXISTS mailboxes_daily_cap_check;
    ALTER TABLE mailboxes ADD CONSTRAINT mailboxes_daily_cap_check CHECK (daily_cap BETWEEN 1 AND 2000);
    ALTER TABLE mailboxes DROP CONSTRAINT IF EXISTS mailboxes_min_gap_seconds_check;
    ALTER TABLE mailboxes ALTER COLUMN min_gap_seconds SET DEFAULT 600;
    ALTER TABLE mailboxes RENAME COLUMN min_gap_seconds TO min_interval_seconds;
    ALTER TABLE mailboxes ADD CONSTRAINT mailboxes_min_interval_seconds_check CHECK (min_interval_seconds >= 0);
  `.execute(db);
}
