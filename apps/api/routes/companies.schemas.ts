import { z } from 'zod';
import { LEGAL_FORM_KEYS, parseLegalForm } from '../../../domain/companies/legal-forms';
import { emptyBody, id, isBcp47, listBase, nullable, recipientKind, record, stamps, timestamp, uuid, type Agrees, type Operation, type Row } from '../contract';
import { companyDomain, countryCode, email, httpUrl, ianaTimezone, kvk, name, optionalText } from '../../../domain/companies/fields';
import type { getCompany } from '../../../db/queries/companies';
import type { listEnrichmentRuns } from '../../../db/queries/enrichment';

/**
 * The HTTP contract of apps/api/routes/companies.ts: companies and their enrichment. Its request
 * schemas, the records it answers (registered with `record`) and its operations, which
 * apps/api/openapi.ts assembles into the OpenAPI document.
 */

/** A legal form as people write it ("B.V.", "b.v.", "GmbH", "Ltd.", "sole trader"), answered as its canonical key ("bv"). */
export const legalForm = z
  .string()
  .max(60)
  .transform((v, ctx) => {
    const row = parseLegalForm(v);
    if (row) return row.key;
    ctx.addIssue({ code: 'custom', message: `is not a known legal form (for example: ${LEGAL_FORM_KEYS.join(', ')})` });
    return z.NEVER;
  });

export const createCompanyBody = z
  .object({
    organizationId: uuid,
    name,
    domain: companyDomain.optional(),
    kvkNumber: kvk.optional(),
    address: optionalText(500),
    website: httpUrl.optional(),
    genericEmail: email.optional(),
    phone: z.string().trim().max(40).optional(),
    countryCode: countryCode.optional(),
    locale: z.string().refine(isBcp47, 'must be a BCP 47 language tag such as nl-NL').optional(),
    legalForm: legalForm.optional(),
    sbiCodes: z
      .array(z.string().regex(/^\d{2,5}$/, 'must be an SBI code of 2 to 5 digits'))
      .max(20)
      .optional(),
    timezone: ianaTimezone.optional(),
  })
  .strict();

/** PATCH /companies/{companyId}: fields of POST /companies but organizationId and the identity keys (domain, kvkNumber); `null` clears an optional one. */
export const patchCompanyBody = z
  .object({
    name: name.optional(),
    address: z.string().trim().min(1).max(500).nullable().optional(),
    website: httpUrl.nullable().optional(),
    phone: z.string().trim().min(1).max(40).nullable().optional(),
    countryCode: countryCode.nullable().optional(),
    locale: z.string().refine(isBcp47, 'must be a BCP 47 language tag such as nl-NL').nullable().optional(),
    timezone: ianaTimezone.nullable().optional(),
  })
  .strict()
  .refine((v) => Object.values(v).some((x) => x !== undefined), 'must change at least one field');

export const listCompaniesQuery = z
  .object({ ...listBase, q: z.string().trim().min(1).max(200).optional(), kvkNumber: kvk.optional(), domain: z.string().max(253).optional() })
  .strict();

export const Company = record(
  'Company',
  'A company, its identity (KvK number, registrable domain) and enrichment state',
  z.object({
    id,
    organization_id: id,
    name: z.string(),
    normalized_name: z.string(),
    domain: nullable(z.string()),
    kvk_number: nullable(z.string()),
    address: nullable(z.string()),
    website: nullable(z.string()),
    generic_email: nullable(z.string()),
    phone: nullable(z.string()).describe('E.164'),
    enrichment_status: z.enum(['idle', 'running', 'done', 'failed']),
    enrichment_error: nullable(z.string()),
    country_code: nullable(z.string()),
    locale: nullable(z.string()),
    recipient_kind: recipientKind,
    legal_form: nullable(z.string()),
    sbi_codes: z.array(z.string()),
    timezone: nullable(z.string()).describe('IANA time zone of the company (recipient time)'),
    ...stamps,
  }),
);

export const enrichmentRunsQuery = z.object({ limit: z.coerce.number().int().min(1).max(50).default(20) }).strict();

export const EnrichmentRun = record(
  'EnrichmentRun',
  'One enrichment of a company: its steps in the order tried (the website, then the providers), what each found, how many of its addresses the check made valid, what it cost and why it failed',
  z.object({
    id,
    organization_id: id,
    company_id: id,
    status: z.enum(['running', 'done', 'failed']),
    stop_at: z.enum(['valid', 'risky']),
    stopped_at_step: nullable(z.number().int()).describe('The step whose address was good enough to stop; null when every step was tried'),
    started_at: timestamp,
    finished_at: nullable(timestamp),
    steps: z.array(
      z.object({
        position: z.number().int(),
        provider: z.string().describe('website, hunter, dropcontact or apollo'),
        integration_id: nullable(id),
        status: z.enum(['pending', 'running', 'done', 'failed', 'skipped']).describe('skipped: an earlier step stopped the run'),
        found: z.number().int().describe('Addresses this step found (new contacts with one, or known people given one)'),
        verified: z.number().int().describe('Of those, how many the check found valid'),
        cost_units: z.number().describe('What the step cost at the provider, in its own units (Hunter searches, Dropcontact and Apollo credits)'),
        error: nullable(z.string()),
        started_at: nullable(timestamp),
        finished_at: nullable(timestamp),
      }),
    ),
  }),
);

/** Fails to compile, naming the fields, when a query's column list and its response schema drift apart. */
export const ROWS_MATCH: {
  Company: Agrees<Row<typeof getCompany>, typeof Company>;
  EnrichmentRun: Agrees<Row<typeof listEnrichmentRuns>[number], typeof EnrichmentRun>;
} = { Company: true, EnrichmentRun: true };

export const operations = [
  {
    id: 'createCompany',
    method: 'post',
    path: '/companies',
    tag: 'Companies',
    summary: 'Create a company (409 when its KvK number exists)',
    role: 'member',
    body: createCompanyBody,
    status: 201,
    answer: Company,
    problems: [409],
  },
  {
    id: 'listCompanies',
    method: 'get',
    path: '/companies',
    tag: 'Companies',
    summary: 'List companies',
    role: 'viewer',
    query: listCompaniesQuery,
    answer: z.array(Company),
  },
  { id: 'getCompany', method: 'get', path: '/companies/{companyId}', tag: 'Companies', summary: 'One company', role: 'viewer', answer: Company },
  {
    id: 'patchCompany',
    method: 'patch',
    path: '/companies/{companyId}',
    tag: 'Companies',
    summary:
      'Change name, address, website, phone, country, locale or time zone (timezone: IANA, the recipient time of its contacts); null clears an optional field',
    role: 'member',
    body: patchCompanyBody,
    answer: Company,
  },
  {
    id: 'enrichCompany',
    method: 'post',
    path: '/companies/{companyId}/enrich',
    tag: 'Companies',
    summary: 'Start contact enrichment (answers the company, enrichment_status running)',
    role: 'member',
    body: emptyBody,
    status: 202,
    answer: Company,
  },
  {
    id: 'listEnrichmentRuns',
    method: 'get',
    path: '/companies/{companyId}/enrichment-runs',
    tag: 'Companies',
    summary: "The company's enrichment runs, newest first, each with its steps ({provider, found, verified, cost_units, error})",
    role: 'viewer',
    query: enrichmentRunsQuery,
    answer: z.array(EnrichmentRun),
  },
] as const satisfies readonly Operation[];
