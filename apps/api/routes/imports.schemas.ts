import { z } from 'zod';
import { id, listBase, nullable, record, timestamp, uuid, type Operation } from '../contract';

/**
 * The HTTP contract of apps/api/routes/imports.ts: contact imports from CSV. Its request schemas, the
 * records it answers (registered with `record`) and its operations, which apps/api/openapi.ts
 * assembles into the OpenAPI document.
 */

export const createImportQuery = z
  .object({
    organizationId: uuid,
    sourceDescription: z.string().trim().min(1, 'must say where the data comes from (Art. 14 notice)').max(1000),
    dedupe: z.enum(['organization', 'none']).default('organization'),
  })
  .strict();

export const listImportsQuery = z.object(listBase).strict();

export const Import = record(
  'Import',
  'A contact import from a CSV file: its progress, what it created and updated, the rows it skipped and refused (the first 1,000 of each)',
  z.object({
    id,
    organization_id: id,
    status: z.enum(['running', 'completed', 'failed']),
    total_rows: z.number().int(),
    processed_rows: z.number().int(),
    created_companies: z.number().int(),
    created_contacts: z.number().int(),
    updated_contacts: z.number().int(),
    skipped: z.array(
      z.object({
        row: z.number().int().describe('the header is row 1'),
        reason: z.enum(['suppressed', 'erased', 'invalid_email', 'duplicate_in_file', 'missing_name']),
      }),
    ),
    errors: z.array(z.object({ row: z.number().int(), field: z.string(), message: z.string() })),
    source_description: z.string().describe('where the data comes from (the Art. 14 notice), recorded on every imported contact'),
    workflow_id: z.string(),
    created_by: nullable(id),
    created_at: timestamp,
    finished_at: nullable(timestamp),
  }),
);

export const operations = [
  {
    id: 'createImport',
    method: 'post',
    path: '/imports',
    tag: 'Contacts',
    summary:
      'Import contacts from a CSV file (text/csv: UTF-8 with or without a BOM, UTF-16 with a BOM, or Windows-1252; header row, `,` or `;`, 20 MB and 200,000 rows at most; 408 when the upload stalls past IMPORT_IDLE_TIMEOUT_MS or takes over 10 minutes in all; 429 while four uploads of the organization are being received): a durable run in chunks, every row through the checks of POST /contacts and POST /companies (202, running)',
    role: 'member',
    query: createImportQuery,
    raw: {
      media: 'text/csv',
      description:
        'The CSV file: a header row (full_name or name or first_name + last_name, email, title, phone, linkedin_url, company, domain, website, kvk_number, country, timezone), one row per contact',
    },
    status: 202,
    answer: Import,
    problems: [408],
  },
  {
    id: 'listImports',
    method: 'get',
    path: '/imports',
    tag: 'Contacts',
    summary: 'List contact imports',
    role: 'viewer',
    query: listImportsQuery,
    answer: z.array(Import),
  },
  {
    id: 'getImport',
    method: 'get',
    path: '/imports/{importId}',
    tag: 'Contacts',
    summary: 'One contact import and its progress',
    role: 'viewer',
    answer: Import,
  },
] as const satisfies readonly Operation[];
