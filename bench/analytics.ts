/**
 * bench/analytics: GET /analytics/outreach on 100,000 messages. Each section's one statement runs
 * under EXPLAIN (ANALYZE) as the API's database role and the caller (row-level security on), and the
 * endpoint answers a series of requests; the figures print beside their targets.
 *
 *   npm run bench:analytics [-- --messages 100000 --requests 50 --plans]
 *
 * --plans prints each statement's plan (EXPLAIN ANALYZE, BUFFERS) as text.
 *
 * Creates its own database on DATABASE_URL (the owner; else the embedded PostgreSQL) and seeds two
 * organizations of the same shape (the other one is there so that every plan has to find its
 * tenant's rows among someone else's): 5 sources, 20,000 signals, 2,000 opportunities (won, lost,
 * open) and 600 meetings, 5 mailboxes with daily health checks, 2,000 contacts in 20,000 threads,
 * --messages messages over 180 days (80 % outbound drafts in every status, 20 % replies with
 * intents) and 2,000 prompt evals. The database is dropped afterwards.
 */
import os from 'node:os';
import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql, type RawBuilder } from 'kysely';
import { Pool } from 'pg';
import pino from 'pino';
import { Client, Connection } from '@temporalio/client';
import { createApp } from '../apps/api/app';
import { createTokenVerifier } from '../apps/api/auth';
import { listen } from '../apps/api/server';
import { withRole } from '../apps/shared/config';
import { WorkflowStarter } from '../apps/shared/temporal';
import { agentQualityQuery } from '../db/queries/analytics/agent-quality';
import { attributionQuery } from '../db/queries/analytics/attribution';
import { deliverabilityQuery } from '../db/queries/analytics/deliverability';
import { analyticsSession } from '../db/queries/analytics/shared';
import { outcomesQuery } from '../db/queries/scoring-suggestions';
import { API_DB_ROLE } from '../db/roles';
import { createDb } from '../db/pool';
import { dropDatabase, ensureDatabase, migrate } from '../db/migrator';
import { asUser } from '../db/tenancy';
import { DEFAULT_RULES } from '../domain/scoring/defaults';
import { DEV_AUDIENCE, devIssuer, loadOrCreateDevKey, serveJwks, signDevToken } from '../scripts/lib/dev-identity';
import { startDatabase } from '../scripts/lib/postgres';

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

const ORG = '0a000000-0000-4000-8000-00000000000a';
const OTHER_ORG = '0b000000-0000-4000-8000-00000000000b';
const USER = '0a000000-0000-4000-8000-0000000000a1';
const OTHER_USER = '0b000000-0000-4000-8000-0000000000b1';

/** Targets: each statement's execution time, and the endpoint's p99, at 100k messages. */
const STATEMENT_TARGET_MS = 100;
const ENDPOINT_P99_TARGET_MS = 250;

async function seed(ownerUrl: string, messages: number): Promise<void> {
  const pool = new Pool({ connectionString: ownerUrl, max: 2 });
  const q = (text: string, org: string, extra: unknown[] = []) => pool.query(text, [org, ...extra]);
  try {
    await pool.query(`INSERT INTO organizations (id, name, created_by) VALUES ($1, 'Bench', $2), ($3, 'Other', $4)`, [ORG, USER, OTHER_ORG, OTHER_USER]);
    await pool.query(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'owner'), ($3, $4, 'owner')`, [
      ORG,
      USER,
      OTHER_ORG,
      OTHER_USER,
    ]);
    for (const org of [ORG, OTHER_ORG]) {
      await q(`INSERT INTO sources (organization_id, provider_key, name) SELECT $1, 'rss', 'bron ' || i FROM generate_series(1, 5) i`, org);
      // Signals over 180 days, spread over the sources.
      await q(
        `INSERT INTO signals (organization_id, source_id, external_id, dedupe_key, title, created_at)
         SELECT $1, (SELECT id FROM sources WHERE organization_id = $1 ORDER BY name OFFSET i % 5 LIMIT 1), 's' || i, 's' || i, 'signaal ' || i,
                now() - make_interval(secs => (i * 777) % (180 * 86400))
           FROM generate_series(1, 20000) i`,
        org,
      );
      // One in ten signals opened an opportunity: a third won (with a value), a third lost, the rest open.
      await q(
        `INSERT INTO opportunities (organization_id, created_from_signal_id, status, outcome, outcome_value, created_at)
         SELECT $1, id, CASE WHEN n % 3 = 2 THEN 'ready' ELSE 'closed' END,
                (ARRAY['won', 'lost', 'open'])[1 + n % 3], CASE WHEN n % 3 = 0 THEN 1000 * (n % 97) END, created_at
           FROM (SELECT id, created_at, row_number() OVER (ORDER BY id) AS n FROM signals WHERE organization_id = $1) s
          WHERE n % 10 = 0`,
        org,
      );
      // The default scoring config, and a current score with one component per rule for every signal
      // that opened an opportunity (what the learning loop reads).
      await q(
        `INSERT INTO scoring_configs (organization_id, version, is_active, ignore_below, qualify_at, opportunity_at) VALUES ($1, 1, true, 30, 45, 65)`,
        org,
      );
      await q(
        `INSERT INTO scoring_rules (organization_id, scoring_config_id, dimension, rule_key, weight, max_points, params)
         SELECT $1, (SELECT id FROM scoring_configs WHERE organization_id = $1), r->>'dimension', r->>'ruleKey', (r->>'weight')::numeric, (r->>'maxPoints')::numeric, r->'params'
           FROM jsonb_array_elements($2::jsonb) r`,
        org,
        [JSON.stringify(DEFAULT_RULES)],
      );
      await q(
        `INSERT INTO scores (organization_id, signal_id, scoring_config_id, version, total, decision)
         SELECT $1, o.created_from_signal_id, (SELECT id FROM scoring_configs WHERE organization_id = $1), 1, 70, 'opportunity'
           FROM opportunities o WHERE o.organization_id = $1`,
        org,
      );
      await q(
        `INSERT INTO score_components (organization_id, score_id, position, dimension, rule_key, raw_value, weight, points, reason)
         SELECT $1, sc.id, r.position, r.dimension, r.rule_key, 1, r.weight,
                CASE WHEN (hashtext(sc.id::text || r.rule_key) & 1) = 0 THEN r.weight ELSE 0 END, 'bench'
           FROM scores sc
           CROSS JOIN (SELECT dimension, rule_key, weight, row_number() OVER (ORDER BY rule_key) AS position FROM scoring_rules WHERE organization_id = $1) r
          WHERE sc.organization_id = $1`,
        org,
      );
      await q(
        `INSERT INTO meetings (organization_id, opportunity_id, title, starts_at, ends_at, status)
         SELECT $1, id, 'gesprek', created_at, created_at, (ARRAY['proposed', 'completed', 'no_show', 'cancelled'])[1 + n % 4]
           FROM (SELECT id, created_at, row_number() OVER (ORDER BY id) AS n FROM opportunities WHERE organization_id = $1) o
          WHERE n % 10 < 3`,
        org,
      );
      await q(
        `INSERT INTO mailboxes (organization_id, address, domain, holiday_country) SELECT $1, 'm' || i || '@bench.nl', 'bench.nl', 'NL' FROM generate_series(1, 5) i`,
        org,
      );
      await q(
        `INSERT INTO mailbox_health_checks (organization_id, mailbox_id, domain, spf, dkim, dmarc, mx, score, sendable, created_at)
         SELECT $1, m.id, 'bench.nl', '{}', '{}', '{}', '{}', 50 + d % 50, d % 7 <> 0, now() - make_interval(days => d)
           FROM mailboxes m, generate_series(0, 179) d WHERE m.organization_id = $1`,
        org,
      );
      await q(`INSERT INTO companies (organization_id, name, normalized_name) VALUES ($1, 'Bench B.V.', 'bench')`, org);
      await q(
        `INSERT INTO contacts (organization_id, company_id, full_name)
         SELECT $1, (SELECT id FROM companies WHERE organization_id = $1), 'persoon ' || i FROM generate_series(1, 2000) i`,
        org,
      );
      await q(
        `INSERT INTO threads (organization_id, contact_id, mailbox_id)
         SELECT $1, (SELECT id FROM contacts WHERE organization_id = $1 ORDER BY id OFFSET i % 2000 LIMIT 1),
                (SELECT id FROM mailboxes WHERE organization_id = $1 ORDER BY address OFFSET i % 5 LIMIT 1)
           FROM generate_series(1, 20000) i`,
        org,
      );
      // Messages: four in five outbound drafts (sent, failed, rejected, approved, pending, skipped; a
      // third of the approved ones edited), one in five a reply with an intent; over 180 days.
      await q(
        `WITH t AS (SELECT id, mailbox_id, row_number() OVER (ORDER BY id) - 1 AS n FROM threads WHERE organization_id = $1)
         INSERT INTO messages (organization_id, thread_id, mailbox_id, direction, channel, status, prompt_version, original_body, body,
                               approved_at, sent_at, intent, created_at, updated_at)
         SELECT $1, t.id, t.mailbox_id, CASE WHEN i % 5 = 0 THEN 'inbound' ELSE 'outbound' END, 'email',
                CASE WHEN i % 5 = 0 THEN 'received' ELSE (ARRAY['sent', 'sent', 'sent', 'failed', 'rejected', 'approved', 'pending_approval', 'skipped'])[1 + i % 8] END,
                CASE WHEN i % 5 = 0 THEN NULL ELSE 'v' || (1 + i % 4) END,
                CASE WHEN i % 5 = 0 THEN NULL ELSE 'Beste lezer, dit is concept ' || i END,
                CASE WHEN i % 5 = 0 THEN 'antwoord ' || i WHEN i % 3 = 0 THEN 'Beste lezer, dit is bewerkt ' || i ELSE 'Beste lezer, dit is concept ' || i END,
                CASE WHEN i % 5 <> 0 AND i % 8 IN (0, 1, 2, 3, 5) THEN at END,
                CASE WHEN i % 5 <> 0 AND i % 8 IN (0, 1, 2) THEN at END,
                CASE WHEN i % 5 = 0 THEN (ARRAY['interested', 'not_interested', 'meeting_request', 'referral', 'out_of_office', 'unsubscribe', 'other'])[1 + i % 7] END,
                at, at
           FROM (SELECT i, now() - make_interval(secs => (i * 157) % (180 * 86400)) AS at FROM generate_series(1, $2::int) i) g
           JOIN t ON t.n = g.i % 20000`,
        org,
        [messages],
      );
      await q(
        `INSERT INTO prompt_evals (organization_id, message_id, prompt_key, prompt_version, score, detail, created_at)
         SELECT $1, id, 'draft_email', prompt_version, 0.5 + (n % 50) / 100.0, jsonb_build_object('cases', n), created_at
           FROM (SELECT id, prompt_version, created_at, row_number() OVER (ORDER BY id) AS n FROM messages
                  WHERE organization_id = $1 AND direction = 'outbound' AND original_body <> body) m
          WHERE n <= 2000`,
        org,
      );
    }
    await pool.query('VACUUM ANALYZE');
  } finally {
    await pool.end();
  }
}

interface PlanFigures {
  planningMs: number;
  executionMs: number;
}

async function explain(db: ReturnType<typeof createDb>, name: string, query: RawBuilder<unknown>, show: boolean): Promise<PlanFigures> {
  // Three runs; the last one counts (warm cache, as the endpoint sees it).
  let last: PlanFigures = { planningMs: NaN, executionMs: NaN };
  for (let i = 0; i < 3; i++) {
    const result = await asUser(db, USER, async (tx) => {
      await analyticsSession(tx); // as the endpoints run them
      return sql<{ 'QUERY PLAN': Array<{ 'Planning Time': number; 'Execution Time': number }> }>`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${query}`.execute(tx);
    });
    const plan = result.rows[0]!['QUERY PLAN'][0]!;
    last = { planningMs: plan['Planning Time'], executionMs: plan['Execution Time'] };
  }
  if (show) {
    const text = await asUser(db, USER, async (tx) => {
      await analyticsSession(tx);
      return sql<{ 'QUERY PLAN': string }>`EXPLAIN (ANALYZE, BUFFERS) ${query}`.execute(tx);
    });
    console.log(`\n--- ${name}\n${text.rows.map((r) => r['QUERY PLAN']).join('\n')}`);
  }
  return last;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { messages: { type: 'string', default: '100000' }, requests: { type: 'string', default: '50' }, plans: { type: 'boolean', default: false } },
  });
  const messages = Number(values.messages);
  const requests = Number(values.requests);
  const runId = Date.now().toString(36);
  const database = await startDatabase({ databaseUrl: process.env.DATABASE_URL, port: 54333, databaseName: 'postgres', log });
  const owner = new URL(database.ownerUrl);
  owner.pathname = `/outreach_bench_analytics_${runId}`;
  const ownerUrl = owner.toString();
  await ensureDatabase(ownerUrl);
  let db: ReturnType<typeof createDb> | undefined;
  let jwks: Awaited<ReturnType<typeof serveJwks>> | undefined;
  let server: Awaited<ReturnType<typeof listen>> | undefined;
  try {
    await migrate(ownerUrl, { appPassword: database.appPassword });
    log(`seeding ${messages} messages (and the rest) in each of two organizations`);
    const t0 = performance.now();
    await seed(ownerUrl, messages);
    log(`seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    db = createDb(withRole(ownerUrl, API_DB_ROLE, database.appPassword), 5);
    const rows: Array<[string, PlanFigures]> = [];
    const statements: Array<[string, RawBuilder<unknown>]> = [];
    for (const days of [30, 180]) {
      statements.push([`attribution (${days} d)`, attributionQuery(ORG, days)]);
      statements.push([`deliverability (${days} d)`, deliverabilityQuery(ORG, days)]);
      statements.push([`agent quality (${days} d)`, agentQualityQuery(ORG, days)]);
    }
    statements.push(['suggestions evidence (180 d)', outcomesQuery(ORG, 180)]);
    for (const [name, query] of statements) rows.push([name, await explain(db, name, query, values.plans!)]);

    // The endpoint, in this process, as the user: sequential requests.
    const keyDir = mkdtempSync(path.join(os.tmpdir(), 'outreach-bench-idp-'));
    const { publicJwk, privateJwk } = await loadOrCreateDevKey(keyDir);
    jwks = await serveJwks(0, [publicJwk]);
    const issuer = devIssuer((jwks.address() as { port: number }).port);
    const token = await signDevToken({ privateJwk, issuer, audience: DEV_AUDIENCE, userId: USER, expiresIn: '1h' });
    const temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) }); // never used here
    const app = createApp({
      db,
      logger: pino({ level: 'silent' }),
      temporalClient: temporal,
      workflows: new WorkflowStarter(temporal, { TEMPORAL_TASK_QUEUE: 'bench', INGEST_RETRY_INITIAL_INTERVAL_MS: 5000 }),
      verifyToken: createTokenVerifier({
        mode: 'jwks',
        jwksUrl: `${issuer}/.well-known/jwks.json`,
        issuer,
        audience: DEV_AUDIENCE,
        algorithms: ['ES256'],
        clockToleranceSeconds: 5,
      }),
      issuer,
      bodyLimit: '256kb',
      secrets: null,
    });
    server = await listen(app, 0, '127.0.0.1');
    const latency: Array<[string, number[], number]> = [];
    const execOf = (...names: string[]) => names.reduce((sum, n) => sum + rows.find(([name]) => name === n)![1].executionMs, 0);
    const endpoints: Array<[string, number]> = [
      [`/analytics/outreach?organizationId=${ORG}&window=30`, execOf('attribution (30 d)', 'deliverability (30 d)', 'agent quality (30 d)')],
      [`/analytics/outreach?organizationId=${ORG}&window=180`, execOf('attribution (180 d)', 'deliverability (180 d)', 'agent quality (180 d)')],
      [`/settings/scoring/suggestions?organizationId=${ORG}`, execOf('suggestions evidence (180 d)')],
    ];
    for (const [url, floor] of endpoints) {
      const times: number[] = [];
      for (let i = 0; i < requests + 3; i++) {
        const t = performance.now();
        const res = await fetch(server.url + url, { headers: { authorization: `Bearer ${token}` } });
        const body = await res.text();
        if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${body.slice(0, 300)}`);
        if (i >= 3) times.push(performance.now() - t); // three warm-up requests
      }
      latency.push([`GET ${url.replace(/organizationId=[^&]+&?/, '').replace(/\?$/, '')}`, times.sort((a, b) => a - b), floor]);
    }

    const pad = (s: string, n: number) => s.padEnd(n);
    console.log(
      `\n${messages.toLocaleString('en')} messages per organization, two organizations; ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(2)}`,
    );
    console.log(`${pad('statement (EXPLAIN ANALYZE, as the user)', 44)} ${pad('plan ms', 9)} ${pad('exec ms', 9)} target`);
    for (const [name, f] of rows) {
      console.log(
        `${pad(name, 44)} ${pad(f.planningMs.toFixed(2), 9)} ${pad(f.executionMs.toFixed(2), 9)} exec < ${STATEMENT_TARGET_MS} ms: ${f.executionMs < STATEMENT_TARGET_MS ? 'met' : 'MISSED'}`,
      );
    }
    // The floor: the statements' own execution time (above), which no endpoint can beat.
    console.log(`\n${pad(`endpoint (${requests} sequential requests)`, 44)} ${pad('p50 ms', 9)} ${pad('p99 ms', 9)} ${pad('floor ms', 9)} target`);
    for (const [name, times, floor] of latency) {
      const p99 = percentile(times, 99);
      console.log(
        `${pad(name, 44)} ${pad(percentile(times, 50).toFixed(1), 9)} ${pad(p99.toFixed(1), 9)} ${pad(floor.toFixed(1), 9)} p99 < ${ENDPOINT_P99_TARGET_MS} ms: ${p99 < ENDPOINT_P99_TARGET_MS ? 'met' : 'MISSED'}`,
      );
    }
  } finally {
    if (server) await server.close(1000);
    if (db) await db.destroy();
    if (jwks) await new Promise((r) => jwks!.close(r));
    await dropDatabase(ownerUrl);
    await database.stop();
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : e);
  process.exit(1);
});
