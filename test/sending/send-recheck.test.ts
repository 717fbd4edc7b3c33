import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { isPrivateAddress, type DestinationPolicy } from '../../activities/providers/destination';
import { blockedMailHostReason } from '../../activities/providers/mail/connect';
import { NodemailerSmtpSender } from '../../activities/providers/mail/smtp';
import { createSendActivities } from '../../activities/send';
import type { MailSender } from '../../activities/providers/mail/types';
import { asOrganization } from '../../db/tenancy';
import { claimSend, ClaimLostError, markHandover } from '../../db/queries/sending';
import { SecretBox } from '../../db/secrets';
import { newOrganization, testUnsubscribeTokens } from '../helpers/api';
import { outreachOrg, type OutreachOrg } from '../helpers/outreach';
import { startSmtpServer } from '../helpers/smtp-server';
import { testEnv } from '../helpers/tokens';
import { useStack } from '../helpers/stack';
import { resultWithin } from '../helpers/workflow-result';

/**
 * The send checks again at the moment of sending, on the real stack: the send activities against real PostgreSQL (as the worker role) and a
 * real SMTP server, with the clock an input (a late timer is a `now` after the window).
 */
const { api, owners, smtp, workerDb } = useStack({ api: true, owners: true, smtp: true, workerDb: true });

const AMS = 'Europe/Amsterdam';
/** A Tuesday that is no Dutch holiday, far from today: the clock is the test's. */
const at = (iso: string) => DateTime.fromISO(iso, { zone: AMS }).toJSDate();
const OFFICE = { sendingWindow: { start: '09:00', end: '17:00' }, sendingDays: [1, 2, 3, 4, 5], minGapSeconds: 0, timezone: AMS };

function activities(clock: { now: Date }, over: { sender?: MailSender } = {}) {
  return createSendActivities({
    db: workerDb,
    sender: over.sender ?? new NodemailerSmtpSender({ connectionMs: 2000, greetingMs: 2000, socketMs: 5000 }),
    secrets: new SecretBox(testEnv('INTEGRATION_SECRET_KEY')),
    tokens: testUnsubscribeTokens(),
    publicBaseUrl: 'http://127.0.0.1:3000',
    graceSeconds: 300,
    now: () => clock.now,
  });
}

/** An approved e-mail to a new consenting contact (written as the owner: what approval leaves). */
async function approved(o: OutreachOrg, enrollmentId: string | null = null): Promise<{ id: string; to: string; contactId: string }> {
  const c = await o.contact();
  const { rows } = await owners.query<{ id: string }>(
    `INSERT INTO messages (organization_id, contact_id, mailbox_id, enrollment_id, direction, channel, status, subject, body, to_address, approved_at)
     VALUES ($1, $2, $3, $4, 'outbound', 'email', 'approved', 'Uw project', 'Geachte heer Bakker,', $5, now()) RETURNING id`,
    [o.orgId, c.id, o.mailboxId, enrollmentId, c.email],
  );
  return { id: rows[0]!.id, to: c.email, contactId: c.id };
}

/** A mailbox that passed its deliverability check, so bookings go straight to a slot. */
async function sendingOrg(mailbox: Record<string, unknown> = {}, server: { host: string; port: number } = smtp): Promise<OutreachOrg> {
  const o = await outreachOrg(api, newOrganization, server, { ...OFFICE, ...mailbox });
  expect(await o.ok('POST', `/mailboxes/${o.mailboxId}/health`, {})).toMatchObject({ sendable: true });
  return o;
}

/** A mailbox open at every hour, one approved e-mail booked on it, and the clock at its slot. */
async function bookedAtItsSlot() {
  const o = await sendingOrg({ sendingWindow: { start: '00:00', end: '24:00' }, sendingDays: [1, 2, 3, 4, 5, 6, 7] });
  const m = await approved(o);
  const clock = { now: new Date() };
  const send = activities(clock);
  await send.scheduleSend({ organizationId: o.orgId, messageId: m.id });
  clock.now = (await owners.query<{ scheduled_for: Date }>('SELECT scheduled_for FROM messages WHERE id = $1', [m.id])).rows[0]!.scheduled_for;
  return { o, m, clock, send };
}

const message = async (id: string) =>
  (
    await owners.query<{
      status: string;
      error: string | null;
      sent_at: Date | null;
      provider_message_id: string | null;
      send_attempted_at: Date | null;
      needs_check: boolean;
    }>('SELECT status, error, sent_at, provider_message_id, send_attempted_at, needs_check FROM messages WHERE id = $1', [id])
  ).rows[0]!;
const slots = async (id: string) => (await owners.query<{ n: number }>('SELECT count(*)::int AS n FROM send_slots WHERE message_id = $1', [id])).rows[0]!.n;
const mailbox = async (id: string) =>
  (await owners.query<{ last_error: string | null; send_hold_reason: string | null }>('SELECT last_error, send_hold_reason FROM mailboxes WHERE id = $1', [id]))
    .rows[0]!;

test('a timer that fires after the window re-books instead of sending; the next opening sends', async () => {
  const o = await sendingOrg();
  const m = await approved(o);
  const clock = { now: at('2030-01-08T16:50') };
  const send = activities(clock);
  expect(await send.scheduleSend({ organizationId: o.orgId, messageId: m.id })).toMatchObject({
    state: 'scheduled',
    slotAtMs: at('2030-01-08T16:50').getTime(),
    windowEndsAtMs: at('2030-01-08T17:00').getTime(),
  });
  // The worker was down; the timer fires at 21:00.
  clock.now = at('2030-01-08T21:00');
  expect(await send.sendMessage({ organizationId: o.orgId, messageId: m.id })).toMatchObject({ status: 'approved', requeue: true });
  expect(await message(m.id)).toMatchObject({ status: 'approved', sent_at: null, send_attempted_at: null, error: expect.stringContaining('slot passed') });
  expect(await slots(m.id)).toBe(0);
  expect(await smtp.received(m.to)).toHaveLength(0);
  // Booked again: the next business day's opening, and sent there.
  expect(await send.scheduleSend({ organizationId: o.orgId, messageId: m.id })).toMatchObject({
    state: 'scheduled',
    slotAtMs: at('2030-01-09T09:00').getTime(),
  });
  clock.now = at('2030-01-09T09:00:20');
  expect(await send.sendMessage({ organizationId: o.orgId, messageId: m.id })).toMatchObject({ status: 'sent' });
  expect(await smtp.received(m.to)).toHaveLength(1);
});

test('a run restarted with a long-past slot books again instead of sending late', async () => {
  const o = await sendingOrg();
  const m = await approved(o);
  const clock = { now: at('2030-01-08T10:00') };
  const send = activities(clock);
  await send.scheduleSend({ organizationId: o.orgId, messageId: m.id });
  clock.now = at('2030-01-08T23:00');
  expect(await send.scheduleSend({ organizationId: o.orgId, messageId: m.id })).toMatchObject({
    state: 'scheduled',
    slotAtMs: at('2030-01-09T09:00').getTime(),
  });
});

test('a 4xx retry that crosses the window close re-books; nothing goes out late', async () => {
  const o = await sendingOrg();
  const m = await approved(o);
  smtp.refuse(m.to, 451, '4.7.1 Greylisted, try again later');
  const clock = { now: at('2030-01-08T16:58') };
  const send = activities(clock);
  await send.scheduleSend({ organizationId: o.orgId, messageId: m.id });
  await expect(send.sendMessage({ organizationId: o.orgId, messageId: m.id })).rejects.toMatchObject({ name: 'SmtpTransientError' });
  expect(await message(m.id)).toMatchObject({ status: 'scheduled', send_attempted_at: null });
  // The retry comes at 17:01 (the greylisting has passed): past the close, so it is booked again.
  smtp.accept(m.to);
  clock.now = at('2030-01-08T17:01');
  expect(await send.sendMessage({ organizationId: o.orgId, messageId: m.id })).toMatchObject({
    status: 'approved',
    requeue: true,
    reason: expect.stringContaining('outside the sending window'),
  });
  expect(await smtp.received(m.to)).toHaveLength(0);
});

test('a mailbox check turning unsendable after booking holds the scheduled message', async () => {
  const o = await sendingOrg();
  const m = await approved(o);
  const clock = { now: at('2030-01-08T10:00') };
  const send = activities(clock);
  await send.scheduleSend({ organizationId: o.orgId, messageId: m.id });
  await owners.query(
    `INSERT INTO mailbox_health_checks (organization_id, mailbox_id, domain, spf, dkim, dmarc, mx, score, sendable, created_at)
     VALUES ($1, $2, 'good-mail.nl', '{"status":"fail"}', '{"status":"fail"}', '{"status":"fail"}', '{"status":"pass"}', 10, false, now() + interval '1 minute')`,
    [o.orgId, o.mailboxId],
  );
  expect(await send.sendMessage({ organizationId: o.orgId, messageId: m.id })).toMatchObject({
    status: 'approved',
    requeue: true,
    hold: true,
    reason: expect.stringContaining('not sendable'),
  });
  expect(await message(m.id)).toMatchObject({ status: 'approved' });
  expect(await send.scheduleSend({ organizationId: o.orgId, messageId: m.id })).toMatchObject({ state: 'held' });
  expect(await smtp.received(m.to)).toHaveLength(0);
});

test('the cap is never exceeded when late sends pile up, nor after the cap is lowered', async () => {
  const o = await sendingOrg({ dailyCap: 3 });
  const clock = { now: at('2030-01-08T10:00') };
  const send = activities(clock);
  // Day D's three are booked, and then the SMTP server (or the worker) is away until the next morning.
  const dayD = [await approved(o), await approved(o), await approved(o)];
  for (const m of dayD) expect(await send.scheduleSend({ organizationId: o.orgId, messageId: m.id })).toMatchObject({ state: 'scheduled' });
  clock.now = at('2030-01-09T10:00');
  const dayD1 = [await approved(o), await approved(o), await approved(o)];
  for (const m of dayD1) expect(await send.scheduleSend({ organizationId: o.orgId, messageId: m.id })).toMatchObject({ state: 'scheduled' });
  // All six timers fire on the morning of D+1.
  const outcomes = [];
  for (const m of [...dayD, ...dayD1]) outcomes.push((await send.sendMessage({ organizationId: o.orgId, messageId: m.id })).status);
  expect(outcomes).toEqual(['approved', 'approved', 'approved', 'sent', 'sent', 'sent']);
  // The late ones book again: D+1 is full, so D+2.
  for (const m of dayD)
    expect(await send.scheduleSend({ organizationId: o.orgId, messageId: m.id })).toMatchObject({ slotAtMs: at('2030-01-10T09:00').getTime() });

  // Three booked for D+2 already; the cap is lowered to 2 before they go: the third is not sent that day.
  await o.ok('PATCH', `/mailboxes/${o.mailboxId}`, { dailyCap: 2 });
  clock.now = at('2030-01-10T09:00:30');
  const late = [];
  for (const m of dayD) late.push((await send.sendMessage({ organizationId: o.orgId, messageId: m.id })).status);
  expect(late).toEqual(['sent', 'sent', 'approved']);
  const { rows } = await owners.query<{ day: string; n: number }>(
    `SELECT s.local_day::text AS day, count(*)::int AS n FROM send_slots s JOIN messages m ON m.id = s.message_id
      WHERE s.mailbox_id = $1 AND m.status = 'sent' GROUP BY 1 ORDER BY 1`,
    [o.mailboxId],
  );
  expect(rows).toEqual([
    { day: '2030-01-09', n: 3 },
    { day: '2030-01-10', n: 2 },
  ]);
});

test('an unsubscribe during the SMTP conversation leaves the delivered e-mail `sent` (M3)', async () => {
  const { o, m, send } = await bookedAtItsSlot();
  const stall = smtp.stallAfterData(m.to);
  const sending = send.sendMessage({ organizationId: o.orgId, messageId: m.id });
  await stall.arrived;
  const res = await fetch(`${api.url}/u/${testUnsubscribeTokens().sign(m.id)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'List-Unsubscribe=One-Click',
  });
  expect(res.status).toBe(200);
  // The claimed message is left to its send, not skipped under it.
  expect(await message(m.id)).toMatchObject({ status: 'scheduled' });
  stall.release();
  expect(await sending).toMatchObject({ status: 'sent' });
  expect(await message(m.id)).toMatchObject({ status: 'sent', sent_at: expect.any(Date), provider_message_id: expect.stringContaining(m.id) });
  expect(await smtp.received(m.to)).toHaveLength(1);
  // The address is suppressed all the same: nothing further goes to it.
  expect((await owners.query('SELECT 1 FROM suppressions WHERE organization_id = $1 AND value = $2', [o.orgId, m.to.toLowerCase()])).rowCount).toBe(1);
});

test('a slow first attempt that succeeds after a retry flagged it is recorded `sent`, not left `failed`', async () => {
  const { o, m, send } = await bookedAtItsSlot();
  const stall = smtp.stallAfterData(m.to);
  const first = send.sendMessage({ organizationId: o.orgId, messageId: m.id });
  await stall.arrived;
  // The activity's retry (its worker thought dead) finds the claim and flags the message.
  expect(await send.sendMessage({ organizationId: o.orgId, messageId: m.id })).toMatchObject({ status: 'failed', flagged: true });
  stall.release();
  expect(await first).toMatchObject({ status: 'sent' });
  expect(await message(m.id)).toMatchObject({ status: 'sent', needs_check: false, error: null });
});

test('a worker that died after its claim but before the hand-over loses nothing: the next attempt takes the claim over and sends once; the dead one could no longer send', async () => {
  const { o, m, clock, send } = await bookedAtItsSlot();
  // The first attempt claims, then its worker dies before it hands anything to the server.
  const dead = await asOrganization(workerDb, o.orgId, (tx) => claimSend(tx, m.id, { now: clock.now }));
  expect(dead).toMatchObject({ go: true });
  clock.now = new Date(clock.now.getTime() + 1000);
  expect(await send.sendMessage({ organizationId: o.orgId, messageId: m.id })).toMatchObject({ status: 'sent' });
  expect(await smtp.received(m.to)).toHaveLength(1);
  expect(await message(m.id)).toMatchObject({ status: 'sent', needs_check: false });
  // Were the dead attempt still alive, its hand-over is refused: it cannot send a second copy.
  const claimedAt = dead.go ? dead.message.claimedAt : new Date();
  await expect(asOrganization(workerDb, o.orgId, (tx) => markHandover(tx, m.id, claimedAt))).rejects.toBeInstanceOf(ClaimLostError);
});

test('a claim whose attempt handed the message over and recorded nothing is flagged for checking, never sent again', async () => {
  const { o, m, clock, send } = await bookedAtItsSlot();
  const dead = await asOrganization(workerDb, o.orgId, (tx) => claimSend(tx, m.id, { now: clock.now }));
  await asOrganization(workerDb, o.orgId, (tx) => markHandover(tx, m.id, dead.go ? dead.message.claimedAt : new Date()));
  expect(await send.sendMessage({ organizationId: o.orgId, messageId: m.id })).toMatchObject({ status: 'failed', flagged: true });
  expect(await smtp.received(m.to)).toHaveLength(0);
  expect(await message(m.id)).toMatchObject({ status: 'failed', needs_check: true });
});

async function enrollment(o: OutreachOrg, contactId: string): Promise<string> {
  const q = async (text: string, values: unknown[]) => (await owners.query<{ id: string }>(text, values)).rows[0]!.id;
  const campaign = await q(`INSERT INTO campaigns (organization_id, name, status) VALUES ($1, 'Warmtepompen', 'active') RETURNING id`, [o.orgId]);
  const sequence = await q(`INSERT INTO sequences (organization_id, campaign_id, name) VALUES ($1, $2, 'Warmtepompen') RETURNING id`, [o.orgId, campaign]);
  return q(`INSERT INTO enrollments (organization_id, campaign_id, sequence_id, contact_id, status) VALUES ($1, $2, $3, $4, 'active') RETURNING id`, [
    o.orgId,
    campaign,
    sequence,
    contactId,
  ]);
}

describe('setup errors hold the mailbox, not the recipients (M4)', () => {
  test('SMTP 535: the mailbox is held with a clear reason, the message waits, the enrollment stays active; a new secret releases it', async () => {
    const authed = await startSmtpServer({ auth: { username: 'anna', password: 's3cret' } });
    try {
      const o = await sendingOrg({ smtp: { host: authed.host, port: authed.port, secure: false, username: 'anna' }, secret: 'rotated-elsewhere' }, authed);
      const c = await o.contact();
      const enr = await enrollment(o, c.id);
      const { rows } = await owners.query<{ id: string }>(
        `INSERT INTO messages (organization_id, contact_id, mailbox_id, enrollment_id, direction, channel, status, subject, body, to_address, approved_at)
         VALUES ($1, $2, $3, $4, 'outbound', 'email', 'approved', 'Uw project', 'Geachte heer Bakker,', $5, now()) RETURNING id`,
        [o.orgId, c.id, o.mailboxId, enr, c.email],
      );
      const id = rows[0]!.id;
      const clock = { now: at('2030-01-08T10:00') };
      // The catcher offers no STARTTLS: this mailbox may log in without it (the password check is what is tested).
      const base = new NodemailerSmtpSender({ connectionMs: 2000, greetingMs: 2000, socketMs: 5000 });
      const send = activities(clock, { sender: { send: (mail, settings) => base.send(mail, { ...settings, requireTls: false }) } });
      await send.scheduleSend({ organizationId: o.orgId, messageId: id });
      expect(await send.sendMessage({ organizationId: o.orgId, messageId: id })).toMatchObject({ status: 'approved', requeue: true, hold: true });
      expect(await message(id)).toMatchObject({
        status: 'approved',
        send_attempted_at: null,
        error: expect.stringContaining('refused the mailbox’s login (535)'),
      });
      expect(await mailbox(o.mailboxId)).toMatchObject({ last_error: expect.stringContaining('535'), send_hold_reason: expect.stringContaining('535') });
      expect((await owners.query('SELECT status FROM enrollments WHERE id = $1', [enr])).rows[0]).toEqual({ status: 'active' });
      expect(await send.scheduleSend({ organizationId: o.orgId, messageId: id })).toMatchObject({ state: 'held', reason: expect.stringContaining('535') });
      // The admin sets the right secret: the hold ends and the message books and goes.
      await o.ok('PATCH', `/mailboxes/${o.mailboxId}`, { secret: 's3cret' });
      expect((await mailbox(o.mailboxId)).send_hold_reason).toBeNull();
      expect(await send.scheduleSend({ organizationId: o.orgId, messageId: id })).toMatchObject({ state: 'scheduled' });
      expect(await send.sendMessage({ organizationId: o.orgId, messageId: id })).toMatchObject({ status: 'sent' });
      expect(await authed.received(c.email)).toHaveLength(1);
    } finally {
      await authed.close();
    }
  });

  test('missing compliance settings hold the message instead of failing it', async () => {
    const o = await sendingOrg();
    const m = await approved(o);
    await owners.query('UPDATE compliance_settings SET privacy_url = NULL WHERE organization_id = $1', [o.orgId]);
    const clock = { now: at('2030-01-08T10:00') };
    const send = activities(clock);
    await send.scheduleSend({ organizationId: o.orgId, messageId: m.id });
    expect(await send.sendMessage({ organizationId: o.orgId, messageId: m.id })).toMatchObject({ status: 'approved', requeue: true, hold: true });
    expect(await message(m.id)).toMatchObject({ status: 'approved', error: expect.stringContaining('privacy_url') });
    expect((await mailbox(o.mailboxId)).last_error).toContain('privacy_url');
    expect(await slots(m.id)).toBe(0);
    expect(await smtp.received(m.to)).toHaveLength(0);
  });

  test('a mailbox pointed at 127.0.0.1 is refused when private networks are not allowed: held with a generic reason', async () => {
    const o = await sendingOrg();
    const m = await approved(o);
    const deny: DestinationPolicy = { allowPrivate: false, isPrivate: isPrivateAddress, resolve: async () => [] };
    const clock = { now: at('2030-01-08T10:00') };
    const send = activities(clock, { sender: new NodemailerSmtpSender(undefined, undefined, () => deny) });
    await send.scheduleSend({ organizationId: o.orgId, messageId: m.id });
    expect(await send.sendMessage({ organizationId: o.orgId, messageId: m.id })).toMatchObject({
      status: 'approved',
      hold: true,
      reason: blockedMailHostReason('smtp'),
    });
    expect(await mailbox(o.mailboxId)).toEqual({ last_error: blockedMailHostReason('smtp'), send_hold_reason: blockedMailHostReason('smtp') });
    expect((await message(m.id)).error).not.toContain('127.0.0.1');
    expect(await smtp.received(m.to)).toHaveLength(0);
  });
});

test('another organization cannot see the held mailbox nor its messages', async () => {
  const o = await sendingOrg();
  const { owner: other, orgId: otherOrg } = await newOrganization(api, `Other ${randomUUID().slice(0, 6)} B.V.`);
  const res = await api.call('GET', `/mailboxes/${o.mailboxId}?organizationId=${otherOrg}`, { token: other.token });
  expect(res.status).toBe(404);
});

test("the person's address is checked again at the moment of sending: found invalid since the accept, the e-mail is skipped; never checked, it waits for its check at most 10 minutes from the enrollment", async () => {
  const o = await sendingOrg({ sendingWindow: { start: '00:00', end: '24:00' }, sendingDays: [1, 2, 3, 4, 5, 6, 7] });
  const enrolledMessage = async (status: 'invalid' | null) => {
    const c = await o.contact();
    // Its check, started at creation, is done before the test sets what a later check found.
    await resultWithin(api.temporal.workflow.getHandle(`contact/${c.id}/verify`));
    await owners.query(
      `UPDATE contacts SET email_status = coalesce($2, 'unknown'), email_checked_at = CASE WHEN $2 IS NULL THEN NULL ELSE now() END WHERE id = $1`,
      [c.id, status],
    );
    const enr = await enrollment(o, c.id);
    const { rows } = await owners.query<{ id: string }>(
      `INSERT INTO messages (organization_id, contact_id, mailbox_id, enrollment_id, direction, channel, status, subject, body, to_address, approved_at)
       VALUES ($1, $2, $3, $4, 'outbound', 'email', 'approved', 'Uw project', 'Geachte heer Bakker,', $5, now()) RETURNING id`,
      [o.orgId, c.id, o.mailboxId, enr, c.email],
    );
    return { id: rows[0]!.id, to: c.email as string };
  };
  const clock = { now: new Date() };
  const send = activities(clock);
  const bookAndReachSlot = async (id: string) => {
    expect(await send.scheduleSend({ organizationId: o.orgId, messageId: id })).toMatchObject({ state: 'scheduled' });
    clock.now = (await owners.query<{ scheduled_for: Date }>('SELECT scheduled_for FROM messages WHERE id = $1', [id])).rows[0]!.scheduled_for;
  };

  const invalid = await enrolledMessage('invalid');
  await bookAndReachSlot(invalid.id);
  expect(await send.sendMessage({ organizationId: o.orgId, messageId: invalid.id })).toMatchObject({ status: 'skipped' });
  expect(await message(invalid.id)).toMatchObject({ status: 'skipped', send_attempted_at: null, error: expect.stringContaining('invalid_email') });
  expect(await slots(invalid.id)).toBe(0);
  expect(await smtp.received(invalid.to)).toHaveLength(0);

  const unchecked = await enrolledMessage(null);
  clock.now = new Date();
  await bookAndReachSlot(unchecked.id);
  expect(await send.sendMessage({ organizationId: o.orgId, messageId: unchecked.id })).toMatchObject({
    status: 'approved',
    requeue: true,
    hold: true,
    reason: expect.stringContaining('being checked'),
  });
  expect(await message(unchecked.id)).toMatchObject({ status: 'approved', send_attempted_at: null });
  expect(await smtp.received(unchecked.to)).toHaveLength(0);
  // Ten minutes after the enrollment the check has still not answered: the e-mail goes.
  clock.now = new Date(Date.now() + 11 * 60_000);
  await bookAndReachSlot(unchecked.id);
  expect(await send.sendMessage({ organizationId: o.orgId, messageId: unchecked.id })).toMatchObject({ status: 'sent' });
  expect(await smtp.received(unchecked.to)).toHaveLength(1);
});
