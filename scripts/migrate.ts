/**
 * npm run migrate [-- --down]: applies (or rolls back one) migration as the owner (DATABASE_URL).
 */
import { loadConfig, rolePasswords } from '../apps/shared/config';
import { ensureDatabase, migrate } from '../db/migrator';

async function main() {
  const down = process.argv.includes('--down');
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL (the owner connection) is required');
  const config = loadConfigLoosely();
  await ensureDatabase(url);
  const passwords = rolePasswords(config);
  const result = await migrate(url, { direction: down ? 'down' : 'latest', apiPassword: passwords.api, workerPassword: passwords.worker });
  for (const r of result.results ?? []) console.log(`${r.direction} ${r.migrationName}: ${r.status}`);
  if (!result.results?.length) console.log('nothing to do');
}

function loadConfigLoosely() {
  try {
    return loadConfig();
  } catch {
    const { APP_DB_PASSWORD, API_DB_PASSWORD, WORKER_DB_PASSWORD } = process.env;
    return { APP_DB_PASSWORD, API_DB_PASSWORD, WORKER_DB_PASSWORD };
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
