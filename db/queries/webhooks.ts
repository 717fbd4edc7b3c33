import { sql } from 'kysely';
import type { DB } from '../pool';

/**
 * A booking webhook's integration, through app.webhook_integration (migration 0012_meetings): the
 * request has no user, so the function (SECURITY DEFINER, the API role only) answers only the
 * organization and the sealed signing secret of a calendar integration of that provider, and
 * nothing else. Null for an unknown id, another provider's integration, or a disconnected one.
 */
export async function webhookIntegration(db: DB, integrationId: string, provider: string): Promise<{ organizationId: string; sealedSecret: Buffer } | null> {
  const { rows } = await sql<{ organization_id: string; secret_ciphertext: Buffer }>`
    SELECT organization_id, secret_ciphertext FROM app.webhook_integration(${integrationId}::uuid, ${provider})`.execute(db);
  const row = rows[0];
  return row ? { organizationId: row.organization_id, sealedSecret: row.secret_ciphertext } : null;
}
