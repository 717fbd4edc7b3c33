import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type http from 'node:http';
import { withRole } from '../../apps/shared/config';
import { API_DB_ROLE, WORKER_DB_ROLE } from '../../db/roles';
import { dropDatabase, ensureDatabase, migrate } from '../../db/migrator';
import { DEV_AUDIENCE, devIssuer, loadOrCreateDevKey, serveJwks } from '../../scripts/lib/dev-identity';
import { startDatabase, DatabaseHandle } from '../../scripts/lib/postgres';
import { loadTemporalDevConfig, resolveTemporalCli, startTemporalDevServer, TemporalServerHandle } from '../../scripts/lib/temporal-server';
import { resolveTemporalServer, startTemporalProductionServer, TemporalProductionServer } from '../../scripts/lib/temporal-production-server';
import { freePort } from '../helpers/ports';
import { startWorkerProcess } from '../helpers/worker-process';
import { startDnsServer, TestDnsServer } from '../helpers/dns-server';
import { deliverabilityZones } from '../helpers/dns-zones';

/**
 * One stack for the whole run, reusing the dev launcher's pieces: a fresh database with migrations,
 * one Temporal dev server (or TEMPORAL_ADDRESS), a JWKS endpoint, and one real worker process.
 * Test files start the API in-process against it (test/helpers/api.ts).
 */
export interface TestStack {
  db: DatabaseHandle;
  /** The CLI's dev server, or with TEMPORAL_MODE=server the production Temporal Server (mTLS, PostgreSQL). */
  temporal?: TemporalServerHandle | TemporalProductionServer;
  jwks: http.Server;
  /** The deliverability zones (test/helpers/dns-zones.ts), the workers' DNS_SERVERS. */
  dns: TestDnsServer;
  workers: ChildProcess[];
  ownerUrl: string;
}

const log = (line: string) => process.stderr.write(`[test-setup] ${line}\n`);

export default async function globalSetup(): Promise<void> {
  const cleanups: Array<() => Promise<unknown>> = [];
  try {
    await startStack(cleanups);
  } catch (err) {
    // Jest runs no teardown after a failed set-up: stop what was started, newest first.
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    throw err;
  }
}

async function startStack(cleanups: Array<() => Promise<unknown>>): Promise<void> {
  const started = Date.now();
  const runId = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

  const db = await startDatabase({
    databaseUrl: process.env.DATABASE_URL,
    // no dataDir: a throw-away cluster of this run's own (two runs at once never share one)
    port: await freePort(),
    databaseName: 'postgres',
    log,
  });
  cleanups.push(() => db.stop());
  const testDbUrl = new URL(db.ownerUrl);
  testDbUrl.pathname = `/outreach_test_${runId}`;
  const ownerUrl = testDbUrl.toString();
  await ensureDatabase(ownerUrl);
  cleanups.push(() => dropDatabase(ownerUrl));
  const appPassword = db.appPassword ?? process.env.APP_DB_PASSWORD;
  await migrate(ownerUrl, { appPassword });
  // The in-process API connects as outreach_api; the worker processes (and tests of activities) as outreach_worker.
  const apiUrl = withRole(ownerUrl, API_DB_ROLE, appPassword);
  const workerUrl = withRole(ownerUrl, WORKER_DB_ROLE, appPassword);

  let temporal: TemporalServerHandle | TemporalProductionServer | undefined;
  let temporalAddress = process.env.TEMPORAL_ADDRESS;
  if (!temporalAddress && process.env.TEMPORAL_MODE === 'server') {
    // The production server on this run's PostgreSQL, fresh databases; its TEMPORAL_TLS_* reach the workers and the tests.
    const server = await startTemporalProductionServer({
      binaries: resolveTemporalServer(log),
      postgresUrl: db.ownerUrl,
      database: `temporal_${runId}`,
      visibilityDatabase: `temporal_visibility_${runId}`,
      config: loadTemporalDevConfig(),
      dropDatabasesOnStop: true,
      log,
    });
    temporal = server;
    temporalAddress = server.address;
    cleanups.push(() => server.stop());
    Object.assign(process.env, server.env);
  } else if (!temporalAddress) {
    temporal = await startTemporalDevServer({
      cli: resolveTemporalCli(log),
      config: loadTemporalDevConfig(),
      grpcPort: await freePort(),
      headless: true,
      log,
    });
    temporalAddress = temporal.address;
    cleanups.push(() => temporal!.stop());
  }

  const keyDir = mkdtempSync(path.join(os.tmpdir(), 'outreach-test-idp-'));
  const { publicJwk, privateJwk } = await loadOrCreateDevKey(keyDir);
  const jwksPort = await freePort();
  const jwks = await serveJwks(jwksPort, [publicJwk]);
  cleanups.push(() => new Promise((r) => jwks.close(r)));
  const issuer = devIssuer(jwksPort);

  // Contacts' addresses at made-up domains are checked by the workers: those domains take mail.
  const dns = await startDnsServer(deliverabilityZones(), { unlistedReceiveMail: true });
  cleanups.push(() => dns.close());

  const taskQueue = `test-${runId}`;
  Object.assign(process.env, {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    TEST_OWNER_DB_URL: ownerUrl,
    TEST_APP_DB_URL: apiUrl,
    TEST_WORKER_DB_URL: workerUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_TASK_QUEUE: taskQueue,
    TEST_ISSUER: issuer,
    TEST_AUDIENCE: DEV_AUDIENCE,
    TEST_JWKS_URL: `${issuer}/.well-known/jwks.json`,
    TEST_PRIVATE_JWK: JSON.stringify(privateJwk),
    INGEST_RETRY_INITIAL_INTERVAL_MS: '200',
    INTEGRATION_SECRET_KEY: randomBytes(32).toString('hex'),
    // The test feeds and providers run on 127.0.0.1: allowed explicitly (the default refuses private networks).
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    // Mailbox health checks ask the test DNS server; a timeout case waits this long per query.
    DNS_SERVERS: dns.address,
    DNS_TIMEOUT_MS: '300',
    // Webhook retries after 1 s, 1 s, 1 s, then an hour (a down receiver stays pending); lost wakes swept every 2 s.
    WEBHOOK_RETRY_SCHEDULE: '1,1,1,3600',
    WEBHOOK_SWEEP_SECONDS: '2',
    // Dropcontact's stand-in is polled every second, not every 30.
    ENRICHMENT_BATCH_POLL_SECONDS: '1',
  });

  // Two worker processes on one task queue, so every test also shows that several workers are safe.
  const workerEnv = {
    ...process.env,
    WORKER_DATABASE_URL: workerUrl,
    DATABASE_URL: ownerUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_TASK_QUEUE: taskQueue,
    LOG_LEVEL: process.env.WORKER_LOG_LEVEL ?? 'info',
  };
  const workers = await Promise.all(Array.from({ length: Number(process.env.TEST_WORKERS ?? 2) }, () => startWorkerProcess(workerEnv)));
  cleanups.push(...workers.map((w) => async () => w.kill('SIGKILL')));

  const stack: TestStack = { db, temporal, jwks, dns, workers, ownerUrl };
  (globalThis as { __STACK__?: TestStack }).__STACK__ = stack;
  log(`stack ready in ${((Date.now() - started) / 1000).toFixed(1)}s (db ${testDbUrl.pathname.slice(1)}, temporal ${temporalAddress})`);
}
