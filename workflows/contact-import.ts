import { ActivityFailure, patched, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ChunkProgress } from '../activities/imports';
import { dbActivityOptions } from './retry';
import { verifyUnchecked } from './verify-contacts';

export interface ContactImportInput {
  organizationId: string;
  importId: string;
  /** Rows per chunk (one transaction each); default 500. */
  chunkSize?: number;
  retryInitialIntervalMs?: number;
  /** How long one chunk may take before it is tried again (default 2 minutes); tests shorten it. */
  chunkTimeoutMs?: number;
}

export const DEFAULT_IMPORT_CHUNK = 500;

/**
 * A contact import (`import/<id>`): the staged file in chunks by row offset, each chunk one
 * transaction that also records the new offset (activities/imports.ts). A worker killed mid-chunk
 * leaves nothing of it and the chunk runs again; a chunk already recorded is not run twice. When
 * the database stays unreachable past the retries, the import ends failed. A finished import starts
 * the check of the organization's addresses never checked (the imported ones among them), a run of
 * its own that outlives this one.
 */
export async function contactImportWorkflow(input: ContactImportInput): Promise<ChunkProgress> {
  const options = dbActivityOptions(input.retryInitialIntervalMs ?? 2000);
  const { importChunk, failImport } = proxyActivities<Activities>({ ...options, startToCloseTimeout: input.chunkTimeoutMs ?? options.startToCloseTimeout });
  const ref = { organizationId: input.organizationId, importId: input.importId };
  // At least one row a chunk: a chunk that moved the offset by nothing would be asked for again and again.
  const limit = Math.max(1, Math.floor(input.chunkSize ?? DEFAULT_IMPORT_CHUNK) || DEFAULT_IMPORT_CHUNK);
  let offset = 0;
  try {
    for (;;) {
      const progress = await importChunk({ ...ref, offset, limit });
      if (progress.done) {
        if (patched('verify-imported-addresses')) await verifyUnchecked(input.organizationId, `import-${input.importId}`, input.retryInitialIntervalMs);
        return progress;
      }
      offset = progress.processedRows;
    }
  } catch (err) {
    const cause = err instanceof ActivityFailure && err.cause ? err.cause : err;
    await failImport({ ...ref, message: cause instanceof Error ? cause.message : String(cause) });
    throw err;
  }
}
