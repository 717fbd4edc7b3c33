/**
 * Runs the embedded PostgreSQL of `npm run dev` in its own process, so that the launcher stops it
 * last, after everything that uses it. Prints one JSON line ({ownerUrl, appPassword, clusterDir})
 * once ready; SIGTERM or SIGINT stops the server (fast shutdown) and then this process.
 */
import { startDatabase } from './lib/postgres';

async function main() {
  const [dataDir, port, databaseName] = process.argv.slice(2);
  const db = await startDatabase({ dataDir: dataDir!, port: Number(port), databaseName: databaseName!, log: (l) => process.stderr.write(`${l}\n`) });
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    db.stop().then(
      () => process.exit(0),
      (e: unknown) => {
        process.stderr.write(`stopping PostgreSQL: ${String(e)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdout.write(`${JSON.stringify({ ownerUrl: db.ownerUrl, appPassword: db.appPassword, clusterDir: db.clusterDir })}\n`);
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
