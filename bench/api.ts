/**
 * bench/api: the API's list and search endpoints under load, beside a bare Express handler answering
 * the same JSON on the same machine in the same run (the ceiling).
 *
 *   npm run bench:api [-- --duration 10 --rounds 3 --connections 50 --rows 100000 --inbox 10000 --only <text> --profile --api-node-args=<node flags> --rate-limits shared|off --api-alone]
 *
 * Creates its own database on DATABASE_URL (the owner; else the embedded PostgreSQL), seeds --rows
 * signals and --rows companies in the caller's organization and as many in another, and --inbox
 * drafts waiting for approval in each (the approval inbox, `why` and all), starts the API in a child
 * process (no Temporal server: a lazy client the list endpoints never use; its rate limits counted in
 * PostgreSQL as the API's main counts them, unless --rate-limits off) and the bare server in
 * another, and drives each with autocannon from this process. Each scenario prints beside its own
 * ceiling: the bare handler answering the same JSON (the first page of GET /signals; the inbox's
 * page), and for the inbox with Accept-Encoding: gzip, the bare handler compressing it as the API
 * does. Every scenario and its ceiling run once per round (--rounds, default 3); what is printed is the
 * rounds' medians, each round's ratio beside it (a single 10-second run moves by about ±0.02 here, enough
 * to turn a verdict at 0.35). --only runs the scenarios whose name contains it, with their ceilings. --profile writes a V8 CPU
 * profile of the API child (node --cpu-prof) to bench/profiles/. --api-alone adds the list answered by
 * an API process whose pool answers at once without PostgreSQL (what the API's own code costs). The database is dropped afterwards (--keep-db keeps it and prints its URL).
 */
import { ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import express from 'express';
import { Pool } from 'pg';
import pino from 'pino';
import { Client, Connection } from '@temporalio/client';
import { createApp } from '../apps/api/app';
import { createTokenVerifier, newApiKey } from '../apps/api/auth';
import { acceptsGzip, sendJsonText } from '../apps/api/json-text';
import { listen } from '../apps/api/server';
import { withRole } from '../apps/shared/config';
import { API_DB_ROLE } from '../db/roles';
import { WorkflowStarter } from '../apps/shared/temporal';
import { createDb, poolOf } from '../db/pool';
import { dropDatabase, ensureDatabase, migrate } from '../db/migrator';
import { insertApiKey } from '../db/queries/api-keys';
import { DEV_AUDIENCE, devIssuer, loadOrCreateDevKey, serveJwks, signDevToken } from '../scripts/lib/dev-identity';
import { startDatabase } from '../scripts/lib/postgres';
import { median } from './stats';

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
    // warn: autocannon hangs up on its in-flight requests at the end of every run, and each would print an
    // info line ("request aborted", apps/api/request-log.ts) between the bench's own lines.
    logger: pino({ level: env.LOG_LEVEL ?? 'warn' }),
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
    // As the API's main counts them (in PostgreSQL, through its own pool), with allowances the bench
    // never spends, so every request pays what a production request pays and none is refused.
    rateLimits:
      env.BENCH_RATE_LIMITS === 'off' || env.BENCH_ANSWER_FILE ? undefined : { userPerMinute: 2_000_000_000, orgPerMinute: 2_000_000_000, store: poolOf(db) },
  });
  if (env.BENCH_ANSWER_FILE) answerReadsInProcess(poolOf(db)!, readFileSync(env.BENCH_ANSWER_FILE, 'utf8'));
  const server = await listen(app, 0, '127.0.0.1');
  process.send!({ url: server.url });
  answerCpuQueries();
  process.once('SIGTERM', () => {
    void server
      .close(1000)
      .then(() => db.destroy())
      .then(() => process.exit(0)); // exit writes the CPU profile
  });
}

/**
 * --api-alone: the API's pool answers every one-trip read at once with the list's JSON, and PostgreSQL
 * is never asked (nor the rate limits counted): what the API's own code costs a request, beside the
 * bare handler. A diagnosis, not a figure of the service.
 */
function answerReadsInProcess(pool: Pool, json: string): void {
  const client = { query: async () => [{ rows: [] }, { rows: [{ json }] }], release: () => undefined };
  pool.connect = (async () => client) as unknown as Pool['connect'];
}

async function serveBare(): Promise<void> {
  const body = JSON.parse(process.env.BENCH_BODY!);
  const inbox = process.env.BENCH_INBOX_FILE ? JSON.parse(readFileSync(process.env.BENCH_INBOX_FILE, 'utf8')) : []; // too large for an environment variable
  const app = express();
  app.disable('x-powered-by');
  // res.json serialises the answer on every request; asked for gzip, the ceiling compresses it as the API does (json-text.ts).
  const answer =
    (value: unknown): express.RequestHandler =>
    (req, res) => {
      if (acceptsGzip(req)) sendJsonText(req, res, JSON.stringify(value));
      else res.json(value);
    };
  app.get('/signals', answer(body));
  app.get('/messages', answer(inbox));
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

/** An API key of the caller's organization, made as POST /api-keys makes one (as the owner). */
async function seedApiKey(ownerUrl: string): Promise<string> {
  const { key, prefix, keyHash } = newApiKey();
  const owner = createDb(ownerUrl, 1);
  try {
    await owner
      .transaction()
      .execute((tx) => insertApiKey(tx, { id: randomUUID(), organizationId: ORG, name: 'bench', role: 'member', prefix, keyHash, createdBy: USER }));
  } finally {
    await owner.destroy();
  }
  return key;
}

async function seed(ownerUrl: string, rows: number): Promise<void> {
  const pool = new Pool({ connectionString: ownerUrl, max: 2 });
  try {
    await pool.query(`INSERT INTO organizations (id, name, created_by) VALUES ($1, 'Bench', $2), ($3, 'Other', $4)`, [ORG, USER, OTHER_ORG, OTHER_USER]);
    await pool.query(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'owner'), ($3, $4, 'owner')`, [
      ORG,
      USER,
      OTHER_ORG,
      OTHER_USER,
    ]);
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

/**
 * The approval inbox's data: per organization one mailbox, company, campaign, sequence and step, and
 * `n` contacts each enrolled with one draft waiting for approval, its `why` shaped as the writer's
 * (signal, two sourced facts, score reasons, the compliance rule, review reasons, risks) and a body
 * of a first e-mail's length, so that 50 of them are about as large as the inbox's real answer.
 */
export async function seedInbox(ownerUrl: string, n: number): Promise<void> {
  const pool = new Pool({ connectionString: ownerUrl, max: 2 });
  try {
    for (const org of [ORG, OTHER_ORG]) {
      const one = async (q: string, params: unknown[]) => (await pool.query<{ id: string }>(q, params)).rows[0]!.id;
      const mailbox = await one(
        `INSERT INTO mailboxes (organization_id, address, domain, holiday_country, smtp_config) VALUES ($1, 'sales@bench.example', 'bench.example', 'NL', '{"host":"127.0.0.1","port":9}') RETURNING id`,
        [org],
      );
      const company = await one(
        `INSERT INTO companies (organization_id, name, normalized_name, country_code, locale) VALUES ($1, 'Inbox Bouw B.V.', 'inbox bouw', 'NL', 'nl-NL') RETURNING id`,
        [org],
      );
      const campaign = await one(
        `INSERT INTO campaigns (organization_id, name, status, mode, mailbox_id, proposed_by) VALUES ($1, 'Warmtepompen Utrecht', 'active', 'review', $2, 'user') RETURNING id`,
        [org, mailbox],
      );
      const sequence = await one(`INSERT INTO sequences (organization_id, campaign_id, name) VALUES ($1, $2, 'Eerste contact') RETURNING id`, [org, campaign]);
      const step = await one(
        `INSERT INTO sequence_steps (organization_id, sequence_id, position, channel, delay_days, instructions) VALUES ($1, $2, 1, 'email', 0, 'Introduce us') RETURNING id`,
        [org, sequence],
      );
      await pool.query(
        `INSERT INTO contacts (organization_id, company_id, full_name, title, email, email_status, email_checked_at)
         SELECT $1, $2, 'Contact ' || i, 'Projectleider', 'c' || i || '@inbox-bouw.example', 'valid', now() FROM generate_series(1, $3::int) i`,
        [org, company, n],
      );
      await pool.query(
        `INSERT INTO enrollments (organization_id, campaign_id, sequence_id, contact_id, status)
         SELECT $1, $2, $3, id, 'active' FROM contacts WHERE organization_id = $1 AND company_id = $4`,
        [org, campaign, sequence, company],
      );
      await pool.query(
        `INSERT INTO messages (organization_id, enrollment_id, contact_id, step_id, mailbox_id, campaign_id, direction, channel, status,
                               subject, body, from_address, to_address, why, model, prompt_version, confidence, draft_key, created_at, updated_at)
         SELECT e.organization_id, e.id, e.contact_id, $2, $3, e.campaign_id, 'outbound', 'email', 'pending_approval',
                'Uw project aan de Kerkstraat ' || row_number() OVER (),
                'Geachte heer of mevrouw,' || E'\n\n' || repeat('Wij lazen dat u een omgevingsvergunning heeft aangevraagd voor de nieuwbouw van woningen. ', 2)
                  || E'\n\nMet vriendelijke groet,\nBench B.V.',
                'sales@bench.example', c.email,
                jsonb_build_object(
                  'signal', jsonb_build_object('id', gen_random_uuid(), 'title', 'Aanvraag omgevingsvergunning: nieuwbouw woningen, kavel ' || c.id, 'url', 'https://bench.example/bekendmaking/' || c.id),
                  'facts', jsonb_build_array(
                    jsonb_build_object('claim', 'De gemeente Utrecht ontving een aanvraag voor 24 woningen met warmtepompen', 'sourceUrl', 'https://bench.example/bekendmaking/' || c.id),
                    jsonb_build_object('claim', 'Inbox Bouw B.V. is de aanvrager en bouwt vaker in de regio', 'sourceUrl', 'https://bench.example/kvk/' || c.id)),
                  'scoreReasons', jsonb_build_array('omgevingsvergunning (+30)', 'nieuwbouw woningen (+20)', 'in het werkgebied (+15)'),
                  'compliance', jsonb_build_object('country', 'NL', 'locale', 'nl-NL', 'rule', 'art14_notice', 'requirements', jsonb_build_array('sender identity', 'unsubscribe link', 'privacy notice (art. 14)')),
                  'reviewReasons', jsonb_build_array('campaign mode is review', 'first e-mail to this contact'),
                  'risks', jsonb_build_array('the project may already have an installer')),
                'template-writer@1.0.0', 'v1', 0.82, 'bench-' || e.id,
                now() - make_interval(secs => row_number() OVER ()::int), now()
           FROM enrollments e JOIN contacts c ON c.id = e.contact_id
          WHERE e.organization_id = $1 AND e.campaign_id = $4`,
        [org, step, mailbox, campaign],
      );
    }
    await pool.query('VACUUM ANALYZE contacts, enrollments, messages');
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

export async function load(name: string, url: string, opts: { connections: number; duration: number; token?: string; gzip?: boolean }): Promise<Figures> {
  const result = await autocannon({
    url,
    connections: opts.connections,
    duration: opts.duration,
    headers: { ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), ...(opts.gzip ? { 'accept-encoding': 'gzip' } : {}) },
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
      // Each scenario and its ceiling run once per round; the figures printed are the rounds' medians.
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '50' },
      rows: { type: 'string', default: '100000' },
      // Pending drafts in the approval inbox per organization (0: no inbox scenarios).
      inbox: { type: 'string', default: '10000' },
      // Only the scenarios whose name contains this (the ceilings they compare with always run).
      only: { type: 'string', default: '' },
      profile: { type: 'boolean', default: false },
      // Keep the seeded database afterwards (its URL is printed), to look at its plans with EXPLAIN.
      'keep-db': { type: 'boolean', default: false },
      // Extra node flags for the API process, e.g. --api-node-args=--max-semi-space-size=32
      'api-node-args': { type: 'string', default: '' },
      // One more API process whose pool answers the list at once, without PostgreSQL (answerReadsInProcess).
      'api-alone': { type: 'boolean', default: false },
      // The API's rate limits: `shared` counts every request in PostgreSQL as the API's main does
      // (allowances the bench never spends), `off` leaves them out.
      'rate-limits': { type: 'string', default: 'shared' },
    },
  });
  if (values.serve === 'api') return serveApi();
  if (values.serve === 'bare') return serveBare();

  const duration = Number(values.duration);
  if (!['shared', 'off'].includes(values['rate-limits']!)) throw new Error('--rate-limits is shared or off');
  const ROUNDS = Number(values.rounds);
  if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error('--rounds must be a whole number of at least 1');
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
    const inboxRows = Number(values.inbox);
    if (inboxRows > 0) {
      log(`seeding ${inboxRows} drafts waiting for approval in each of two organizations`);
      await seedInbox(ownerUrl, inboxRows);
    }
    log(`seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const keyDir = mkdtempSync(path.join(os.tmpdir(), 'outreach-bench-idp-'));
    const { publicJwk, privateJwk } = await loadOrCreateDevKey(keyDir);
    jwks = await serveJwks(0, [publicJwk]);
    const issuer = devIssuer((jwks.address() as { port: number }).port);
    const token = await signDevToken({ privateJwk, issuer, audience: DEV_AUDIENCE, userId: USER, expiresIn: '1h' });
    const apiKey = await seedApiKey(ownerUrl);

    const profileDir = path.resolve(__dirname, 'profiles');
    const apiEnv = {
      BENCH_API_DB_URL: withRole(ownerUrl, API_DB_ROLE, db.appPassword),
      BENCH_JWKS_URL: `${issuer}/.well-known/jwks.json`,
      BENCH_ISSUER: issuer,
    };
    const api = await startChild('api', { ...apiEnv, BENCH_RATE_LIMITS: values['rate-limits']! }, [
      ...(values.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
      ...values['api-node-args']!.split(' ').filter(Boolean),
    ]);
    children.push(api.child);
    const list = `${api.url}/signals?organizationId=${ORG}&limit=50`;
    const first = await fetch(list, { headers: { authorization: `Bearer ${token}` } });
    const body = await first.text();
    if (first.status !== 200 || JSON.parse(body).length !== 50) throw new Error(`GET /signals answered ${first.status}: ${body.slice(0, 200)}`);
    const inbox = `${api.url}/messages?organizationId=${ORG}&status=pending_approval&limit=50`;
    let inboxBody = '[]';
    if (inboxRows > 0) {
      const r = await fetch(inbox, { headers: { authorization: `Bearer ${token}` } });
      inboxBody = await r.text();
      if (r.status !== 200 || JSON.parse(inboxBody).length !== 50) throw new Error(`GET /messages answered ${r.status}: ${inboxBody.slice(0, 200)}`);
      log(`the inbox's answer: ${(Buffer.byteLength(inboxBody) / 1024).toFixed(0)} KiB`);
    }
    const inboxFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'outreach-bench-inbox-')), 'inbox.json');
    writeFileSync(inboxFile, inboxBody);
    const bare = await startChild('bare', { BENCH_BODY: body, BENCH_INBOX_FILE: inboxFile });
    children.push(bare.child);
    let alone: { child: ChildProcess; url: string } | undefined;
    if (values['api-alone']) {
      const answerFile = path.join(path.dirname(inboxFile), 'signals.json');
      writeFileSync(answerFile, body);
      alone = await startChild('api', { ...apiEnv, BENCH_ANSWER_FILE: answerFile });
      children.push(alone.child);
    }

    // Each scenario beside its ceiling: the bare handler answering the same bytes (and gzip when it asks for gzip).
    // auth: the caller's JWT, or `key`: an API key of the organization (a machine client).
    interface Scenario {
      name: string;
      url: string;
      auth: boolean | 'key';
      gzip: boolean;
      ceiling?: string;
      search?: boolean;
      child?: ChildProcess;
      diagnosis?: boolean;
    }
    const bearerOf = (sc: Scenario) => (sc.auth === 'key' ? apiKey : sc.auth ? token : undefined);
    const listScenarios = (gzip: boolean): Scenario[] => {
      const ceiling = `bare Express, signals JSON${gzip ? ', gzip' : ''}`;
      const z = gzip ? ', gzip' : '';
      return [
        { name: ceiling, url: `${bare.url}/signals`, auth: false, gzip },
        { name: `GET /signals (limit 50)${z}`, url: list, auth: true, gzip, ceiling },
        ...(gzip ? [] : [{ name: 'GET /signals (limit 50), API key', url: list, auth: 'key' as const, gzip, ceiling }]),
        ...(alone && !gzip
          ? [
              {
                name: 'GET /signals (limit 50), no database',
                url: `${alone.url}/signals?organizationId=${ORG}&limit=50`,
                auth: true,
                gzip,
                ceiling,
                child: alone.child,
                diagnosis: true,
              },
            ]
          : []),
        { name: `GET /signals?status=ready${z}`, url: `${list}&status=ready`, auth: true, gzip, ceiling },
        { name: `GET /signals?q=warmtepomp${z}`, url: `${list}&q=warmtepomp`, auth: true, gzip, ceiling, search: true },
        {
          name: `GET /companies?q=warmtepomp${z}`,
          url: `${api.url}/companies?organizationId=${ORG}&limit=50&q=warmtepomp`,
          auth: true,
          gzip,
          ceiling,
          search: true,
        },
      ];
    };
    const inboxScenarios = (gzip: boolean): Scenario[] => {
      const ceiling = `bare Express, inbox JSON${gzip ? ', gzip' : ''}`;
      return [
        { name: ceiling, url: `${bare.url}/messages`, auth: false, gzip },
        { name: `GET /messages?status=pending_approval${gzip ? ', gzip' : ''}`, url: inbox, auth: true, gzip, ceiling },
      ];
    };
    const all = [...listScenarios(false), ...(inboxRows > 0 ? [...inboxScenarios(false), ...inboxScenarios(true)] : [])];
    const scenarios = all.filter(
      (sc) => !values.only || sc.name.includes(values.only) || all.some((o) => o.ceiling === sc.name && o.name.includes(values.only!)),
    );
    for (const sc of scenarios) {
      const res = await fetch(sc.url, {
        headers: {
          ...(sc.auth ? { authorization: `Bearer ${bearerOf(sc)}` } : {}),
          ...(sc.gzip ? { 'accept-encoding': 'gzip' } : { 'accept-encoding': 'identity' }),
        },
      });
      if (res.status !== 200) throw new Error(`${sc.url} answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
      await res.arrayBuffer();
      await load('warm-up', sc.url, { connections, duration: 2, token: bearerOf(sc), gzip: sc.gzip });
    }
    // Every scenario and its ceiling once per round, in the same order: each ratio is taken beside a
    // ceiling measured in the same round, and the verdict is the median's.
    const rounds: Array<Array<Figures & Scenario>> = [];
    const ownerPool = new Pool({ connectionString: ownerUrl, max: 1 });
    const dbName = owner.pathname.slice(1);
    for (let round = 1; round <= ROUNDS; round++) {
      const figures: Array<Figures & Scenario> = [];
      for (const sc of scenarios) {
        log(`round ${round} of ${ROUNDS}, ${sc.name}: ${connections} connections, ${duration} s`);
        const server = sc.child ?? (sc.auth ? api.child : bare.child);
        const [cpu0, db0] = [await cpuOf(server), await backendCpuMs(ownerPool, dbName)];
        const f = await load(sc.name, sc.url, { connections, duration, token: bearerOf(sc), gzip: sc.gzip });
        const [cpu1, db1] = [await cpuOf(server), await backendCpuMs(ownerPool, dbName)];
        const n = f.rps * duration;
        figures.push({ ...sc, ...f, serverCpu: (cpu1 - cpu0) / n, dbCpu: sc.auth ? (db1 - db0) / n : undefined });
      }
      rounds.push(figures);
    }
    await ownerPool.end();

    const pad = (s: string, n: number) => s.padEnd(n);
    console.log(
      `\n${rows.toLocaleString('en')} signals and companies and ${inboxRows.toLocaleString('en')} pending drafts per organization, two organizations; ${connections} connections, ${duration} s each, ${ROUNDS} round${ROUNDS === 1 ? '' : 's'}; ${os.cpus().length} cores, load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    console.log(`medians over the rounds; each round's ratio is to its ceiling in the same round`);
    console.log(
      `${pad('scenario', 44)} ${pad('req/s', 8)} ${pad('p50 ms', 7)} ${pad('p99 ms', 7)} ${pad('ratio', 6)} ${pad('per round', 11 + 5 * ROUNDS)}${pad('CPU ms/req: node', 17)}${pad('postgres', 9)} target`,
    );
    for (const [i, sc] of scenarios.entries()) {
      const runs = rounds.map((r) => r[i]!);
      const ratios = rounds.map((r, k) => {
        const ceiling = r.find((c) => c.name === sc.ceiling);
        return ceiling ? runs[k]!.rps / ceiling.rps : 1;
      });
      const mid = (pick: (f: Figures) => number | undefined) => {
        const xs = runs.map(pick).filter((v): v is number => v !== undefined && Number.isFinite(v));
        return xs.length ? median(xs) : undefined;
      };
      const ratio = median(ratios);
      const p99 = mid((f) => f.p99)!;
      const non2xx = runs.reduce((a, f) => a + f.non2xx, 0);
      const errors = runs.reduce((a, f) => a + f.errors, 0);
      const answered = runs.every((f) => f.rps > 0) && non2xx === 0 && errors === 0;
      const target = !sc.ceiling
        ? '(ceiling)'
        : sc.diagnosis
          ? '(without PostgreSQL: a diagnosis, no target)'
          : sc.search
            ? `ratio >= 0.35 and p99 < 100 ms: ${answered && ratio >= 0.35 && p99 < 100 ? 'met' : 'MISSED'}`
            : `ratio >= 0.35: ${answered && ratio >= 0.35 ? 'met' : 'MISSED'}`;
      const faults = non2xx || errors ? ` (${non2xx} non-2xx, ${errors} errors or timeouts)` : '';
      const perRequest = (v: number | undefined) => (v === undefined ? '' : v.toFixed(2));
      const perRound = sc.ceiling ? ratios.map((r) => r.toFixed(2)).join(' ') : '';
      const cpu = `${pad(perRequest(mid((f) => f.serverCpu)), 17)}${pad(perRequest(mid((f) => f.dbCpu)), 9)}`;
      console.log(
        `${pad(sc.name, 44)} ${pad(mid((f) => f.rps)!.toFixed(0), 8)} ${pad(String(mid((f) => f.p50)), 7)} ${pad(String(p99), 7)} ${pad(ratio.toFixed(2), 6)} ${pad(perRound, 11 + 5 * ROUNDS)}${cpu}${target}${faults}`,
      );
    }
    if (values.profile) console.log(`\nCPU profile of the API process: ${profileDir}/*.cpuprofile (open in Chrome DevTools, Performance)`);
  } finally {
    for (const c of children) await stopChild(c);
    if (jwks) await new Promise((r) => jwks!.close(r));
    if (values['keep-db']) log(`kept the database: ${ownerUrl}`);
    else await dropDatabase(ownerUrl);
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
