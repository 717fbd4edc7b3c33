import { Kysely, sql } from 'kysely';

/**
 * The bulk-sender thresholds (domain/sending/bulk-senders.ts): bulk_sender_volume holds, per
 * organization, organizational sending domain, receiving provider and UTC day, the e-mails sent.
 * recordSent increments it in the transaction that first records a message as sent (its fenced update
 * changes the message only once), so each sent e-mail counts exactly once, retries included. A counter
 * row rather than a count over messages: the send's claim reads one row for its hold, where a count
 * would read up to 5,000 messages per send, and messages keep no receiving provider. `near_notified_at`:
 * the `domain.bulk_threshold_near` event was written for that day (once).
 */
const VISIBLE = `organization_id = ANY ((SELECT app.visible_organization_ids())::uuid[])`;
const MEMBER = `organization_id = ANY ((SELECT app.writable_organization_ids('member'))::uuid[])`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE bulk_sender_volume (
      organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      org_domain text NOT NULL CHECK (org_domain = lower(org_domain) AND length(org_domain) BETWEEN 1 AND 253),
      provider text NOT NULL CHECK (provider IN ('google', 'yahoo', 'microsoft', 'other')),
      day date NOT NULL,
      sent integer NOT NULL DEFAULT 0 CHECK (sent >= 0),
      near_notified_at timestamptz,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (organization_id, org_domain, provider, day)
    );
    CREATE INDEX bulk_sender_volume_day_idx ON bulk_sender_volume (organization_id, org_domain, day DESC);
    ALTER TABLE bulk_sender_volume ENABLE ROW LEVEL SECURITY;
    ALTER TABLE bulk_sender_volume FORCE ROW LEVEL SECURITY;
  `.execute(db);
  await sql
    .raw(
      `CREATE POLICY bulk_sender_volume_read ON bulk_sender_volume FOR SELECT USING (${VISIBLE});
       CREATE POLICY bulk_sender_volume_insert ON bulk_sender_volume FOR INSERT WITH CHECK (${MEMBER});
       CREATE POLICY bulk_sender_volume_update ON bulk_sender_volume FOR UPDATE USING (${MEMBER}) WITH CHECK (${MEMBER});
       CREATE POLICY bulk_sender_volume_delete ON bulk_sender_volume FOR DELETE USING (${MEMBER});`,
    )
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS bulk_sender_volume`.execute(db);
}
