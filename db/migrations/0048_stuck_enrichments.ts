import { Kysely, sql } from 'kysely';

/**
 * The reconcile of enrichments (workflows/reconcile.ts): companies left `enrichment_status = running`
 * longer than a while, in every organization, through app.stuck_enrichments(). A company's enrichment
 * whose workflow ended without finishing (terminated, its history lost) is started again; one whose
 * run is still going is left to it. SECURITY DEFINER (reads across tenants as the owner), so it
 * answers ids only, as app.stuck_signals does; the partial index keeps it to the few running.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX companies_enrichment_running_idx ON companies (updated_at) WHERE enrichment_status = 'running';
    CREATE FUNCTION app.stuck_enrichments(older_than_seconds integer, max_rows integer)
      RETURNS TABLE (organization_id uuid, company_id uuid)
      LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS
    $$ SELECT c.organization_id, c.id FROM public.companies c
        WHERE c.enrichment_status = 'running'
          AND c.updated_at < now() - make_interval(secs => greatest(older_than_seconds, 0))
        ORDER BY c.updated_at
        LIMIT least(greatest(max_rows, 0), 10000) $$;
    REVOKE ALL ON FUNCTION app.stuck_enrichments(integer, integer) FROM PUBLIC;
  `.execute(db);
  // Only the workers call it (as 0004 does for app.stuck_signals).
  await sql`
    DO $$ BEGIN
      IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_worker') THEN
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_app') THEN
          REVOKE EXECUTE ON FUNCTION app.stuck_enrichments(integer, integer) FROM outreach_app;
        END IF;
        GRANT EXECUTE ON FUNCTION app.stuck_enrichments(integer, integer) TO outreach_worker;
      ELSIF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_app') THEN
        GRANT EXECUTE ON FUNCTION app.stuck_enrichments(integer, integer) TO outreach_app;
      END IF;
    END $$;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP FUNCTION app.stuck_enrichments(integer, integer);
    DROP INDEX companies_enrichment_running_idx;
  `.execute(db);
}
