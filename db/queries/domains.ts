import { sql } from 'kysely';
import type { Tx } from '../tenancy';

/**
 * The mail domains an organization proves it controls (domains, migration 0035): a DNS TXT record of
 * the value it was given, looked up by POST /domains/{id}/verify. The OAuth callback connects mailboxes
 * of verified domains only (verifiedDomainFor, read in the callback's own transaction).
 */
export const DOMAIN_COLUMNS = ['id', 'organization_id', 'domain', 'status', 'token', 'verified_at', 'created_at'] as const;

/** Where the TXT record goes, and what it says. */
export const verificationName = (domain: string) => `_outreach-verification.${domain}`;
export const verificationValue = (token: string) => `outreach-domain-verification=${token}`;

type DomainRow = { id: string; organization_id: string; domain: string; status: string; token: string; verified_at: Date | null; created_at: Date };

/** The answer: the record with what to publish, never the token on its own. */
export function toDomain(row: DomainRow) {
  return {
    id: row.id,
    organization_id: row.organization_id,
    domain: row.domain,
    status: row.status as 'pending' | 'verified',
    verification: { type: 'dns_txt' as const, name: verificationName(row.domain), value: verificationValue(row.token) },
    verified_at: row.verified_at,
    created_at: row.created_at,
  };
}
export type Domain = ReturnType<typeof toDomain>;

export async function insertDomain(tx: Tx, d: { id: string; organizationId: string; domain: string; token: string; createdBy: string }): Promise<Domain> {
  const row = await tx
    .insertInto('domains')
    .values({ id: d.id, organization_id: d.organizationId, domain: d.domain, token: d.token, created_by: d.createdBy })
    .returning(DOMAIN_COLUMNS)
    .executeTakeFirstOrThrow();
  return toDomain(row);
}

export function domainByName(tx: Tx, organizationId: string, domain: string) {
  return tx.selectFrom('domains').select(DOMAIN_COLUMNS).where('organization_id', '=', organizationId).where('domain', '=', domain).executeTakeFirst();
}

export function getDomainRow(tx: Tx, id: string) {
  return tx.selectFrom('domains').select(DOMAIN_COLUMNS).where('id', '=', id).executeTakeFirst();
}

export async function listDomains(tx: Tx, f: { organizationId: string; limit: number; before?: string }): Promise<Domain[]> {
  let q = tx.selectFrom('domains').select(DOMAIN_COLUMNS).where('organization_id', '=', f.organizationId);
  if (f.before) q = q.where(sql<boolean>`(domains.created_at, domains.id) < (SELECT b.created_at, b.id FROM domains b WHERE b.id = ${f.before})`);
  const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(f.limit).execute();
  return rows.map(toDomain);
}

/** Marks the domain verified (now), unless it was deleted meanwhile. */
export async function markDomainVerified(tx: Tx, id: string): Promise<Domain | undefined> {
  const row = await tx
    .updateTable('domains')
    .set({ status: 'verified', verified_at: sql`now()`, updated_at: sql`now()` })
    .where('id', '=', id)
    .returning(DOMAIN_COLUMNS)
    .executeTakeFirst();
  return row && toDomain(row);
}

export async function deleteDomain(tx: Tx, id: string): Promise<void> {
  await tx.deleteFrom('domains').where('id', '=', id).execute();
}

/** The advisory lock a connect and a delete of the same domain take in turn (db/locks.ts). */
export const domainLock = (organizationId: string, domain: string) => `domains:${organizationId}:${domain.toLowerCase()}`;

/**
 * The organization's verified domain of this address's domain. The caller holds domainLock, which a
 * delete takes too, so the domain stays verified until the caller's transaction ends (a row lock would
 * need the admin role's update policy, which a member who connects a mailbox does not pass).
 */
export function verifiedDomainFor(tx: Tx, organizationId: string, domain: string) {
  return tx
    .selectFrom('domains')
    .select(['id', 'domain'])
    .where('organization_id', '=', organizationId)
    .where('domain', '=', domain.toLowerCase())
    .where('status', '=', 'verified')
    .executeTakeFirst();
}
