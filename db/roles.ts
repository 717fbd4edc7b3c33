import { sql } from 'kysely';
import type { DB } from './pool';

/** The API's login role: acts only as a user (app.user_id); the organization context is refused to it. */
export const API_DB_ROLE = 'outreach_api';
/** The workers' login role: may also act for one organization (app.organization_id). */
export const WORKER_DB_ROLE = 'outreach_worker';

/**
 * Refuses to serve the API on a connection whose role could cross tenants: a superuser, a role with
 * BYPASSRLS, or one that holds the worker role (which may act for any organization). Tenant isolation
 * rests on API_DATABASE_URL naming outreach_api; a misconfigured URL stops the start instead of
 * quietly lifting it.
 */
export async function assertApiRole(db: DB): Promise<void> {
  const { rows } = await sql<{ role: string; superuser: boolean; bypassrls: boolean; worker: boolean }>`
    SELECT rolname AS role, rolsuper AS superuser, rolbypassrls AS bypassrls,
           pg_has_role(session_user, ${WORKER_DB_ROLE}, 'MEMBER') AS worker
    FROM pg_roles WHERE rolname = session_user`.execute(db);
  const r = rows[0];
  if (!r) throw new Error('the API database role could not be read');
  const why = [r.superuser && 'is a superuser', r.bypassrls && 'bypasses row-level security', r.worker && `holds ${WORKER_DB_ROLE}`].filter(Boolean);
  if (why.length) throw new Error(`API_DATABASE_URL connects as ${r.role}, which ${why.join(' and ')}: the API must use ${API_DB_ROLE}`);
}
