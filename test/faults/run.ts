/**
 * The fault suite (`npm run test:faults`, also run by .ci/run): the real stack of the tests (embedded
 * PostgreSQL, the Temporal dev server, worker processes, the API, a real SMTP server) with faults put in
 * on purpose while e-mails go out:
 *   1. the workers stopped (SIGSTOP) across the sending window's end;
 *   2. the SMTP server down across the window's end (where the mailbox's sending day ends);
 *   3. a worker SIGKILLed during sends;
 *   4. the Temporal dev server restarted in the middle of running sequences;
 *   5. PostgreSQL restarted in the middle of running sequences.
 * It prints, per fault, the e-mails sent outside the window, over the cap, duplicated and lost, and the
 * enrollments stranded (active or paused with no run behind them): each must be 0. It exits non-zero
 * otherwise, and ends with the plain "N passed, N failed" line.
 *
 * Nothing here is timed: windows are set a minute or two ahead of the clock, and the suite waits for
 * the system to settle.
 */
import { ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import Holidays from 'date-holidays';
import { DateTime } from 'luxon';
import { Pool } from 'pg';
import { withRole } from '../../apps/shared/config';
import { API_DB_ROLE, WORKER_DB_ROLE } from '../../db/roles';
import { ensureDatabase, migrate } from '../../db/migrator';
import { DEV_AUDIENCE, devIssuer, loadOrCreateDevKey, serveJwks } from '../../scripts/lib/dev-identity';
import { startDatabase, DatabaseHandle } from '../../scripts/lib/postgres';
import { startMailCatcher, MailCatcher } from '../../scripts/lib/mail-catcher';
import { loadTemporalDevConfig, resolveTemporalCli, startTemporalDevServer, TemporalServerHandle } from '../../scripts/lib/temporal-server';
import { freePort } from '../helpers/ports';
import { startDnsServer } from '../helpers/dns-server';
import { deliverabilityZones } from '../helpers/dns-zones';
import { newOrganization, startApi, TestApi } from '../helpers/api';
import { startWorkerProcess } from '../helpers/worker-process';

const log = (line: string) => process.stderr.write(`[faults] ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(300);
  }
}

// ---- the stack -------------------------------------------------------------------------------------
interface Stack {
  pgPort: number;
  pgDir: string;
  db: DatabaseHandle;
  ownerUrl: string;
  temporalPort: number;
  temporalDir: string;
  temporal: TemporalServerHandle;
  owner: Pool;
  workers: ChildProcess[];
  workerEnv: NodeJS.ProcessEnv;
}

async function startPostgres(port: number, dataDir: string): Promise<DatabaseHandle> {
  return startDatabase({ port, dataDir, databaseName: 'postgres', log });
}

async function startTemporal(port: number, dataDir: string): Promise<TemporalServerHandle> {
  return startTemporalDevServer({ cli: resolveTemporalCli(log), config: loadTemporalDevConfig(), grpcPort: port, headless: true, dataDir, log });
}

async function startStack(): Promise<Stack> {
  const pgPort = await freePort();
  const pgDir = mkdtempSync(path.join(os.tmpdir(), 'outreach-faults-pg-'));
  const db = await startPostgres(pgPort, pgDir);
  const url = new URL(db.ownerUrl);
  url.pathname = '/outreach_faults';
  const ownerUrl = url.toString();
  await ensureDatabase(ownerUrl);
  await migrate(ownerUrl, { appPassword: db.appPassword });
  const temporalPort = await freePort();
  const temporalDir = mkdtempSync(path.join(os.tmpdir(), 'outreach-faults-temporal-'));
  const temporal = await startTemporal(temporalPort, temporalDir);

  const keyDir = mkdtempSync(path.join(os.tmpdir(), 'outreach-faults-idp-'));
  const { publicJwk, privateJwk } = await loadOrCreateDevKey(keyDir);
  const jwksPort = await freePort();
  await serveJwks(jwksPort, [publicJwk]);
  const issuer = devIssuer(jwksPort);
  // Contacts live at made-up domains, which the address check asks about: those take mail.
  const dns = await startDnsServer(deliverabilityZones(), { unlistedReceiveMail: true });
  const taskQueue = `faults-${randomUUID().slice(0, 8)}`;
  Object.assign(process.env, {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    TEST_OWNER_DB_URL: ownerUrl,
    TEST_APP_DB_URL: withRole(ownerUrl, API_DB_ROLE, db.appPassword),
    TEST_WORKER_DB_URL: withRole(ownerUrl, WORKER_DB_ROLE, db.appPassword),
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: taskQueue,
    TEST_ISSUER: issuer,
    TEST_AUDIENCE: DEV_AUDIENCE,
    TEST_JWKS_URL: `${issuer}/.well-known/jwks.json`,
    TEST_PRIVATE_JWK: JSON.stringify(privateJwk),
    INGEST_RETRY_INITIAL_INTERVAL_MS: '200',
    INTEGRATION_SECRET_KEY: randomBytes(32).toString('hex'),
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    DNS_SERVERS: dns.address,
    DNS_TIMEOUT_MS: '300',
  });
  const workerEnv: NodeJS.ProcessEnv = {
    ...process.env,
    WORKER_DATABASE_URL: process.env.TEST_WORKER_DB_URL,
    DATABASE_URL: ownerUrl,
    LOG_LEVEL: process.env.WORKER_LOG_LEVEL ?? 'info',
    // The outreach reconciler looks often, so what a fault strands is found within the run.
    RECONCILE_INTERVAL_SECONDS: '10',
    RECONCILE_OUTREACH_INTERVAL_SECONDS: '10',
    SEQUENCE_RECHECK_SECONDS: '20',
  };
  const owner = new Pool({ connectionString: ownerUrl, max: 4 });
  owner.on('error', () => undefined);
  const stack: Stack = { pgPort, pgDir, db, ownerUrl, temporalPort, temporalDir, temporal, owner, workers: [], workerEnv };
  for (let i = 0; i < 2; i++) await addWorker(stack);
  return stack;
}

async function addWorker(stack: Stack): Promise<ChildProcess> {
  const w = await startWorkerProcess(stack.workerEnv);
  stack.workers.push(w);
  return w;
}
const liveWorkers = (stack: Stack) => stack.workers.filter((w) => w.exitCode === null && w.signalCode === null);

// ---- an organization that sends --------------------------------------------------------------------
interface Org {
  orgId: string;
  mailboxId: string;
  companyId: string;
  ok<T = any>(method: string, p: string, body?: unknown): Promise<T>;
  contact(i: number): Promise<{ id: string; email: string }>;
}

/** A country whose public holidays leave the next ten days alone (so the suite does not depend on the date). */
function quietHolidayCountry(): string {
  for (const c of ['NL', 'DE', 'BE', 'FR', 'GB', 'US', 'JP', 'BR', 'IN', 'AU']) {
    const hd = new Holidays(c);
    let busy = false;
    for (let d = -1; d <= 10; d++) {
      const day = DateTime.utc().plus({ days: d }).toJSDate();
      if ((hd.isHoliday(day) || []).some?.((h: { type: string }) => h.type === 'public')) busy = true;
    }
    if (!busy) return c;
  }
  return 'NL';
}

async function newOrg(api: TestApi, smtpPort: number, mailbox: Record<string, unknown>): Promise<Org> {
  const { owner, orgId } = await newOrganization(api, `Faults ${randomUUID().slice(0, 6)} B.V.`);
  const ok = async (method: string, p: string, body?: unknown) => {
    const res = await api.call(method, p, { token: owner.token, body });
    if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  await ok('PATCH', '/compliance/settings', {
    organizationId: orgId,
    senderLegalName: 'Acme Installaties B.V.',
    senderAddress: 'Stationsplein 1, 3511 ED Utrecht',
    privacyUrl: 'https://acme.example.nl/privacy',
    aiDisclosure: 'footer',
  });
  const slug = randomUUID().slice(0, 8);
  const box = await ok('POST', '/mailboxes', {
    organizationId: orgId,
    address: `verkoop-${slug}@good-mail.nl`,
    dkimSelector: 's1',
    displayName: 'Sanne de Verkoper',
    smtp: { host: '127.0.0.1', port: smtpPort, secure: false },
    secret: 'catcher-needs-no-password',
    timezone: 'UTC',
    sendingDays: [1, 2, 3, 4, 5, 6, 7],
    holidayCountry: quietHolidayCountry(),
    ...mailbox,
  });
  const company = await ok('POST', '/companies', {
    organizationId: orgId,
    name: `Bouw ${slug} B.V.`,
    countryCode: 'NL',
    legalForm: 'bv',
    locale: 'nl-NL',
    domain: `bouw-${slug}.nl`,
  });
  return {
    orgId,
    mailboxId: box.id,
    companyId: company.id,
    ok,
    async contact(i: number) {
      const email = `p${i}.${randomUUID().slice(0, 8)}@bouw-${slug}.nl`;
      const c = await ok('POST', '/contacts', { organizationId: orgId, companyId: company.id, fullName: `Pieter Bakker ${i}`, title: 'Projectleider', email });
      await ok('PUT', `/contacts/${c.id}/lawful-basis`, {
        organizationId: orgId,
        basis: 'consent',
        recipient_kind: 'legal_person',
        country: 'NL',
        consent_evidence: 'signed at the trade fair',
      });
      return { id: c.id, email };
    },
  };
}

/** An auto-mode campaign of n contacts with the given steps, accepted: its sequences start and send by themselves. */
async function runningCampaign(org: Org, n: number, steps: Array<{ channel: 'email'; delayDays: number }>): Promise<string> {
  const contacts: string[] = [];
  for (let i = 0; i < n; i++) contacts.push((await org.contact(i)).id);
  const campaign = await org.ok('POST', '/campaigns', {
    organizationId: org.orgId,
    name: `Faults ${randomUUID().slice(0, 6)}`,
    mailboxId: org.mailboxId,
    mode: 'auto',
    contactIds: contacts,
    steps,
  });
  await org.ok('POST', `/campaigns/${campaign.id}/accept`, {});
  return campaign.id;
}

// ---- what is counted -------------------------------------------------------------------------------
interface Figures {
  sent: number;
  outsideWindow: number;
  overCap: number;
  duplicated: number;
  lost: number;
  stranded: number;
  /** Delivered, but recorded as flagged for checking (the worker died between the hand-over and the record). */
  flagged: number;
  /** Outbound e-mails by status, to read the figures by. */
  statuses: Record<string, number>;
}

const receivedIds = (smtp: MailCatcher) => smtp.messages.flatMap((m) => /^Message-ID:\s*<([0-9a-f-]{36})@/im.exec(m.raw.toString())?.[1] ?? []);

async function count(stack: Stack, smtp: MailCatcher, temporal: Client, org: Org, opts: { windowEnd?: Date; cap?: number }): Promise<Figures> {
  const { rows } = await stack.owner.query<{ id: string; status: string; send_attempted_at: Date | null; sent_at: Date | null }>(
    `SELECT id, status, send_attempted_at, sent_at FROM messages WHERE organization_id = $1 AND direction = 'outbound' AND channel = 'email'`,
    [org.orgId],
  );
  const receipts = new Map<string, number>();
  for (const id of receivedIds(smtp)) receipts.set(id, (receipts.get(id) ?? 0) + 1);
  const sentRows = rows.filter((r) => r.status === 'sent');
  const outsideWindow = opts.windowEnd ? sentRows.filter((r) => r.send_attempted_at && r.send_attempted_at.getTime() > opts.windowEnd!.getTime()).length : 0;
  let overCap = 0;
  if (opts.cap) {
    const perDay = new Map<string, number>();
    for (const r of sentRows) {
      const day = DateTime.fromJSDate(r.sent_at ?? r.send_attempted_at!)
        .toUTC()
        .toISODate()!;
      perDay.set(day, (perDay.get(day) ?? 0) + 1);
    }
    for (const n of perDay.values()) overCap += Math.max(0, n - opts.cap);
  }
  let duplicated = 0;
  let lost = 0;
  let flagged = 0;
  for (const r of rows) {
    const got = receipts.get(r.id) ?? 0;
    if (got > 1) duplicated += got - 1;
    // Lost: it ended without reaching the server and will not be tried again. (One that reached it but
    // is flagged for checking, the worker having died between the hand-over and the record, is counted
    // as flagged: delivered, and shown to a person.)
    const waiting = ['pending_approval', 'approved', 'scheduled'].includes(r.status);
    if (got === 0 && !waiting && r.status !== 'skipped') lost++;
    if (got >= 1 && r.status === 'failed') flagged++;
  }
  const stranded = await strandedEnrollments(stack, temporal, org.orgId);
  const statuses: Record<string, number> = {};
  for (const r of rows) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
  return { sent: sentRows.length, outsideWindow, overCap, duplicated, lost, stranded, flagged, statuses };
}

async function strandedEnrollments(stack: Stack, temporal: Client, orgId: string): Promise<number> {
  const { rows } = await stack.owner.query<{ id: string; workflow_id: string | null }>(
    `SELECT id, workflow_id FROM enrollments WHERE organization_id = $1 AND status IN ('active', 'paused')`,
    [orgId],
  );
  let n = 0;
  for (const e of rows) {
    const running = await temporal.workflow
      .getHandle(e.workflow_id ?? `enrollment/${e.id}`)
      .describe()
      .then((d) => d.status.name === 'RUNNING')
      .catch(() => false);
    if (!running) n++;
  }
  return n;
}

/** A sending window of today (UTC) that closes at the first whole minute at least `leadSeconds` from now. */
function windowClosingIn(leadSeconds: number): { window: { start: string; end: string }; end: Date } {
  const end = DateTime.utc().plus({ seconds: leadSeconds }).endOf('minute').plus({ milliseconds: 1 });
  const minutes = end.hour * 60 + end.minute;
  const hhmm = minutes === 0 ? '24:00' : `${String(end.hour).padStart(2, '0')}:${String(end.minute).padStart(2, '0')}`;
  return { window: { start: '00:00', end: hhmm }, end: end.toJSDate() };
}

// ---- the faults ------------------------------------------------------------------------------------
type Fault = { name: string; run(): Promise<Figures> };

async function main(): Promise<void> {
  const started = Date.now();
  // A window that would close right after midnight UTC cannot be set (its end must follow its start): wait that out.
  while (DateTime.utc().hour === 23 && DateTime.utc().minute >= 55) await sleep(10_000);
  const stack = await startStack();
  let api = await startApi();
  let temporal = new Client({ connection: await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! }) });
  const results: Array<{ name: string; figures?: Figures; error?: string }> = [];

  const faults: Fault[] = [
    {
      name: 'workers stopped (SIGSTOP) across the window end',
      async run() {
        const smtp = await startMailCatcher({ maxMessages: 10_000 });
        const { window, end } = windowClosingIn(100);
        const org = await newOrg(api, smtp.port, { sendingWindow: window, dailyCap: 500, minGapSeconds: 4 });
        await runningCampaign(org, 30, [{ channel: 'email', delayDays: 0 }]);
        await sleep(Math.max(0, end.getTime() - 25_000 - Date.now()));
        const stopped = liveWorkers(stack);
        for (const w of stopped) w.kill('SIGSTOP');
        await sleep(Math.max(0, end.getTime() + 20_000 - Date.now()));
        for (const w of stopped) w.kill('SIGCONT');
        await settle(stack, org, 240_000, { n: 30, after: end });
        const f = await count(stack, smtp, temporal, org, { windowEnd: end });
        await smtp.close();
        return f;
      },
    },
    {
      name: 'SMTP server down across the window end (the end of the sending day)',
      async run() {
        let smtp = await startMailCatcher({ maxMessages: 10_000 });
        const port = smtp.port;
        const caught = smtp.messages;
        const { window, end } = windowClosingIn(100);
        const cap = 12;
        const org = await newOrg(api, port, { sendingWindow: window, dailyCap: cap, minGapSeconds: 4 });
        await runningCampaign(org, 24, [{ channel: 'email', delayDays: 0 }]);
        await sleep(Math.max(0, end.getTime() - 30_000 - Date.now()));
        await smtp.close();
        await sleep(Math.max(0, end.getTime() + 15_000 - Date.now()));
        smtp = await startMailCatcher({ port, maxMessages: 10_000 });
        smtp.messages.unshift(...caught);
        await settle(stack, org, 240_000, { n: 24, after: end });
        const f = await count(stack, smtp, temporal, org, { windowEnd: end, cap });
        await smtp.close();
        return f;
      },
    },
    {
      name: 'a worker SIGKILLed during sends',
      async run() {
        const smtp = await startMailCatcher({ maxMessages: 10_000 });
        const org = await newOrg(api, smtp.port, { sendingWindow: { start: '00:00', end: '24:00' }, dailyCap: 500, minGapSeconds: 0 });
        await runningCampaign(org, 60, [{ channel: 'email', delayDays: 0 }]);
        await until('some sent', async () => receivedIds(smtp).length >= 10, 120_000);
        const [victim] = liveWorkers(stack);
        victim!.kill('SIGKILL');
        await addWorker(stack);
        await settle(stack, org, 240_000, { n: 60 });
        const f = await count(stack, smtp, temporal, org, {});
        await smtp.close();
        return f;
      },
    },
    {
      name: 'the Temporal dev server restarted mid-sequence',
      async run() {
        const smtp = await startMailCatcher({ maxMessages: 10_000 });
        const org = await newOrg(api, smtp.port, { sendingWindow: { start: '00:00', end: '24:00' }, dailyCap: 500, minGapSeconds: 0 });
        await runningCampaign(org, 20, [
          { channel: 'email', delayDays: 0 },
          { channel: 'email', delayDays: 0 },
        ]);
        await until('some sent', async () => receivedIds(smtp).length >= 5, 120_000);
        await stack.temporal.stop();
        await sleep(3_000);
        stack.temporal = await startTemporal(stack.temporalPort, stack.temporalDir);
        // The API's and the suite's connections are new; the workers reconnect by themselves.
        await temporal.connection.close().catch(() => undefined);
        temporal = new Client({ connection: await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! }) });
        await api.close().catch(() => undefined);
        api = await startApi();
        await until('workers alive', async () => liveWorkers(stack).length >= 2 || (await addWorker(stack), true), 60_000);
        await settle(stack, org, 300_000, { n: 40, enrollmentsDone: true });
        const f = await count(stack, smtp, temporal, org, {});
        await smtp.close();
        return f;
      },
    },
    {
      name: 'PostgreSQL restarted mid-sequence',
      async run() {
        const smtp = await startMailCatcher({ maxMessages: 10_000 });
        const org = await newOrg(api, smtp.port, { sendingWindow: { start: '00:00', end: '24:00' }, dailyCap: 500, minGapSeconds: 0 });
        await runningCampaign(org, 20, [
          { channel: 'email', delayDays: 0 },
          { channel: 'email', delayDays: 0 },
        ]);
        await until('some sent', async () => receivedIds(smtp).length >= 5, 120_000);
        await stack.db.stop();
        await sleep(3_000);
        stack.db = await startPostgres(stack.pgPort, stack.pgDir);
        await until('workers alive', async () => liveWorkers(stack).length >= 2 || (await addWorker(stack), true), 60_000);
        await settle(stack, org, 300_000, { n: 40, enrollmentsDone: true });
        const f = await count(stack, smtp, temporal, org, {});
        await smtp.close();
        return f;
      },
    },
  ];

  const only = process.env.FAULTS_ONLY;
  for (const [i, fault] of faults.entries()) {
    if (only && !only.split(',').includes(String(i + 1))) continue;
    const t0 = Date.now();
    log(`${i + 1}. ${fault.name}…`);
    try {
      const figures = await fault.run();
      results.push({ name: fault.name, figures });
      log(`   ${JSON.stringify(figures)} (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
    } catch (e) {
      results.push({ name: fault.name, error: e instanceof Error ? e.message : String(e) });
      log(`   error: ${e instanceof Error ? e.stack : e}`);
    }
  }

  await api.close().catch(() => undefined);
  await temporal.connection.close().catch(() => undefined);
  for (const w of stack.workers) w.kill('SIGKILL');
  await stack.owner.end().catch(() => undefined);
  await stack.temporal.stop().catch(() => undefined);
  await stack.db.stop().catch(() => undefined);
  if (stack.db.clusterDir) rmSync(path.dirname(stack.db.clusterDir), { recursive: true, force: true });
  rmSync(stack.pgDir, { recursive: true, force: true });
  rmSync(stack.temporalDir, { recursive: true, force: true });

  const pad = (s: string | number, n: number) => String(s).padStart(n);
  console.log('\nfault                                                         sent  outside  over-cap  duplicated  lost  stranded');
  let failed = 0;
  for (const r of results) {
    if (!r.figures) {
      failed++;
      console.log(`${r.name.padEnd(60)} error: ${r.error}`);
      continue;
    }
    const f = r.figures;
    const bad = f.outsideWindow + f.overCap + f.duplicated + f.lost + f.stranded > 0 || f.sent === 0;
    if (bad) failed++;
    console.log(
      `${r.name.padEnd(60)} ${pad(f.sent, 5)} ${pad(f.outsideWindow, 8)} ${pad(f.overCap, 9)} ${pad(f.duplicated, 11)} ${pad(f.lost, 5)} ${pad(f.stranded, 9)}${bad ? '  FAIL' : ''}`,
    );
  }
  console.log(`\nfault suite in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  console.log(`${results.length - failed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

/**
 * Waits until the organization's outreach is where it should end up: `n` e-mails, each sent, or booked
 * for after `after` (a later sending day); every enrollment finished when `enrollmentsDone`. Gives up
 * after timeoutMs, and the figures then show what is missing.
 */
async function settle(stack: Stack, org: Org, timeoutMs: number, want: { n: number; after?: Date; enrollmentsDone?: boolean }): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const done = await stack.owner
      .query<{ status: string; scheduled_for: Date | null }>(
        `SELECT status, scheduled_for FROM messages WHERE organization_id = $1 AND direction = 'outbound'`,
        [org.orgId],
      )
      .then(async ({ rows }) => {
        if (rows.length < want.n) return false;
        const settled = rows.every((r) => r.status === 'sent' || (want.after && r.status === 'scheduled' && r.scheduled_for && r.scheduled_for > want.after));
        if (!settled || !want.enrollmentsDone) return settled;
        const open = await stack.owner.query(`SELECT 1 FROM enrollments WHERE organization_id = $1 AND status IN ('active', 'paused') LIMIT 1`, [org.orgId]);
        return open.rowCount === 0;
      })
      .catch(() => false);
    if (done || Date.now() > deadline) return;
    await sleep(1_000);
  }
}

main().catch((e) => {
  console.error(e);
  console.log('0 passed, 1 failed');
  process.exit(1);
});
