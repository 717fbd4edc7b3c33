import { readFileSync } from 'node:fs';
import { CONFIG_REFERENCE_FILE, configReference, configVariables } from '../../scripts/config-reference';

/**
 * docs/configuration.md is generated from apps/shared/config.ts (`npm run docs:config`). Pure: no
 * database, no Temporal.
 */
test('every variable of apps/shared/config.ts has a description', () => {
  const variables = configVariables();
  expect(variables.length).toBeGreaterThan(50);
  expect(variables.filter((v) => !v.description?.trim()).map((v) => v.name)).toEqual([]);
});

test('docs/configuration.md is what `npm run docs:config` writes', () => {
  const current = readFileSync(CONFIG_REFERENCE_FILE, 'utf8');
  if (current !== configReference()) {
    throw new Error('docs/configuration.md is stale: run `npm run docs:config` and commit it');
  }
});

test('defaults and bounds are read from the schema', () => {
  const byName = new Map(configVariables().map((v) => [v.name, v]));
  expect(byName.get('DB_POOL_SIZE')).toMatchObject({ default: '`10`', accepts: 'integer 1..100' });
  expect(byName.get('SOURCE_FETCH_MAX_BYTES')).toMatchObject({ default: '`5242880`', accepts: 'integer >= 1024' });
  expect(byName.get('DATA_DIR')?.default).toBe('`.data`'); // the repository's path never leaks into the page
  expect(byName.get('PUBLIC_BASE_URL')).toMatchObject({ default: '(unset)', accepts: 'URL' });
  expect(byName.get('METRICS_PUBLIC')).toMatchObject({ default: '`false`', accepts: '`true`, `false`' });
  expect(byName.get('PROVIDER_ACTIVITIES_PER_SECOND')?.accepts).toBe('number > 0');
});
