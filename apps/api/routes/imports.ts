import { randomUUID } from 'node:crypto';
import { pipeline, Readable } from 'node:stream';
import type { Request } from 'express';
import express, { Router } from 'express';
import { idempotentRawPosts, withRawBody } from '../idempotency';
import { CsvError, parse } from 'csv-parse';
import { getImport, insertImport, listImports, setImportTotal, stageImportRows } from '../../../db/queries/imports';
import { detectDelimiter, emailKey, headerNamesPerson, mapHeader, rowFields, displayRow } from '../../../domain/imports/csv';
import { workflowIds } from '../../../workflows/search-attributes';
import { userOf, visibleOr404, withRole, WRITE } from '../access';
import { ProblemError, validationFailed } from '../errors';
import type { ApiDeps } from '../app';
import { createImportQuery, listImportsQuery } from '../schemas';
import { parseQuery, pathId, rejectUnsafeInput, unsafeTextReason } from '../validate';

/** The largest CSV file POST /imports takes (shared/api-contract.md: 20 MB). */
export const IMPORT_MAX_BYTES = 20 * 1024 * 1024;
/** The longest record (a row of a spreadsheet is far shorter); csv-parse refuses a longer one. */
const MAX_RECORD_BYTES = 64 * 1024;
/** Parsed records staged per INSERT. */
const STAGE_BATCH = 1000;
/** How far the header line is looked for to tell `,` from `;`. */
const HEADER_SCAN_BYTES = 64 * 1024;

class TooLargeError extends Error {}

/** The request body, chunk by chunk, refused past `limit` bytes. */
async function* bodyBytes(req: Request, limit: number): AsyncGenerator<Buffer> {
  let total = 0;
  // Read already (withRawBody: an Idempotency-Key needs the body's hash first), else streamed.
  const source: AsyncIterable<Buffer> | Buffer[] = Buffer.isBuffer(req.body) ? [req.body] : (req as AsyncIterable<Buffer>);
  for await (const chunk of source) {
    total += chunk.length;
    if (total > limit) throw new TooLargeError();
    yield chunk;
  }
}

/**
 * The body's CSV records, streamed through csv-parse (BOM removed, quoted fields, the separator
 * detected from the header line), never the whole file in memory.
 */
async function* csvRecords(req: Request): AsyncGenerator<string[]> {
  const source = bodyBytes(req, IMPORT_MAX_BYTES);
  // Read up to the end of the header line (or HEADER_SCAN_BYTES) to choose the separator.
  const head: Buffer[] = [];
  let headBytes = 0;
  let nl = -1;
  while (nl < 0 && headBytes < HEADER_SCAN_BYTES) {
    const next = await source.next();
    if (next.done) break;
    head.push(next.value);
    nl = next.value.indexOf(0x0a);
    nl = nl < 0 ? -1 : headBytes + nl;
    headBytes += next.value.length;
  }
  const headBuffer = Buffer.concat(head);
  const delimiter = detectDelimiter(headBuffer.subarray(0, nl < 0 ? Math.min(headBuffer.length, HEADER_SCAN_BYTES) : nl).toString('utf8'));
  const parser = parse({ delimiter, bom: true, relax_column_count: true, skip_empty_lines: true, skip_records_with_empty_values: true, max_record_size: MAX_RECORD_BYTES });
  let failure: unknown;
  pipeline(
    Readable.from((async function* () {
      yield headBuffer;
      yield* source;
    })()),
    parser,
    (err) => {
      failure = err ?? undefined;
    },
  );
  try {
    for await (const record of parser as AsyncIterable<string[]>) yield record;
  } catch (err) {
    throw failure instanceof TooLargeError ? failure : err;
  }
  if (failure) throw failure;
}

/**
 * Contact import (issue 19): POST /imports stores the CSV file's records in import_rows while it
 * streams the body, in the transaction that creates the import, and starts its durable run
 * `import/<id>` (workflows/contact-import.ts); GET /imports and GET /imports/{id} show the progress.
 * Mounted before the JSON body rule: the body is text/csv.
 */
export function importRoutes({ db, workflows }: ApiDeps): Router {
  const r = Router();

  r.post(
    '/imports',
    (req, _res, next) => {
      if (!req.is('text/csv')) throw new ProblemError('UNSUPPORTED_MEDIA_TYPE', 'The body must be a CSV file, Content-Type text/csv');
      if (Number(req.headers['content-length'] ?? 0) > IMPORT_MAX_BYTES) throw new ProblemError('PAYLOAD_TOO_LARGE', 'The CSV file exceeds 20 MB');
      next();
    },
    rejectUnsafeInput,
    // An Idempotency-Key compares the CSV file's bytes: the file is read (20 MB at most) before the import runs.
    withRawBody(express.raw({ type: 'text/csv', limit: IMPORT_MAX_BYTES })),
    idempotentRawPosts(db),
    async (req, res) => {
      const q = parseQuery(createImportQuery, req);
      const id = randomUUID();
      const created = await withRole(db, req, q.organizationId, WRITE, async (tx) => {
        const records = csvRecords(req);
        let total = 0;
        try {
          const first = await records.next();
          if (first.done) throw validationFailed([{ path: 'body', message: 'is empty: send a header row and one row per contact' }]);
          const { columns, unknown } = mapHeader(first.value);
          if (!headerNamesPerson(columns)) throw validationFailed([{ path: 'body', message: 'the header row has no full_name, name or first_name/last_name column' }]);
          await insertImport(tx, {
            id,
            organizationId: q.organizationId,
            sourceDescription: q.sourceDescription,
            dedupe: q.dedupe,
            createdBy: userOf(req),
            workflowId: workflowIds.contactImport(id),
            errors: unknown.map((column) => ({ row: 1, field: column, message: 'is not a known column: ignored' })),
          });
          let batch: Array<{ n: number; emailKey: string | null; fields: Record<string, string> }> = [];
          for await (const record of records) {
            const fields = rowFields(columns, record);
            for (const [column, value] of Object.entries(fields)) {
              const reason = unsafeTextReason(value);
              if (reason) throw validationFailed([{ path: `body.row ${displayRow(total)}.${column}`, message: `contains ${reason}` }]);
            }
            batch.push({ n: total++, emailKey: emailKey(fields.email), fields: fields as Record<string, string> });
            if (batch.length >= STAGE_BATCH) {
              await stageImportRows(tx, q.organizationId, id, batch);
              batch = [];
            }
          }
          await stageImportRows(tx, q.organizationId, id, batch);
        } catch (err) {
          if (err instanceof TooLargeError) throw new ProblemError('PAYLOAD_TOO_LARGE', 'The CSV file exceeds 20 MB');
          if (err instanceof CsvError) throw validationFailed([{ path: 'body', message: `is not a valid CSV file: ${err.message}` }]);
          throw err;
        }
        const stored = await setImportTotal(tx, id, total);
        // Inside the transaction: if Temporal refuses, no import claims a run (the run waits for the commit).
        if (total > 0) await workflows.startImport(q.organizationId, id);
        return stored;
      });
      res.status(202).json(created);
    },
  );

  r.get('/imports', async (req, res) => {
    const q = parseQuery(listImportsQuery, req);
    res.json(await withRole(db, req, q.organizationId, 'viewer', (tx) => listImports(tx, q)));
  });

  r.get('/imports/:importId', async (req, res) => {
    const id = pathId(req, 'importId', 'import');
    res.json(await visibleOr404(db, req, 'import', (tx) => getImport(tx, id)));
  });

  return r;
}
