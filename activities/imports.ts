import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import type { z } from 'zod';
import { importRowSchema } from '../domain/imports/row';
import { addressSuppressionKeys } from '../db/queries/compliance/suppressions';
import { companyValues } from '../db/queries/companies';
import {
  companiesByKvk,
  companyCandidates,
  type ContactGaps,
  contactsByEmail,
  fillContactGaps,
  insertCompanies,
  insertContacts,
  type NewCompany,
  type NewContact,
  suppressionKeysFound,
} from '../db/queries/import-batch';
import { failImport, ImportError, ImportSkip, lockImport, markRowsImported, recordImportChunk, stagedChunk } from '../db/queries/imports';
import { asOrganization, Tx } from '../db/tenancy';
import type { DB } from '../db/pool';
import { siteDomain } from '../domain/companies/domains';
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
  | { kind: 'imported'; createdCompany: boolean; createdContact: boolean; contactId: string };

const keyOf = (k: { scope: string; value: string }) => `${k.scope} ${k.value}`;
const emailErasure = (email: string) => erasureMarkers({ companyId: '', fullName: null, email });
const parseRow = (fields: ImportRowFields) => importRowSchema.safeParse({ ...fields, country: fields.country?.toUpperCase() });
type ParsedRow = z.infer<typeof importRowSchema>;

/** A contact the chunk knows: found in the database or made by an earlier row of the chunk. */
interface KnownContact {
  id: string;
  companyId: string;
  email: string;
  erased: boolean;
  /** Made by this chunk (inserted at its end), else found (its gaps filled at the end). */
  fresh: NewContact | null;
}

/**
 * One chunk's rows, in file order, with the same outcome each would have had through the checks of
 * the single-record endpoints one by one (the field schemas of POST /contacts and POST /companies,
 * erasure markers and suppressions, companies by enrichment's identity rules: KvK number, domain,
 * normalized name; the contact by e-mail only, its missing fields filled as enrichment's upsert does), but
 * decided in TypeScript over what a few set-based statements read, then written with one INSERT of
 * companies, one INSERT of contacts and one UPDATE of found contacts (db/queries/import-batch.ts).
 * About ten statements per chunk, whatever its size, instead of about five per row.
 */
async function importRows(
  tx: Tx,
  imp: { organization_id: string; source_description: string; dedupe: string },
  staged: Array<{ n: number; fields: unknown; duplicate: unknown }>,
) {
  const org = imp.organization_id;
  const outcomes: RowOutcome[] = new Array(staged.length);
  // 1. Fields, in TypeScript.
  const parsed: Array<ParsedRow | null> = staged.map((r, i) => {
    const p = parseRow(r.fields as ImportRowFields);
    if (!p.success) {
      const issues = p.error.issues.map((x) => ({ field: String(x.path[0] ?? 'row'), message: x.message }));
      if (issues.some((x) => x.field === 'full_name')) outcomes[i] = { kind: 'skipped', reason: 'missing_name' };
      else if (issues.some((x) => x.field === 'email')) outcomes[i] = { kind: 'skipped', reason: 'invalid_email' };
      else outcomes[i] = { kind: 'errors', errors: issues };
      return null;
    }
    if (r.duplicate) {
      outcomes[i] = { kind: 'skipped', reason: 'duplicate_in_file' };
      return null;
    }
    return p.data;
  });
  const emailOf = (row: ParsedRow) => row.email?.toLowerCase() ?? null;
  const emails = [...new Set(parsed.flatMap((r) => (r && r.email ? [emailOf(r)!] : [])))];

  // 2. Suppressions and e-mail erasure markers of the chunk's addresses (one query), and the contacts with those addresses (one query).
  const found = new Set(
    (
      await suppressionKeysFound(
        tx,
        org,
        emails.flatMap((e) => [...emailErasure(e), ...addressSuppressionKeys(e)]),
      )
    ).map(keyOf),
  );
  const byEmail = new Map<string, KnownContact>();
  const know = (c: KnownContact) => {
    if (!byEmail.has(c.email)) byEmail.set(c.email, c);
  };
  for (const c of await contactsByEmail(tx, org, emails))
    if (c.email) know({ id: c.id, companyId: c.company_id, email: c.email, erased: c.erased, fresh: null });

  // 3. What each row's company is (identity) and the rows that stop before it.
  let wanted: Array<{ i: number; row: ParsedRow; email: string | null; phone: string | null; values: NewCompany; identityKey: string }> = [];
  parsed.forEach((row, i) => {
    if (!row) return;
    const email = emailOf(row);
    if (email && emailErasure(email).some((k) => found.has(keyOf(k)))) return void (outcomes[i] = { kind: 'skipped', reason: 'erased' });
    if (email && addressSuppressionKeys(email).some((k) => found.has(keyOf(k)))) return void (outcomes[i] = { kind: 'skipped', reason: 'suppressed' });
    const companyName = row.company ?? row.domain ?? (row.website ? new URL(row.website).hostname.replace(/^www\./, '') : undefined);
    if (!companyName) return void (outcomes[i] = { kind: 'errors', errors: [{ field: 'company', message: 'is required: a company name, domain or website' }] });
    const phone = row.phone ? toE164(row.phone, row.country ?? 'NL') : null;
    if (row.phone && !phone) return void (outcomes[i] = { kind: 'errors', errors: [{ field: 'phone', message: 'is not a valid phone number' }] });
    if (imp.dedupe === 'none' && email && byEmail.has(email)) {
      return void (outcomes[i] = { kind: 'errors', errors: [{ field: 'email', message: 'A contact with this e-mail address exists' }] });
    }
    const identity = {
      name: companyName,
      domain: row.domain ?? null,
      website: row.website ?? null,
      kvkNumber: row.kvk_number ?? null,
      countryCode: row.country ?? null,
    };
    const values = { ...companyValues(org, identity), id: '' };
    wanted.push({ i, row, email, phone, values, identityKey: JSON.stringify(identity) });
  });

  // 4. Companies: the candidates any row could match (one query), matched in row order by KvK number,
  //    then domain, then normalized name, the oldest first; a company made by an earlier row is matched too.
  const candidates = await companyCandidates(tx, org, {
    kvkNumbers: [...new Set(wanted.flatMap((w) => (w.values.kvk_number ? [w.values.kvk_number] : [])))],
    domains: [...new Set(wanted.flatMap((w) => (w.values.domain ? [w.values.domain] : [])))],
    names: [...new Set(wanted.flatMap((w) => (w.values.normalized_name ? [w.values.normalized_name] : [])))],
  });
  const companyBy = { kvk: new Map<string, string>(), domain: new Map<string, string>(), name: new Map<string, string>() };
  const indexCompany = (c: { id: string; kvk_number: string | null; domain: string | null; normalized_name: string }) => {
    if (c.kvk_number && !companyBy.kvk.has(c.kvk_number)) companyBy.kvk.set(c.kvk_number, c.id);
    if (c.domain && !companyBy.domain.has(c.domain)) companyBy.domain.set(c.domain, c.id);
    if (c.normalized_name && !companyBy.name.has(c.normalized_name)) companyBy.name.set(c.normalized_name, c.id);
  };
  candidates.forEach(indexCompany);
  const existingCompanies = new Set(candidates.map((c) => c.id));
  const byIdentity = new Map<string, string>();
  let newCompanies: NewCompany[] = [];
  const companyOf: Array<{ id: string; created: boolean }> = new Array(staged.length);
  for (const w of wanted) {
    const v = w.values;
    let id = byIdentity.get(w.identityKey);
    let created = false;
    if (!id) {
      id =
        (v.kvk_number && companyBy.kvk.get(v.kvk_number)) ||
        (v.domain && companyBy.domain.get(v.domain)) ||
        (v.normalized_name && companyBy.name.get(v.normalized_name)) ||
        undefined;
      if (!id) {
        id = randomUUID();
        created = true;
        newCompanies.push({ ...v, id });
        indexCompany({ ...v, id });
      }
      byIdentity.set(w.identityKey, id);
    }
    companyOf[w.i] = { id, created };
  }
  // 4b. The suppressions of each row's company, found or new (its domain, its site's domain, its KvK
  //     number; one query): the send-time gate would block the row's contact, so the row is skipped
  //     as suppressed, and a new company only such rows needed is not made.
  const companyKeys = (c: { domain: string | null; website: string | null; kvk_number: string | null }) => [
    ...(c.domain ? [{ scope: 'domain', value: c.domain }] : []),
    ...(c.website && siteDomain(c.website) ? [{ scope: 'domain', value: siteDomain(c.website)! }] : []),
    ...(c.kvk_number ? [{ scope: 'kvk_number', value: c.kvk_number }] : []),
  ];
  const companyById = new Map([...candidates, ...newCompanies].map((c) => [c.id, c]));
  const usedCompanies = [...new Set(wanted.map((w) => companyOf[w.i]!.id))].map((id) => companyById.get(id)!);
  const companyHits = new Set((await suppressionKeysFound(tx, org, usedCompanies.flatMap(companyKeys))).map(keyOf));
  const suppressedCompanies = new Set(usedCompanies.filter((c) => companyKeys(c).some((k) => companyHits.has(keyOf(k)))).map((c) => c.id));
  if (suppressedCompanies.size) {
    wanted = wanted.filter((w) => {
      if (!suppressedCompanies.has(companyOf[w.i]!.id)) return true;
      outcomes[w.i] = { kind: 'skipped', reason: 'suppressed' };
      return false;
    });
    newCompanies = newCompanies.filter((c) => !suppressedCompanies.has(c.id));
  }
  // 5. The erasure markers of these people by name within the companies that existed before (one
  //    query each time): a company made by this chunk has none. Looked up here, before the duplicates, so
  //    an erased person's row takes no address from a later one; again after the insert for the rows
  //    whose company turned out to exist (another writer's KvK number).
  const erasedPerson = (companyId: string, fullName: string) => erasureMarkers({ companyId, fullName, email: null }).some((k) => found.has(keyOf(k)));
  const contactOf = (w: (typeof wanted)[number]) => (imp.dedupe === 'none' || !w.email ? undefined : byEmail.get(w.email));
  const findErasedPeople = async () => {
    const markers = wanted
      .filter((w) => existingCompanies.has(companyOf[w.i]!.id))
      .flatMap((w) => erasureMarkers({ companyId: companyOf[w.i]!.id, fullName: w.row.full_name, email: null }));
    for (const s of await suppressionKeysFound(tx, org, markers)) found.add(keyOf(s));
  };
  const skipErased = () =>
    (wanted = wanted.filter((w) => {
      if (!contactOf(w)?.erased && !erasedPerson(companyOf[w.i]!.id, w.row.full_name)) return true;
      outcomes[w.i] = { kind: 'skipped', reason: 'erased' };
      return false;
    }));
  await findErasedPeople();
  skipErased();
  // A later row of the chunk with the address of a row still kept: duplicate_in_file (those of earlier
  // chunks come flagged). Decided after the company suppressions and the erasures, so a row skipped for
  // either does not take the address from a later one; a company only a duplicate row would have made is not made.
  const taken = new Set<string>();
  wanted = wanted.filter((w) => {
    if (!w.email) return true;
    if (taken.has(w.email)) {
      outcomes[w.i] = { kind: 'skipped', reason: 'duplicate_in_file' };
      return false;
    }
    taken.add(w.email);
    return true;
  });
  const stillUsed = new Set(wanted.map((w) => companyOf[w.i]!.id));
  newCompanies = newCompanies.filter((c) => stillUsed.has(c.id));
  // The first row kept that uses a new company is the one that made it.
  const made = new Set(newCompanies.map((c) => c.id));
  for (const w of wanted) {
    const id = companyOf[w.i]!.id;
    companyOf[w.i] = { id, created: made.delete(id) };
  }
  const inserted = await insertCompanies(tx, newCompanies);
  const lost = newCompanies.filter((c) => !inserted.has(c.id));
  if (lost.length) {
    // Another writer took these KvK numbers meanwhile: its company is the match (as matchOrCreateCompany does).
    const theirs = new Map(
      (
        await companiesByKvk(
          tx,
          org,
          lost.map((c) => c.kvk_number!),
        )
      ).map((c) => [c.kvk_number!, c.id]),
    );
    const remap = new Map(lost.map((c) => [c.id, theirs.get(c.kvk_number!)!]));
    for (const w of wanted) {
      const to = remap.get(companyOf[w.i]!.id);
      if (to) {
        companyOf[w.i] = { id: to, created: false };
        existingCompanies.add(to);
      }
    }
  }

  if (lost.length) {
    await findErasedPeople();
    skipErased();
  }

  // 6. Each row's contact, in row order: the one with its address (its gaps filled), else a new one. A
  //    contact is matched by e-mail only: a known name with another address, or with none, is another contact.
  const newContacts: NewContact[] = [];
  const gaps = new Map<string, ContactGaps>();
  for (const w of wanted) {
    const { row, email } = w;
    const company = companyOf[w.i]!;
    // The timezone column: checked (IANA, canonical spelling) by importRowSchema as POST /contacts checks it.
    const fields = { title: row.title ?? null, email, phone: w.phone, linkedin_url: row.linkedin_url ?? null, timezone: row.timezone ?? null };
    const existing = contactOf(w);
    if (existing) {
      // Only the fields it lacked: what the database holds first, then the earliest row's.
      const target: { title: string | null; phone: string | null; linkedin_url: string | null; timezone: string | null } =
        existing.fresh ??
        gaps.get(existing.id) ??
        (gaps.set(existing.id, { id: existing.id, title: null, email: null, phone: null, linkedin_url: null, timezone: null }).get(existing.id) as ContactGaps);
      target.title ??= fields.title;
      target.phone ??= fields.phone;
      target.linkedin_url ??= fields.linkedin_url;
      target.timezone ??= fields.timezone;
      outcomes[w.i] = { kind: 'imported', createdCompany: company.created, createdContact: false, contactId: existing.id };
      continue;
    }
    const fresh: NewContact = { id: randomUUID(), company_id: company.id, full_name: row.full_name, ...fields };
    newContacts.push(fresh);
    if (email) know({ id: fresh.id, companyId: company.id, email, erased: false, fresh });
    outcomes[w.i] = { kind: 'imported', createdCompany: company.created, createdContact: true, contactId: fresh.id };
  }
  await insertContacts(tx, org, imp.source_description, newContacts);
  const updated = await fillContactGaps(tx, [...gaps.values()]);
  // A found contact erased while the chunk ran (its update re-checks): its rows are skipped as erased.
  outcomes.forEach((o, i) => {
    if (o.kind === 'imported' && !o.createdContact && gaps.has(o.contactId) && !updated.has(o.contactId)) outcomes[i] = { kind: 'skipped', reason: 'erased' };
  });
  return outcomes;
}

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
        const outcomes = await importRows(tx, imp, rows);
        await markRowsImported(
          tx,
          ref.organizationId,
          ref.importId,
          outcomes.flatMap((o, i) => (o.kind === 'imported' ? [rows[i]!.n] : [])),
        );
        const skipped: ImportSkip[] = [];
        const errors: ImportError[] = [];
        let createdCompanies = 0;
        let createdContacts = 0;
        let updatedContacts = 0;
        outcomes.forEach((outcome, i) => {
          const row = displayRow(rows[i]!.n);
          if (outcome.kind === 'skipped') skipped.push({ row, reason: outcome.reason });
          else if (outcome.kind === 'errors') errors.push(...outcome.errors.map((e) => ({ row, ...e })));
          else {
            if (outcome.createdCompany) createdCompanies++;
            if (outcome.createdContact) createdContacts++;
            else updatedContacts++;
          }
        });
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
