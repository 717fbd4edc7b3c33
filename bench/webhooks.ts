/**
 * bench/webhooks: events per second from the outbox to a local receiver. 1,000 events are written
 * with recordEvent (each in its own transaction, 10 at a time, as the worker role), and the real
 * worker process delivers them (its dispatcher wakes webhook-endpoint/<id>; the workflow sends 8 at
 * a time, signed, over guardedFetch, each attempt recorded). Timed from the first write to the last
 * delivery the receiver gets, with one endpoint and with ten (10,000 deliveries). Beside it the
 * ceiling: the same number of bare signed POSTs from one process to the same receiver, 8 at a time.
 *
 *   npm run bench:webhooks [-- --events 1000]
 *
 * Creates its own database on DATABASE_URL (the owner; else the embedded PostgreSQL) and drops it
 * afterwards; the Temporal dev server is in memory.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Pool } from 'pg';
import { Webhook } from 'standardwebhooks';
import { withRole } from '../apps/shared/config';
import { dropDatabase, ensureDatabase, migrate } from '../db/migrator';
import { createDb } from '../db/pool';
import { getOpportunity } from '../db/queries/opportunities';
import { recordEvent } from '../db/queries/webhook-events';
import { WORKER_DB_ROLE } from '../db/roles';
import { SecretBox, webhookSecretContext } from '../db/secrets';
import { asOrganization } from '../db/tenancy';
import { startDatabase } from '../scripts/lib/postgres';
import { loadTemporalDevConfig, resolveTemporalCli, startTemporalDevServer } from '../scripts/lib/temporal-server';
import { stopChild } from './api';

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const USER = '0f000000-0000-4000-8000-0000000000f1';
const KEY = '11'.repeat(32);

function startWorker(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve(__dirname, '../apps/worker/main.ts')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    const onData = (b: Buffer) => {
      if (b.toString().includes('worker started')) resolve(child);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`worker exited (${code})`)));
  });
}

/** A receiver that answers 200 and counts, resolving `reached(n)` when n requests have come. */
async function receiver() {
  let count = 0;
  let waiting: { n: number; resolve: () => void } | undefined;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count++;
      res.end();
      if (waiting && count >= waiting.n) waiting.resolve();
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    reset: () => (count = 0),
    reached: (n: number) => new Promise<void>((resolve) => (count >= n ? resolve() : (waiting = { n, resolve }))),
    close: () => new Promise((r) => server.close(r)),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { events: { type: 'string', default: '1000' } } });
  const n = Number(values.events);
  const runId = Date.now().toString(36);
  const pg = await startDatabase({ databaseUrl: process.env.DATABASE_URL, port: 54334, databaseName: 'postgres', log });
  const owner = new URL(pg.ownerUrl);
  owner.pathname = `/outreach_bench_webhooks_${runId}`;
  const ownerUrl = owner.toString();
  const workerUrl = withRole(ownerUrl, WORKER_DB_ROLE, pg.appPassword);
  let worker: ChildProcess | undefined;
  let temporal: Awaited<ReturnType<typeof startTemporalDevServer>> | undefined;
  const rx = await receiver();
  await ensureDatabase(ownerUrl);
  try {
    await migrate(ownerUrl, { appPassword: pg.appPassword });
    temporal = await startTemporalDevServer({ cli: resolveTemporalCli(log), config: loadTemporalDevConfig(), grpcPort: 7298, headless: true, log });
    worker = await startWorker({
      ...process.env,
      LOG_LEVEL: 'info',
      DATABASE_URL: ownerUrl,
      WORKER_DATABASE_URL: workerUrl,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: `bench-${runId}`,
      INTEGRATION_SECRET_KEY: KEY,
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    });
    const box = new SecretBox(KEY);
    const ownerPool = new Pool({ connectionString: ownerUrl, max: 2 });
    const db = createDb(workerUrl, 10);
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const rows: Array<{ scenario: string; deliveries: number; seconds: number }> = [];

    for (const endpoints of [1, 10]) {
      const org = (
        await ownerPool.query<{ id: string }>(`INSERT INTO organizations (name, created_by) VALUES ($1, $2) RETURNING id`, [`Bench ${endpoints}`, USER])
      ).rows[0]!.id;
      for (let i = 0; i < endpoints; i++) {
        const id = (await ownerPool.query<{ id: string }>('SELECT gen_random_uuid() AS id')).rows[0]!.id;
        await ownerPool.query(
          `INSERT INTO webhook_endpoints (id, organization_id, url, events, secret_ciphertext, created_by) VALUES ($1, $2, $3, '{*}', $4, $5)`,
          [id, org, rx.url, box.seal(secret, webhookSecretContext(org, id)), USER],
        );
      }
      const opportunity = (
        await ownerPool.query<{ id: string }>(`INSERT INTO opportunities (organization_id, status, summary) VALUES ($1, 'ready', 'Bench') RETURNING id`, [org])
      ).rows[0]!.id;
      rx.reset();
      const t0 = performance.now();
      for (let i = 0; i < n; i += 10) {
        await Promise.all(
          Array.from({ length: Math.min(10, n - i) }, () =>
            asOrganization(db, org, (tx) => recordEvent(tx, 'opportunity.created', { organizationId: org, id: opportunity }, getOpportunity)),
          ),
        );
      }
      const written = (performance.now() - t0) / 1000;
      await rx.reached(n * endpoints);
      const seconds = (performance.now() - t0) / 1000;
      log(`${endpoints} endpoint(s): ${n} events written in ${written.toFixed(1)} s, ${n * endpoints} delivered in ${seconds.toFixed(1)} s`);
      rows.push({ scenario: `outbox -> worker -> receiver, ${endpoints} endpoint${endpoints > 1 ? 's' : ''}`, deliveries: n * endpoints, seconds });
    }

    // The ceiling: bare signed POSTs from this process, 8 at a time, keep-alive.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    const signer = new Webhook(secret);
    const body = JSON.stringify({ type: 'opportunity.created', timestamp: new Date().toISOString(), organization_id: USER, data: { id: USER } });
    const post = (i: number) =>
      new Promise<void>((resolve, reject) => {
        const now = new Date();
        const req = http.request(
          rx.url,
          {
            method: 'POST',
            agent,
            headers: {
              'content-type': 'application/json',
              'webhook-id': `msg_${i}`,
              'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
              'webhook-signature': signer.sign(`msg_${i}`, now, body),
            },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve());
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    rx.reset();
    const t1 = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < n) await post(next++);
      }),
    );
    rows.push({ scenario: 'bare signed POSTs, one process (ceiling)', deliveries: n, seconds: (performance.now() - t1) / 1000 });
    agent.destroy();

    console.log(`\n${n.toLocaleString('en')} events; ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(2)}`);
    console.log(`${'scenario'.padEnd(46)} ${'deliveries'.padEnd(11)} ${'seconds'.padEnd(8)} ${'events/s'.padEnd(9)} deliveries/s`);
    for (const r of rows) {
      const events = r.scenario.includes('ceiling') ? r.deliveries : n;
      console.log(
        `${r.scenario.padEnd(46)} ${String(r.deliveries).padEnd(11)} ${r.seconds.toFixed(2).padEnd(8)} ${(events / r.seconds).toFixed(0).padEnd(9)} ${(r.deliveries / r.seconds).toFixed(0)}`,
      );
    }
    await db.destroy();
    await ownerPool.end();
  } finally {
    if (worker) await stopChild(worker);
    await rx.close();
    await temporal?.stop();
    await dropDatabase(ownerUrl);
    await pg.stop();
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : e);
  process.exit(1);
});
