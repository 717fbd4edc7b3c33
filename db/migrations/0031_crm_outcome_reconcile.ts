import { Kysely, sql } from 'kysely';

/**
 * Salesforce outcomes nothing syncs (a start that failed after the outcome committed): what
 * reconcile/outreach looks for, across organizations, through a SECURITY DEFINER function that answers
 * ids only (the workers read the rows as each organization, as 0016 does): won or lost opportunities
 * whose sync has not succeeded since the outcome was set (crm_synced_at null or before outcome_at),
 * with no crm_error, unchanged for older_than_seconds, in an organization whose Salesforce integration
 * has config.autoSync, a token (without one the run could only give up) and links the opportunity in
 * mapping.opportunities.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX opportunities_crm_unsynced_idx ON opportunities (updated_at)
      WHERE outcome IN ('won', 'lost') AND crm_error IS NULL;
    CREATE FUNCTION app.crm_outcomes_unsynced(older_than_seconds integer, max_rows integer, only_org uuid)
      RETURNS TABLE (organization_id uuid, opportunity_id uuid)
      LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS
    $$ SELECT o.organization_id, o.id FROM public.opportunities o
        WHERE o.outcome IN ('won', 'lost') AND o.crm_error IS NULL
          AND (o.crm_synced_at IS NULL OR o.crm_synced_at < o.outcome_at)
          AND (only_org IS NULL OR o.organization_id = only_org)
          AND o.updated_at < now() - make_interval(secs => greatest(older_than_seconds, 0))
          AND EXISTS (SELECT 1 FROM public.integrations i
                       WHERE i.organization_id = o.organization_id AND i.kind = 'crm' AND i.provider_key = 'salesforce'
                         AND i.status <> 'error' AND i.secret_ciphertext IS NOT NULL AND i.config->>'autoSync' = 'true'
                         AND jsonb_typeof(i.mapping->'opportunities'->(o.id::text)) = 'string')
        ORDER BY o.updated_at
        LIMIT least(greatest(max_rows, 0), 10000) $$;
    REVOKE ALL ON FUNCTION app.crm_outcomes_unsynced(integer, integer, uuid) FROM PUBLIC;
  `.execute(db);
  // Only the workers call it (as 0016 does for app.unsequenced_waiting_messages).
  await sql`
    DO $$ BEGIN
      IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_worker') THEN
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_app') THEN
          REVOKE EXECUTE ON FUNCTION app.crm_outcomes_unsynced(integer, integer, uuid) FROM outreach_app;
        END IF;
        GRANT EXECUTE ON FUNCTION app.crm_outcomes_unsynced(integer, integer, uuid) TO outreach_worker;
      ELSIF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_app') THEN
        GRANT EXECUTE ON FUNCTION app.crm_outcomes_unsynced(integer, integer, uuid) TO outreach_app;
      END IF;
    END $$;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP FUNCTION IF EXISTS app.crm_outcomes_unsynced(integer, integer, uuid);
    DROP INDEX IF EXISTS opportunities_crm_unsynced_idx;
  `.execute(db);
}
