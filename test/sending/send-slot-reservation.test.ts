import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { createDb, DB } from '../../db/pool';
import { MailboxNotFoundError, releaseSendSlot, reserveSendSlot, SlotReservation } from '../../db/queries/send-slots';
import { asOrganization } from '../../db/tenancy';
import { newOrganization } from '../helpers/api';
import { testEnv } from '../helpers/tokens';
import { useStack } from '../helpers/stack';

/**
 * Send-slot reservations in PostgreSQL: exact under concurrency. Four pools as the worker role stand
 * in for four worker processes; each reservation is its own transaction acting for the organization.
 */
const { api, owners } = useStack({ api: true, owners: true });
let workers: DB[];
let orgId: string;
let otherOrgId: string;
let mailboxId: string;

// Monday 26 April 2027, 09:00 in Amsterdam (CEST); Tuesday 27 April is Koningsdag.
const NOW = new Date('2027-04-26T07:00:00Z');

async function newMessages(n: number): Promise<string[]> {
  const ids = Array.from({ length: n }, () => randomUUID());
  await owners.query(`INSERT INTO messages (id, organization_id, mailbox_id, status) SELECT unnest($1::uuid[]), $2, $3, 'approved'`, [ids, orgId, mailboxId]);
  return ids;
}
const reserve = (db: DB, messageId: string, org = orgId, now = NOW) =>
  asOrganization(db, org, (tx) => reserveSendSlot(tx, { organizationId: org, mailboxId, messageId, now }));

beforeAll(async () => {
  workers = Array.from({ length: 4 }, () => createDb(testEnv('TEST_WORKER_DB_URL'), 4));
  const { owner, orgId: org } = await newOrganization(api, 'Slots B.V.');
  orgId = org;
  otherOrgId = (await newOrganization(api, 'Andere B.V.')).orgId;
  const made = await api.call('POST', '/mailboxes', {
    token: owner.token,
    body: { organizationId: orgId, address: 'verkoop@slots.nl', smtp: { host: '127.0.0.1', port: 2525 }, secret: 'pw', dailyCap: 30, minGapSeconds: 120 },
  });
  expect(made.status).toBe(201);
  mailboxId = made.body.id;
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.destroy()));
});

test('cap 30: 60 reservations at once from 4 pools give exactly 30 on the day and 30 on the next business day, minGap apart', async () => {
  const messages = await newMessages(60);
  const slots: SlotReservation[] = await Promise.all(messages.map((id, i) => reserve(workers[i % 4]!, id)));
  const byDay = new Map<string, number>();
  for (const s of slots) byDay.set(s.localDay, (byDay.get(s.localDay) ?? 0) + 1);
  // Koningsdag (Tuesday 27 April) is skipped: the next business day is Wednesday 28 April.
  expect(Object.fromEntries(byDay)).toEqual({ '2027-04-26': 30, '2027-04-28': 30 });
  expect(slots.every((s) => s.created)).toBe(true);

  const times = slots.map((s) => s.slotAt.getTime()).sort((a, b) => a - b);
  expect(new Set(times).size).toBe(60);
  const gaps = times.slice(1).map((t, i) => (t - times[i]!) / 1000);
  expect(Math.min(...gaps)).toBeGreaterThanOrEqual(120);
  // Day one from the window's opening, one every two minutes; day two from its opening.
  const local = times.map((t) => DateTime.fromMillis(t, { zone: 'Europe/Amsterdam' }).toFormat('yyyy-MM-dd HH:mm'));
  expect(local.slice(0, 3)).toEqual(['2027-04-26 09:00', '2027-04-26 09:02', '2027-04-26 09:04']);
  expect(local[29]).toBe('2027-04-26 09:58');
  expect(local[30]).toBe('2027-04-28 09:00');
  expect(local[59]).toBe('2027-04-28 09:58');

  // What PostgreSQL holds says the same.
  const stored = await owners.query(`SELECT local_day::text AS day, count(*)::int AS n FROM send_slots WHERE mailbox_id = $1 GROUP BY 1 ORDER BY 1`, [
    mailboxId,
  ]);
  expect(stored.rows).toEqual([
    { day: '2027-04-26', n: 30 },
    { day: '2027-04-28', n: 30 },
  ]);

  // Idempotent per message: again, from another pool, the same slot.
  const again = await reserve(workers[3]!, messages[0]!);
  const first = slots[0]!;
  expect(again).toEqual({ slotAt: first.slotAt, localDay: first.localDay, created: false });
  expect((await owners.query(`SELECT count(*)::int AS n FROM send_slots WHERE mailbox_id = $1`, [mailboxId])).rows[0].n).toBe(60);
});

test('release gives a slot back once; a reservation whose transaction rolls back leaves nothing', async () => {
  const [keep, drop, rolled] = await newMessages(3);
  await reserve(workers[0]!, keep!);
  await reserve(workers[1]!, drop!);
  expect(await asOrganization(workers[2]!, orgId, (tx) => releaseSendSlot(tx, drop!))).toBe(true);
  expect(await asOrganization(workers[2]!, orgId, (tx) => releaseSendSlot(tx, drop!))).toBe(false);
  await expect(
    asOrganization(workers[3]!, orgId, async (tx) => {
      await reserveSendSlot(tx, { organizationId: orgId, mailboxId, messageId: rolled!, now: NOW });
      throw new Error('the move to scheduled failed');
    }),
  ).rejects.toThrow('the move to scheduled failed');
  const held = await owners.query(`SELECT message_id FROM send_slots WHERE message_id = ANY($1::uuid[])`, [[keep, drop, rolled]]);
  expect(held.rows.map((r) => r.message_id)).toEqual([keep]);
  // Wednesday was full (30 from the first test plus none): the new ones went to Thursday 29 April.
  const slot = await reserve(workers[0]!, keep!);
  expect(slot.localDay).toBe('2027-04-29');
});

test('a send (messages.sent_at) counts like a reservation: the next slot is minGapSeconds after it', async () => {
  // The previous send (messages.sent_at) counts as much as a reservation.
  const [sent, next] = await newMessages(2);
  const lastSlot = (await owners.query(`SELECT max(slot_at) AS at FROM send_slots WHERE mailbox_id = $1`, [mailboxId])).rows[0].at as Date;
  const sentAt = new Date(lastSlot.getTime() + 3600_000);
  await owners.query(`UPDATE messages SET status = 'sent', sent_at = $2 WHERE id = $1`, [sent, sentAt]);
  const slot = await reserve(workers[1]!, next!);
  expect(slot.slotAt.getTime()).toBe(sentAt.getTime() + 120_000);
});

test('another organization cannot reserve on this mailbox (row-level security hides it)', async () => {
  const [message] = await newMessages(1);
  await expect(reserve(workers[0]!, message!, otherOrgId)).rejects.toBeInstanceOf(MailboxNotFoundError);
  // Nor read or release this organization's reservations.
  expect(await asOrganization(workers[0]!, otherOrgId, (tx) => releaseSendSlot(tx, message!))).toBe(false);
  const visible = await asOrganization(workers[0]!, otherOrgId, (tx) => tx.selectFrom('send_slots').select('id').execute());
  expect(visible).toEqual([]);
});

test('a reservation booked ahead (for the next opening) does not push a message that may go now behind it', async () => {
  const { owner, orgId: org } = await newOrganization(api, 'Vooruit B.V.');
  const made = await api.call('POST', '/mailboxes', {
    token: owner.token,
    body: { organizationId: org, address: 'verkoop@vooruit.nl', smtp: { host: '127.0.0.1', port: 2525 }, secret: 'pw', minGapSeconds: 120 },
  });
  const box = made.body.id;
  const [early, later] = [randomUUID(), randomUUID()];
  await owners.query(`INSERT INTO messages (id, organization_id, mailbox_id, status) SELECT unnest($1::uuid[]), $2, $3, 'approved'`, [
    [early, later],
    org,
    box,
  ]);
  const book = (messageId: string, now: Date) =>
    asOrganization(workers[0]!, org, (tx) => reserveSendSlot(tx, { organizationId: org, mailboxId: box, messageId, now }));
  // Saturday 24 April 2027, 12:00: the window (Mon-Fri 09:00-17:00) opens on Monday; that is where the first goes.
  const saturday = new Date('2027-04-24T10:00:00Z');
  const first = await book(early, saturday);
  expect(DateTime.fromJSDate(first.slotAt, { zone: 'Europe/Amsterdam' }).toFormat('yyyy-MM-dd HH:mm')).toBe('2027-04-26 09:00');
  // The window is widened to every day, all day: the next message may go now, not after Monday's.
  await api.call('PATCH', `/mailboxes/${box}`, {
    token: owner.token,
    body: { sendingDays: [1, 2, 3, 4, 5, 6, 7], sendingWindow: { start: '00:00', end: '24:00' } },
  });
  const second = await book(later, new Date(saturday.getTime() + 60_000));
  expect(second.slotAt.toISOString()).toBe(new Date(saturday.getTime() + 60_000).toISOString());
});
