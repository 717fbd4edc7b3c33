import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { createDb, type DB } from '../db/pool';
import { asOrganization } from '../db/tenancy';
import { recordHealthCheck } from '../db/queries/mailbox-health';
import { reserveSendSlot, type SlotReservation } from '../db/queries/send-slots';
import { recordSendFailure, scheduleMessage } from '../db/queries/sending';
import { passingHealth } from './helpers/outreach';
import { newOrganization, startApi, TestApi } from './helpers/api';
import { testEnv, TestUser } from './helpers/tokens';

/**
 * Ramp-up and protection in the send path, on PostgreSQL under the worker role (the booking and the
 * failure record the send activity runs), with the clock an input: the ramp's cap in the booking, a
 * paused mailbox holding what is booked until a resume, a hard bounce over the rate pausing at once.
 */
let api: TestApi;
let owners: Pool;
let worker: DB;
let owner: TestUser;
let orgId: string;
let n = 0;

beforeAll(async () => {
  api = await startApi();
  owners = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 1 });
  worker = createDb(testEnv('TEST_WORKER_DB_URL'), 2);
  ({ owner, orgId } = await newOrganization(api, 'Ramp B.V.'));
});
afterAll(async () => {
  await worker.destroy();
  await owners.end();
  await api.close();
});

const sendable = passingHealth('ramp-bv.nl');

async function mailbox(body: Record<string, unknown> = {}): Promise<string> {
  const made = await api.call('POST', '/mailboxes', {
    token: owner.token,
    body: { organizationId: orgId, address: `box${++n}@ramp-bv.nl`, smtp: { host: 'smtp.ramp-bv.nl', port: 587 }, secret: 'pw', minGapSeconds: 60, ...body },
  });
  expect(made.status).toBe(201);
  await asOrganization(worker, orgId, (tx) => recordHealthCheck(tx, { id: randomUUID(), organizationId: orgId, mailboxId: made.body.id, result: sendable }));
  return made.body.id;
}
async function approved(mailboxId: string, count: number, status = 'approved'): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomUUID());
  await owners.query(`INSERT INTO messages (id, organization_id, mailbox_id, status, to_address) SELECT unnest($1::uuid[]), $2, $3, $4, 'jan@bouw.nl'`, [ids, orgId, mailboxId, status]);
  return ids;
}
const at = (iso: string) => new Date(iso);

test('a ramp of start 2 + 1 a day gives 2, 3 and 4 bookings on three sending days (clock an input)', async () => {
  // Monday 1, Tuesday 2, Wednesday 3 March 2027, 09:00 in Amsterdam; the ramp starts on the Monday.
  const days = ['2027-03-01', '2027-03-02', '2027-03-03'];
  const counts: number[] = [];
  for (const day of days) {
    const id = await mailbox({ dailyCap: 30, rampUp: { startCap: 2, dailyIncrease: 1, startsOn: '2027-03-01' } });
    const now = at(`${day}T08:00:00Z`);
    const slots: SlotReservation[] = [];
    for (const m of await approved(id, 6)) slots.push(await asOrganization(worker, orgId, (tx) => reserveSendSlot(tx, { organizationId: orgId, mailboxId: id, messageId: m, now })));
    counts.push(slots.filter((s) => s.localDay === day).length);
  }
  expect(counts).toEqual([2, 3, 4]);
});

test('gapJitterSeconds: each booking waits minGap plus its drawn share of the jitter', async () => {
  const id = await mailbox({ minGapSeconds: 60, gapJitterSeconds: 900 });
  const now = at('2027-03-01T08:00:00Z');
  const draws = [0, 0.5, 0.999999];
  const slots: SlotReservation[] = [];
  for (const [i, m] of (await approved(id, 4)).entries()) {
    slots.push(await asOrganization(worker, orgId, (tx) => reserveSendSlot(tx, { organizationId: orgId, mailboxId: id, messageId: m, now, random: draws[i - 1] ?? 0 })));
  }
  const gaps = slots.slice(1).map((s, i) => (s.slotAt.getTime() - slots[i]!.slotAt.getTime()) / 1000);
  expect(gaps).toEqual([60, 510, 960]);
});

test('a paused mailbox books nothing: the message waits with the reason in error; a resume releases it', async () => {
  const id = await mailbox();
  const [m] = await approved(id, 1);
  const paused = await api.call('POST', `/mailboxes/${id}/pause`, { token: owner.token, body: {} });
  expect(paused.body.status).toBe('paused');
  const now = at('2027-03-01T08:00:00Z');
  const held = await asOrganization(worker, orgId, (tx) => scheduleMessage(tx, { organizationId: orgId, messageId: m!, now }));
  expect(held).toEqual({ state: 'held', reason: 'the mailbox is paused (manual)' });
  const row = (await owners.query('SELECT status, error FROM messages WHERE id = $1', [m])).rows[0];
  expect(row).toEqual({ status: 'approved', error: 'the mailbox is paused (manual)' });
  await api.call('POST', `/mailboxes/${id}/resume`, { token: owner.token, body: {} });
  const booked = await asOrganization(worker, orgId, (tx) => scheduleMessage(tx, { organizationId: orgId, messageId: m!, now }));
  expect(booked.state).toBe('scheduled');
});

test('a hard bounce recorded by the send path counts, and over 3 % of 20 sends it pauses the mailbox at once; booked mail is held', async () => {
  const id = await mailbox();
  await owners.query(`INSERT INTO messages (id, organization_id, mailbox_id, status, sent_at) SELECT gen_random_uuid(), $1, $2, 'sent', now() - interval '1 hour' FROM generate_series(1, 30)`, [orgId, id]);
  const [first] = await approved(id, 1, 'scheduled');
  const [waiting] = await approved(id, 1);
  const fail = (messageId: string) =>
    asOrganization(worker, orgId, (tx) => recordSendFailure(tx, { messageId, organizationId: orgId, error: '550 5.1.1 no such user', hardBounce: true, address: 'weg@bouw.nl', contactId: null }));
  await fail(first!); // 1 of 31: 3.2 % > 3 %
  const after = await api.call('GET', `/mailboxes/${id}`, { token: owner.token });
  expect(after.body).toMatchObject({ status: 'paused', paused_reason: 'bounce_rate', stats_7d: { sent: 31, hard_bounces: 1 } });
  const held = await asOrganization(worker, orgId, (tx) => scheduleMessage(tx, { organizationId: orgId, messageId: waiting!, now: new Date() }));
  expect(held).toEqual({ state: 'held', reason: 'the mailbox is paused (bounce_rate)' });
});
