import { Kysely, sql } from 'kysely';

/**
 * Database hardening and booking tombstones:
 * - REVOKE CREATE ON SCHEMA public FROM PUBLIC: no login role may create objects in `public`. The
 *   SECURITY DEFINER functions search `pg_catalog, public`; on a cluster initialized before PostgreSQL
 *   15 (or pg_upgraded from one) any role could otherwise define, say, an operator in `public` that a
 *   definer function would then run as its owner. PostgreSQL 15+ already creates `public` this way; the
 *   statement makes it true everywhere.
 * - EXECUTE on every SECURITY DEFINER function in `app` is revoked from PUBLIC: the application roles
 *   keep it through their own grants (outreach_app, or the one role a function was granted to), and no
 *   other role of the cluster may run a function as its owner.
 * - booking_events: every booking delivery the worker processed, by (provider, external id), with the
 *   time the provider says it happened (the payload's createdAt/created_at) and the digest of its body.
 *   A cancellation processed before its booking is a tombstone: the booking, arriving later, records
 *   nothing unless the provider dated it after the cancellation. The digest is unique per organization
 *   and provider, so a delivery replayed after Temporal's retention (Cal.com bodies carry no
 *   timestamp) changes nothing. A tenant table with the member policies of 0003/0007.
 */
const VISIBLE = `organization_id = ANY ((SELECT app.visible_organization_ids())::uuid[])`;
const WRITABLE = `organization_id = ANY ((SELECT app.writable_organization_ids('member'))::uuid[])`;

/** The privilege hardening, on its own (test/rls-catalog.test.ts runs it against a cluster set up the pre-15 way). */
export const HARDENING_SQL = `
    REVOKE CREATE ON SCHEMA public FROM PUBLIC;
    DO $$
    DECLARE f regprocedure;
    BEGIN
      FOR f IN SELECT p.oid::regprocedure FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'app' AND p.prosecdef LOOP
        EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', f);
      END LOOP;
    END $$;
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(HARDENING_SQL).execute(db);
  await sql`

    CREATE TABLE booking_events (
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      provider text NOT NULL CHECK (provider IN ('calcom', 'calendly')),
      external_id text NOT NULL CHECK (length(external_id) BETWEEN 1 AND 2000),
      kind text NOT NULL CHECK (kind IN ('booked', 'cancelled')),
      occurred_at timestamptz,
      digest text NOT NULL CHECK (digest ~ '^[0-9a-f]{40,64}$'),
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (organization_id, id),
      UNIQUE (organization_id, provider, digest)
    );
    CREATE INDEX booking_events_external_idx ON booking_events (organization_id, provider, external_id, kind);
    ALTER TABLE booking_events ENABLE ROW LEVEL SECURITY;
    ALTER TABLE booking_events FORCE ROW LEVEL SECURITY;
  `.execute(db);
  await sql
    .raw(
      `CREATE POLICY booking_events_read ON booking_events FOR SELECT USING (${VISIBLE});
       CREATE POLICY booking_events_insert ON booking_events FOR INSERT WITH CHECK (${WRITABLE});
       CREATE POLICY booking_events_update ON booking_events FOR UPDATE USING (${WRITABLE}) WITH CHECK (${WRITABLE});
       CREATE POLICY booking_events_delete ON booking_events FOR DELETE USING (${WRITABLE});`,
    )
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP TABLE IF EXISTS booking_events;
    GRANT CREATE ON SCHEMA public TO PUBLIC;
    DO $$
    DECLARE f regprocedure;
    BEGIN
      FOR f IN SELECT p.oid::regprocedure FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'app' AND p.prosecdef LOOP
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO PUBLIC', f);
      END LOOP;
    END $$;
  `.execute(db);
}
