import { sql } from 'kysely';
import type { Tx } from '../tenancy';
import { COMPANY_COLUMNS, companyValues } from './companies';

/**
 * The set-based statements of one import chunk (activities/imports.ts plans the chunk's rows in
 * TypeScript, then runs each of these once per chunk instead of a few statements per row). Rows travel
 * as one jsonb parameter (jsonb_to_recordset), so a chunk's size is not bounded by the 65,535
 * parameters of one statement.
 */

export type CompanyRow = Awaited<ReturnType<typeof companyCandidates>>[number];

/** The organization's companies that any of the given KvK numbers, domains or normalized names could match, oldest first (the order the identity rules pick in). */
export function companyCandidates(tx: Tx, organizationId: string, keys: { kvkNumbers: string[]; domains: string[]; names: string[] }) {
  return tx
    .selectFrom('companies')
    .select(COMPANY_COLUMNS)
    .where('organization_id', '=', organizationId)
    .where((eb) =>
      eb.or([
        eb('kvk_number', '=', sql<string>`ANY(${keys.kvkNumbers}::text[])`),
        eb('domain', '=', sql<string>`ANY(${keys.domains}::text[])`),
        eb('normalized_name', '=', sql<string>`ANY(${keys.names}::text[])`),
      ]),
    )
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export type NewCompany = ReturnType<typeof companyValues> & { id: string };

/**
 * The chunk's new companies in one INSERT (ids made by the caller). A KvK number another writer took
 * meanwhile is not inserted (the unique index decides): the ids answered are the ones inserted.
 */
export async function insertCompanies(tx: Tx, companies: NewCompany[]): Promise<Set<string>> {
  if (!companies.length) return new Set();
  const rows = await sql<{ id: string }>`
    INSERT INTO companies (id, organization_id, name, normalized_name, domain, kvk_number, address, website, generic_email, phone, country_code, locale,
                           legal_form, recipient_kind, sbi_codes, timezone)
    SELECT id, organization_id, name, normalized_name, domain, kvk_number, address, website, generic_email, phone, country_code, locale,
           legal_form, recipient_kind, sbi_codes, timezone
      FROM jsonb_to_recordset(${JSON.stringify(companies)}::jsonb) AS t(
        id uuid, organization_id uuid, name text, normalized_name text, domain text, kvk_number text, address text, website text, generic_email text,
        phone text, country_code text, locale text, legal_form text, recipient_kind text, sbi_codes text[], timezone text)
    ON CONFLICT (organization_id, kvk_number) WHERE kvk_number IS NOT NULL DO NOTHING
    RETURNING id`.execute(tx);
  return new Set(rows.rows.map((r) => r.id));
}

/** The companies with these KvK numbers (the rows another writer inserted first). */
export function companiesByKvk(tx: Tx, organizationId: string, kvkNumbers: string[]) {
  return tx.selectFrom('companies').select(COMPANY_COLUMNS).where('organization_id', '=', organizationId).where('kvk_number', 'in', kvkNumbers).execute();
}

export interface ContactCandidate {
  id: string;
  company_id: string;
  /** lower(email) */
  email: string | null;
  /** lower(full_name) */
  name: string;
  erased: boolean;
}

/** The organization's contacts with any of these (lowered) addresses. */
export async function contactsByEmail(tx: Tx, organizationId: string, emails: string[]): Promise<ContactCandidate[]> {
  if (!emails.length) return [];
  const rows = await sql<ContactCandidate>`
    SELECT id, company_id, lower(email) AS email, lower(full_name) AS name, erased_at IS NOT NULL AS erased
      FROM contacts
     WHERE organization_id = ${organizationId} AND lower(email) = ANY(${emails}::text[])`.execute(tx);
  return rows.rows;
}

export interface NewContact {
  id: string;
  company_id: string;
  full_name: string;
  title: string | null;
  email: string | null;
  phone: string | null;
  linkedin_url: string | null;
  timezone: string | null;
}

/** The chunk's new contacts in one INSERT, each with the import's source (Art. 14) and data_source `import`. */
export async function insertContacts(tx: Tx, organizationId: string, sourceDescription: string, contacts: NewContact[]): Promise<void> {
  if (!contacts.length) return;
  await sql`
    INSERT INTO contacts (id, organization_id, company_id, full_name, title, email, phone, linkedin_url, timezone, source_description, data_source)
    SELECT id, ${organizationId}::uuid, company_id, full_name, title, email, phone, linkedin_url, timezone, ${sourceDescription}, 'import'
      FROM jsonb_to_recordset(${JSON.stringify(contacts)}::jsonb)
        AS t(id uuid, company_id uuid, full_name text, title text, email text, phone text, linkedin_url text, timezone text)`.execute(tx);
}

export interface ContactGaps {
  id: string;
  title: string | null;
  email: string | null;
  phone: string | null;
  linkedin_url: string | null;
  timezone: string | null;
}

/**
 * Found contacts gain the fields they lacked (enrichment's upsert), in one UPDATE; a contact erased
 * meanwhile is left alone. Answers the ids updated.
 */
export async function fillContactGaps(tx: Tx, gaps: ContactGaps[]): Promise<Set<string>> {
  if (!gaps.length) return new Set();
  const rows = await sql<{ id: string }>`
    UPDATE contacts c
       SET title = coalesce(c.title, t.title),
           email = coalesce(c.email, t.email),
           phone = coalesce(c.phone, t.phone),
           linkedin_url = coalesce(c.linkedin_url, t.linkedin_url),
           timezone = coalesce(c.timezone, t.timezone),
           updated_at = now()
      FROM jsonb_to_recordset(${JSON.stringify(gaps)}::jsonb) AS t(id uuid, title text, email text, phone text, linkedin_url text, timezone text)
     WHERE c.id = t.id AND c.erased_at IS NULL
    RETURNING c.id`.execute(tx);
  return new Set(rows.rows.map((r) => r.id));
}

/** The (scope, value) keys of these that the organization's suppressions (and erasure markers) hold, in one query whatever their number. */
export async function suppressionKeysFound(
  tx: Tx,
  organizationId: string,
  keys: ReadonlyArray<{ scope: string; value: string }>,
): Promise<Array<{ scope: string; value: string }>> {
  if (!keys.length) return [];
  const rows = await sql<{ scope: string; value: string }>`
    SELECT DISTINCT s.scope, s.value
      FROM suppressions s
      JOIN unnest(${keys.map((k) => k.scope)}::text[], ${keys.map((k) => k.value)}::text[]) AS k(scope, value) ON s.scope = k.scope AND s.value = k.value
     WHERE s.organization_id = ${organizationId}`.execute(tx);
  return rows.rows;
}
