import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { pipeline, Readable } from 'node:stream';
import type { Request, Response } from 'express';
import { Router } from 'express';
import type { z } from 'zod';
import { idempotentRawPosts } from '../idempotency';
import { CsvError, parse } from 'csv-parse';
import pLimit from 'p-limit';
import { getImport, insertImport, listImports, setImportTotal, stageImportRows, type ImportError } from '../../../db/queries/imports';
import { detectDelimiter, emailKey, headerNamesPerson, mapHeader, rowFields, displayRow, IMPORT_LIST_LIMIT } from '../../../domain/imports/csv';
import { workflowIds } from '../../../workflows/search-attributes';
import { userOf, visibleOr404, withRole } from '../access';
import { ProblemError, validationFailed } from '../errors';
import type { ApiDeps } from '../deps';
import { bind } from '../bind';
import { createImportQuery, operations } from './imports.schemas';
import type { Role } from '../contract';
import { pathId, rejectUnsafeInput, unsafeTextReason } from '../validate';

/** The largest CSV file POST /imports takes. */
export const IMPORT_MAX_BYTES = 20 * 1024 * 1024;
/** The most data rows one file may hold: a 20 MB file of spreadsheet rows is about this many; a file of near-empty lines is refused. */
export const IMPORT_MAX_ROWS = 200_000;
/** How long an upload may send nothing before it is cut off (IMPORT_IDLE_TIMEOUT_MS). */
export const DEFAULT_IMPORT_IDLE_TIMEOUT_MS = 30_000;
/** How long an upload may take in all: 20 MB at a slow 50 kB/s, with room to spare. */
export const DEFAULT_IMPORT_UPLOAD_TIMEOUT_MS = 10 * 60_000;
/** Uploads of one organization an API process receives at once: each holds a socket, a file and disk space. */
export const DEFAULT_MAX_UPLOADS_PER_ORGANIZATION = 4;
/**
 * Received files an API process checks and copies into the database at once, whatever their
 * organizations: each holds a pooled connection for its whole copy, and the pool serves every request.
 */
export const DEFAULT_MAX_CONCURRENT_IMPORT_STORES = 2;
/** The longest record (a row of a spreadsheet is far shorter); csv-parse refuses a longer one. */
const MAX_RECORD_BYTES = 64 * 1024;
/** Parsed records staged per INSERT. */
const STAGE_BATCH = 1000;
/** How far the header line is looked for to tell `,` from `;`. */
const HEADER_SCAN_CHARS = 64 * 1024;

class TooLargeError extends Error {}
class TooManyRowsError extends Error {}
class IdleError extends Error {}
class UploadTimeoutError extends Error {}

const tooLarge = () => new ProblemError('PAYLOAD_TOO_LARGE', 'The CSV file exceeds 20 MB');

/** An upload received in full, on local disk: its bytes' hash (for an Idempotency-Key) and how its text is encoded. */
interface Upload {
  dir: string;
  file: string;
  sha256: Buffer;
  encoding: 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';
  /** Bytes of the byte order mark the text starts after. */
  bomBytes: number;
}

/**
 * The request body's chunks, each awaited at most `idleMs`: a client that sends nothing for that long
 * gets IdleError, one still sending at `deadline` (a trickle) UploadTimeoutError. The read it leaves
 * pending ends when the connection closes.
 */
async function* withIdleTimeout(req: Request, idleMs: number, deadline: number): AsyncGenerator<Buffer> {
  const chunks = (req as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const next = chunks.next();
    next.catch(() => undefined);
    // The sooner of the idle time and what is left of the upload's whole time.
    const left = deadline - Date.now();
    const idle = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(left < idleMs ? new UploadTimeoutError() : new IdleError()), Math.max(0, Math.min(idleMs, left)));
    });
    try {
      const got = await Promise.race([next, idle]);
      if (got.done) return;
      yield got.value;
    } finally {
      clearTimeout(timer);
    }
  }
}

async function write(out: WriteStream, chunk: Buffer | string): Promise<void> {
  if (!out.write(chunk)) await once(out, 'drain');
}

/**
 * Receives the whole body onto local disk, with no database connection held: at the client's pace,
 * refused past `maxBytes`, cut off after `idleMs` without a byte. Decides the text's encoding: a BOM
 * (UTF-8, UTF-16LE, UTF-16BE), else UTF-8 when every byte sequence is valid UTF-8, else Windows-1252
 * (Excel's "CSV" on Western European Windows).
 */
async function receiveUpload(req: Request, dir: string, maxBytes: number, idleMs: number, deadline: number): Promise<Upload> {
  const file = path.join(dir, 'upload.csv');
  const out = createWriteStream(file);
  const failed = new Promise<never>((_, reject) => out.once('error', reject));
  failed.catch(() => undefined);
  const hash = createHash('sha256');
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  let validUtf8 = true;
  let total = 0;
  let head = Buffer.alloc(0);
  try {
    for await (const chunk of withIdleTimeout(req, idleMs, deadline)) {
      total += chunk.length;
      if (total > maxBytes) throw new TooLargeError();
      if (head.length < 3) head = Buffer.concat([head, chunk.subarray(0, 3)]).subarray(0, 3);
      hash.update(chunk);
      if (validUtf8) {
        try {
          utf8.decode(chunk, { stream: true });
        } catch {
          validUtf8 = false;
        }
      }
      await Promise.race([write(out, chunk), failed]);
    }
    if (validUtf8) {
      try {
        utf8.decode();
      } catch {
        validUtf8 = false;
      }
    }
  } finally {
    out.end();
  }
  await Promise.race([once(out, 'close'), failed]);
  const bom = head.subarray(0, 3);
  const [encoding, bomBytes]: [Upload['encoding'], number] =
    bom.length >= 3 && bom[0] === 0xef && bom[1] === 0xbb && bom[2] === 0xbf
      ? ['utf-8', 3]
      : bom[0] === 0xff && bom[1] === 0xfe
        ? ['utf-16le', 2]
        : bom[0] === 0xfe && bom[1] === 0xff
          ? ['utf-16be', 2]
          : [validUtf8 ? 'utf-8' : 'windows-1252', 0];
  return { dir, file, sha256: hash.digest(), encoding, bomBytes };
}

/** The upload's text (after its BOM), decoded chunk by chunk. */
async function* uploadText(upload: Upload): AsyncGenerator<string> {
  const decoder = new TextDecoder(upload.encoding);
  for await (const chunk of createReadStream(upload.file, { start: upload.bomBytes }) as AsyncIterable<Buffer>) {
    const text = decoder.decode(chunk, { stream: true });
    if (text) yield text;
  }
  const rest = decoder.decode();
  if (rest) yield rest;
}

/** The upload's CSV records, streamed through csv-parse (quoted fields, the separator detected from the header line). */
async function* csvRecords(upload: Upload): AsyncGenerator<string[]> {
  const text = uploadText(upload);
  // Read up to the end of the header line (or HEADER_SCAN_CHARS) to choose the separator.
  let head = '';
  while (!head.includes('\n') && head.length < HEADER_SCAN_CHARS) {
    const next = await text.next();
    if (next.done) break;
    head += next.value;
  }
  const nl = head.indexOf('\n');
  const delimiter = detectDelimiter(head.slice(0, nl < 0 ? HEADER_SCAN_CHARS : nl));
  const parser = parse({
    delimiter,
    bom: true,
    relax_column_count: true,
    skip_empty_lines: true,
    skip_records_with_empty_values: true,
    max_record_size: MAX_RECORD_BYTES,
  });
  let failure: unknown;
  pipeline(
    Readable.from(
      (async function* () {
        yield head;
        yield* text;
      })(),
      { objectMode: false },
    ),
    parser,
    (err) => {
      failure = err ?? undefined;
    },
  );
  for await (const record of parser as AsyncIterable<string[]>) yield record;
  if (failure) throw failure;
}

type StagedRow = { n: number; emailKey: string | null; fields: Record<string, string> };

/**
 * The upload's rows, checked and written as batches (one JSON array a line) next to it, before any
 * transaction opens: a file the API refuses is refused here, and the transaction that stores the
 * import only copies these batches into import_rows.
 */
async function stageOnDisk(upload: Upload): Promise<{ batches: string; total: number; headerErrors: ImportError[] }> {
  const batches = path.join(upload.dir, 'rows.ndjson');
  const out = createWriteStream(batches);
  const failed = new Promise<never>((_, reject) => out.once('error', reject));
  failed.catch(() => undefined);
  let total = 0;
  let headerErrors: ImportError[];
  try {
    const records = csvRecords(upload);
    const first = await records.next();
    if (first.done) throw validationFailed([{ path: 'body', message: 'is empty: send a header row and one row per contact' }]);
    const { columns, unknown } = mapHeader(first.value);
    if (!headerNamesPerson(columns))
      throw validationFailed([{ path: 'body', message: 'the header row has no full_name, name or first_name/last_name column' }]);
    // Unknown columns are listed once, the first 1,000 of them (the errors list keeps 1,000).
    headerErrors = unknown.slice(0, IMPORT_LIST_LIMIT).map((column) => ({ row: 1, field: column, message: 'is not a known column: ignored' }));
    let batch: StagedRow[] = [];
    for await (const record of records) {
      if (total >= IMPORT_MAX_ROWS) throw new TooManyRowsError();
      const fields = rowFields(columns, record);
      for (const [column, value] of Object.entries(fields)) {
        const reason = unsafeTextReason(value);
        if (reason) throw validationFailed([{ path: `body.row ${displayRow(total)}.${column}`, message: `contains ${reason}` }]);
      }
      batch.push({ n: total++, emailKey: emailKey(fields.email), fields: fields as Record<string, string> });
      if (batch.length >= STAGE_BATCH) {
        await Promise.race([write(out, `${JSON.stringify(batch)}\n`), failed]);
        batch = [];
      }
    }
    if (batch.length) await Promise.race([write(out, `${JSON.stringify(batch)}\n`), failed]);
  } catch (err) {
    if (err instanceof TooManyRowsError)
      throw new ProblemError('PAYLOAD_TOO_LARGE', `The CSV file has more than ${IMPORT_MAX_ROWS.toLocaleString('en')} rows: split it`);
    if (err instanceof CsvError) throw validationFailed([{ path: 'body', message: `is not a valid CSV file: ${err.message}` }]);
    throw err;
  } finally {
    out.end();
  }
  await Promise.race([once(out, 'close'), failed]);
  return { batches, total, headerErrors };
}

async function* stagedBatches(file: string): AsyncGenerator<StagedRow[]> {
  const handle = await open(file);
  try {
    for await (const line of createInterface({ input: handle.createReadStream(), crlfDelay: Infinity })) if (line) yield JSON.parse(line) as StagedRow[];
  } finally {
    await handle.close().catch(() => undefined);
  }
}

const uploadOf = (res: Response) => res.locals.importUpload as Upload;

/**
 * Contact import: POST /imports checks the caller's role, receives the CSV file onto local
 * disk with no database connection held (cut off when the client stalls), checks its rows, and only
 * then opens the transaction that creates the import, copies the rows into import_rows and starts
 * its durable run `import/<id>` (workflows/contact-import.ts); GET /imports and GET /imports/{id}
 * show the progress. Mounted before the JSON body rule: the body is text/csv.
 */
export function importRoutes({ db, workflows, imports }: ApiDeps): Router {
  const r = Router();
  const serve = bind(r, operations);
  const idleMs = imports?.idleTimeoutMs ?? DEFAULT_IMPORT_IDLE_TIMEOUT_MS;
  const uploadMs = imports?.uploadTimeoutMs ?? DEFAULT_IMPORT_UPLOAD_TIMEOUT_MS;
  const maxUploads = imports?.maxUploadsPerOrganization ?? DEFAULT_MAX_UPLOADS_PER_ORGANIZATION;
  /** Uploads being received, by organization id in lower case (the id's every spelling is one organization). */
  const receiving = new Map<string, number>();
  /** The files being checked and stored, in turn beyond the limit (first come, first served). */
  const storing = pLimit(imports?.maxConcurrentStores ?? DEFAULT_MAX_CONCURRENT_IMPORT_STORES);

  serve(
    'createImport',
    (req, res, next) => {
      // Any answer before the whole body is read closes the connection: a client still sending (or
      // stalled) is not left holding it.
      res.setHeader('Connection', 'close');
      if (!req.is('text/csv')) throw new ProblemError('UNSUPPORTED_MEDIA_TYPE', 'The body must be a CSV file, Content-Type text/csv');
      if (Number(req.headers['content-length'] ?? 0) > IMPORT_MAX_BYTES) throw tooLarge();
      next();
    },
    rejectUnsafeInput,
    // The role first, in a transaction of its own: a caller who may not import sends no file.
    async (req, _res, call) => {
      await withRole(db, req, call.query.organizationId, call.role, async () => undefined);
      call();
    },
    async (req, res, call) => {
      const orgId = call.query.organizationId.toLowerCase();
      const open = receiving.get(orgId) ?? 0;
      if (open >= maxUploads)
        throw new ProblemError('RATE_LIMITED', `${open} uploads of this organization are being received; send this one when one of them is done`, {
          scope: 'organization',
        });
      receiving.set(orgId, open + 1);
      try {
        const dir = await mkdtemp(path.join(os.tmpdir(), 'outreach-import-'));
        res.once('close', () => void rm(dir, { recursive: true, force: true }).catch(() => undefined));
        res.locals.importUpload = await receiveUpload(req, dir, IMPORT_MAX_BYTES, idleMs, Date.now() + uploadMs);
      } catch (err) {
        if (err instanceof TooLargeError) throw tooLarge();
        if (err instanceof UploadTimeoutError) {
          throw new ProblemError('REQUEST_TIMEOUT', `The upload took longer than ${Math.round(uploadMs / 100) / 10} seconds in all: send the file at once`);
        }
        if (err instanceof IdleError) {
          throw new ProblemError('REQUEST_TIMEOUT', `The upload sent nothing for ${Math.round(idleMs / 100) / 10} seconds: send the whole file without pauses`);
        }
        // The client went away before the whole file arrived: nothing is stored, and nobody is left to answer.
        if (req.destroyed || (err as { code?: string }).code === 'ECONNRESET')
          throw validationFailed([{ path: 'body', message: 'ended before the whole file arrived' }]);
        throw err;
      } finally {
        const left = (receiving.get(orgId) ?? 1) - 1;
        if (left > 0) receiving.set(orgId, left);
        else receiving.delete(orgId);
      }
      res.removeHeader('Connection');
      // An Idempotency-Key compares the file's bytes: read back from disk only now, whole and checked.
      if (req.headers['idempotency-key'] !== undefined) req.body = await readFile(uploadOf(res).file);
      call();
    },
    idempotentRawPosts(db),
    async (req, res, call) => {
      req.body = undefined;
      const q = call.query;
      const created = await storing(() => storeImport(req, q, call.role, uploadOf(res)));
      res.status(202).json(created);
    },
  );

  /** Checks a received file's rows and, in one transaction, creates the import, copies its rows and starts its run. */
  async function storeImport(req: Request, q: z.infer<typeof createImportQuery>, minRole: Role, upload: Upload) {
    const staged = await stageOnDisk(upload);
    const id = randomUUID();
    return withRole(db, req, q.organizationId, minRole, async (tx) => {
      await insertImport(tx, {
        id,
        organizationId: q.organizationId,
        sourceDescription: q.sourceDescription,
        dedupe: q.dedupe,
        createdBy: userOf(req),
        workflowId: workflowIds.contactImport(id),
        errors: staged.headerErrors,
      });
      for await (const batch of stagedBatches(staged.batches)) await stageImportRows(tx, q.organizationId, id, batch);
      const stored = await setImportTotal(tx, id, staged.total);
      // Inside the transaction: if Temporal refuses, no import claims a run (the run waits for the commit).
      if (staged.total > 0) await workflows.startImport(q.organizationId, id);
      return stored;
    });
  }

  serve('listImports', async (req, res, call) => {
    const q = call.query;
    res.json(await withRole(db, req, q.organizationId, call.role, (tx) => listImports(tx, q)));
  });

  serve('getImport', async (req, res) => {
    const id = pathId(req, 'importId', 'import');
    res.json(await visibleOr404(db, req, 'import', (tx) => getImport(tx, id)));
  });

  return r;
}
