/**
 * bench/accept: a campaign of N contacts (default 1,000) accepted through the real API, timed from
 * the accept request until every first draft is in the approval inbox (pending_approval), beside its
 * ceiling in the same run on the same Temporal server and worker: as many workflows, each running as
 * many activities (empty bodies) as one real sequence run took to park. The campaign grows through
 * `POST /campaigns/{id}/contacts` in batches of 1,000 while proposed; accept then enrolls them all.
 * Prints contacts/s, the ceiling's, the ratio, and the worker's resident memory with N parked.
 *
 *   npm run bench:accept [-- --contacts 10000]
 *   TEMPORAL_MODE=server npm run bench:accept   # the production Temporal Server (PostgreSQL, mTLS)
 *
 * Creates its own database on DATABASE_URL (the owner; else the embedded PostgreSQL) and drops it
 * afterwards. The dev server keeps history in memory; the production server (built once with Go,
 * cached in ~/.cache/outreach-signal) gets two fresh databases on the same PostgreSQL, dropped after.
 */
import { startBenchApi, startProcess, stop } from './processes';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { Pool } from 'pg';
import { withRole } from '../apps/shared/config';
import { freeLoopbackPort } from '../apps/shared/ports';
import { temporalConnectionOptions } from '../apps/shared/temporal-connection';
import { dropDatabase, ensureDatabase, migrate } from '../db/migrator';
import { API_DB_ROLE, WORKER_DB_ROLE } from '../db/roles';
import { startDatabase } from '../scripts/lib/postgres';
import { resolveTemporalServer, startTemporalProductionServer } from '../scripts/lib/temporal-production-server';
import { loadTemporalDevConfig, resolveTemporalCli, startTemporalDevServer } from '../scripts/lib/temporal-server';

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const ORG = '0f000000-0000-4000-8000-00000000000f';
const USER = '0f000000-0000-4000-8000-0000000000f1';
const MIB = 2 ** 20;

/** Resident memory of a process (VmRSS), bytes. */
function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** The organization, its sending mailbox, one company and N contacts with a lawful basis (as the owner: set-up, not timed). */
async function seed(ownerUrl: string, n: number): Promise<{ mailboxId: string; contactIds: string[] }> {
  const pool = new Pool({ connectionString: ownerUrl, max: 2 });
  try {
    await pool.query(`INSERT INTO organizations (id, name, created_by) VALUES ($1, 'Bench accept', $2)`, [ORG, USER]);
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
    const contacts = await pool.query<{ id: string }>(
      `INSERT INTO contacts (organization_id, company_id, full_name, title, email, email_status, email_checked_at)
       SELECT $1, $2, 'Contact ' || i, 'Projectleider', 'c' || i || '@bench-bouw.example', 'valid', now() FROM generate_series(1, $3::int) i RETURNING id`,
      [ORG, company.rows[0]!.id, n],
    );
    await pool.query(
      `INSERT INTO lawful_basis_records (organization_id, contact_id, basis, recipient_kind, country, consent_evidence, recorded_by)
       SELECT organization_id, id, 'consent', 'legal_person', 'NL', 'bench', $2 FROM contacts WHERE organization_id = $1`,
      [ORG, USER],
    );
    return { mailboxId: mailbox.rows[0]!.id, contactIds: contacts.rows.map((r) => r.id) };
  } finally {
    await pool.end();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { contacts: { type: 'string', default: '1000' } } });
  const n = Number(values.contacts);
  const mode = process.env.TEMPORAL_MODE === 'server' ? 'server' : 'dev';
  const runId = Date.now().toString(36);
  const db = await startDatabase({
    databaseUrl: process.env.DATABASE_URL,
    dataDir: path.join(os.tmpdir(), 'outreach-bench-accept-data'),
    port: 54335,
    databaseName: 'postgres',
    log,
  });
  const owner = new URL(db.ownerUrl);
  owner.pathname = `/outreach_bench_accept_${runId}`;
  const ownerUrl = owner.toString();
  const children: ChildProcess[] = [];
  const cleanups: Array<() => Promise<unknown>> = [];
  await ensureDatabase(ownerUrl);
  try {
    await migrate(ownerUrl, { appPassword: db.appPassword });
    let temporalEnv: Record<string, string>;
    if (mode === 'server') {
      const server = await startTemporalProductionServer({
        binaries: resolveTemporalServer(log),
        postgresUrl: db.ownerUrl,
        database: `temporal_bench_${runId}`,
        visibilityDatabase: `temporal_bench_visibility_${runId}`,
        config: loadTemporalDevConfig(),
        dropDatabasesOnStop: true,
        log,
      });
      cleanups.push(() => server.stop());
      temporalEnv = server.env;
    } else {
      const dev = await startTemporalDevServer({
        cli: resolveTemporalCli(log),
        config: loadTemporalDevConfig(),
        grpcPort: await freeLoopbackPort(),
        headless: true,
        log,
      });
      cleanups.push(() => dev.stop());
      temporalEnv = { TEMPORAL_ADDRESS: dev.address };
    }
    const taskQueue = `bench-accept-${runId}`;
    const common = { ...process.env, ...temporalEnv, TEMPORAL_TASK_QUEUE: taskQueue, INTEGRATION_SECRET_KEY: '00'.repeat(32), RECONCILE_SCHEDULE: 'false' };

    // The worker: the service's Workers with the real workflows plus the empty ones (bench/worker.ts).
    const worker = await startProcess(
      'worker',
      path.resolve(__dirname, 'worker.ts'),
      { ...common, LOG_LEVEL: 'warn', WORKER_DATABASE_URL: withRole(ownerUrl, WORKER_DB_ROLE, db.appPassword) },
      'bench worker started',
    );
    children.push(worker);
    const idle = rssOf(worker.pid!);

    // The API, as `npm run dev:api` runs it, with a development identity provider.
    const {
      child: api,
      base,
      token,
    } = await startBenchApi({
      env: {
        ...common,
        API_DATABASE_URL: withRole(ownerUrl, API_DB_ROLE, db.appPassword),
        LOG_LEVEL: 'info',
      },
      userId: USER,
      cleanups,
    });
    children.push(api);
    const call = async (method: string, url: string, body?: unknown) => {
      for (let i = 0; ; i++) {
        try {
          const res = await fetch(`${base}${url}`, {
            method,
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: body ? JSON.stringify(body) : undefined,
          });
          const text = await res.text();
          if (res.status >= 300) throw new Error(`${method} ${url} answered ${res.status}: ${text.slice(0, 300)}`);
          return JSON.parse(text);
        } catch (err) {
          if (i > 100 || !(err instanceof TypeError)) throw err; // TypeError: the API is not listening yet
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    };

    log(`seeding ${n} contacts`);
    const seeded = await seed(ownerUrl, n);
    const campaign = await call('POST', '/campaigns', {
      organizationId: ORG,
      name: 'Bench accept',
      mailboxId: seeded.mailboxId,
      mode: 'review',
      steps: [
        { channel: 'email', delayDays: 0, instructions: 'Introduce us' },
        { channel: 'email', delayDays: 3, instructions: 'Follow up' },
      ],
    });
    for (let i = 0; i < n; i += 1000) await call('POST', `/campaigns/${campaign.id}/contacts`, { contactIds: seeded.contactIds.slice(i, i + 1000) });

    const pool = new Pool({ connectionString: ownerUrl, max: 1 });
    cleanups.push(() => pool.end());
    const parkedCount = async () =>
      (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM messages WHERE organization_id = $1 AND status = 'pending_approval'`, [ORG])).rows[0]!.n;

    log(`accepting ${n} contacts (${mode === 'server' ? 'production' : 'dev'} server, load ${load()})`);
    const loadBefore = load();
    const t0 = performance.now();
    const accepted = await call('POST', `/campaigns/${campaign.id}/accept`, {});
    const acceptSeconds = (performance.now() - t0) / 1000;
    if (accepted.result.enrolled.length !== n) throw new Error(`accept enrolled ${accepted.result.enrolled.length} of ${n}`);
    let parked = 0;
    let peak = idle;
    let lastLog = 0;
    while (parked < n) {
      await new Promise((r) => setTimeout(r, 250));
      parked = await parkedCount();
      peak = Math.max(peak, rssOf(worker.pid!));
      if (performance.now() - lastLog > 5000) {
        lastLog = performance.now();
        log(`${parked} of ${n} parked (${((performance.now() - t0) / 1000).toFixed(0)} s), worker RSS ${(rssOf(worker.pid!) / MIB).toFixed(0)} MiB`);
      }
    }
    const realSeconds = (performance.now() - t0) / 1000;
    await new Promise((r) => setTimeout(r, 3000));
    const parkedRss = rssOf(worker.pid!);

    // Activities one run took to park (every run of this campaign takes the same path).
    const client = new Client({
      connection: await Connection.connect(temporalConnectionOptions({ TEMPORAL_ADDRESS: temporalEnv.TEMPORAL_ADDRESS!, ...temporalEnv })),
    });
    cleanups.push(() => client.connection.close());
    const history = await client.workflow.getHandle(`enrollment/${accepted.result.enrolled[0].enrollmentId}`).fetchHistory();
    const activities = history.events!.filter((e) => e.activityTaskScheduledEventAttributes).length;
    const names = history.events!.flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType!.name!] : []));

    // The ceiling: as many workflows, started as the API starts them (100 starts in flight), each running as many no-op activities.
    log(`ceiling: ${n} workflows of ${activities} empty activities (load ${load()})`);
    const t1 = performance.now();
    const ids = Array.from({ length: n }, (_, i) => `bench-accept-empty/${runId}/${i}`);
    for (let i = 0; i < ids.length; i += 100)
      await Promise.all(ids.slice(i, i + 100).map((workflowId) => client.workflow.start('emptySignalWorkflow', { taskQueue, workflowId, args: [activities] })));
    for (let i = 0; i < ids.length; i += 200) await Promise.all(ids.slice(i, i + 200).map((id) => client.workflow.getHandle(id).result()));
    const emptySeconds = (performance.now() - t1) / 1000;

    const real = n / realSeconds;
    const ceiling = n / emptySeconds;
    const serverName = mode === 'server' ? 'production Temporal Server (PostgreSQL, mTLS)' : 'Temporal CLI dev server';
    console.log(
      `\naccept ${n.toLocaleString('en')} contacts until every first draft is pending_approval, ${serverName}; ${os.cpus().length} cores, load average ${loadBefore} before, ${load()} after`,
    );
    console.log(`activities per run until parked: ${activities} (${names.join(', ')})`);
    console.log(`accept request                 ${acceptSeconds.toFixed(1)} s (${(n / acceptSeconds).toFixed(0)} enrollments/s, workflows started)`);
    console.log(`accept -> all parked           ${realSeconds.toFixed(1)} s   ${real.toFixed(1)} contacts/s`);
    console.log(`ceiling (empty activities)     ${emptySeconds.toFixed(1)} s   ${ceiling.toFixed(1)} workflows/s`);
    console.log(`ratio                          ${(real / ceiling).toFixed(2)} (target >= 0.5)`);
    console.log(
      `worker RSS                     idle ${(idle / MIB).toFixed(0)} MiB, peak ${(peak / MIB).toFixed(0)} MiB, ${n.toLocaleString('en')} parked ${(parkedRss / MIB).toFixed(0)} MiB (target < 1024 MiB)`,
    );
  } finally {
    for (const c of children) await stop(c);
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    await dropDatabase(ownerUrl).catch(() => undefined);
    await db.stop();
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : e);
  process.exit(1);
});
