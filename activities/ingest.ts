import { ApplicationFailure, heartbeat, log } from '@temporalio/activity';
import { ZodError } from 'zod';
import { getSourceForFetch, recordSourceRun } from '../db/queries/sources';
import { pendingSignalsOfSource, storePublicationBatch } from '../db/queries/signals';
import { asOrganization } from '../db/tenancy';
import type { DB } from '../db/pool';
import { FetchError, FetchLimits } from './providers/http-fetch';
import { MalformedSourceError, SourceProvider } from './providers/sources';

export interface IngestSourceInput {
  organizationId: string;
  sourceId: string;
}

export interface IngestOutcome {
  status: 'succeeded' | 'not_modified';
  fetched: number;
  /** Signals this attempt created. */
  created: number;
  /**
   * Every signal of this fetch still `ingested`, also those an earlier attempt stored (a retried
   * run hands them all on to processing); on `not_modified`, the source's signals still waiting.
   */
  signalIds: string[];
}

/** At most this many waiting signals are handed on by one unchanged run; the scheduled reconcile takes the rest. */
const MAX_PENDING_ON_NOT_MODIFIED = 5000;

export interface IngestDeps {
  db: DB;
  providers: Map<string, SourceProvider>;
  limits: FetchLimits;
  batchSize: number;
  /** Signals with the same dedupe key share a project within this window of its latest signal. */
  projectWindowMs: number;
  now?: () => Date;
}

export function createIngestActivities(deps: IngestDeps) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());
  return {
    /**
     * Fetches one source and stores what it publishes, in batches of one transaction each. Every
     * batch is idempotent, so a retry after a failure part-way completes the run without
     * duplicates; the ETag/Last-Modified move only once every batch is stored.
     */
    async ingestSource(input: IngestSourceInput): Promise<IngestOutcome> {
      const source = await asOrganization(db, input.organizationId, (tx) => getSourceForFetch(tx, input.sourceId));
      if (!source) throw ApplicationFailure.nonRetryable(`source ${input.sourceId} not found`, 'SourceNotFound');
      const provider = deps.providers.get(source.provider_key);
      if (!provider) throw ApplicationFailure.nonRetryable(`no provider for "${source.provider_key}"`, 'InvalidSourceConfig');
      await asOrganization(db, input.organizationId, (tx) => recordSourceRun(tx, source.id, { status: 'running' }));

      let result;
      try {
        result = await provider.fetch(source, deps.limits);
      } catch (err) {
        throw toFailure(err);
      }
      if (result.status === 'not_modified') {
        // The document did not change, but an earlier run's result may have been lost after its validators moved.
        const signalIds = await asOrganization(db, input.organizationId, async (tx) => {
          await recordSourceRun(tx, source.id, { status: 'not_modified' });
          return pendingSignalsOfSource(tx, source.id, MAX_PENDING_ON_NOT_MODIFIED);
        });
        return { status: 'not_modified', fetched: 0, created: 0, signalIds };
      }

      const signalIds = new Set<string>();
      let created = 0;
      const items = result.publications;
      for (let i = 0; i < items.length; i += deps.batchSize) {
        const batch = items.slice(i, i + deps.batchSize);
        const stored = await asOrganization(db, input.organizationId, (tx) =>
          storePublicationBatch(tx, input.organizationId, source.id, batch, { projectWindowMs: deps.projectWindowMs, now: now() }),
        );
        created += stored.created;
        for (const id of stored.pending) signalIds.add(id);
        heartbeat({ stored: i + batch.length });
      }
      await asOrganization(db, input.organizationId, (tx) =>
        recordSourceRun(tx, source.id, { status: 'succeeded', etag: result.etag, lastModified: result.lastModified }),
      );
      log.info('source ingested', { sourceId: source.id, fetched: items.length, created, pending: signalIds.size });
      return { status: 'succeeded', fetched: items.length, created, signalIds: [...signalIds] };
    },

    async recordSourceFailure(input: IngestSourceInput & { error: string }): Promise<void> {
      await asOrganization(db, input.organizationId, (tx) => recordSourceRun(tx, input.sourceId, { status: 'failed', error: input.error.slice(0, 2000) }));
    },
  };
}

function toFailure(err: unknown): Error {
  if (err instanceof MalformedSourceError) return ApplicationFailure.nonRetryable(err.message, 'MalformedSource');
  if (err instanceof ZodError)
    return ApplicationFailure.nonRetryable(
      `invalid source config: ${err.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`,
      'InvalidSourceConfig',
    );
  if (err instanceof FetchError) {
    return err.retryable ? ApplicationFailure.retryable(err.message, 'SourceFetchFailed') : ApplicationFailure.nonRetryable(err.message, 'SourceUnavailable');
  }
  return err instanceof Error ? err : new Error(String(err));
}
