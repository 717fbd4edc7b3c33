import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { testEnv } from './tokens';

/**
 * A domain the organization has verified, written directly (as the owner role): for tests whose subject
 * is not the DNS proof itself (test/mailboxes/domains.test.ts covers that), so that the OAuth callback may connect
 * mailboxes of this domain.
 */
export async function verifiedDomain(orgId: string, domain: string): Promise<string> {
  const owner = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 1 });
  try {
    const { rows } = await owner.query<{ id: string }>(
      `INSERT INTO domains (organization_id, domain, status, token, verified_at, created_by)
       VALUES ($1, lower($2), 'verified', $3, now(), gen_random_uuid())
       ON CONFLICT (organization_id, domain) DO UPDATE SET status = 'verified', verified_at = now() RETURNING id`,
      [orgId, domain, randomBytes(24).toString('base64url')],
    );
    return rows[0]!.id;
  } finally {
    await owner.end();
  }
}
