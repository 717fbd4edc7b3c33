import { randomUUID } from 'node:crypto';
import { createDb, type DB } from '../../db/pool';
import { asOrganization, type Tx } from '../../db/tenancy';
import { lockFor, tryLockFirst, tryLockFor } from '../../db/locks';
import { recordHealthCheck } from '../../db/queries/mailbox-health';
import { reserveSendSlot } from '../../db/queries/send-slots';
import { scheduleMessage } from '../../db/queries/sending';
import { passingHealth } from '../helpers/outreach';
import { newOrganization } from '../helpers/api';
import { testEnv, TestUser } from '../helpers/tokens';
import { useStack } from '../helpers/stack';

/**
 * The set-based pool choice with try-locks (db/queries/pool-choice.ts), on PostgreSQL under the
 * worker role with the clock an input: concurrent bookers spread over the pool with exact caps; a
 * booker skips a best mailbox another booker holds instead of waiting; a mailbox found full under its
 * lock is given back and another chosen.
 */
const { api, owners } = useStack({ api: true, owners: true });
let worker: DB;
let owner: TestUser;
let orgId: string;
let n = 0;

beforeAll(async () => {
  worker = createDb(testEnv('TEST_WORKER_DB_URL'), 6);
  ({ owner, orgId } = await newOrganization(api, 'Pool choice B.V.'));
});
afterAll(async () => {
  await worker.destroy();
});

const sendable = passingHealth('choice-bv.nl');
// Monday 1 March 2027, 09:00 in Amsterdam (the mailboxes' zone).
const NOW = new Date('2027-03-01T08:00:00Z');

async function call(method: string, path: string, body: unknown) {
  const res = await api.call(method, path, { token: owner.token, body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
async function mailbox(dailyCap: number): Promise<string> {
  const made = await call('POST', '/mailboxes', {
    organizationId: orgId,
    address: `box${++n}@choice-bv.nl`,
    smtp: { host: 'smtp.choice-bv.nl', port: 587 },
    secret: 'pw',
    minGapSeconds: 60,
    dailyCap,
  });
  await asOrganization(worker, orgId, (tx) => recordHealthCheck(tx, { id: randomUUID(), organizationId: orgId, mailboxId: made.id, result: sendable }));
  return made.id;
}
/** A pooled campaign (proposed: no sequence runs) with `count` enrollments, each with an approved first e-mail drafted with the pool's first mailbox. */
async function firstEmails(pool: string[], count: number): Promise<string[]> {
  const c = await call('POST', '/campaigns', { organizationId: orgId, name: `Choice ${++n}`, mailboxIds: pool, steps: [{ channel: 'email', delayDays: 0 }] });
  const company = await call('POST', '/companies', { organizationId: orgId, name: `Keuze ${n} B.V.`, countryCode: 'NL' });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const [contactId, enrollmentId, messageId] = [randomUUID(), randomUUID(), randomUUID()];
    await owners.query(
      `INSERT INTO contacts (id, organization_id, company_id, full_name, email, email_status, email_checked_at) VALUES ($1, $2, $3, $4, $5, 'valid', now())`,
      [contactId, orgId, company.id, `Jan ${i}`, `j${n}.${i}@keuze.nl`],
    );
    await owners.query(`INSERT INTO enrollments (id, organization_id, campaign_id, sequence_id, contact_id, workflow_id) VALUES ($1, $2, $3, $4, $5, $6)`, [
      enrollmentId,
      orgId,
      c.id,
      c.sequence_id,
      contactId,
      `enrollment/${enrollmentId}`,
    ]);
    await owners.query(
      `INSERT INTO messages (id, organization_id, enrollment_id, contact_id, mailbox_id, status, to_address) VALUES ($1, $2, $3, $4, $5, 'approved', 'j@keuze.nl')`,
      [messageId, orgId, enrollmentId, contactId, pool[0]],
    );
    ids.push(messageId);
  }
  return ids;
}
const schedule = (messageId: string) => asOrganization(worker, orgId, (tx) => scheduleMessage(tx, { organizationId: orgId, messageId, now: NOW }));
async function bookedOn(ids: string[]) {
  const { rows } = await owners.query<{ id: string; mailbox_id: string; day: string }>(
    `SELECT id, mailbox_id, to_char(scheduled_for AT TIME ZONE 'Europe/Amsterdam', 'YYYY-MM-DD') AS day FROM messages WHERE id = ANY($1::uuid[]) AND status = 'scheduled'`,
    [ids],
  );
  return rows;
}

/**
 * Another transaction holding the booking lock of `mailboxId` (as a booker in the middle of its
 * booking), after running `inside` in it; answers release(), which commits it.
 */
async function holdLock(mailboxId: string, inside: (tx: Tx) => Promise<void> = async () => undefined) {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let locked!: () => void;
  const isLocked = new Promise<void>((r) => (locked = r));
  const done = asOrganization(worker, orgId, async (tx) => {
    await lockFor(tx, `send_slots:${mailboxId}`);
    await inside(tx);
    locked();
    await released;
  });
  await isLocked;
  return async () => {
    release();
    await done;
  };
}
/** Until some session waits for an advisory lock (the booker under test queued behind the holder). */
async function someoneWaitsForALock(): Promise<void> {
  for (;;) {
    const { rows } = await owners.query(`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`);
    if (rows.length > 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('6 bookers over 8 mailboxes with cap 3 and 30 contacts: 24 today, exactly 3 each, 6 the next day on 6 mailboxes (spread <= 1)', async () => {
  const pool = await Promise.all(Array.from({ length: 8 }, () => mailbox(3)));
  const first = await firstEmails(pool, 30);
  await Promise.all(
    [0, 1, 2, 3, 4, 5].map(async (w) => {
      for (let i = w; i < first.length; i += 6) expect((await schedule(first[i]!)).state).toBe('scheduled');
    }),
  );
  const rows = await bookedOn(first);
  expect(rows).toHaveLength(30);
  const per = (day: string) => pool.map((id) => rows.filter((r) => r.mailbox_id === id && r.day === day).length);
  expect(per('2027-03-01')).toEqual([3, 3, 3, 3, 3, 3, 3, 3]);
  expect(per('2027-03-02').reduce((a, b) => a + b)).toBe(6);
  expect(Math.max(...per('2027-03-02'))).toBe(1);
});

test('a best mailbox another booker holds is skipped, not waited for: the booking goes to the next of as much capacity', async () => {
  const pool = await Promise.all([mailbox(5), mailbox(5)]);
  const [best, next] = [...pool].sort(); // equal capacity, never sent: the id decides
  const [first] = await firstEmails(pool, 1);
  const release = await holdLock(best!);
  // Without try-locks the booking would wait for `best` and then take it: let it go after a while so that such a run ends (and fails below).
  const failSafe = setTimeout(() => void release(), 5_000);
  try {
    expect((await schedule(first!)).state).toBe('scheduled');
  } finally {
    clearTimeout(failSafe);
    await release();
  }
  expect((await bookedOn([first!]))[0]).toMatchObject({ mailbox_id: next, day: '2027-03-01' });
});

test('the chosen mailbox found full under its lock is given back: the booking takes another with room today, not a slot tomorrow', async () => {
  // a has most left (2); another booker holds a and fills it while this booking waits for it.
  const [a, b, c] = [await mailbox(2), await mailbox(1), await mailbox(1)];
  const [first, ...fillers] = await firstEmails([a!, b!, c!], 3);
  const release = await holdLock(a!, async (tx) => {
    for (const messageId of fillers) await reserveSendSlot(tx, { organizationId: orgId, mailboxId: a!, messageId, now: NOW });
  });
  const booking = schedule(first!);
  await someoneWaitsForALock();
  await release();
  expect((await booking).state).toBe('scheduled');
  const [row] = await bookedOn([first!]);
  expect(row!.day).toBe('2027-03-01');
  expect([b, c]).toContain(row!.mailbox_id);
  const onA = await owners.query(`SELECT count(*)::int AS n FROM send_slots WHERE mailbox_id = $1 AND local_day = '2027-03-01'`, [a]);
  expect(onA.rows[0].n).toBe(2);
});

test('tryLockFirst takes the first free lock in the order given and no other', async () => {
  const names = [0, 1, 2, 3].map((i) => `try-first:${randomUUID()}:${i}`);
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let held!: () => void;
  const isHeld = new Promise<void>((r) => (held = r));
  const holder = asOrganization(worker, orgId, async (tx) => {
    await lockFor(tx, names[0]!);
    await lockFor(tx, names[2]!);
    held();
    await released;
  });
  await isHeld;
  try {
    await asOrganization(worker, orgId, async (tx) => {
      expect(await tryLockFirst(tx, names)).toBe(1);
      // names[3] was not taken on the way: a third transaction gets it.
      expect(await asOrganization(worker, orgId, (other) => tryLockFor(other, names[3]!))).toBe(true);
      expect(await asOrganization(worker, orgId, (other) => tryLockFor(other, names[1]!))).toBe(false);
      expect(await tryLockFirst(tx, [names[0]!, names[2]!])).toBe(-1);
    });
  } finally {
    release();
    await holder;
  }
});
