import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { createDb, type DB } from '../../db/pool';
import { asOrganization } from '../../db/tenancy';
import { recordHealthCheck } from '../../db/queries/mailbox-health';
import { reserveSendSlot, type SlotReservation } from '../../db/queries/send-slots';
import { claimSend, holdSend, markHandover, recordSendFailure, releaseClaim, scheduleMessage } from '../../db/queries/sending';
import { ALWAYS_OPEN, outreachOrg, passingHealth, until } from '../helpers/outreach';
import { newOrganization } from '../helpers/api';
import { testEnv, TestUser } from '../helpers/tokens';
import { useStack } from '../helpers/stack';

/**
 * Ramp-up and protection in the send path, on PostgreSQL under the worker role (the booking and the
 * failure record the send activity runs), with the clock an input: the ramp's cap in the booking, a
 * paused mailbox holding what is booked until a resume, a hard bounce over the rate pausing at once,
 * an attempt given up for dead that cannot undo the live attempt's claim. And a pool of new mailboxes
 * on the real stack (the worker processes, a real SMTP server on loopback): each sends its cap, and
 * each e-mail is signed by the mailbox it leaves from.
 */
const { api, owners, smtp } = useStack({ api: true, owners: true, smtp: true });
let worker: DB;
let owner: TestUser;
let orgId: string;
let n = 0;

beforeAll(async () => {
  worker = createDb(testEnv('TEST_WORKER_DB_URL'), 2);
  ({ owner, orgId } = await newOrganization(api, 'Ramp B.V.'));
});
afterAll(async () => {
  await worker?.destroy();
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
  await owners.query(`INSERT INTO messages (id, organization_id, mailbox_id, status, to_address) SELECT unnest($1::uuid[]), $2, $3, $4, 'jan@bouw.nl'`, [
    ids,
    orgId,
    mailboxId,
    status,
  ]);
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
    for (const m of await approved(id, 6))
      slots.push(await asOrganization(worker, orgId, (tx) => reserveSendSlot(tx, { organizationId: orgId, mailboxId: id, messageId: m, now })));
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
    slots.push(
      await asOrganization(worker, orgId, (tx) => reserveSendSlot(tx, { organizationId: orgId, mailboxId: id, messageId: m, now, random: draws[i - 1] ?? 0 })),
    );
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

test('a refusal of the sender during our own SMTP conversation (550 5.7.1 at RCPT TO) is a block: stats_7d.blocks counts blocked recipients, and over 5 % of 20 sends it pauses the mailbox (block_rate); the address stays usable', async () => {
  const id = await mailbox();
  await owners.query(
    `INSERT INTO messages (id, organization_id, mailbox_id, status, sent_at) SELECT gen_random_uuid(), $1, $2, 'sent', now() - interval '1 hour' FROM generate_series(1, 19)`,
    [orgId, id],
  );
  const [first, again, second] = await approved(id, 3, 'scheduled');
  await owners.query(`UPDATE messages SET to_address = 'piet@bouw.nl' WHERE id = $1`, [second]);
  const refuse = (messageId: string) =>
    asOrganization(worker, orgId, (tx) =>
      recordSendFailure(tx, {
        messageId,
        organizationId: orgId,
        error: 'SMTP RCPT TO refused: 550 5.7.1',
        hardBounce: false,
        softBounceReason: 'blocked',
        address: 'jan@bouw.nl',
        contactId: null,
      }),
    );
  await refuse(first!); // 1 of 20: 5 %, not above 5 %
  expect((await api.call('GET', `/mailboxes/${id}`, { token: owner.token })).body).toMatchObject({ status: 'active', stats_7d: { blocks: 1 } });
  // The same recipient refused again is still one block (one recipient cannot push the rate alone).
  await refuse(again!);
  expect((await api.call('GET', `/mailboxes/${id}`, { token: owner.token })).body).toMatchObject({ status: 'active', stats_7d: { blocks: 1 } });
  await refuse(second!); // 2 recipients of 22: 9.1 %
  expect((await api.call('GET', `/mailboxes/${id}`, { token: owner.token })).body).toMatchObject({
    status: 'paused',
    paused_reason: 'block_rate',
    stats_7d: { blocks: 2, hard_bounces: 0 },
  });
  expect((await owners.query(`SELECT count(*)::int AS n FROM suppressions WHERE organization_id = $1 AND value = 'jan@bouw.nl'`, [orgId])).rows[0].n).toBe(0);
});

test('hard bounces count recipients, not reports: two messages to one address bounced are one hard bounce (one recipient forging reports cannot pause the mailbox alone)', async () => {
  const id = await mailbox();
  await owners.query(
    `INSERT INTO messages (id, organization_id, mailbox_id, status, sent_at) SELECT gen_random_uuid(), $1, $2, 'sent', now() - interval '1 hour' FROM generate_series(1, 57)`,
    [orgId, id],
  );
  const [first, second, other] = await approved(id, 3, 'scheduled');
  await owners.query(
    `UPDATE messages SET to_address = CASE WHEN id = $3 THEN 'ander@bouw.nl' ELSE 'piet@bouw.nl' END WHERE id = ANY($1::uuid[]) AND mailbox_id = $2`,
    [[first, second, other], id, other],
  );
  const bounce = (messageId: string, address: string) =>
    asOrganization(worker, orgId, (tx) =>
      recordSendFailure(tx, { messageId, organizationId: orgId, error: '550 5.1.1 no such user', hardBounce: true, address, contactId: null }),
    );
  await bounce(first!, 'piet@bouw.nl');
  await bounce(second!, 'piet@bouw.nl'); // the same recipient again: 1 of 59 is 1.7 %, not above 2 %
  expect((await api.call('GET', `/mailboxes/${id}`, { token: owner.token })).body).toMatchObject({ status: 'active', stats_7d: { sent: 59, hard_bounces: 1 } });
  await bounce(other!, 'ander@bouw.nl'); // a second recipient: 2 of 60 is 3.3 %
  expect((await api.call('GET', `/mailboxes/${id}`, { token: owner.token })).body).toMatchObject({
    status: 'paused',
    paused_reason: 'bounce_rate',
    stats_7d: { hard_bounces: 2 },
  });
});

test('a hard bounce recorded by the send path counts, and over 2 % of 20 sends it pauses the mailbox at once; booked mail is held', async () => {
  const id = await mailbox();
  await owners.query(
    `INSERT INTO messages (id, organization_id, mailbox_id, status, sent_at) SELECT gen_random_uuid(), $1, $2, 'sent', now() - interval '1 hour' FROM generate_series(1, 39)`,
    [orgId, id],
  );
  const [first] = await approved(id, 1, 'scheduled');
  const [waiting, booked] = await approved(id, 2);
  // Booked (a slot and `scheduled`) before the bounce: the claim at its slot must not send it.
  const slot = await asOrganization(worker, orgId, (tx) => scheduleMessage(tx, { organizationId: orgId, messageId: booked!, now: new Date() }));
  expect(slot.state).toBe('scheduled');
  const fail = (messageId: string) =>
    asOrganization(worker, orgId, (tx) =>
      recordSendFailure(tx, { messageId, organizationId: orgId, error: '550 5.1.1 no such user', hardBounce: true, address: 'weg@bouw.nl', contactId: null }),
    );
  await fail(first!); // 1 of 40: 2.5 %, above 2 % (and not above the 3 % of before)
  const after = await api.call('GET', `/mailboxes/${id}`, { token: owner.token });
  expect(after.body).toMatchObject({ status: 'paused', paused_reason: 'bounce_rate', stats_7d: { sent: 40, hard_bounces: 1 } });
  const held = await asOrganization(worker, orgId, (tx) => scheduleMessage(tx, { organizationId: orgId, messageId: waiting!, now: new Date() }));
  expect(held).toEqual({ state: 'held', reason: 'the mailbox is paused (bounce_rate)' });
  const slotAt = slot.state === 'scheduled' ? slot.slotAt : new Date();
  const claim = await asOrganization(worker, orgId, (tx) => claimSend(tx, booked!, { now: slotAt }));
  expect(claim).toEqual({ go: false, status: 'approved', requeue: true, hold: true, reason: 'the mailbox is paused (bounce_rate)' });
  const row = (
    await owners.query(
      'SELECT status, error, send_attempted_at, (SELECT count(*)::int FROM send_slots WHERE message_id = $1) AS slots FROM messages WHERE id = $1',
      [booked],
    )
  ).rows[0];
  expect(row).toEqual({ status: 'approved', error: 'the mailbox is paused (bounce_rate)', send_attempted_at: null, slots: 0 });
});

test('an attempt given up for dead, after a later attempt took its claim over, can neither release nor hold that claim', async () => {
  const id = await mailbox();
  const [m] = await approved(id, 1);
  const booked = await asOrganization(worker, orgId, (tx) => scheduleMessage(tx, { organizationId: orgId, messageId: m!, now: at('2027-03-01T08:00:00Z') }));
  expect(booked.state).toBe('scheduled');
  const slotAt = booked.state === 'scheduled' ? booked.slotAt : new Date();
  const claim = (now: Date) => asOrganization(worker, orgId, (tx) => claimSend(tx, m!, { now }));
  const a = await claim(slotAt);
  if (!a.go) throw new Error(`attempt A did not claim: ${JSON.stringify(a)}`);
  // A stops heartbeating before its hand-over; 30 s later attempt B takes the claim over.
  const b = await claim(new Date(slotAt.getTime() + 30_000));
  if (!b.go) throw new Error(`attempt B did not take over: ${JSON.stringify(b)}`);
  expect(b.message.claimedAt.getTime()).toBeGreaterThan(a.message.claimedAt.getTime());
  // A wakes up and fails: a transient error (release) and an OAuth or setup error (hold), on its own old claim.
  await asOrganization(worker, orgId, (tx) => releaseClaim(tx, m!, 'connection reset', a.message.claimedAt));
  await asOrganization(worker, orgId, (tx) => holdSend(tx, m!, { reason: 'the OAuth provider is unavailable', claimedAt: a.message.claimedAt }));
  const row = async () =>
    (
      await owners.query(
        'SELECT status, send_attempted_at, error, (SELECT count(*)::int FROM send_slots WHERE message_id = $1) AS slots FROM messages WHERE id = $1',
        [m],
      )
    ).rows[0];
  expect(await row()).toEqual({ status: 'scheduled', send_attempted_at: b.message.claimedAt, error: null, slots: 1 });
  // B's claim is whole: it hands the message over.
  await asOrganization(worker, orgId, (tx) => markHandover(tx, m!, b.message.claimedAt));
  // B's own failure still releases its own claim (before the hand-over), and holds with it.
  const [m2] = await approved(id, 1);
  const booked2 = await asOrganization(worker, orgId, (tx) => scheduleMessage(tx, { organizationId: orgId, messageId: m2!, now: at('2027-03-01T08:00:00Z') }));
  const c = await asOrganization(worker, orgId, (tx) => claimSend(tx, m2!, { now: booked2.state === 'scheduled' ? booked2.slotAt : new Date() }));
  if (!c.go) throw new Error(`no claim: ${JSON.stringify(c)}`);
  await asOrganization(worker, orgId, (tx) => holdSend(tx, m2!, { reason: 'the OAuth provider is unavailable', claimedAt: c.message.claimedAt }));
  expect((await owners.query('SELECT status, send_attempted_at, error FROM messages WHERE id = $1', [m2])).rows[0]).toEqual({
    status: 'approved',
    send_attempted_at: null,
    error: 'the OAuth provider is unavailable',
  });
});

test('the per-mailbox reads of sends, claims, bounces, soft bounces and complaints use their indexes (EXPLAIN on a seeded table)', async () => {
  const id = await mailbox();
  const client = await owners.connect();
  try {
    await client.query('BEGIN');
    // Enough rows (rolled back below) that an index is cheaper than the organization's messages.
    await client.query(
      `INSERT INTO messages (organization_id, mailbox_id, status, channel, direction, to_address, sent_at, send_attempted_at, bounced_at, complained_at)
       SELECT $1, $2, 'sent', 'email', 'outbound', 'p' || i || '@plan.example', now() - i * interval '1 minute', now() - i * interval '1 minute',
              CASE WHEN i % 50 = 0 THEN now() END, CASE WHEN i % 500 = 0 THEN now() END
         FROM generate_series(1, 3000) i`,
      [orgId, id],
    );
    await client.query(
      `INSERT INTO messages (organization_id, status, channel, direction, to_address) SELECT $1, 'approved', 'email', 'outbound', 'q@plan.example' FROM generate_series(1, 3000)`,
      [orgId],
    );
    await client.query('ANALYZE messages');
    await client.query('SET LOCAL enable_seqscan = off');
    const plan = async (q: string) => (await client.query(`EXPLAIN ${q}`, [orgId, id])).rows.map((r) => r['QUERY PLAN']).join('\n');
    // The latest claimed send of the mailbox (every booking and claim).
    expect(
      await plan(`SELECT max(send_attempted_at) FROM messages WHERE organization_id = $1 AND mailbox_id = $2 AND send_attempted_at IS NOT NULL`),
    ).toContain('messages_mailbox_attempted_idx');
    // The seven-day hard bounces and complaints (stats_7d, the protection judgement).
    expect(
      await plan(`SELECT count(*) FROM messages x WHERE x.organization_id = $1 AND x.mailbox_id = $2 AND x.bounced_at >= now() - interval '7 days'`),
    ).toContain('messages_mailbox_bounced_idx');
    expect(
      await plan(`SELECT count(*) FROM messages x WHERE x.organization_id = $1 AND x.mailbox_id = $2 AND x.complained_at >= now() - interval '7 days'`),
    ).toContain('messages_mailbox_complained_idx');
    // The soft bounces of attempts that never went out, in the seven-day sends (not the organization's of all time).
    await client.query(
      `UPDATE messages SET soft_bounced_at = now() - interval '30 days', bounce_reason = 'mailbox_full' WHERE organization_id = $1 AND mailbox_id IS NULL`,
      [orgId],
    );
    await client.query('ANALYZE messages');
    expect(
      await plan(
        `SELECT count(*) FROM messages x WHERE x.organization_id = $1 AND x.mailbox_id = $2 AND x.sent_at IS NULL AND x.soft_bounced_at >= now() - interval '7 days'`,
      ),
    ).toContain('messages_mailbox_soft_bounced_idx');
    await client.query('ROLLBACK');
  } finally {
    client.release();
  }
});

test('a pool of three new, never-checked mailboxes (caps 1, 1, 2) and six contacts: 1, 1 and 2 go out today, the rest wait for the next day; each e-mail is signed by the mailbox it leaves from', async () => {
  const o = await outreachOrg(api, newOrganization, smtp);
  const names = ['Anna Bakker', 'Piet Smit', 'Jan de Vries'];
  const boxes: Array<{ id: string; address: string; name: string; cap: number }> = [];
  for (const [i, cap] of [1, 1, 2].entries()) {
    const address = `pool-${i}-${randomUUID().slice(0, 6)}@good-mail.nl`;
    const made = await o.ok('POST', '/mailboxes', {
      organizationId: o.orgId,
      address,
      displayName: names[i],
      dkimSelector: 's1',
      smtp: { host: smtp.host, port: smtp.port, secure: false },
      secret: 'catcher-needs-no-password',
      ...ALWAYS_OPEN,
      dailyCap: cap,
    });
    expect(made.health).toBeNull(); // never checked
    boxes.push({ id: made.id, address, name: names[i]!, cap });
  }
  const contacts = [];
  for (let i = 0; i < 6; i++) contacts.push(await o.contact({ fullName: `Ontvanger ${i}` }));
  // One step: every e-mail of the day is a first e-mail, chosen from the pool (a later step would go from its pin).
  const steps = [{ channel: 'email', delayDays: 0 }];
  // Each draft is written before its mailbox is chosen, signed with the pool's first (Anna); the booking re-signs it.
  const campaign = await o.ok('POST', '/campaigns', {
    organizationId: o.orgId,
    name: 'Pool van drie',
    mailboxIds: boxes.map((b) => b.id),
    mode: 'auto',
    contactIds: contacts.map((c) => c.id),
    steps,
  });
  const accepted = await o.ok('POST', `/campaigns/${campaign.id}/accept`, {});
  const enrolled = accepted.result.enrolled as Array<{ enrollmentId: string; contactId: string }>;
  expect(enrolled).toHaveLength(6);
  const firstOf = async () =>
    (
      await owners.query<{
        id: string;
        enrollment_id: string;
        status: string;
        mailbox_id: string;
        from_address: string | null;
        to_address: string;
        scheduled_for: Date | null;
        body: string;
      }>(
        `SELECT m.id, m.enrollment_id, m.status, m.mailbox_id, m.from_address, m.to_address, m.scheduled_for, m.body FROM messages m JOIN sequence_steps s ON s.id = m.step_id
        WHERE m.campaign_id = $1 AND s.position = 1`,
        [campaign.id],
      )
    ).rows;
  const first = await until(
    '4 first e-mails sent and 2 booked for the next day',
    async () => {
      const rows = await firstOf();
      return rows.filter((r) => r.status === 'sent').length === 4 && rows.filter((r) => r.status === 'scheduled').length === 2 ? rows : undefined;
    },
    90_000,
  ).catch(async (e: Error) => {
    throw new Error(`${e.message}: ${JSON.stringify((await firstOf()).map((r) => [r.status, r.mailbox_id]))}`);
  });
  const sent = first.filter((r) => r.status === 'sent');
  expect(boxes.map((b) => sent.filter((r) => r.mailbox_id === b.id).length)).toEqual([1, 1, 2]);
  // Today's caps are used: the other two are booked for the next day, on a pinned mailbox.
  const today = DateTime.now().setZone(ALWAYS_OPEN.timezone).toISODate()!;
  for (const r of first.filter((x) => x.status === 'scheduled'))
    expect(DateTime.fromJSDate(r.scheduled_for!).setZone(ALWAYS_OPEN.timezone).toISODate()! > today).toBe(true);
  // Each mailbox was checked before it sent, and each enrollment is pinned on the mailbox of its first e-mail.
  for (const b of boxes) expect((await o.ok('GET', `/mailboxes/${b.id}`)).health).toMatchObject({ sendable: true });
  for (const r of first) expect((await o.ok('GET', `/enrollments/${r.enrollment_id}`)).mailbox_id).toBe(r.mailbox_id);

  // Every e-mail received leaves from its mailbox and is signed with its name, never another pool mailbox's.
  for (const r of sent) {
    const box = boxes.find((b) => b.id === r.mailbox_id)!;
    const [mail] = await smtp.received(r.to_address);
    expect(mail!.from!.value[0]).toEqual({ address: box.address, name: box.name });
    expect(mail!.text).toContain(box.name);
    for (const other of boxes.filter((b) => b.id !== box.id)) expect(mail!.text).not.toContain(other.name);
    expect(r.from_address).toBe(box.address);
  }
  // The two runs still waiting for the next day end here (the other four completed).
  for (const r of first.filter((x) => x.status === 'scheduled')) await o.ok('POST', `/enrollments/${r.enrollment_id}/stop`, { reason: 'test over' });
}, 180_000);
