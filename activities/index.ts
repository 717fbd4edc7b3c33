import type { Config } from '../apps/shared/config';
import type { DB } from '../db/pool';
import { RulesClassifier } from './classification/rules';
import type { Classifier } from './classification/types';
import { createIngestActivities } from './ingest';
import { createSignalStageActivities } from './signal-stages';
import { createSourceProviders } from './providers/sources';

export interface ActivityDeps {
  db: DB;
  config: Pick<Config, 'SOURCE_FETCH_TIMEOUT_MS' | 'SOURCE_FETCH_MAX_BYTES' | 'SIGNAL_BATCH_SIZE'>;
}

/** Every activity the worker hosts, wired to its dependencies. */
export function createActivities(deps: ActivityDeps) {
  const rules = new RulesClassifier();
  const classifierFor = async (_organizationId: string): Promise<Classifier> => rules;
  return {
    ...createSignalStageActivities({ db: deps.db, classifierFor }),
    ...createIngestActivities({
      db: deps.db,
      providers: createSourceProviders(),
      limits: { timeoutMs: deps.config.SOURCE_FETCH_TIMEOUT_MS, maxBytes: deps.config.SOURCE_FETCH_MAX_BYTES },
      batchSize: deps.config.SIGNAL_BATCH_SIZE,
    }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
