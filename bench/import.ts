/**
 * bench/import: a 100,000-row CSV file through POST /imports and the durable run `import/<id>`
 * (one real worker process on a Temporal dev server), beside a bare `COPY` of the same file into a
 * plain table (the ceiling: no checks, no matching, no row-level security). Prints rows per second
 * of the upload (streamed into import_rows), of the import run, of both together, and of the COPY,
 * and the worker's peak resident memory (sampled every 250 ms).
 *
 *   npx tsx bench/import.ts [-- --rows 100000]
 *
 * Creates its own database on DATABASE_URL (the owner; else the embedded PostgreSQL) and drops it
 * afterwards; the Temporal dev server is in memory.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, createReadStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import pino from 'pino';
import { Pool } from 'pg';
import { createApp } from '../apps/api/app';
import { createTokenVerifier } from '../apps/api/auth';
import { listen } from '../apps/api/server';
import { withRole } from '../apps/shared/config';
import { WorkflowStarter } from '../apps/shared/temporal';
import { dropDatabase, ensureDatabase, migrate } from '../db/migrator';
import { createDb } from '../db/pool';
import { API_DB_ROLE, WORKER_DB_ROLE } from '../db/roles';
import { DEV_AUDIENCE, devIssuer, loadOrCreateDevKey, serveJwks, signDevToken } from '../scripts/lib/dev-identity';
import { startDatabase } from '../scripts/lib/postgres';
import { loadTemporalDevConfig, resolveTemporalCli, startTemporalDevServer } from '../scripts/lib/temporal-server';
import { stopChild } from './api';

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const ORG = '0f000000-0000-4000-8000-00000000000f';
const USER = '0f000000-0000-4000-8000-0000000000f1';

function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

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

/** n rows: 1,000 companies (two spellings each), a quoted title with the separator inside now and then. */
function writeCsv(file: string, n: number): void {
  const lines = ['full_name;email;title;company;domain'];
  for (let i = 0; i < n; i++) {
    const k = i % 1000;
    lines.push(
      `Persoon ${i};p${i}@firma${k}.nl;${i % 10 === 0 ? '"Directeur; eigenaar"' : 'Projectleider'};${i % 2 ? `Firma ${k} B.V.` : `firma ${k} bv`};firma${k}.nl`,
    );
  }
  writeFileSync(file, `\uFEFF${lines.join('\n')}\n`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { rows: { type: 'string', default: '100000' } } });
  const n = Number(values.rows);
  const runId = Date.now().toString(36);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'outreach-bench-import-'));
  const file = path.join(dir, 'contacts.csv');
  writeCsv(file, n);
  // The database server reads the file for COPY: possibly as another OS user.
  chmodSync(dir, 0o755);
  chmodSync(file, 0o644);
  const db = await startDatabase({ databaseUrl: process.env.DATABASE_URL, port: 54334, databaseName: 'postgres', log });
  const owner = new URL(db.ownerUrl);
  owner.pathname = `/outreach_bench_import_${runId}`;
  const ownerUrl = owner.toString();
  const children: ChildProcess[] = [];
  let jwks: Awaited<ReturnType<typeof serveJwks>> | undefined;
  let temporal: Awaited<ReturnType<typeof startTemporalDevServer>> | undefined;
  await ensureDatabase(ownerUrl);
  const pool = new Pool({ connectionString: ownerUrl, max: 2 });
  try {
    await migrate(ownerUrl, { appPassword: db.appPassword });
    await pool.query(`INSERT INTO organizations (id, name, created_by) VALUES ($1, 'Bench import', $2)`, [ORG, USER]);
    await pool.query(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'owner')`, [ORG, USER]);

    // The ceiling: the server reads the same file with COPY into a plain table.
    await pool.query('CREATE TABLE bench_copy (full_name text, email text, title text, company text, domain text)');
    const c0 = performance.now();
    await pool.query(`COPY bench_copy FROM '${file.replace(/'/g, "''")}' WITH (FORMAT csv, HEADER true, DELIMITER ';', ENCODING 'UTF8')`);
    const copySeconds = (performance.now() - c0) / 1000;
    log(`bare COPY of ${n} rows: ${copySeconds.toFixed(2)} s`);

    temporal = await startTemporalDevServer({ cli: resolveTemporalCli(log), config: loadTemporalDevConfig(), grpcPort: 7298, headless: true, log });
    const taskQueue = `bench-import-${runId}`;
    const worker = await startWorker({
      ...process.env,
      LOG_LEVEL: 'info',
      DATABASE_URL: ownerUrl,
      WORKER_DATABASE_URL: withRole(ownerUrl, WORKER_DB_ROLE, db.appPassword),
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: taskQueue,
      INTEGRATION_SECRET_KEY: '00'.repeat(32),
    });
    children.push(worker);
    const idle = rssOf(worker.pid!);

    const keyDir = mkdtempSync(path.join(os.tmpdir(), 'outreach-bench-idp-'));
    const { publicJwk, privateJwk } = await loadOrCreateDevKey(keyDir);
    jwks = await serveJwks(0, [publicJwk]);
    const issuer = devIssuer((jwks.address() as { port: number }).port);
    const token = await signDevToken({ privateJwk, issuer, audience: DEV_AUDIENCE, userId: USER, expiresIn: '1h' });
    const client = new Client({ connection: await Connection.connect({ address: temporal.address }) });
    const apiDb = createDb(withRole(ownerUrl, API_DB_ROLE, db.appPassword), 4);
    const app = createApp({
      db: apiDb,
      logger: pino({ level: 'silent' }),
      temporalClient: client,
      workflows: new WorkflowStarter(client, { TEMPORAL_TASK_QUEUE: taskQueue, INGEST_RETRY_INITIAL_INTERVAL_MS: 1000 }),
      verifyToken: createTokenVerifier({
        mode: 'jwks',
        jwksUrl: `${issuer}/.well-known/jwks.json`,
        issuer,
        audience: DEV_AUDIENCE,
        algorithms: ['ES256'],
        clockToleranceSeconds: 5,
      }),
      issuer,
      bodyLimit: '1mb',
      secrets: null,
    });
    const server = await listen(app, 0, '127.0.0.1');

    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(worker.pid!))), 250);
    const t0 = performance.now();
    const res = await fetch(`${server.url}/imports?organizationId=${ORG}&sourceDescription=bench`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv', 'content-length': String(statSync(file).size) },
      body: Readable.toWeb(createReadStream(file)) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    const accepted = (await res.json()) as { id: string; total_rows: number };
    if (res.status !== 202) throw new Error(`POST /imports answered ${res.status}: ${JSON.stringify(accepted)}`);
    const uploadSeconds = (performance.now() - t0) / 1000;
    log(`staged ${accepted.total_rows} rows in ${uploadSeconds.toFixed(1)} s`);
    let status = 'running';
    let done: Record<string, unknown> = {};
    while (status === 'running') {
      await new Promise((r) => setTimeout(r, 2000));
      done = (await pool.query('SELECT status, processed_rows, created_contacts, created_companies FROM imports WHERE id = $1', [accepted.id])).rows[0];
      status = String(done.status);
      log(`${done.processed_rows} of ${n} (${((performance.now() - t0) / 1000).toFixed(0)} s), worker RSS ${(rssOf(worker.pid!) / 2 ** 20).toFixed(0)} MiB`);
    }
    clearInterval(sampler);
    const totalSeconds = (performance.now() - t0) / 1000;
    const runSeconds = totalSeconds - uploadSeconds;
    await server.close(1000);
    await apiDb.destroy();
    await client.connection.close();

    const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
    const rate = (s: number) => `${(n / s).toFixed(0)} rows/s`;
    console.log(
      `\n${n.toLocaleString('en')} rows (${(statSync(file).size / 2 ** 20).toFixed(1)} MiB); ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(2)}; import ${status}: ${JSON.stringify(done)}`,
    );
    console.log(`bare COPY of the same file (ceiling)         ${copySeconds.toFixed(1)} s  ${rate(copySeconds)}`);
    console.log(`POST /imports (stream into import_rows)      ${uploadSeconds.toFixed(1)} s  ${rate(uploadSeconds)}`);
    console.log(`import run (checks, matching, contacts)      ${runSeconds.toFixed(1)} s  ${rate(runSeconds)}`);
    console.log(`upload + run                                 ${totalSeconds.toFixed(1)} s  ${rate(totalSeconds)}`);
    console.log(`worker RSS: idle ${mib(idle)}, peak during the import ${mib(peak)}`);
  } finally {
    await pool.end();
    for (const c of children) await stopChild(c);
    if (jwks) await new Promise((r) => jwks!.close(r));
    await temporal?.stop();
    await dropDatabase(ownerUrl);
    await db.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : e);
  process.exit(1);
});
