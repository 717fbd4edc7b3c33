import { randomUUID } from 'node:crypto';
import { createDb, type DB } from '../../db/pool';
import { asOrganization } from '../../db/tenancy';
import { recordHealthCheck } from '../../db/queries/mailbox-health';
import { claimSend, scheduleMessage } from '../../db/queries/sending';
import { createSequenceActivities } from '../../activities/sequence';
import { passingHealth } from '../helpers/outreach';
import { newOrganization } from '../helpers/api';
import { testEnv, TestUser } from '../helpers/tokens';
import { useStack } from '../helpers/stack';

/**
 * One sender per contact, on PostgreSQL under the worker role with the clock an input: the first
 * e-mail of an enrollment picks the pool mailbox with most of today's capacity left and pins it;
 * every later e-mail to the contact goes from it and is written as it; out of the pool, its e-mails
 * wait, booked or not; a never-checked mailbox is checked before anything is pinned on it.
 */
const { api, owners } = useStack({ api: true, owners: true });
let worker: DB;
let owner: TestUser;
let orgId: string;
let n = 0;

beforeAll(async () => {
  worker = createDb(testEnv('TEST_WORKER_DB_URL'), 4);
  ({ owner, orgId } = await newOrganization(api, 'Pinning B.V.'));
});
afterAll(async () => {
  await worker.destroy();
});

const sendable = passingHealth('pin-bv.nl');

async function call(method: string, path: string, body: unknown) {
  const res = await api.call(method, path, { token: owner.token, body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
async function mailbox(dailyCap: number, opts: { checked?: boolean; displayName?: string } = {}): Promise<string> {
  const made = await call('POST', '/mailboxes', {
    organizationId: orgId,
    address: `box${++n}@pin-bv.nl`,
    smtp: { host: 'smtp.pin-bv.nl', port: 587 },
    secret: 'pw',
    minGapSeconds: 60,
    dailyCap,
    ...(opts.displayName ? { displayName: opts.displayName } : {}),
  });
  if (opts.checked !== false)
    await asOrganization(worker, orgId, (tx) => recordHealthCheck(tx, { id: randomUUID(), organizationId: orgId, mailboxId: made.id, result: sendable }));
  return made.id;
}
const pinOf = async (enrollmentId: string) =>
  (await owners.query<{ mailbox_id: string | null }>('SELECT mailbox_id FROM enrollments WHERE id = $1', [enrollmentId])).rows[0]!.mailbox_id;
/** A pooled campaign (proposed: no sequence runs start) with `count` enrollments, written directly. */
async function pooledCampaign(pool: string[], count: number) {
  const c = await call('POST', '/campaigns', { organizationId: orgId, name: `Pool ${++n}`, mailboxIds: pool, steps: [{ channel: 'email', delayDays: 0 }] });
  const company = await call('POST', '/companies', { organizationId: orgId, name: `Bouw ${n} B.V.`, countryCode: 'NL' });
  const enrollments: Array<{ id: string; contactId: string }> = [];
  for (let i = 0; i < count; i++) {
    const contactId = randomUUID();
    const id = randomUUID();
    await owners.query(
      `INSERT INTO contacts (id, organization_id, company_id, full_name, email, email_status, email_checked_at) VALUES ($1, $2, $3, $4, $5, 'valid', now())`,
      [contactId, orgId, company.id, `Piet ${i}`, `p${n}.${i}@bouw.nl`],
    );
    await owners.query(`INSERT INTO enrollments (id, organization_id, campaign_id, sequence_id, contact_id, workflow_id) VALUES ($1, $2, $3, $4, $5, $6)`, [
      id,
      orgId,
      c.id,
      c.sequence_id,
      contactId,
      `enrollment/${id}`,
    ]);
    enrollments.push({ id, contactId });
  }
  return { campaign: c, enrollments };
}
/** An approved e-mail of the enrollment, drafted (as today) with the campaign's first mailbox. */
async function approvedEmail(e: { id: string; contactId: string }, mailboxId: string) {
  const id = randomUUID();
  await owners.query(
    `INSERT INTO messages (id, organization_id, enrollment_id, contact_id, mailbox_id, status, to_address) VALUES ($1, $2, $3, $4, $5, 'approved', 'p@bouw.nl')`,
    [id, orgId, e.id, e.contactId, mailboxId],
  );
  return id;
}
const schedule = (messageId: string, now: Date) => asOrganization(worker, orgId, (tx) => scheduleMessage(tx, { organizationId: orgId, messageId, now }));

test('3 pool mailboxes with caps 2, 2 and 3 and 10 contacts: 7 e-mails today spread 2/2/3, 3 the next day; every later e-mail from the pinned mailbox', async () => {
  const [a, b, c] = [await mailbox(2), await mailbox(2), await mailbox(3)];
  const { enrollments } = await pooledCampaign([a, b, c], 10);
  // Monday 1 March 2027, 09:00 in Amsterdam (the mailboxes' zone).
  const now = new Date('2027-03-01T08:00:00Z');
  const first: string[] = [];
  for (const e of enrollments) first.push(await approvedEmail(e, a));
  // Four workers booking at once.
  await Promise.all(
    [0, 1, 2, 3].map(async (w) => {
      for (let i = w; i < first.length; i += 4) expect((await schedule(first[i]!, now)).state).toBe('scheduled');
    }),
  );
  const { rows } = await owners.query<{ mailbox_id: string; day: string; enrollment_id: string }>(
    `SELECT m.mailbox_id, to_char(m.scheduled_for AT TIME ZONE 'Europe/Amsterdam', 'YYYY-MM-DD') AS day, m.enrollment_id FROM messages m WHERE m.id = ANY($1::uuid[])`,
    [first],
  );
  const today = rows.filter((r) => r.day === '2027-03-01');
  expect(today).toHaveLength(7);
  const per = (id: string) => today.filter((r) => r.mailbox_id === id).length;
  expect([per(a), per(b), per(c)]).toEqual([2, 2, 3]);
  expect(rows.filter((r) => r.day === '2027-03-02')).toHaveLength(3);
  // Each enrollment is pinned to the mailbox of its first e-mail.
  const pins = await owners.query<{ id: string; mailbox_id: string }>(`SELECT id, mailbox_id FROM enrollments WHERE id = ANY($1::uuid[])`, [
    enrollments.map((e) => e.id),
  ]);
  for (const r of rows) expect(pins.rows.find((p) => p.id === r.enrollment_id)!.mailbox_id).toBe(r.mailbox_id);

  // Every follow-up goes from the pinned mailbox, whatever mailbox it was drafted with.
  const later = new Date('2027-03-04T08:00:00Z');
  for (const e of enrollments) {
    const follow = await approvedEmail(e, a);
    expect((await schedule(follow, later)).state).toBe('scheduled');
    const m = await owners.query<{ mailbox_id: string }>('SELECT mailbox_id FROM messages WHERE id = $1', [follow]);
    expect(m.rows[0]!.mailbox_id).toBe(pins.rows.find((p) => p.id === e.id)!.mailbox_id);
  }
});

test('a pinned mailbox removed from the pool: its e-mails wait with the reason in error; back in the pool, they are booked from it', async () => {
  const [a, b] = [await mailbox(5), await mailbox(5)];
  const { campaign, enrollments } = await pooledCampaign([a, b], 1);
  const now = new Date('2027-03-01T08:00:00Z');
  expect((await schedule(await approvedEmail(enrollments[0]!, a), now)).state).toBe('scheduled');
  const pinned = (await owners.query<{ mailbox_id: string }>('SELECT mailbox_id FROM enrollments WHERE id = $1', [enrollments[0]!.id])).rows[0]!.mailbox_id;
  const rest = pinned === a ? b : a;
  await call('PATCH', `/campaigns/${campaign.id}`, { mailboxIds: [rest] });
  const follow = await approvedEmail(enrollments[0]!, rest);
  expect(await schedule(follow, now)).toEqual({ state: 'held', reason: "the contact's mailbox was removed from the campaign's pool" });
  expect((await owners.query('SELECT status, error FROM messages WHERE id = $1', [follow])).rows[0]).toEqual({
    status: 'approved',
    error: "the contact's mailbox was removed from the campaign's pool",
  });
  // The enrollment never moves.
  expect((await owners.query('SELECT mailbox_id FROM enrollments WHERE id = $1', [enrollments[0]!.id])).rows[0].mailbox_id).toBe(pinned);
  await call('PATCH', `/campaigns/${campaign.id}`, { mailboxIds: [rest, pinned] });
  expect((await schedule(follow, now)).state).toBe('scheduled');
  expect((await owners.query('SELECT mailbox_id, error FROM messages WHERE id = $1', [follow])).rows[0]).toEqual({ mailbox_id: pinned, error: null });
});

test('a pinned mailbox removed from the pool does not send what it booked: at its slot the e-mail waits with the reason in error', async () => {
  const [a, b] = [await mailbox(5), await mailbox(5)];
  const { campaign, enrollments } = await pooledCampaign([a, b], 1);
  const now = new Date('2027-03-01T08:00:00Z');
  const first = await approvedEmail(enrollments[0]!, a);
  const booked = await schedule(first, now);
  if (booked.state !== 'scheduled') throw new Error(`not booked: ${JSON.stringify(booked)}`);
  const pinned = (await pinOf(enrollments[0]!.id))!;
  await call('PATCH', `/campaigns/${campaign.id}`, { mailboxIds: [pinned === a ? b : a] });
  const claim = await asOrganization(worker, orgId, (tx) => claimSend(tx, first, { now: booked.slotAt }));
  const reason = "the contact's mailbox was removed from the campaign's pool";
  expect(claim).toEqual({ go: false, status: 'approved', requeue: true, hold: true, reason });
  expect((await owners.query('SELECT status, error, send_attempted_at, mailbox_id FROM messages WHERE id = $1', [first])).rows[0]).toEqual({
    status: 'approved',
    error: reason,
    send_attempted_at: null,
    mailbox_id: pinned,
  });
  expect((await owners.query('SELECT count(*)::int AS n FROM send_slots WHERE message_id = $1', [first])).rows[0].n).toBe(0);
  // Booked again while out of the pool: it still waits. Back in the pool: booked and claimed from its mailbox.
  expect(await schedule(first, now)).toEqual({ state: 'held', reason });
  await call('PATCH', `/campaigns/${campaign.id}`, { mailboxIds: [a, b] });
  const again = await schedule(first, now);
  if (again.state !== 'scheduled') throw new Error(`not booked again: ${JSON.stringify(again)}`);
  const go = await asOrganization(worker, orgId, (tx) => claimSend(tx, first, { now: again.slotAt }));
  expect(go).toMatchObject({ go: true, message: { mailboxId: pinned } });
});

test('a never-checked pool mailbox is not pinned before its check: the booking asks for the check; a failed check sends the contact to another mailbox', async () => {
  const fresh = await mailbox(10, { checked: false });
  const checked = await mailbox(2);
  const { enrollments } = await pooledCampaign([fresh, checked], 1);
  const now = new Date('2027-03-01T08:00:00Z');
  const first = await approvedEmail(enrollments[0]!, fresh);
  // The new mailbox has the most capacity left today: it is the choice, but its check comes first.
  expect(await schedule(first, now)).toEqual({ state: 'unchecked', mailboxId: fresh });
  expect(await pinOf(enrollments[0]!.id)).toBeNull();
  expect((await owners.query('SELECT status FROM messages WHERE id = $1', [first])).rows[0].status).toBe('approved');
  // Its check fails (DKIM not published yet): the contact goes from the other mailbox, nothing stranded.
  const failing = { ...sendable, dkim: { status: 'fail' as const, record: '', detail: 'no DKIM record' }, score: 40, sendable: false };
  await asOrganization(worker, orgId, (tx) => recordHealthCheck(tx, { id: randomUUID(), organizationId: orgId, mailboxId: fresh, result: failing }));
  expect((await schedule(first, now)).state).toBe('scheduled');
  expect(await pinOf(enrollments[0]!.id)).toBe(checked);
  expect((await owners.query('SELECT mailbox_id FROM messages WHERE id = $1', [first])).rows[0].mailbox_id).toBe(checked);
});

test("a pinned contact's later e-mails are written as its mailbox (sender name, from address, calendar), not as the campaign's first", async () => {
  const [a, b] = [await mailbox(5, { displayName: 'Jan de Vries' }), await mailbox(5, { displayName: 'Anna Bakker' })];
  const c = await call('POST', '/campaigns', {
    organizationId: orgId,
    name: `Pool ${++n}`,
    mailboxIds: [a, b],
    steps: [
      { channel: 'email', delayDays: 0 },
      { channel: 'email', delayDays: 0 },
    ],
  });
  const company = await call('POST', '/companies', { organizationId: orgId, name: `Bouw ${n} B.V.`, countryCode: 'NL', legalForm: 'bv' });
  const person = await call('POST', '/contacts', { organizationId: orgId, companyId: company.id, fullName: 'Piet Jansen', email: `piet.${n}@bouw-${n}.nl` });
  await call('PUT', `/contacts/${person.id}/lawful-basis`, {
    organizationId: orgId,
    basis: 'consent',
    recipient_kind: 'legal_person',
    country: 'NL',
    consent_evidence: 'signed form',
  });
  const id = randomUUID();
  // Pinned on Anna's mailbox (the pool's second) by its first e-mail.
  await owners.query(
    `INSERT INTO enrollments (id, organization_id, campaign_id, sequence_id, contact_id, workflow_id, mailbox_id) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [id, orgId, c.id, c.sequence_id, person.id, `enrollment/${id}`, b],
  );
  const seq = createSequenceActivities({ db: worker });
  const prepared = await seq.prepareDraft({ organizationId: orgId, enrollmentId: id, position: 2, attempt: 1 });
  expect(prepared).toMatchObject({ existing: expect.any(String) });
  const draft = (
    await owners.query<{ mailbox_id: string; from_address: string; body: string }>('SELECT mailbox_id, from_address, body FROM messages WHERE id = $1', [
      (prepared as { existing: string }).existing,
    ])
  ).rows[0]!;
  const bAddress = (await owners.query<{ address: string }>('SELECT address FROM mailboxes WHERE id = $1', [b])).rows[0]!.address;
  expect({ mailbox: draft.mailbox_id, from: draft.from_address }).toEqual({ mailbox: b, from: bAddress });
  expect(draft.body).toContain('Anna Bakker');
  expect(draft.body).not.toContain('Jan de Vries');
});
