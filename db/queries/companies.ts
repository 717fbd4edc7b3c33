import { sql } from 'kysely';
import { companyDomain, domainFromAddresses } from '../../domain/companies/domains';
import { normalizeCompanyName, recipientKindFor } from '../../domain/companies/identity';
import type { Reader, Tx } from '../tenancy';
import { jsonColumns } from '../json-answers';
import { listPerShape } from '../query-shapes';
import { newestFirst } from './pagination';

export const COMPANY_COLUMNS = [
  'id',
  'organization_id',
  'name',
  'normalized_name',
  'domain',
  'kvk_number',
  'address',
  'website',
  'generic_email',
  'phone',
  'enrichment_status',
  'enrichment_error',
  'country_code',
  'locale',
  'recipient_kind',
  'legal_form',
  'sbi_codes',
  'timezone',
  'created_at',
  'updated_at',
] as const;

export interface CompanyInput {
  name: string;
  domain?: string | null;
  kvkNumber?: string | null;
  address?: string | null;
  website?: string | null;
  genericEmail?: string | null;
  phone?: string | null;
  countryCode?: string | null;
  locale?: string | null;
  legalForm?: string | null;
  sbiCodes?: string[];
  timezone?: string | null;
}

/**
 * Derived fields in one place: normalized name, the company's domain (given, else its website's,
 * else its generic address's; never an IP address, a hosting subdomain or a free-mail provider),
 * recipient kind.
 */
export function companyValues(organizationId: string, c: CompanyInput) {
  return {
    organization_id: organizationId,
    name: c.name,
    normalized_name: normalizeCompanyName(c.name),
    domain: (c.domain && companyDomain(c.domain)) || (c.website && companyDomain(c.website)) || domainFromAddresses([c.genericEmail]) || null,
    kvk_number: c.kvkNumber ?? null,
    address: c.address ?? null,
    website: c.website ?? null,
    generic_email: c.genericEmail ?? null,
    phone: c.phone ?? null,
    country_code: c.countryCode ?? null,
    locale: c.locale ?? null,
    legal_form: c.legalForm ?? null,
    recipient_kind: recipientKindFor(c.legalForm),
    sbi_codes: c.sbiCodes ?? [],
    timezone: c.timezone ?? null,
  };
}

export function insertCompany(tx: Tx, organizationId: string, c: CompanyInput) {
  return tx.insertInto('companies').values(companyValues(organizationId, c)).returning(COMPANY_COLUMNS).executeTakeFirstOrThrow();
}

/** PATCH /companies/{id}: the given fields (undefined: unchanged, null: cleared); a new name renews normalized_name. */
export function updateCompany(
  tx: Tx,
  id: string,
  patch: {
    name?: string;
    address?: string | null;
    website?: string | null;
    phone?: string | null;
    countryCode?: string | null;
    locale?: string | null;
    timezone?: string | null;
  },
) {
  return tx
    .updateTable('companies')
    .set({
      name: patch.name,
      normalized_name: patch.name === undefined ? undefined : normalizeCompanyName(patch.name),
      address: patch.address,
      website: patch.website,
      phone: patch.phone,
      country_code: patch.countryCode,
      locale: patch.locale,
      timezone: patch.timezone,
      updated_at: sql`now()`,
    })
    .where('id', '=', id)
    .returning(COMPANY_COLUMNS)
    .executeTakeFirst();
}

export function getCompany(tx: Tx, id: string) {
  return tx.selectFrom('companies').select(COMPANY_COLUMNS).where('id', '=', id).executeTakeFirst();
}

export interface CompanyFilter {
  organizationId: string;
  q?: string;
  kvkNumber?: string;
  domain?: string;
  limit: number;
  before?: string;
}

/** What the list query is built from: the filter, its name search as a LIKE pattern (q normalized as names are, its wildcards escaped). */
type CompanyListValues = Omit<CompanyFilter, 'q'> & { namePattern?: string };

function listValues({ q, ...f }: CompanyFilter): CompanyListValues {
  return q ? { ...f, namePattern: `%${normalizeCompanyName(q).replace(/[\\%_]/g, (c) => `\\${c}`)}%` } : f;
}

function fromCompanies(tx: Reader, v: CompanyListValues) {
  let q = tx.selectFrom('companies').where('organization_id', '=', v.organizationId);
  if (v.kvkNumber) q = q.where('kvk_number', '=', v.kvkNumber);
  if (v.domain) q = q.where('domain', '=', v.domain);
  if (v.namePattern) q = q.where('normalized_name', 'like', v.namePattern);
  return q;
}

/** The list query, not run (the rows as node reads them; GET /companies answers listCompaniesJson). */
export function listCompanies(tx: Reader, f: CompanyFilter) {
  const v = listValues(f);
  return newestFirst(fromCompanies(tx, v).select(COMPANY_COLUMNS), 'companies', v);
}

const COMPANY_JSON_COLUMNS = jsonColumns(COMPANY_COLUMNS, { timestamps: ['created_at', 'updated_at'] });
const companiesJson = listPerShape(
  (qb: Reader, v: CompanyListValues) => newestFirst(fromCompanies(qb, v).select(COMPANY_JSON_COLUMNS), 'companies', v),
  listValues,
);

/**
 * listCompanies built as JSON in PostgreSQL (GET /companies answers it as it is; readJsonWithRole,
 * db/json-answers.ts), compiled once per shape of the filter (db/query-shapes.ts).
 */
export const listCompaniesJson = companiesJson.perShape;
/** listCompaniesJson compiled afresh on every call. */
export const listCompaniesJsonAfresh = companiesJson.afresh;

/**
 * The company a signal (or an enrichment result) names: by KvK number, then registrable domain,
 * then normalized name; a new one is created when none matches. Returns whether it was created.
 */
export async function matchOrCreateCompany(
  tx: Tx,
  organizationId: string,
  c: CompanyInput,
): Promise<{ company: NonNullable<Awaited<ReturnType<typeof getCompany>>>; created: boolean; matchedBy: string | null }> {
  const values = companyValues(organizationId, c);
  const base = tx.selectFrom('companies').select(COMPANY_COLUMNS).where('organization_id', '=', organizationId);
  const byKvk = values.kvk_number ? await base.where('kvk_number', '=', values.kvk_number).executeTakeFirst() : undefined;
  if (byKvk) return { company: byKvk, created: false, matchedBy: 'kvk_number' };
  const byDomain = values.domain ? await base.where('domain', '=', values.domain).orderBy('created_at').executeTakeFirst() : undefined;
  if (byDomain) return { company: byDomain, created: false, matchedBy: 'domain' };
  const byName = values.normalized_name ? await base.where('normalized_name', '=', values.normalized_name).orderBy('created_at').executeTakeFirst() : undefined;
  if (byName) return { company: byName, created: false, matchedBy: 'normalized_name' };
  const created = await tx
    .insertInto('companies')
    .values(values)
    .onConflict((oc) => oc.columns(['organization_id', 'kvk_number']).where('kvk_number', 'is not', null).doNothing())
    .returning(COMPANY_COLUMNS)
    .executeTakeFirst();
  if (created) return { company: created, created: true, matchedBy: null };
  // Lost a race on the KvK number: the other writer's row is the match.
  return { company: (await base.where('kvk_number', '=', values.kvk_number!).executeTakeFirst())!, created: false, matchedBy: 'kvk_number' };
}

export function setEnrichmentStatus(tx: Tx, id: string, status: 'idle' | 'running' | 'done' | 'failed', error: string | null = null) {
  return tx
    .updateTable('companies')
    .set({ enrichment_status: status, enrichment_error: error, updated_at: sql`now()` })
    .where('id', '=', id)
    .returning(COMPANY_COLUMNS)
    .executeTakeFirst();
}

/** Company facts found by enrichment fill gaps; they never overwrite what a person entered. */
export function fillCompanyGaps(
  tx: Tx,
  id: string,
  facts: { genericEmail?: string | null; phone?: string | null; address?: string | null; domain?: string | null },
) {
  return tx
    .updateTable('companies')
    .set((eb) => ({
      domain: eb.fn.coalesce('domain', sql.val(facts.domain ?? null)),
      generic_email: eb.fn.coalesce('generic_email', sql.val(facts.genericEmail ?? null)),
      phone: eb.fn.coalesce('phone', sql.val(facts.phone ?? null)),
      address: eb.fn.coalesce('address', sql.val(facts.address ?? null)),
      updated_at: sql`now()`,
    }))
    .where('id', '=', id)
    .execute();
}
