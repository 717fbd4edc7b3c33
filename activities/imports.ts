import { ApplicationFailure } from '@temporalio/activity';
import { sql } from 'kysely';
import { importRowSchema } from '../apps/api/schemas';
import { findSuppressions, wasErased } from '../db/queries/compliance';
import { addressSuppressionKeys } from '../db/queries/compliance/suppressions';
import { matchOrCreateCompany } from '../db/queries/companies';
import { insertContact, upsertContact } from '../db/queries/contacts';
import { failImport, ImportError, ImportSkip, lockImport, recordImportChunk, stagedChunk } from '../db/queries/imports';
import { asOrganization, Tx } from '../db/tenancy';
import type { DB } from '../db/pool';
import { toE164 } from '../domain/companies/identity';
import { erasureMarkers } from '../domain/compliance/erasure';
import { displayRow, IMPORT_LIST_LIMIT, type ImportRowFields, type ImportSkipReason } from '../domain/imports/csv';

export interface ImportRef {
  organizationId: string;
  importId: string;
}

export interface ChunkProgress {
  processedRows: number;
  totalRows: number;
  done: boolean;
}

type RowOutcome =
  | { kind: 'skipped'; reason: ImportSkipReason }
  | { kind: 'errors'; errors: Array<{ field: string; message: string }> }
  | { kind: 'imported'; createdCompany: boolean; createdContact: boolean };

/** What a chunk looks up once for all its rows: the suppressions and erasure markers of its addresses, the companies matched so far. */
interface ChunkContext {
  /** `scope value` of every suppression (and e-mail erasure marker) that matches an address of the chunk. */
  found: Set<string>;
  companies: Map<string, Awaited<ReturnType<typeof matchOrCreateCompany>>['company']>;
}
const keyOf = (k: { scope: string; value: string }) => `${k.scope} ${k.value}`;
const emailErasure = (email: string) => erasureMarkers({ companyId: '', fullName: null, email });

/** The chunk's addresses' suppressions and e-mail erasure markers, in one query (findSuppressions, the keys of addressSuppressed and wasErased). */
async function chunkContext(tx: Tx, organizationId: string, emails: string[]): Promise<ChunkContext> {
  const keys = emails.flatMap((e) => [...emailErasure(e), ...addressSuppressionKeys(e)]);
  const found = await findSuppressions(tx, organizationId, keys);
  return { found: new Set(found.map(keyOf)), companies: new Map() };
}

/**
 * One row through the checks of the single-record endpoints: the field schemas of POST /contacts and
 * POST /companies (apps/api/schemas.ts importRowSchema), erasure markers and suppressions (the keys
 * wasErased and addressSuppressed look for), the company by enrichment's identity rules (KvK number,
 * domain, normalized name), the contact by e-mail within the organization (enrichment's upsert).
 */
async function importRow(tx: Tx, imp: { organization_id: string; source_description: string; dedupe: string }, ctx: ChunkContext, fields: ImportRowFields, duplicate: boolean): Promise<RowOutcome> {
  const parsed = parseRow(fields);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({ field: String(i.path[0] ?? 'row'), message: i.message }));
    if (issues.some((i) => i.field === 'full_name')) return { kind: 'skipped', reason: 'missing_name' };
    if (issues.some((i) => i.field === 'email')) return { kind: 'skipped', reason: 'invalid_email' };
    return { kind: 'errors', errors: issues };
  }
  const row = parsed.data;
  const email = row.email?.toLowerCase() ?? null;
  if (duplicate) return { kind: 'skipped', reason: 'duplicate_in_file' };
  const org = imp.organization_id;
  if (email && emailErasure(email).some((k) => ctx.found.has(keyOf(k)))) return { kind: 'skipped', reason: 'erased' };
  if (email && addressSuppressionKeys(email).some((k) => ctx.found.has(keyOf(k)))) return { kind: 'skipped', reason: 'suppressed' };
  const companyName = row.company ?? row.domain ?? (row.website ? new URL(row.website).hostname.replace(/^www\./, '') : undefined);
  if (!companyName) return { kind: 'errors', errors: [{ field: 'company', message: 'is required: a company name, domain or website' }] };
  const phone = row.phone ? toE164(row.phone, row.country ?? 'NL') : null;
  if (row.phone && !phone) return { kind: 'errors', errors: [{ field: 'phone', message: 'is not a valid phone number' }] };
  if (imp.dedupe === 'none' && email) {
    const same = await tx.selectFrom('contacts').select('id').where('organization_id', '=', org).where(sql`lower(email)`, '=', email).executeTakeFirst();
    if (same) return { kind: 'errors', errors: [{ field: 'email', message: 'A contact with this e-mail address exists' }] };
  }
  const identity = { name: companyName, domain: row.domain ?? null, website: row.website ?? null, kvkNumber: row.kvk_number ?? null, countryCode: row.country ?? null };
  const identityKey = JSON.stringify(identity);
  let company = ctx.companies.get(identityKey);
  let createdCompany = false;
  if (!company) {
    ({ company, created: createdCompany } = await matchOrCreateCompany(tx, org, identity));
    ctx.companies.set(identityKey, company);
  }
  const contact = {
    companyId: company.id,
    fullName: row.full_name,
    title: row.title ?? null,
    email,
    phone,
    linkedinUrl: row.linkedin_url ?? null,
    sourceDescription: imp.source_description,
    dataSource: 'import',
  };
  if (imp.dedupe === 'none') {
    if (await wasErased(tx, org, { companyId: company.id, fullName: row.full_name, email })) return { kind: 'skipped', reason: 'erased' };
    await insertContact(tx, org, contact);
    return { kind: 'imported', createdCompany, createdContact: true };
  }
  const upserted = await upsertContact(tx, org, contact);
  if (!upserted) return { kind: 'skipped', reason: 'erased' };
  return { kind: 'imported', createdCompany, createdContact: upserted.created };
}

const parseRow = (fields: ImportRowFields) => importRowSchema.safeParse({ ...fields, country: fields.country?.toUpperCase() });

export function createImportActivities(deps: { db: DB }) {
  const { db } = deps;
  return {
    /**
     * Imports the staged rows n in [offset, offset + limit) in ONE transaction that also moves the
     * import's processed_rows to their end: a worker killed in the middle leaves nothing of the chunk,
     * and a retry of a chunk already recorded (its answer lost) changes nothing and answers the
     * progress. The import row is locked, so one chunk of an import runs at a time.
     */
    async importChunk(ref: ImportRef & { offset: number; limit: number }): Promise<ChunkProgress> {
      return asOrganization(db, ref.organizationId, async (tx) => {
        const imp = await lockImport(tx, ref.importId);
        // Not (yet) visible: the API starts the run inside the transaction that stores the file.
        if (!imp) throw ApplicationFailure.retryable(`import ${ref.importId} not found`, 'ImportNotReady');
        if (imp.status !== 'running' || imp.processed_rows !== ref.offset) {
          return { processedRows: imp.processed_rows, totalRows: imp.total_rows, done: imp.status !== 'running' };
        }
        const rows = await stagedChunk(tx, ref.organizationId, ref.importId, ref.offset, ref.limit);
        const emails = rows.flatMap((r) => {
          const parsed = parseRow(r.fields as ImportRowFields);
          return parsed.success && parsed.data.email ? [parsed.data.email.toLowerCase()] : [];
        });
        const ctx = await chunkContext(tx, ref.organizationId, emails);
        const skipped: ImportSkip[] = [];
        const errors: ImportError[] = [];
        let createdCompanies = 0;
        let createdContacts = 0;
        let updatedContacts = 0;
        for (const r of rows) {
          const outcome = await importRow(tx, imp, ctx, r.fields as ImportRowFields, Boolean(r.duplicate));
          const row = displayRow(r.n);
          if (outcome.kind === 'skipped') skipped.push({ row, reason: outcome.reason });
          else if (outcome.kind === 'errors') errors.push(...outcome.errors.map((e) => ({ row, ...e })));
          else {
            if (outcome.createdCompany) createdCompanies++;
            if (outcome.createdContact) createdContacts++;
            else updatedContacts++;
          }
        }
        const processedRows = Math.min(ref.offset + ref.limit, imp.total_rows);
        const done = processedRows >= imp.total_rows;
        const keep = IMPORT_LIST_LIMIT;
        const existing = { skipped: (imp.skipped as unknown[]).length, errors: (imp.errors as unknown[]).length };
        await recordImportChunk(tx, ref.importId, {
          processedRows,
          done,
          createdCompanies,
          createdContacts,
          updatedContacts,
          skipped: skipped.slice(0, Math.max(0, keep - existing.skipped)),
          errors: errors.slice(0, Math.max(0, keep - existing.errors)),
          keep,
        });
        return { processedRows, totalRows: imp.total_rows, done };
      });
    },

    /** The run gave up (its retries ran out): the import ends failed, with the reason in `errors`. */
    async failImport(ref: ImportRef & { message: string }): Promise<void> {
      await asOrganization(db, ref.organizationId, (tx) => failImport(tx, ref.importId, ref.message.slice(0, 500)));
    },
  };
}
