/**
 * bench/api: the API's list and search endpoints under load, beside a bare Express handler answering
 * the same JSON on the same machine in the same run (the ceiling).
 *
 *   npm run bench:api [-- --duration 10 --connections 50 --rows 100000 --profile --api-node-args=<node flags>]
 *
 * Creates its own database on DATABASE_URL (the owner; else the embedded PostgreSQL), seeds --rows
 * signals and --rows companies in the caller's organization and as many in another, starts the API
 * in a child process (no Temporal server: a lazy client the list endpoints never use) and the bare
 * server in another, and drives each with autocannon from this process. --profile writes a V8 CPU
 * profile of the API child (node --cpu-prof) to bench/profiles/. The database is dropped afterwards.
 */
import { ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import express from 'express';
import { Pool } from 'pg';
import pino from 'pino';
import { Client, Connection } from '@temporalio/client';
import { createApp } from '../apps/api/app';
import { createTokenVerifier } from '../apps/api/auth';
import { listen } from '../apps/api/server';
import { withRole } from '../apps/shared/config';
import { API_DB_ROLE } from '../db/roles';
import { WorkflowStarter } from '../apps/shared/temporal';
import { createDb } from '../db/pool';
import { dropDatabase, ensureDatabase, migrate } from '../db/migrator';
import { DEV_AUDIENCE, devIssuer, loadOrCreateDevKey, serveJwks, signDevToken } from '../scripts/lib/dev-identity';
import { startDatabase } from '../scripts/lib/postgres';

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

const ORG = '0a000000-0000-4000-8000-00000000000a';
const OTHER_ORG = '0b000000-0000-4000-8000-00000000000b';
const USER = '0a000000-0000-4000-8000-0000000000a1';
const OTHER_USER = '0b000000-0000-4000-8000-0000000000b1';

// ---- child processes: the API, or the bare handler ----------------------------------------------

async function serveApi(): Promise<void> {
  const env = process.env;
  const db = createDb(env.BENCH_API_DB_URL!, Number(env.DB_POOL_SIZE ?? 10));
  const temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) }); // never used by list endpoints
  const app = createApp({
    db,
    logger: pino({ level: env.LOG_LEVEL ?? 'info' }),
    temporalClient: temporal,
    workflows: new WorkflowStarter(temporal, { TEMPORAL_TASK_QUEUE: 'bench', INGEST_RETRY_INITIAL_INTERVAL_MS: 5000 }),
    verifyToken: createTokenVerifier({
      mode: 'jwks',
      jwksUrl: env.BENCH_JWKS_URL!,
      issuer: env.BENCH_ISSUER!,
      audience: DEV_AUDIENCE,
      algorithms: ['ES256'],
      clockToleranceSeconds: 5,
    }),
    issuer: env.BENCH_ISSUER!,
    bodyLimit: '256kb',
    secrets: null,
  });
  const server = await listen(app, 0, '127.0.0.1');
  process.send!({ url: server.url });
  answerCpuQueries();
  process.once('SIGTERM', () => {
    void server.close(1000).then(() => db.destroy()).then(() => process.exit(0)); // exit writes the CPU profile
  });
}

async function serveBare(): Promise<void> {
  const body = JSON.parse(process.env.BENCH_BODY!);
  const app = express();
  app.disable('x-powered-by');
  app.get('/signals', (_req, res) => {
    res.json(body);
  });
  const server = app.listen(0, '127.0.0.1', () => {
    process.send!({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}` });
  });
  answerCpuQueries();
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}

/** A server child answers 'cpu' with its CPU time so far (user + system, ms). */
function answerCpuQueries(): void {
  process.on('message', (m) => {
    if (m === 'cpu') {
      const u = process.cpuUsage();
      process.send!({ cpuMs: (u.user + u.system) / 1000 });
    }
  });
}

function cpuOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (m: { cpuMs?: number }) => {
      if (m.cpuMs === undefined) return;
      child.off('message', onMessage);
      resolve(m.cpuMs);
    };
    child.on('message', onMessage);
    child.send('cpu');
  });
}

/** CPU time (ms) of the PostgreSQL backends serving the bench database, from /proc (Linux, same machine). */
async function backendCpuMs(pool: Pool, database: string): Promise<number> {
  const { rows } = await pool.query(`SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = 'outreach'`, [database]);
  const ticks = 100; // USER_HZ on Linux
  let total = 0;
  for (const { pid } of rows) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += ((Number(fields[11]) + Number(fields[12])) / ticks) * 1000; // utime + stime
    } catch {
      // not on this machine, or gone
    }
  }
  return total;
}

export function startChild(role: 'api' | 'bare', env: NodeJS.ProcessEnv, execArgv: string[] = []): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(__filename, ['--serve', role], { env: { ...process.env, ...env }, execArgv: ['--import', 'tsx', ...execArgv], stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    child.once('message', (m: { url: string }) => resolve({ child, url: m.url }));
    child.once('exit', (code) => reject(new Error(`${role} server exited (${code})`)));
  });
}

export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

// ---- the bench ---------------------------------------------------------------------------------

async function seed(ownerUrl: string, rows: number): Promise<void> {
  const pool = new Pool({ connectionString: ownerUrl, max: 2 });
  try {
    await pool.query(`INSERT INTO organizations (id, name, created_by) VALUES ($1, 'Bench', $2), ($3, 'Other', $4)`, [ORG, USER, OTHER_ORG, OTHER_USER]);
    await pool.query(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'owner'), ($3, $4, 'owner')`, [ORG, USER, OTHER_ORG, OTHER_USER]);
    await pool.query(`INSERT INTO sources (organization_id, provider_key, name) VALUES ($1, 'rss', 'bench'), ($2, 'rss', 'bench')`, [ORG, OTHER_ORG]);
    // Titles from a small vocabulary; one in 997 mentions a heat pump (the rare search term), the
    // statuses cycle. Both organizations get the same shape, so the other tenant's rows match too.
    await Promise.all(
      [ORG, OTHER_ORG].map((org) =>
        pool.query(
          `INSERT INTO signals (organization_id, source_id, external_id, title, dedupe_key, status, created_at)
           SELECT $1, (SELECT id FROM sources WHERE organization_id = $1), 'bench-' || i,
                  (ARRAY['Aanvraag omgevingsvergunning', 'Verleende omgevingsvergunning', 'Kapvergunning', 'Tender', 'Melding activiteitenbesluit'])[1 + i % 5]
                  || ': ' || (ARRAY['nieuwbouw woningen', 'renovatie kantoorpand', 'verbouw school', 'uitbreiding bedrijfshal', 'sloop loods',
                                    'plaatsen zonnepanelen', 'aanleg parkeerterrein', 'bouw appartementen'])[1 + (i / 5) % 8]
                  || CASE WHEN i % 997 = 0 THEN ' met warmtepompen' ELSE '' END || ', kavel ' || i,
                  'bench-' || i,
                  (ARRAY['ingested', 'classified', 'scored', 'ignored', 'qualified', 'ready'])[1 + i % 6],
                  now() - make_interval(secs => i)
             FROM generate_series(1, $2::int) i`,
          [org, rows],
        ),
      ),
    );
    await Promise.all(
      [ORG, OTHER_ORG].map((org) =>
        pool.query(
          `INSERT INTO companies (organization_id, name, normalized_name, created_at)
           SELECT $1, n || ' B.V.', lower(n), now() - make_interval(secs => i)
             FROM (SELECT i, (CASE WHEN i % 1000 = 0 THEN 'Warmtepomp' ELSE '' END)
                          || (ARRAY['Installatie', 'Bouw', 'Techniek', 'Vastgoed', 'Advies', 'Groen', 'Energie', 'Staal'])[1 + i % 8]
                          || 'bedrijf ' || (ARRAY['Utrecht', 'Amersfoort', 'Zeist', 'Houten', 'Nieuwegein'])[1 + (i / 8) % 5] || ' ' || i AS n
                     FROM generate_series(1, $2::int) i) s`,
          [org, rows],
        ),
      ),
    );
    await pool.query('VACUUM ANALYZE signals, companies');
  } finally {
    await pool.end();
  }
}

export interface Figures {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** CPU ms per request: the server process, and the PostgreSQL backends (API only). */
  serverCpu?: number;
  dbCpu?: number;
}

export async function load(name: string, url: string, opts: { connections: number; duration: number; token?: string }): Promise<Figures> {
  const result = await autocannon({
    url,
    connections: opts.connections,
    duration: opts.duration,
    headers: opts.token ? { authorization: `Bearer ${opts.token}` } : {},
  });
  return {
    name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      serve: { type: 'string' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '50' },
      rows: { type: 'string', default: '100000' },
      profile: { type: 'boolean', default: false },
      // Extra node flags for the API process, e.g. --api-node-args=--max-semi-space-size=32
      'api-node-args': { type: 'string', default: '' },
    },
  });
  if (values.serve === 'api') return serveApi();
  if (values.serve === 'bare') return serveBare();

  const duration = Number(values.duration);
  const connections = Number(values.connections);
  const rows = Number(values.rows);
  const runId = Date.now().toString(36);
  const db = await startDatabase({ databaseUrl: process.env.DATABASE_URL, port: 54332, databaseName: 'postgres', log });
  const owner = new URL(db.ownerUrl);
  owner.pathname = `/outreach_bench_api_${runId}`;
  const ownerUrl = owner.toString();
  const children: ChildProcess[] = [];
  let jwks: Awaited<ReturnType<typeof serveJwks>> | undefined;
  await ensureDatabase(ownerUrl);
  try {
    await migrate(ownerUrl, { appPassword: db.appPassword });
    log(`seeding ${rows} signals and ${rows} companies in each of two organizations`);
    const t0 = performance.now();
    await seed(ownerUrl, rows);
    log(`seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const keyDir = mkdtempSync(path.join(os.tmpdir(), 'outreach-bench-idp-'));
    const { publicJwk, privateJwk } = await loadOrCreateDevKey(keyDir);
    jwks = await serveJwks(0, [publicJwk]);
    const issuer = devIssuer((jwks.address() as { port: number }).port);
    const token = await signDevToken({ privateJwk, issuer, audience: DEV_AUDIENCE, userId: USER, expiresIn: '1h' });

    const profileDir = path.resolve(__dirname, 'profiles');
    const api = await startChild(
      'api',
      { BENCH_API_DB_URL: withRole(ownerUrl, API_DB_ROLE, db.appPassword), BENCH_JWKS_URL: `${issuer}/.well-known/jwks.json`, BENCH_ISSUER: issuer },
      [...(values.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), ...values['api-node-args']!.split(' ').filter(Boolean)],
    );
    children.push(api.child);
    const list = `${api.url}/signals?organizationId=${ORG}&limit=50`;
    const first = await fetch(list, { headers: { authorization: `Bearer ${token}` } });
    const body = await first.text();
    if (first.status !== 200 || JSON.parse(body).length !== 50) throw new Error(`GET /signals answered ${first.status}: ${body.slice(0, 200)}`);
    const bare = await startChild('bare', { BENCH_BODY: body });
    children.push(bare.child);

    const scenarios: Array<[string, string, boolean]> = [
      ['bare Express, same JSON (ceiling)', `${bare.url}/signals`, false],
      ['GET /signals (limit 50)', list, true],
      ['GET /signals?status=ready', `${list}&status=ready`, true],
      ['GET /signals?q=warmtepomp', `${list}&q=warmtepomp`, true],
      ['GET /companies?q=warmtepomp', `${api.url}/companies?organizationId=${ORG}&limit=50&q=warmtepomp`, true],
    ];
    for (const [, url, auth] of scenarios) {
      const res = await fetch(url, { headers: auth ? { authorization: `Bearer ${token}` } : {} });
      if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
      await res.arrayBuffer();
      await load('warm-up', url, { connections, duration: 2, token: auth ? token : undefined });
    }
    const figures: Figures[] = [];
    const ownerPool = new Pool({ connectionString: ownerUrl, max: 1 });
    const dbName = owner.pathname.slice(1);
    for (const [name, url, auth] of scenarios) {
      log(`${name}: ${connections} connections, ${duration} s`);
      const server = auth ? api.child : bare.child;
      const [cpu0, db0] = [await cpuOf(server), await backendCpuMs(ownerPool, dbName)];
      const f = await load(name, url, { connections, duration, token: auth ? token : undefined });
      const [cpu1, db1] = [await cpuOf(server), await backendCpuMs(ownerPool, dbName)];
      const n = f.rps * duration;
      figures.push({ ...f, serverCpu: (cpu1 - cpu0) / n, dbCpu: auth ? (db1 - db0) / n : undefined });
    }
    await ownerPool.end();

    const ceiling = figures[0]!.rps;
    const pad = (s: string, n: number) => s.padEnd(n);
    console.log(`\n${rows.toLocaleString('en')} signals and companies per organization, two organizations; ${connections} connections, ${duration} s each; ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(2)}`);
    console.log(`${pad('scenario', 36)} ${pad('req/s', 8)} ${pad('p50 ms', 7)} ${pad('p99 ms', 7)} ${pad('ratio', 6)} ${pad('CPU ms/req: node', 17)}${pad('postgres', 9)} target`);
    for (const f of figures) {
      const search = f.name.includes('q=');
      const isCeiling = f === figures[0];
      const ratio = f.rps / ceiling;
      const answered = f.rps > 0 && f.non2xx === 0 && f.errors === 0;
      const target = isCeiling
        ? ''
        : search
          ? `p99 < 100 ms: ${answered && f.p99 < 100 ? 'met' : 'MISSED'}`
          : `p99 < 25 ms and ratio >= 0.35: ${answered && f.p99 < 25 && ratio >= 0.35 ? 'met' : 'MISSED'}`;
      const faults = f.non2xx || f.errors ? ` (${f.non2xx} non-2xx, ${f.errors} errors or timeouts)` : '';
      const perRequest = (v: number | undefined) => (v === undefined ? '' : Number.isFinite(v) ? v.toFixed(2) : '-');
      const cpu = `${pad(perRequest(f.serverCpu), 17)}${pad(perRequest(f.dbCpu), 9)}`;
      console.log(`${pad(f.name, 36)} ${pad(f.rps.toFixed(0), 8)} ${pad(String(f.p50), 7)} ${pad(String(f.p99), 7)} ${pad(isCeiling ? '1' : ratio.toFixed(2), 6)} ${cpu}${target}${faults}`);
    }
    if (values.profile) console.log(`\nCPU profile of the API process: ${profileDir}/*.cpuprofile (open in Chrome DevTools, Performance)`);
  } finally {
    for (const c of children) await stopChild(c);
    if (jwks) await new Promise((r) => jwks!.close(r));
    await dropDatabase(ownerUrl);
    await db.stop();
  }
}

// bench/enrollments.ts reuses the server children and the load driver; run directly, this is the bench.
if (require.main === module) {
  main().catch((e) => {
    console.error(e instanceof Error ? (e.stack ?? e.message) : e);
    process.exit(1);
  });
}
