/**
 * bench/enrollments: 10,000 enrollments parked waiting for approval. Each is a real sequenceWorkflow
 * on a Temporal dev server, run by one real worker process, that wrote its first draft and now waits
 * for a person. Prints the worker's resident memory beside its ceiling (1 GiB), and the approval
 * inbox (`GET /messages?status=pending_approval`, limit 50) under load beside a bare Express handler
 * answering the same JSON (the ceiling), with the target p99 < 25 ms.
 *
 *   npm run bench:enrollments [-- --enrollments 10000 --connections 50 --duration 10]
 *
 * Creates its own database on DATABASE_URL (the owner; else the embedded PostgreSQL) and drops it
 * afterwards; the Temporal dev server is in memory.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { Pool } from 'pg';
import { WorkflowStarter } from '../apps/shared/temporal';
import { withRole } from '../apps/shared/config';
import { dropDatabase, ensureDatabase, migrate } from '../db/migrator';
import { API_DB_ROLE, WORKER_DB_ROLE } from '../db/roles';
import { DEV_AUDIENCE, devIssuer, loadOrCreateDevKey, serveJwks, signDevToken } from '../scripts/lib/dev-identity';
import { startDatabase } from '../scripts/lib/postgres';
import { loadTemporalDevConfig, resolveTemporalCli, startTemporalDevServer } from '../scripts/lib/temporal-server';
import { load, startChild, stopChild, type Figures } from './api';

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const ORG = '0e000000-0000-4000-8000-00000000000e';
const USER = '0e000000-0000-4000-8000-0000000000e1';
const GIB = 1024 ** 3;

/** Resident memory of a process (VmRSS), bytes. */
function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

async function seed(ownerUrl: string, n: number): Promise<{ campaignId: string; mailboxId: string; enrollments: string[] }> {
  const pool = new Pool({ connectionString: ownerUrl, max: 2 });
  try {
    await pool.query(`INSERT INTO organizations (id, name, created_by) VALUES ($1, 'Bench enrollments', $2)`, [ORG, USER]);
    await pool.query(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'owner')`, [ORG, USER]);
    await pool.query(
      `UPDATE compliance_settings SET sender_legal_name = 'Bench B.V.', sender_address = 'Straat 1, Utrecht', privacy_url = 'https://bench.example/privacy' WHERE organization_id = $1`,
      [ORG],
    );
    const mailbox = await pool.query<{ id: string }>(
      `INSERT INTO mailboxes (organization_id, address, domain, holiday_country, smtp_config) VALUES ($1, 'sales@bench.example', 'bench.example', 'NL', '{"host":"127.0.0.1","port":9}') RETURNING id`,
      [ORG],
    );
    const company = await pool.query<{ id: string }>(
      `INSERT INTO companies (organization_id, name, normalized_name, country_code, locale) VALUES ($1, 'Bench Bouw B.V.', 'bench bouw', 'NL', 'nl-NL') RETURNING id`,
      [ORG],
    );
    await pool.query(
      `INSERT INTO contacts (organization_id, company_id, full_name, title, email, email_status, email_checked_at)
       SELECT $1, $2, 'Contact ' || i, 'Projectleider', 'c' || i || '@bench-bouw.example', 'valid', now() FROM generate_series(1, $3::int) i`,
      [ORG, company.rows[0]!.id, n],
    );
    await pool.query(
      `INSERT INTO lawful_basis_records (organization_id, contact_id, basis, recipient_kind, country, consent_evidence, recorded_by)
       SELECT organization_id, id, 'consent', 'legal_person', 'NL', 'bench', $2 FROM contacts WHERE organization_id = $1`,
      [ORG, USER],
    );
    const campaign = await pool.query<{ id: string }>(
      `INSERT INTO campaigns (organization_id, name, status, mode, mailbox_id, proposed_by) VALUES ($1, 'Bench', 'active', 'review', $2, 'user') RETURNING id`,
      [ORG, mailbox.rows[0]!.id],
    );
    const sequence = await pool.query<{ id: string }>(`INSERT INTO sequences (organization_id, campaign_id, name) VALUES ($1, $2, 'Bench') RETURNING id`, [
      ORG,
      campaign.rows[0]!.id,
    ]);
    await pool.query(
      `INSERT INTO sequence_steps (organization_id, sequence_id, position, channel, delay_days, instructions) VALUES ($1, $2, 1, 'email', 0, 'Introduce us')`,
      [ORG, sequence.rows[0]!.id],
    );
    const enrollments = await pool.query<{ id: string }>(
      `INSERT INTO enrollments (organization_id, campaign_id, sequence_id, contact_id, status, workflow_id)
       SELECT $1, $2, $3, id, 'active', NULL FROM contacts WHERE organization_id = $1 RETURNING id`,
      [ORG, campaign.rows[0]!.id, sequence.rows[0]!.id],
    );
    await pool.query(`UPDATE enrollments SET workflow_id = 'enrollment/' || id WHERE organization_id = $1`, [ORG]);
    return { campaignId: campaign.rows[0]!.id, mailboxId: mailbox.rows[0]!.id, enrollments: enrollments.rows.map((r) => r.id) };
  } finally {
    await pool.end();
  }
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

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      enrollments: { type: 'string', default: '10000' },
      connections: { type: 'string', default: '50' },
      duration: { type: 'string', default: '10' },
    },
  });
  const n = Number(values.enrollments);
  const connections = Number(values.connections);
  const duration = Number(values.duration);
  const runId = Date.now().toString(36);
  const db = await startDatabase({ databaseUrl: process.env.DATABASE_URL, port: 54333, databaseName: 'postgres', log });
  const owner = new URL(db.ownerUrl);
  owner.pathname = `/outreach_bench_enrollments_${runId}`;
  const ownerUrl = owner.toString();
  const children: ChildProcess[] = [];
  let jwks: Awaited<ReturnType<typeof serveJwks>> | undefined;
  let temporal: Awaited<ReturnType<typeof startTemporalDevServer>> | undefined;
  await ensureDatabase(ownerUrl);
  try {
    await migrate(ownerUrl, { appPassword: db.appPassword });
    temporal = await startTemporalDevServer({ cli: resolveTemporalCli(log), config: loadTemporalDevConfig(), grpcPort: 7299, headless: true, log });
    const taskQueue = `bench-${runId}`;
    const worker = await startWorker({
      ...process.env,
      LOG_LEVEL: 'info', // the worker says 'worker started' at info
      DATABASE_URL: ownerUrl,
      WORKER_DATABASE_URL: withRole(ownerUrl, WORKER_DB_ROLE, db.appPassword),
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: taskQueue,
      INTEGRATION_SECRET_KEY: '00'.repeat(32),
    });
    children.push(worker);
    const idle = rssOf(worker.pid!);

    log(`seeding ${n} enrollments`);
    const seeded = await seed(ownerUrl, n);
    const client = new Client({ connection: await Connection.connect({ address: temporal.address }) });
    const starter = new WorkflowStarter(client, { TEMPORAL_TASK_QUEUE: taskQueue, INGEST_RETRY_INITIAL_INTERVAL_MS: 1000 });
    const t0 = performance.now();
    for (let i = 0; i < seeded.enrollments.length; i += 100) {
      await Promise.all(
        seeded.enrollments
          .slice(i, i + 100)
          .map((enrollmentId) =>
            starter.startSequence({ organizationId: ORG, enrollmentId, campaignId: seeded.campaignId, opportunityId: null, mailboxId: seeded.mailboxId }),
          ),
      );
    }
    const pool = new Pool({ connectionString: ownerUrl, max: 1 });
    let parked = 0;
    let peak = idle;
    while (parked < n) {
      await new Promise((r) => setTimeout(r, 2000));
      parked = (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM messages WHERE organization_id = $1 AND status = 'pending_approval'`, [ORG]))
        .rows[0]!.n;
      peak = Math.max(peak, rssOf(worker.pid!));
      log(`${parked} of ${n} parked (${((performance.now() - t0) / 1000).toFixed(0)} s), worker RSS ${(rssOf(worker.pid!) / 2 ** 20).toFixed(0)} MiB`);
    }
    const parkedSeconds = (performance.now() - t0) / 1000;
    await pool.query('VACUUM ANALYZE messages');
    await pool.end();
    await new Promise((r) => setTimeout(r, 3000));
    const settled = rssOf(worker.pid!);

    const keyDir = mkdtempSync(path.join(os.tmpdir(), 'outreach-bench-idp-'));
    const { publicJwk, privateJwk } = await loadOrCreateDevKey(keyDir);
    jwks = await serveJwks(0, [publicJwk]);
    const issuer = devIssuer((jwks.address() as { port: number }).port);
    const token = await signDevToken({ privateJwk, issuer, audience: DEV_AUDIENCE, userId: USER, expiresIn: '1h' });
    const api = await startChild('api', {
      BENCH_API_DB_URL: withRole(ownerUrl, API_DB_ROLE, db.appPassword),
      BENCH_JWKS_URL: `${issuer}/.well-known/jwks.json`,
      BENCH_ISSUER: issuer,
    });
    children.push(api.child);
    const inbox = `${api.url}/messages?organizationId=${ORG}&status=pending_approval&limit=50`;
    const first = await fetch(inbox, { headers: { authorization: `Bearer ${token}` } });
    const body = await first.text();
    if (first.status !== 200 || JSON.parse(body).length !== 50) throw new Error(`GET /messages answered ${first.status}: ${body.slice(0, 200)}`);
    const bare = await startChild('bare', { BENCH_BODY: body });
    children.push(bare.child);
    await load('warm-up', inbox, { connections, duration: 2, token });
    await load('warm-up', `${bare.url}/signals`, { connections, duration: 2 });
    const figures: Figures[] = [
      await load('bare Express, same JSON (ceiling)', `${bare.url}/signals`, { connections, duration }),
      await load('GET /messages?status=pending_approval', inbox, { connections, duration, token }),
    ];
    const underLoad = rssOf(worker.pid!);

    const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
    console.log(
      `\n${n.toLocaleString('en')} enrollments parked waiting for approval (all parked in ${parkedSeconds.toFixed(0)} s); ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(2)}`,
    );
    console.log(
      `worker RSS: idle ${mib(idle)}, peak while parking ${mib(peak)}, parked ${mib(settled)}, during the inbox load ${mib(underLoad)}; ceiling 1024 MiB: ${Math.max(peak, settled, underLoad) < GIB ? 'met' : 'MISSED'}`,
    );
    const pad = (s: string, w: number) => s.padEnd(w);
    console.log(`${pad('scenario', 40)} ${pad('req/s', 8)} ${pad('p50 ms', 7)} ${pad('p99 ms', 7)} target`);
    for (const f of figures) {
      const target = f === figures[0] ? '' : `p99 < 25 ms: ${f.p99 < 25 && f.non2xx === 0 && f.errors === 0 ? 'met' : 'MISSED'}`;
      console.log(
        `${pad(f.name, 40)} ${pad(f.rps.toFixed(0), 8)} ${pad(String(f.p50), 7)} ${pad(String(f.p99), 7)} ${target}${f.non2xx || f.errors ? ` (${f.non2xx} non-2xx, ${f.errors} errors)` : ''}`,
      );
    }
    await client.connection.close();
  } finally {
    for (const c of children) await stopChild(c);
    if (jwks) await new Promise((r) => jwks!.close(r));
    await temporal?.stop();
    await dropDatabase(ownerUrl);
    await db.stop();
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : e);
  process.exit(1);
});
