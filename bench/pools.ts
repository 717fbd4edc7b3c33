/**
 * bench/pools: one campaign with a pool of 50 mailboxes (equal caps) and 5,000 approved first
 * e-mails, one per enrollment, booked by 4 concurrent bookers (each its own connection under the
 * worker role, calling scheduleMessage: the pool choice, the pin and reserveSendSlot). Prints the
 * booking throughput (bookings/s) beside its ceiling: the same number of bare slot inserts (one per
 * transaction, 4 connections) on the same database; and the spread of bookings per mailbox
 * (max - min, which should be <= 1 with equal caps); and the profile of a booking: statements per
 * booking, their time, and the statements that take most of it.
 *
 *   npm run bench:pools [-- --mailboxes 50 --messages 5000 --workers 4]
 *
 * Creates its own database on DATABASE_URL (the owner; else the embedded PostgreSQL) and drops it
 * afterwards. The bookers run in this process: "workers" are concurrent connections, not processes.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Kysely, PostgresDialect, type LogEvent } from 'kysely';
import { Pool } from 'pg';
import { withRole } from '../apps/shared/config';
import { dropDatabase, ensureDatabase, migrate } from '../db/migrator';
import type { DB as Database } from '../db/database';
import { createDb, type DB } from '../db/pool';
import { recordHealthCheck } from '../db/queries/mailbox-health';
import { scheduleMessage } from '../db/queries/sending';
import { WORKER_DB_ROLE } from '../db/roles';
import { asOrganization } from '../db/tenancy';
import type { HealthResult } from '../domain/deliverability/score';
import { startDatabase } from '../scripts/lib/postgres';

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const ORG = '0f000000-0000-4000-8000-00000000000f';
const USER = '0f000000-0000-4000-8000-0000000000f1';
const sendable: HealthResult = (() => {
  const c = { status: 'pass', record: '', detail: 'bench' } as const;
  return { domain: 'bench.example', spf: c, dkim: c, dmarc: c, mx: c, score: 100, sendable: true };
})();

async function seed(ownerUrl: string, workerUrl: string, mailboxes: number, messages: number): Promise<string[]> {
  const pool = new Pool({ connectionString: ownerUrl, max: 2 });
  try {
    await pool.query(`INSERT INTO organizations (id, name, created_by) VALUES ($1, 'Bench pools', $2)`, [ORG, USER]);
    await pool.query(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'owner')`, [ORG, USER]);
    const boxes = await pool.query<{ id: string }>(
      `INSERT INTO mailboxes (organization_id, address, domain, holiday_country, smtp_config, daily_cap, min_gap_seconds)
       SELECT $1, 'sales' || i || '@bench.example', 'bench.example', 'NL', '{"host":"127.0.0.1","port":9}', 40, 60 FROM generate_series(1, $2::int) i RETURNING id`,
      [ORG, mailboxes],
    );
    const campaign = await pool.query<{ id: string }>(
      `INSERT INTO campaigns (organization_id, name, status, mailbox_id) VALUES ($1, 'Bench pool', 'active', $2) RETURNING id`,
      [ORG, boxes.rows[0]!.id],
    );
    const campaignId = campaign.rows[0]!.id;
    const sequence = await pool.query<{ id: string }>(`INSERT INTO sequences (organization_id, campaign_id, name) VALUES ($1, $2, 'Bench pool') RETURNING id`, [
      ORG,
      campaignId,
    ]);
    await pool.query(
      `INSERT INTO campaign_mailboxes (organization_id, campaign_id, mailbox_id, position) SELECT $1, $2, id, row_number() OVER (ORDER BY id) - 1 FROM unnest($3::uuid[]) id`,
      [ORG, campaignId, boxes.rows.map((b) => b.id)],
    );
    const company = await pool.query<{ id: string }>(
      `INSERT INTO companies (organization_id, name, normalized_name, country_code, locale) VALUES ($1, 'Bench Bouw B.V.', 'bench bouw', 'NL', 'nl-NL') RETURNING id`,
      [ORG],
    );
    await pool.query(
      `INSERT INTO contacts (organization_id, company_id, full_name, email, email_status, email_checked_at) SELECT $1, $2, 'Contact ' || i, 'c' || i || '@bench-bouw.example', 'valid', now() FROM generate_series(1, $3::int) i`,
      [ORG, company.rows[0]!.id, messages],
    );
    await pool.query(
      `INSERT INTO enrollments (id, organization_id, campaign_id, sequence_id, contact_id, workflow_id)
       SELECT e, $1, $2, $3, c.id, 'enrollment/' || e FROM (SELECT gen_random_uuid() AS e, id FROM contacts WHERE organization_id = $1) c`,
      [ORG, campaignId, sequence.rows[0]!.id],
    );
    const ids = await pool.query<{ id: string }>(
      `INSERT INTO messages (organization_id, enrollment_id, contact_id, mailbox_id, status, to_address)
       SELECT $1, e.id, e.contact_id, $2, 'approved', 'x@bench-bouw.example' FROM enrollments e WHERE e.campaign_id = $3 RETURNING id`,
      [ORG, boxes.rows[0]!.id, campaignId],
    );
    const worker = createDb(workerUrl, 1);
    for (const b of boxes.rows)
      await asOrganization(worker, ORG, (tx) => recordHealthCheck(tx, { id: randomUUID(), organizationId: ORG, mailboxId: b.id, result: sendable }));
    await worker.destroy();
    return ids.rows.map((r) => r.id);
  } finally {
    await pool.end();
  }
}

/**
 * The profile of the bookings: every statement the bookers' connections run, counted and timed (as
 * the driver sees it, round trip included), grouped by its first words.
 */
const profile = new Map<string, { n: number; ms: number }>();
function profiled(url: string): DB {
  const log = (e: LogEvent) => {
    const key = e.query.sql.replace(/\s+/g, ' ').trim().slice(0, 60);
    const p = profile.get(key) ?? { n: 0, ms: 0 };
    p.n += 1;
    p.ms += e.queryDurationMillis;
    profile.set(key, p);
  };
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: new Pool({ connectionString: url, max: 1 }) }), log });
}

/** Runs `work(i)` for i in 0..n-1 on `workers` concurrent lanes; answers the elapsed seconds. */
async function lanes(workers: number, n: number, work: (lane: number, i: number) => Promise<void>): Promise<number> {
  const started = process.hrtime.bigint();
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async (_, lane) => {
      for (let i = next++; i < n; i = next++) await work(lane, i);
    }),
  );
  return Number(process.hrtime.bigint() - started) / 1e9;
}

const round1 = (x: number) => Math.round(x * 10) / 10;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { mailboxes: { type: 'string', default: '50' }, messages: { type: 'string', default: '5000' }, workers: { type: 'string', default: '4' } },
  });
  const [mailboxes, messages, workers] = [Number(values.mailboxes), Number(values.messages), Number(values.workers)];
  const db = await startDatabase({ databaseUrl: process.env.DATABASE_URL, port: 54341, databaseName: 'postgres', log });
  const owner = new URL(db.ownerUrl);
  owner.pathname = `/outreach_bench_pools_${Date.now().toString(36)}`;
  const ownerUrl = owner.toString();
  await ensureDatabase(ownerUrl);
  try {
    await migrate(ownerUrl, { appPassword: db.appPassword });
    const workerUrl = withRole(ownerUrl, WORKER_DB_ROLE, db.appPassword);
    log(`seeding ${mailboxes} mailboxes, ${messages} approved e-mails`);
    const ids = await seed(ownerUrl, workerUrl, mailboxes, messages);
    // Monday 1 March 2027, 09:00 in Amsterdam: the clock is an input.
    const now = new Date('2027-03-01T08:00:00Z');
    const conns = Array.from({ length: workers }, () => profiled(workerUrl));
    const outcomes = new Map<string, number>();
    const booking = await lanes(workers, ids.length, async (lane, i) => {
      const r = await asOrganization(conns[lane]!, ORG, (tx) => scheduleMessage(tx, { organizationId: ORG, messageId: ids[i]!, now }));
      outcomes.set(r.state, (outcomes.get(r.state) ?? 0) + 1);
    });
    // The ceiling: as many bare inserts of a slot-shaped row, one per transaction, on the same connections.
    const ownerPool = new Pool({ connectionString: ownerUrl, max: workers });
    await ownerPool.query(`CREATE TABLE bench_slots (LIKE send_slots INCLUDING ALL)`);
    const bare = await lanes(workers, ids.length, async (_lane, i) => {
      await ownerPool.query(`INSERT INTO bench_slots (organization_id, mailbox_id, message_id, slot_at, local_day) VALUES ($1, $2, $3, $4, $5::date)`, [
        ORG,
        ORG,
        ids[i],
        now,
        '2027-03-01',
      ]);
    });
    const spread = await ownerPool.query<{ n: number }>(
      `SELECT count(s.id)::int AS n FROM campaign_mailboxes cm LEFT JOIN send_slots s ON s.mailbox_id = cm.mailbox_id GROUP BY cm.mailbox_id`,
    );
    const counts = spread.rows.map((r) => r.n);
    await ownerPool.end();
    for (const c of conns) await c.destroy();
    const figures = {
      mailboxes,
      messages,
      workers,
      outcomes: Object.fromEntries(outcomes),
      booking_per_s: Math.round(ids.length / booking),
      bare_insert_ceiling_per_s: Math.round(ids.length / bare),
      per_mailbox_min: Math.min(...counts),
      per_mailbox_max: Math.max(...counts),
      spread_max_minus_min: Math.max(...counts) - Math.min(...counts),
      statements_per_booking: round1([...profile.values()].reduce((a, p) => a + p.n, 0) / ids.length),
      statement_ms_per_booking: round1([...profile.values()].reduce((a, p) => a + p.ms, 0) / ids.length),
      top_statements_ms_per_booking: Object.fromEntries(
        [...profile.entries()]
          .sort((a, b) => b[1].ms - a[1].ms)
          .slice(0, 6)
          .map(([sql, p]) => [sql, { per_booking: round1(p.n / ids.length), ms: round1(p.ms / ids.length) }]),
      ),
    };
    process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
  } finally {
    await dropDatabase(ownerUrl);
    await db.stop();
  }
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
