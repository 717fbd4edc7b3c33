import { Kysely, sql } from 'kysely';

/**
 * Tenancy, cheaper and narrower.
 *
 * 1. Policies evaluate membership once per statement: `organization_id = ANY ((SELECT
 *    app.visible_organization_ids()))` is an InitPlan (one call, an array), where the policies of
 *    0001 called two SECURITY DEFINER functions for every row. FOR ALL write policies become
 *    INSERT, UPDATE and DELETE policies. Semantics are unchanged: readers are any member, writes
 *    need member or above, compliance settings need admin, suppressions are removed by admins,
 *    the compliance audit log is insert-only.
 * 2. Two login roles: `outreach_api` (acts only as a user, app.user_id) and `outreach_worker` (may
 *    also act for an organization, app.organization_id). app.current_org_id() answers NULL unless
 *    the session's login role is (a member of) outreach_worker, so a stray set_config in the API
 *    crosses no tenant. Both inherit their table grants from `outreach_app`, now a NOLOGIN group
 *    role; default privileges grant what later migrations create to it.
 * 3. Indexes the list filters and erasure need. Under row-level security PostgreSQL evaluates a
 *    caller's condition before the policy's only when its operator is LEAKPROOF; LIKE and ILIKE are
 *    not marked so, which keeps every trigram index out of reach of the application roles (the
 *    owner's plans use it, the app role's scan the organization). The owner marks the two text
 *    operators' functions LEAKPROOF in this database (see docs/architecture.md, "Database roles and tenancy").
 */

// Every table of 0001 whose policies were "any member reads, member+ writes".
export const MEMBER_WRITE_TABLES = [
  'sources',
  'raw_publications',
  'projects',
  'signals',
  'classifications',
  'scoring_configs',
  'scoring_rules',
  'scores',
  'score_components',
  'industry_profiles',
  'personas',
  'products',
  'opportunities',
  'companies',
  'contacts',
  'lawful_basis_records',
  'integrations',
  'mailboxes',
  'mailbox_health_checks',
  'campaigns',
  'sequences',
  'sequence_steps',
  'enrollments',
  'threads',
  'messages',
  'meetings',
  'prompt_evals',
];

const VISIBLE = (col: string) => `${col} = ANY ((SELECT app.visible_organization_ids())::uuid[])`;
const WRITABLE = (col: string, role: 'member' | 'admin') => `${col} = ANY ((SELECT app.writable_organization_ids('${role}'))::uuid[])`;

function memberWritePolicies(t: string): string {
  return `
DROP POLICY IF EXISTS ${t}_read ON ${t};
DROP POLICY IF EXISTS ${t}_write ON ${t};
CREATE POLICY ${t}_read ON ${t} FOR SELECT USING (${VISIBLE('organization_id')});
CREATE POLICY ${t}_insert ON ${t} FOR INSERT WITH CHECK (${WRITABLE('organization_id', 'member')});
CREATE POLICY ${t}_update ON ${t} FOR UPDATE USING (${WRITABLE('organization_id', 'member')}) WITH CHECK (${WRITABLE('organization_id', 'member')});
CREATE POLICY ${t}_delete ON ${t} FOR DELETE USING (${WRITABLE('organization_id', 'member')});`;
}

const roles_sql = `
-- Cluster-wide roles: created once, attributes enforced on every run.
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_app') THEN
    CREATE ROLE outreach_app NOLOGIN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_api') THEN
    CREATE ROLE outreach_api LOGIN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_worker') THEN
    CREATE ROLE outreach_worker LOGIN;
  END IF;
END $$;
ALTER ROLE outreach_app NOLOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE NOREPLICATION;
ALTER ROLE outreach_api LOGIN INHERIT NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE NOREPLICATION;
ALTER ROLE outreach_worker LOGIN INHERIT NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE NOREPLICATION;
GRANT outreach_app TO outreach_api;
GRANT outreach_app TO outreach_worker;
`;

const functions_sql = `
-- The organization context counts only for the worker's login role (session_user, so a SECURITY
-- DEFINER caller cannot lend it the owner's rights).
CREATE OR REPLACE FUNCTION app.current_org_id() RETURNS uuid LANGUAGE sql STABLE AS
$$ SELECT CASE WHEN pg_catalog.pg_has_role(session_user, 'outreach_worker', 'MEMBER')
               THEN nullif(current_setting('app.organization_id', true), '')::uuid END $$;

-- The organizations the caller may read: the user's memberships, or the organization the worker
-- acts for. One call per statement from the policies (an InitPlan), reading memberships as the owner.
-- plpgsql rather than sql: its query plan is kept per session (a SQL function is planned per call).
CREATE FUNCTION app.visible_organization_ids() RETURNS uuid[] LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, public AS
$$ BEGIN
  RETURN ARRAY(
    SELECT m.organization_id FROM public.memberships m WHERE m.user_id = app.current_user_id()
    UNION
    SELECT app.current_org_id() WHERE app.current_org_id() IS NOT NULL);
END $$;

-- The organizations in which the caller holds min_role or above (the worker's organization: all roles).
CREATE FUNCTION app.writable_organization_ids(min_role text) RETURNS uuid[] LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, public AS
$$ BEGIN
  RETURN ARRAY(
    SELECT m.organization_id FROM public.memberships m
     WHERE m.user_id = app.current_user_id() AND app.role_rank(m.role) >= app.role_rank(min_role)
    UNION
    SELECT app.current_org_id() WHERE app.current_org_id() IS NOT NULL);
END $$;

-- The API's role gate in the same round trip as BEGIN and set_config (db/tenancy.ts): the caller's
-- role in org, or an error the API answers with 404 (not a member: OR404) or 403 (too low: OR403).
-- Runs as the caller: memberships' policy shows the caller their own rows.
CREATE FUNCTION app.require_role(org uuid, min_role text) RETURNS text LANGUAGE plpgsql STABLE AS
$$
DECLARE r text;
BEGIN
  SELECT m.role INTO r FROM public.memberships m WHERE m.organization_id = org AND m.user_id = app.current_user_id();
  IF r IS NULL THEN
    RAISE EXCEPTION 'not a member of the organization' USING ERRCODE = 'OR404';
  END IF;
  IF app.role_rank(r) < app.role_rank(min_role) THEN
    RAISE EXCEPTION 'the caller''s role is too low' USING ERRCODE = 'OR403', DETAIL = r;
  END IF;
  RETURN r;
END
$$;
`;

const policies_sql = `
DROP POLICY organizations_read ON organizations;
DROP POLICY organizations_update ON organizations;
CREATE POLICY organizations_read ON organizations FOR SELECT USING (${VISIBLE('id')});
CREATE POLICY organizations_update ON organizations FOR UPDATE USING (${WRITABLE('id', 'admin')}) WITH CHECK (${WRITABLE('id', 'admin')});

DROP POLICY memberships_read ON memberships;
DROP POLICY memberships_insert ON memberships;
DROP POLICY memberships_update ON memberships;
DROP POLICY memberships_delete ON memberships;
CREATE POLICY memberships_read ON memberships FOR SELECT
  USING (user_id = (SELECT app.current_user_id()) OR ${VISIBLE('organization_id')});
CREATE POLICY memberships_insert ON memberships FOR INSERT WITH CHECK (${WRITABLE('organization_id', 'admin')});
CREATE POLICY memberships_update ON memberships FOR UPDATE
  USING (${WRITABLE('organization_id', 'admin')}) WITH CHECK (${WRITABLE('organization_id', 'admin')});
CREATE POLICY memberships_delete ON memberships FOR DELETE USING (${WRITABLE('organization_id', 'admin')});

DROP POLICY compliance_settings_read ON compliance_settings;
DROP POLICY compliance_settings_write ON compliance_settings;
CREATE POLICY compliance_settings_read ON compliance_settings FOR SELECT USING (${VISIBLE('organization_id')});
CREATE POLICY compliance_settings_insert ON compliance_settings FOR INSERT WITH CHECK (${WRITABLE('organization_id', 'admin')});
CREATE POLICY compliance_settings_update ON compliance_settings FOR UPDATE
  USING (${WRITABLE('organization_id', 'admin')}) WITH CHECK (${WRITABLE('organization_id', 'admin')});
CREATE POLICY compliance_settings_delete ON compliance_settings FOR DELETE USING (${WRITABLE('organization_id', 'admin')});

DROP POLICY suppressions_read ON suppressions;
DROP POLICY suppressions_insert ON suppressions;
DROP POLICY suppressions_delete ON suppressions;
CREATE POLICY suppressions_read ON suppressions FOR SELECT USING (${VISIBLE('organization_id')});
CREATE POLICY suppressions_insert ON suppressions FOR INSERT WITH CHECK (${WRITABLE('organization_id', 'member')});
CREATE POLICY suppressions_delete ON suppressions FOR DELETE USING (${WRITABLE('organization_id', 'admin')});

DROP POLICY compliance_audit_read ON compliance_audit_log;
DROP POLICY compliance_audit_insert ON compliance_audit_log;
CREATE POLICY compliance_audit_log_read ON compliance_audit_log FOR SELECT USING (${VISIBLE('organization_id')});
CREATE POLICY compliance_audit_log_insert ON compliance_audit_log FOR INSERT WITH CHECK (${WRITABLE('organization_id', 'member')});
`;

const grants_sql = `
-- The group role holds the grants; the login roles inherit them.
GRANT USAGE ON SCHEMA public, app TO outreach_app;
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM outreach_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO outreach_app;
REVOKE UPDATE, DELETE ON compliance_audit_log FROM outreach_app;
REVOKE INSERT, DELETE ON organizations FROM outreach_app;
-- The migrator's own bookkeeping is not the application's.
REVOKE ALL ON kysely_migration, kysely_migration_lock FROM outreach_app;
-- Functions in app: reachable only with USAGE on the schema, which only outreach_app holds.
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA app TO outreach_app;

-- What later migrations (run by this same owner) create is granted the same way automatically.
-- A table that must be append-only or read-only revokes in its own migration.
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO outreach_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO outreach_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA app GRANT EXECUTE ON FUNCTIONS TO outreach_app;
`;

// textlike/texticlike reveal nothing about their arguments but the answer; the one error they raise
// (a pattern ending in the escape character) depends on the pattern, which the application builds
// from request input and escapes. Needs a superuser; without one, search stays correct but slow.
const leakproof_sql = `
DO $$ BEGIN
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    ALTER FUNCTION pg_catalog.textlike(text, text) LEAKPROOF;
    ALTER FUNCTION pg_catalog.texticlike(text, text) LEAKPROOF;
  ELSE
    RAISE WARNING 'not a superuser: LIKE/ILIKE stay non-leakproof, so name and title search cannot use the trigram indexes under row-level security';
  END IF;
END $$;
`;

const indexes_sql = `
-- storePublicationBatch looks up known dedupe keys per source.
CREATE INDEX signals_source_dedupe_idx ON signals (source_id, dedupe_key);
-- Name search (GET /companies?q= matches normalized_name; name for people typing the legal name).
CREATE INDEX companies_normalized_name_trgm_idx ON companies USING gin (normalized_name gin_trgm_ops);
CREATE INDEX companies_name_trgm_idx ON companies USING gin (name gin_trgm_ops);
-- Erasure and a contact's history.
CREATE INDEX messages_org_contact_idx ON messages (organization_id, contact_id);
CREATE INDEX threads_org_contact_idx ON threads (organization_id, contact_id);
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(roles_sql).execute(db);
  await sql.raw(functions_sql).execute(db);
  await sql.raw(policies_sql).execute(db);
  await sql.raw(MEMBER_WRITE_TABLES.map(memberWritePolicies).join('\n')).execute(db);
  await sql.raw(grants_sql).execute(db);
  await sql.raw(indexes_sql).execute(db);
  await sql.raw(leakproof_sql).execute(db);
}

// ---- down: the policies, functions and grants of 0001/0002. The roles are cluster-wide (other
// databases of the server may use them): they stay as they are.

function oldMemberWritePolicies(t: string): string {
  return `
DROP POLICY ${t}_read ON ${t};
DROP POLICY ${t}_insert ON ${t};
DROP POLICY ${t}_update ON ${t};
DROP POLICY ${t}_delete ON ${t};
CREATE POLICY ${t}_read ON ${t} FOR SELECT USING (app.is_member(organization_id));
CREATE POLICY ${t}_write ON ${t} FOR ALL
  USING (app.has_role(organization_id, 'member')) WITH CHECK (app.has_role(organization_id, 'member'));`;
}

const down_sql = `
DO $$ BEGIN
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    ALTER FUNCTION pg_catalog.textlike(text, text) NOT LEAKPROOF;
    ALTER FUNCTION pg_catalog.texticlike(text, text) NOT LEAKPROOF;
  END IF;
END $$;
DROP INDEX threads_org_contact_idx;
DROP INDEX messages_org_contact_idx;
DROP INDEX companies_name_trgm_idx;
DROP INDEX companies_normalized_name_trgm_idx;
DROP INDEX signals_source_dedupe_idx;

ALTER DEFAULT PRIVILEGES IN SCHEMA app REVOKE EXECUTE ON FUNCTIONS FROM outreach_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE USAGE, SELECT ON SEQUENCES FROM outreach_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE SELECT, INSERT, UPDATE, DELETE ON TABLES FROM outreach_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON kysely_migration, kysely_migration_lock TO outreach_app;

DROP POLICY organizations_read ON organizations;
DROP POLICY organizations_update ON organizations;
CREATE POLICY organizations_read ON organizations FOR SELECT USING (app.is_member(id));
CREATE POLICY organizations_update ON organizations FOR UPDATE
  USING (app.has_role(id, 'admin')) WITH CHECK (app.has_role(id, 'admin'));

DROP POLICY memberships_read ON memberships;
DROP POLICY memberships_insert ON memberships;
DROP POLICY memberships_update ON memberships;
DROP POLICY memberships_delete ON memberships;
CREATE POLICY memberships_read ON memberships FOR SELECT
  USING (user_id = app.current_user_id() OR app.is_member(organization_id));
CREATE POLICY memberships_insert ON memberships FOR INSERT WITH CHECK (app.has_role(organization_id, 'admin'));
CREATE POLICY memberships_update ON memberships FOR UPDATE
  USING (app.has_role(organization_id, 'admin')) WITH CHECK (app.has_role(organization_id, 'admin'));
CREATE POLICY memberships_delete ON memberships FOR DELETE USING (app.has_role(organization_id, 'admin'));

DROP POLICY compliance_settings_read ON compliance_settings;
DROP POLICY compliance_settings_insert ON compliance_settings;
DROP POLICY compliance_settings_update ON compliance_settings;
DROP POLICY compliance_settings_delete ON compliance_settings;
CREATE POLICY compliance_settings_read ON compliance_settings FOR SELECT USING (app.is_member(organization_id));
CREATE POLICY compliance_settings_write ON compliance_settings FOR ALL
  USING (app.has_role(organization_id, 'admin')) WITH CHECK (app.has_role(organization_id, 'admin'));

DROP POLICY suppressions_read ON suppressions;
DROP POLICY suppressions_insert ON suppressions;
DROP POLICY suppressions_delete ON suppressions;
CREATE POLICY suppressions_read ON suppressions FOR SELECT USING (app.is_member(organization_id));
CREATE POLICY suppressions_insert ON suppressions FOR INSERT WITH CHECK (app.has_role(organization_id, 'member'));
CREATE POLICY suppressions_delete ON suppressions FOR DELETE USING (app.has_role(organization_id, 'admin'));

DROP POLICY compliance_audit_log_read ON compliance_audit_log;
DROP POLICY compliance_audit_log_insert ON compliance_audit_log;
CREATE POLICY compliance_audit_read ON compliance_audit_log FOR SELECT USING (app.is_member(organization_id));
CREATE POLICY compliance_audit_insert ON compliance_audit_log FOR INSERT WITH CHECK (app.has_role(organization_id, 'member'));
`;

const down_functions_sql = `
DROP FUNCTION app.require_role(uuid, text);
DROP FUNCTION app.writable_organization_ids(text);
DROP FUNCTION app.visible_organization_ids();
CREATE OR REPLACE FUNCTION app.current_org_id() RETURNS uuid LANGUAGE sql STABLE AS
$$ SELECT nullif(current_setting('app.organization_id', true), '')::uuid $$;
`;

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw(down_sql).execute(db);
  await sql.raw(MEMBER_WRITE_TABLES.map(oldMemberWritePolicies).join('\n')).execute(db);
  await sql.raw(down_functions_sql).execute(db);
}
