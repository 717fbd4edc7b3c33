import type { Config } from '../apps/shared/config';
import type { DB } from '../db/pool';
import { OpenAiCompatibleClassifier } from './classification/openai-compatible';
import { RulesClassifier } from './classification/rules';
import type { Classifier } from './classification/types';
import { createIngestActivities } from './ingest';
import { createSignalStageActivities } from './signal-stages';
import { createSourceProviders } from './providers/sources';

export interface ActivityDeps {
  db: DB;
  config: Pick<Config, 'SOURCE_FETCH_TIMEOUT_MS' | 'SOURCE_FETCH_MAX_BYTES' | 'SIGNAL_BATCH_SIZE' | 'LLM_BASE_URL' | 'LLM_MODEL' | 'LLM_API_KEY'>;
}

/** Every activity the worker hosts, wired to its dependencies. */
export function createActivities(deps: ActivityDeps) {
  // An LLM configured for the deployment classifies for every organization; else the built-in rules.
  const fallback: Classifier =
    deps.config.LLM_BASE_URL && deps.config.LLM_MODEL
      ? new OpenAiCompatibleClassifier({ baseUrl: deps.config.LLM_BASE_URL, model: deps.config.LLM_MODEL, apiKey: deps.config.LLM_API_KEY })
      : new RulesClassifier();
  const classifierFor = async (_organizationId: string): Promise<Classifier> => fallback;
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
