/**
 * npm run openapi:types            regenerates test/helpers/openapi-types.ts from apps/api/openapi.ts
 * npm run openapi:types -- --check exits 1 when that file is stale (test/api/openapi.test.ts runs this)
 */
import { readFile, writeFile } from 'node:fs/promises';
import { generateOpenApiTypes, OPENAPI_TYPES_FILE } from './lib/openapi-types';

async function main() {
  const types = await generateOpenApiTypes();
  if (process.argv.includes('--check')) {
    const current = await readFile(OPENAPI_TYPES_FILE, 'utf8').catch(() => '');
    if (current !== types) {
      console.error(`${OPENAPI_TYPES_FILE} is stale: run \`npm run openapi:types\` and commit it`);
      process.exit(1);
    }
    console.log(`${OPENAPI_TYPES_FILE} is up to date`);
    return;
  }
  await writeFile(OPENAPI_TYPES_FILE, types);
  console.log(`wrote ${OPENAPI_TYPES_FILE}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
