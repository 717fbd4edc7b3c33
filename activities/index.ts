import type { Config } from '../apps/shared/config';
import type { DB } from '../db/pool';
import { createIngestActivities } from './ingest';
import { createSourceProviders } from './providers/sources';

export interface ActivityDeps {
  db: DB;
  config: Pick<Config, 'SOURCE_FETCH_TIMEOUT_MS' | 'SOURCE_FETCH_MAX_BYTES' | 'SIGNAL_BATCH_SIZE'>;
}

/** Every activity the worker hosts, wired to its dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createIngestActivities({
      db: deps.db,
      providers: createSourceProviders(),
      limits: { timeoutMs: deps.config.SOURCE_FETCH_TIMEOUT_MS, maxBytes: deps.config.SOURCE_FETCH_MAX_BYTES },
      batchSize: deps.config.SIGNAL_BATCH_SIZE,
    }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
