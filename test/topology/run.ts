/**
 * `npm run test:topology`: the production topology on one machine, with pieces killed while it sends.
 *
 * A throw-away embedded PostgreSQL of its own; the production Temporal Server on it (mTLS); two API
 * processes and two worker processes of the compiled build (`npm run build` first, unless --no-build);
 * a real SMTP server; the test DNS zones and a JWKS issuer. Two campaigns of 100 contacts each (200,
 * `contactIds` takes 100 a request) are accepted in auto mode, and while they send: one API process is
 * SIGKILLed and restarted, one worker is SIGKILLed and restarted, the Temporal Server is SIGKILLed and
 * restarted, and PostgreSQL is restarted. It prints e-mails sent, duplicated, lost, over the mailbox's
 * daily cap, enrollments stranded, the messages flagged for checking (a worker killed between handing an
 * e-mail over and recording it: the e-mail may have gone, so it is not sent again), and the time to
 * recover; it exits 1 unless duplicated, lost, over the cap and stranded are 0.
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { Pool } from 'pg';
import { withRole } from '../../apps/shared/config';
import { freeLoopbackPort } from '../../apps/shared/ports';
import { temporalConnectionOptions } from '../../apps/shared/temporal-connection';
import { API_DB_ROLE, WORKER_DB_ROLE } from '../../db/roles';
import { ensureDatabase, migrate } from '../../db/migrator';
import { DEV_AUDIENCE, devIssuer, loadOrCreateDevKey, serveJwks } from '../../scripts/lib/dev-identity';
import { startDatabase } from '../../scripts/lib/postgres';
import { loadTemporalDevConfig } from '../../scripts/lib/temporal-server';
import { resolveTemporalServer, startTemporalProductionServer } from '../../scripts/lib/temporal-production-server';
import { workflowIds } from '../../workflows/search-attributes';
import type { TestApi } from '../helpers/api';
import { startDnsServer } from '../helpers/dns-server';
import { deliverabilityZones } from '../helpers/dns-zones';
import { outreachOrg } from '../helpers/outreach';
import { startSmtpServer } from '../helpers/smtp-server';
import { tokenFor } from '../helpers/tokens';

const ROOT = path.resolve(__dirname, '../..');
const CONTACTS = 200;
const DAILY_CAP = 190; // below the 200, so that "over the cap" means something: 10 wait for tomorrow
const log = (line: string) => console.error(`[topology ${new Date().toISOString().slice(11, 19)}] ${line}`);

/** A compiled process (node dist/…) that resolves once its log says `ready`. */
function startProcess(name: string, script: string, env: NodeJS.ProcessEnv, ready: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'dist', script)], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not start within 120 s:\n${output}`));
    }, 120000);
    const onData = (b: Buffer) => {
      const text = b.toString();
      if (process.env.TOPOLOGY_LOG)
        process.stderr.write(
          text
            .split('\n')
            .filter((l) => /"level":(40|50|60)/.test(l))
            .map((l) => `${name}: ${l.slice(0, 400)}\n`)
            .join(''),
        );
      output = (output + text).slice(-8000);
      const m = new RegExp(`"startup_ms":(\\d+)[^\\n]*"msg":"${ready}"`).exec(text);
      if (m) {
        clearTimeout(timer);
        log(`${name} up (pid ${child.pid}, start-up ${m[1]} ms)`);
        resolve(child);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code, signal) => {
      if (!(signal === 'SIGKILL' || (code === 0 && signal === null)))
        log(`${name} (pid ${child.pid}) exited (${signal ?? code}); its last output:\n${output.slice(-1500)}`);
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code}) before it was ready:\n${output}`));
    });
  });
}

const killHard = async (child: ChildProcess) => {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
};

const stopGently = async (child: ChildProcess) => {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30000);
  child.kill('SIGTERM');
  await exited;
  clearTimeout(timer);
};

async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The open runs' pending activities, grouped: type, state, attempt, seconds since scheduled or started, last failure. */
async function waitingOn(client: Client): Promise<string> {
  const seen = new Map<string, number>();
  let open = 0;
  for await (const run of client.workflow.list({ query: 'ExecutionStatus = "Running"' })) {
    open++;
    const d = await client.workflow.getHandle(run.workflowId, run.runId).describe();
    for (const a of d.raw.pendingActivities ?? []) {
      const since = Number((a.lastStartedTime ?? a.scheduledTime)?.seconds ?? 0);
      const age = since ? Math.round(Date.now() / 1000 - since) : '?';
      const key = `${a.activityType?.name} ${['unspecified', 'scheduled', 'started', 'cancel requested'][Number(a.state)] ?? a.state} attempt ${a.attempt} for ${age} s${a.lastFailure?.message ? ` (${a.lastFailure.message.slice(0, 80)})` : ''}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
  }
  return `${open} open runs; ${[...seen].map(([k, n]) => `${n}× ${k}`).join('; ') || 'no pending activity'}`;
}

async function main() {
  const started = Date.now();
  if (!process.argv.includes('--no-build')) {
    log('npm run build');
    const b = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    if (b.status !== 0) throw new Error('npm run build failed');
  }
  const cleanups: Array<() => Promise<unknown>> = [];
  const children = new Set<ChildProcess>();
  try {
    const pgPort = await freeLoopbackPort();
    const db = await startDatabase({ port: pgPort, databaseName: 'postgres', log }); // throw-away, its own
    cleanups.push(() => db.stop());
    const ownerUrl = new URL(db.ownerUrl);
    ownerUrl.pathname = '/outreach_topology';
    await ensureDatabase(ownerUrl.toString());
    await migrate(ownerUrl.toString(), { appPassword: db.appPassword });

    const temporal = await startTemporalProductionServer({
      binaries: resolveTemporalServer(log),
      postgresUrl: db.ownerUrl,
      database: 'temporal',
      visibilityDatabase: 'temporal_visibility',
      config: loadTemporalDevConfig(),
      log,
    });
    cleanups.push(() => temporal.stop());

    const keyDir = mkdtempSync(path.join(os.tmpdir(), 'outreach-topology-idp-'));
    const { publicJwk, privateJwk } = await loadOrCreateDevKey(keyDir);
    const jwksPort = await freeLoopbackPort();
    const jwks = await serveJwks(jwksPort, [publicJwk]);
    cleanups.push(() => new Promise((r) => (jwks.closeAllConnections(), jwks.close(r))));
    const issuer = devIssuer(jwksPort);
    Object.assign(process.env, { TEST_ISSUER: issuer, TEST_AUDIENCE: DEV_AUDIENCE, TEST_PRIVATE_JWK: JSON.stringify(privateJwk) });
    // Contacts live at made-up domains, which the address check asks about: those take mail.
    const dns = await startDnsServer(deliverabilityZones(), { unlistedReceiveMail: true });
    cleanups.push(() => dns.close());
    const smtp = await startSmtpServer();
    cleanups.push(() => smtp.close());

    const common: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      ...temporal.env,
      TEMPORAL_TASK_QUEUE: 'outreach',
      INTEGRATION_SECRET_KEY: randomBytes(32).toString('hex'),
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
      DNS_SERVERS: dns.address,
      DNS_TIMEOUT_MS: '300',
      INGEST_RETRY_INITIAL_INTERVAL_MS: '200',
      SEND_HOLD_RECHECK_SECONDS: '2',
      DB_POOL_SIZE: '10',
    };
    const apiPorts = [await freeLoopbackPort(), await freeLoopbackPort()];
    const apiEnv = (port: number): NodeJS.ProcessEnv => ({
      ...common,
      PORT: String(port),
      API_DATABASE_URL: withRole(ownerUrl.toString(), API_DB_ROLE, db.appPassword),
      AUTH_MODE: 'jwks',
      AUTH_JWKS_URL: `${issuer}/.well-known/jwks.json`,
      AUTH_ISSUER: issuer,
      AUTH_AUDIENCE: DEV_AUDIENCE,
      // Counted in PostgreSQL as in production (leases of 50 across both processes, through the
      // restart of PostgreSQL), with allowances the run's few hundred requests never spend.
      RATE_LIMIT_USER_PER_MINUTE: '1000000',
      RATE_LIMIT_ORG_PER_MINUTE: '1000000',
    });
    const workerEnv: NodeJS.ProcessEnv = {
      ...common,
      DATABASE_URL: ownerUrl.toString(),
      WORKER_DATABASE_URL: withRole(ownerUrl.toString(), WORKER_DB_ROLE, db.appPassword),
    };
    const startApi = (i: number) => startProcess(`api ${i + 1}`, 'apps/api/main.js', apiEnv(apiPorts[i]!), 'api listening');
    const startWorker = (i: number) => startProcess(`worker ${i + 1}`, 'apps/worker/main.js', workerEnv, 'worker started');
    const apis = await Promise.all([0, 1].map(startApi));
    const workers = await Promise.all([0, 1].map(startWorker));
    let crashed = 0; // processes that ended without being killed by this run
    const killed = new Set<ChildProcess>();
    const track = (c: ChildProcess) => {
      children.add(c);
      c.once('exit', () => !killed.has(c) && !stopping && (crashed++, log(`pid ${c.pid} exited by itself`)));
      return c;
    };
    let stopping = false;
    [...apis, ...workers].forEach(track);
    cleanups.push(async () => Promise.all([...children].map(stopGently)));

    // The balancer: round robin over the API processes, the next one when a process does not answer.
    let turn = 0;
    const call: TestApi['call'] = async (method, p, opts = {}) => {
      for (let attempt = 0; attempt < 20; attempt++) {
        const port = apiPorts[turn++ % apiPorts.length]!;
        const headers: Record<string, string> = { ...opts.headers };
        if (opts.token) headers.authorization = `Bearer ${opts.token}`;
        if (opts.body !== undefined) headers['content-type'] = 'application/json';
        try {
          const res = await fetch(`http://127.0.0.1:${port}${p}`, { method, headers, body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined });
          const text = await res.text();
          if (res.status === 503 && attempt < 19) continue; // a dependency restarting
          return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
        } catch {
          await new Promise((r) => setTimeout(r, 200));
        }
      }
      throw new Error(`${method} ${p}: no API process answered`);
    };
    const api = { url: `http://127.0.0.1:${apiPorts[0]}`, call } as TestApi;
    const newOrganization = async (_api: TestApi, name: string) => {
      const id = randomUUID();
      const owner = { id, token: await tokenFor(id, '1h') };
      const org = await call('POST', '/organizations', { token: owner.token, body: { name } });
      if (org.status !== 201) throw new Error(`POST /organizations: ${org.status}`);
      return { owner, orgId: org.body.id as string };
    };

    log(`seeding an organization, a mailbox (daily cap ${DAILY_CAP}) and ${CONTACTS} contacts through the API processes`);
    const o = await outreachOrg(api, newOrganization, smtp, { dailyCap: DAILY_CAP });
    const contacts: string[] = [];
    for (let i = 0; i < CONTACTS; i += 20)
      contacts.push(...(await Promise.all(Array.from({ length: 20 }, (_, j) => o.contact({ fullName: `Contact ${i + j}` })))).map((c) => c.id));
    const campaigns = [];
    for (let i = 0; i < CONTACTS; i += 100) {
      campaigns.push(
        await o.ok('POST', '/campaigns', {
          organizationId: o.orgId,
          name: `Topology ${i / 100 + 1}`,
          contactIds: contacts.slice(i, i + 100),
          mailboxId: o.mailboxId,
          steps: [{ channel: 'email', delayDays: 0 }],
        }),
      );
    }

    const owners = new Pool({ connectionString: ownerUrl.toString(), max: 2 });
    owners.on('error', () => undefined); // an idle connection cut by the PostgreSQL restart
    cleanups.push(() => owners.end());
    // Settled: sent, or failed flagged for checking (a worker killed between the hand-over and recording it:
    // the e-mail may have gone, so it is never sent again; a person looks). The wait below ends when every
    // e-mail due is received and settled; it had waited for `sent` alone, and timed out on a flagged one.
    const settledInDb = async () =>
      (
        await owners.query<{ sent: string; flagged: string }>(
          `SELECT count(*) FILTER (WHERE status = 'sent') sent, count(*) FILTER (WHERE status = 'failed' AND needs_check) flagged FROM messages WHERE organization_id = $1 AND direction = 'outbound'`,
          [o.orgId],
        )
      ).rows.map((r) => ({ sent: Number(r.sent), flagged: Number(r.flagged) }))[0]!;
    const received = () => smtp.messages.length;
    const statuses = async () =>
      (await owners.query(`SELECT status, count(*) n FROM messages WHERE organization_id = $1 GROUP BY 1 ORDER BY 1`, [o.orgId])).rows
        .map((r) => `${r.status} ${r.n}`)
        .join(', ');
    const at = async (what: string) => log(`${what}: ${received()} e-mails received; messages: ${await statuses().catch(() => '?')}`);

    const sendStart = Date.now();
    let enrolled = 0;
    for (const c of campaigns) enrolled += (await o.ok('POST', `/campaigns/${c.id}/accept`, { mailboxId: o.mailboxId, mode: 'auto' })).result.enrolled.length;
    log(`accepted: ${enrolled} enrollments`);

    // The disruptions, one after another, each once so many e-mails have gone out (so they fall while it sends).
    const after = (n: number) => until(`${n} e-mails`, async () => received() >= n, 120_000).catch(() => log(`(fewer than ${n} e-mails so far; going on)`));
    await after(10);
    killed.add(apis[0]!);
    await killHard(apis[0]!);
    await at('API process 1 killed');
    apis[0] = track(await startApi(0));
    await after(40);
    killed.add(workers[0]!);
    await killHard(workers[0]!);
    await at('worker 1 killed');
    workers[0] = track(await startWorker(0));
    await after(70);
    await temporal.kill();
    await at('Temporal Server killed');
    await temporal.restart();
    await at('Temporal Server restarted');
    await after(100);
    await db.restart!();
    const lastDisruption = Date.now();
    const before = received();
    await at('PostgreSQL restarted');

    const expected = Math.min(enrolled, DAILY_CAP);
    // Recovered: the first e-mail after the last disruption (sending goes on); done: every e-mail due today.
    await until('an e-mail after the restarts', async () => received() > before || received() >= expected, crashed ? 30_000 : 150_000).catch((e) =>
      log(String(e)),
    );
    const recoverSeconds = (Date.now() - lastDisruption) / 1000;
    // While the tail runs, say every 15 s what the open runs wait on (the slow finishes were unexplained).
    const client = new Client({ connection: await Connection.connect(temporalConnectionOptions(temporal.env)) });
    cleanups.push(() => client.connection.close());
    let finished = false;
    const watch = (async () => {
      for (let t = 15; !finished; t += 15) {
        await new Promise((r) => setTimeout(r, 15_000));
        if (!finished)
          log(
            `+${t} s: ${received()} e-mails received; messages: ${await statuses().catch(() => '?')}; waiting on: ${await waitingOn(client).catch((e) => String(e))}`,
          );
      }
    })();
    await until(
      `${expected} e-mails`,
      async () => received() >= expected && (await settledInDb().then((d) => d.sent + d.flagged)) >= expected,
      crashed ? 30_000 : 180_000,
    ).catch((e) => log(String(e)));
    const doneSeconds = (Date.now() - lastDisruption) / 1000;
    finished = true;
    await watch;
    // A moment more, for anything that would go over the cap or twice.
    await new Promise((r) => setTimeout(r, 5000));
    await at('at the end');

    const ids = smtp.messages.map((m) => /^Message-ID:\s*<([^>]+)>/im.exec(m.raw.toString())?.[1] ?? randomUUID());
    const distinct = new Set(ids).size;
    const duplicated = ids.length - distinct;
    const lost = Math.max(0, expected - distinct);
    const overCap = Math.max(0, distinct - DAILY_CAP);
    // Stranded: still active or paused in the database with no run behind it (an enrollment that ended, as
    // `failed` after a send flagged for checking, say, is not stranded: it says what happened).
    const enrollmentIds = (
      await owners.query<{ id: string }>(`SELECT id FROM enrollments WHERE organization_id = $1 AND status IN ('active', 'paused')`, [o.orgId])
    ).rows.map((r) => r.id);
    const withSent = new Set(
      (
        await owners.query<{ enrollment_id: string }>(
          `SELECT enrollment_id FROM messages WHERE organization_id = $1 AND direction = 'outbound' AND status = 'sent' AND enrollment_id IS NOT NULL`,
          [o.orgId],
        )
      ).rows.map((r) => r.enrollment_id),
    );
    let stranded = 0;
    for (const id of enrollmentIds.filter((e) => !withSent.has(e))) {
      const status = await client.workflow
        .getHandle(workflowIds.sequence(id))
        .describe()
        .then(
          (d) => d.status.name,
          () => 'NOT_FOUND',
        );
      if (status !== 'RUNNING') stranded++;
    }

    const { flagged } = await settledInDb();
    if (flagged) {
      // Why: the error each flagged message recorded (a worker killed after the hand-over, or something else).
      const why = await owners.query<{ error: string; n: string }>(
        `SELECT coalesce(error, '(none)') AS error, count(*) AS n FROM messages WHERE organization_id = $1 AND needs_check GROUP BY 1 ORDER BY 2 DESC`,
        [o.orgId],
      );
      for (const r of why.rows) log(`flagged for checking (${r.n}): ${r.error.slice(0, 300)}`);
    }
    stopping = true;
    const report = {
      processes_crashed: crashed,
      contacts: CONTACTS,
      enrolled,
      daily_cap: DAILY_CAP,
      emails_sent: distinct,
      duplicated,
      lost,
      over_the_cap: overCap,
      enrollments_stranded: stranded,
      flagged_for_checking: flagged,
      time_to_recover_s: Number(recoverSeconds.toFixed(1)),
      time_to_finish_after_last_disruption_s: Number(doneSeconds.toFixed(1)),
      sending_took_s: Number(((Date.now() - sendStart) / 1000).toFixed(1)),
      total_run_s: Number(((Date.now() - started) / 1000).toFixed(1)),
    };
    console.log(JSON.stringify(report, null, 2));
    process.exitCode = duplicated || lost || overCap || stranded || crashed ? 1 : 0;
  } finally {
    for (const c of cleanups.reverse()) await c().catch((e) => log(`cleanup: ${e}`));
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
