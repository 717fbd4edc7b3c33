import { Kysely, sql } from 'kysely';

/**
 * The signal pipeline, made recoverable:
 * - a person's ignore is recorded (ignored_by, ignored_at): only it stops the pipeline; a signal
 *   ignored by its score is re-scored on reprocess;
 * - processed_at marks a signal whose pipeline ran to its end, so a scheduled reconcile can find
 *   signals left `ingested` or mid-pipeline, across organizations, through app.stuck_signals();
 * - the title links signals to a project only within a time window (projects.last_seen_at): a
 *   project may recur (a yearly tender), so (organization_id, dedupe_key) is no longer unique.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE signals ADD COLUMN ignored_by uuid;
    ALTER TABLE signals ADD COLUMN ignored_at timestamptz;
    ALTER TABLE signals ADD COLUMN processed_at timestamptz;

    -- Signals past their pipeline before this migration are done; ingested and classified ones are not.
    UPDATE signals SET processed_at = updated_at WHERE status NOT IN ('ingested', 'classified');
    -- An ignored signal whose current score is not below its config's ignore_below was ignored by a person.
    UPDATE signals s SET ignored_at = s.updated_at
     WHERE s.status = 'ignored'
       AND NOT EXISTS (
         SELECT 1 FROM scores sc JOIN scoring_configs c ON c.id = sc.scoring_config_id
          WHERE sc.signal_id = s.id AND sc.is_current AND sc.total < c.ignore_below);

    -- What the reconcile looks for: small, since finished signals leave it.
    CREATE INDEX signals_unprocessed_idx ON signals (updated_at)
      WHERE processed_at IS NULL AND status IN ('ingested', 'classified', 'scored', 'qualified', 'ready');

    ALTER TABLE projects DROP CONSTRAINT projects_organization_id_dedupe_key_key;
    ALTER TABLE projects ADD COLUMN last_seen_at timestamptz NOT NULL DEFAULT now();
    UPDATE projects p SET last_seen_at = coalesce(
      (SELECT max(coalesce(s.published_at, s.created_at)) FROM signals s WHERE s.project_id = p.id), p.created_at);
    CREATE INDEX projects_org_dedupe_seen_idx ON projects (organization_id, dedupe_key, last_seen_at DESC);

    -- Signals left ingested or mid-pipeline for longer than older_than_seconds, in every organization.
    -- SECURITY DEFINER (reads across tenants as the owner), so it answers ids only; the worker reads
    -- the signals themselves per organization, under row-level security.
    CREATE FUNCTION app.stuck_signals(older_than_seconds integer, max_rows integer)
      RETURNS TABLE (organization_id uuid, signal_id uuid)
      LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS
    $$ SELECT s.organization_id, s.id FROM public.signals s
        WHERE s.processed_at IS NULL
          AND s.status IN ('ingested', 'classified', 'scored', 'qualified', 'ready')
          AND s.updated_at < now() - make_interval(secs => greatest(older_than_seconds, 0))
        ORDER BY s.updated_at
        LIMIT least(greatest(max_rows, 0), 10000) $$;
    REVOKE ALL ON FUNCTION app.stuck_signals(integer, integer) FROM PUBLIC;
  `.execute(db);
  // Only the workers call it: their role when the roles are split (0003; the default privileges of
  // schema app would also give it to the API through the shared group role), else the app role.
  await sql`
    DO $$ BEGIN
      IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_worker') THEN
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_app') THEN
          REVOKE EXECUTE ON FUNCTION app.stuck_signals(integer, integer) FROM outreach_app;
        END IF;
        GRANT EXECUTE ON FUNCTION app.stuck_signals(integer, integer) TO outreach_worker;
      ELSIF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_app') THEN
        GRANT EXECUTE ON FUNCTION app.stuck_signals(integer, integer) TO outreach_app;
      END IF;
    END $$;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP FUNCTION IF EXISTS app.stuck_signals(integer, integer);
    DROP INDEX IF EXISTS projects_org_dedupe_seen_idx;
    ALTER TABLE projects DROP COLUMN IF EXISTS last_seen_at;
    ALTER TABLE projects ADD CONSTRAINT projects_organization_id_dedupe_key_key UNIQUE (organization_id, dedupe_key);
    DROP INDEX IF EXISTS signals_unprocessed_idx;
    ALTER TABLE signals DROP COLUMN IF EXISTS processed_at;
    ALTER TABLE signals DROP COLUMN IF EXISTS ignored_at;
    ALTER TABLE signals DROP COLUMN IF EXISTS ignored_by;
  `.execute(db);
}
