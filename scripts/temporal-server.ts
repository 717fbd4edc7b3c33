/**
 * `npm run temporal:server`: the production Temporal Server (PostgreSQL persistence and SQL
 * visibility, mutual TLS on its frontend), in the foreground until Ctrl-C. Prints the TEMPORAL_*
 * variables that point the API, the workers and the benchmarks at it.
 *
 *   TEMPORAL_SERVER_DATABASE_URL  the PostgreSQL server and owner (default postgres://postgres@127.0.0.1:5432/postgres)
 *   TEMPORAL_SERVER_DB            its database (default temporal; visibility in <name>_visibility)
 *   TEMPORAL_SERVER_PORT          the frontend's gRPC port (default 7233)
 */
import { loadTemporalDevConfig } from './lib/temporal-server';
import { resolveTemporalServer, startTemporalProductionServer } from './lib/temporal-production-server';

async function main() {
  const log = (line: string) => console.error(`[temporal-server] ${line}`);
  const database = process.env.TEMPORAL_SERVER_DB || 'temporal';
  const server = await startTemporalProductionServer({
    binaries: resolveTemporalServer(log),
    postgresUrl: process.env.TEMPORAL_SERVER_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
    database,
    visibilityDatabase: `${database}_visibility`,
    config: loadTemporalDevConfig(),
    grpcPort: Number(process.env.TEMPORAL_SERVER_PORT || 7233),
    log,
  });
  console.log(
    Object.entries(server.env)
      .map(([k, v]) => `export ${k}=${v}`)
      .join('\n'),
  );
  log('running; Ctrl-C stops it (the certificates are made afresh at each start)');
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  server.process().once('exit', (code) => {
    if (!stopping) {
      log(`the server exited (${code})`);
      process.exit(1);
    }
  });
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
