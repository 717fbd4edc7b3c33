import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { NodemailerSmtpSender } from '../../activities/providers/mail/smtp';
import { createSendActivities } from '../../activities/send';
import { createSequenceActivities } from '../../activities/sequence';
import { SecretBox } from '../../db/secrets';
import { expectProblem as problem, newOrganization, testUnsubscribeTokens } from '../helpers/api';
import { outreachOrg, type OutreachOrg } from '../helpers/outreach';
import { testEnv } from '../helpers/tokens';
import { useStack } from '../helpers/stack';

/**
 * Sending in the recipient's time on the
 * real stack: the API, PostgreSQL as the worker role, a real SMTP server, the send and sequence
 * activities with the clock an input. An Amsterdam mailbox (09:00-17:00, Monday to Friday, Dutch
 * holidays) sends to recipients in New York and London.
 */
const { api, owners, smtp, workerDb } = useStack({ api: true, owners: true, smtp: true, workerDb: true });

const AMS = 'Europe/Amsterdam';
const NY = 'America/New_York';
const at = (iso: string, zone = AMS) => DateTime.fromISO(iso, { zone }).toJSDate();
const wall = (ms: number, zone: string) => DateTime.fromMillis(ms, { zone }).toISO({ suppressMilliseconds: true });
const OFFICE = { sendingWindow: { start: '09:00', end: '17:00' }, sendingDays: [1, 2, 3, 4, 5], minGapSeconds: 0, timezone: AMS, holidayCountry: 'NL' };

function sendActivities(clock: { now: Date }) {
  return createSendActivities({
    db: workerDb,
    sender: new NodemailerSmtpSender({ connectionMs: 2000, greetingMs: 2000, socketMs: 5000 }),
    secrets: new SecretBox(testEnv('INTEGRATION_SECRET_KEY')),
    tokens: testUnsubscribeTokens(),
    publicBaseUrl: 'http://127.0.0.1:3000',
    graceSeconds: 300,
    now: () => clock.now,
  });
}

async function sendingOrg(mailbox: Record<string, unknown> = {}): Promise<OutreachOrg> {
  const o = await outreachOrg(api, newOrganization, smtp, { ...OFFICE, ...mailbox });
  expect(await o.ok('POST', `/mailboxes/${o.mailboxId}/health`, {})).toMatchObject({ sendable: true });
  return o;
}

/** A campaign of the organization (proposed: nothing runs), sending in the given time. */
async function campaign(o: OutreachOrg, sendIn?: 'mailbox' | 'recipient', mailboxIds = [o.mailboxId]) {
  return o.ok('POST', '/campaigns', {
    organizationId: o.orgId,
    name: `Recipient ${randomUUID().slice(0, 6)}`,
    mailboxIds,
    ...(sendIn ? { sendIn } : {}),
    steps: [
      { channel: 'email', delayDays: 0 },
      { channel: 'email', delayDays: 1 },
    ],
  });
}

/** A consenting contact at a company of its own (its country and zone given), with its own time zone or none. */
async function recipient(o: OutreachOrg, place: { contactTimezone?: string; companyTimezone?: string; countryCode?: string }) {
  const slug = randomUUID().slice(0, 8);
  const company = await o.ok('POST', '/companies', {
    organizationId: o.orgId,
    name: `Abroad ${slug} Inc.`,
    domain: `abroad-${slug}.com`,
    ...(place.countryCode ? { countryCode: place.countryCode } : {}),
    ...(place.companyTimezone ? { timezone: place.companyTimezone } : {}),
  });
  const email = `p.${slug}@abroad-${slug}.com`;
  const c = await o.ok('POST', '/contacts', {
    organizationId: o.orgId,
    companyId: company.id,
    fullName: 'Pat Baker',
    email,
    ...(place.contactTimezone ? { timezone: place.contactTimezone } : {}),
  });
  await o.ok('PUT', `/contacts/${c.id}/lawful-basis`, {
    organizationId: o.orgId,
    basis: 'consent',
    recipient_kind: 'legal_person',
    country: 'NL',
    consent_evidence: 'signed at the trade fair',
  });
  return { id: c.id as string, email, companyId: company.id as string };
}

/** An approved e-mail of the campaign to the contact (written as the owner: what approval leaves). */
async function approved(o: OutreachOrg, campaignId: string | null, to: { id: string; email: string }): Promise<string> {
  const { rows } = await owners.query<{ id: string }>(
    `INSERT INTO messages (organization_id, campaign_id, contact_id, mailbox_id, direction, channel, status, subject, body, to_address, approved_at)
     VALUES ($1, $2, $3, $4, 'outbound', 'email', 'approved', 'Your project', 'Dear Pat,', $5, now()) RETURNING id`,
    [o.orgId, campaignId, to.id, o.mailboxId, to.email],
  );
  return rows[0]!.id;
}

/** A problem+json answer with the status and code, naming the field when one is given. */
function expectProblem(res: Awaited<ReturnType<OutreachOrg['call']>>, status: number, code: string, field?: string) {
  problem(res, status, code);
  if (field) expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(field);
}

const slotOf = async (messageId: string) =>
  (await owners.query<{ slot_at: Date; local_day: string }>('SELECT slot_at, local_day::text AS local_day FROM send_slots WHERE message_id = $1', [messageId]))
    .rows[0];

test("a New York contact gets its e-mail in New York's business hours from an Amsterdam mailbox; sendIn mailbox keeps Amsterdam's", async () => {
  const o = await sendingOrg();
  const inNy = await recipient(o, { contactTimezone: NY });
  const byRecipient = (await campaign(o, 'recipient')).id;
  expect((await o.ok('GET', `/campaigns/${byRecipient}`)).send_in).toBe('recipient');
  const byMailbox = await campaign(o);
  expect(byMailbox.send_in).toBe('mailbox');
  // Tuesday 8 January 2030, 08:00 in Amsterdam = 02:00 in New York.
  const clock = { now: at('2030-01-08T08:00') };
  const send = sendActivities(clock);
  const m = await approved(o, byRecipient, inNy);
  const booked = await send.scheduleSend({ organizationId: o.orgId, messageId: m });
  expect(booked).toMatchObject({ state: 'scheduled' });
  const b = booked as { slotAtMs: number; windowEndsAtMs: number };
  expect(wall(b.slotAtMs, NY)).toBe('2030-01-08T09:00:00-05:00');
  expect(wall(b.windowEndsAtMs, NY)).toBe('2030-01-08T17:00:00-05:00');
  // The reservation counts against Amsterdam's day (15:00 there).
  expect(await slotOf(m)).toMatchObject({ local_day: '2030-01-08' });
  // The same contact in a mailbox-time campaign: 09:00 Amsterdam.
  const m2 = await approved(o, byMailbox.id, inNy);
  expect(wall(((await send.scheduleSend({ organizationId: o.orgId, messageId: m2 })) as { slotAtMs: number }).slotAtMs, AMS)).toBe('2030-01-08T09:00:00+01:00');
  // At 18:00 Amsterdam (its window closed) New York is at 12:00: a recipient-time e-mail still goes today.
  clock.now = at('2030-01-08T18:00');
  const m3 = await approved(o, byRecipient, inNy);
  expect(wall(((await send.scheduleSend({ organizationId: o.orgId, messageId: m3 })) as { slotAtMs: number }).slotAtMs, NY)).toBe('2030-01-08T12:00:00-05:00');
});

test("the zone comes from the contact, else the company's timezone, else the company's one-zone country (GB: London)", async () => {
  const o = await sendingOrg();
  const byRecipient = (await campaign(o, 'recipient')).id;
  // The United States has many zones: the company's timezone says which.
  const nyCompany = await recipient(o, { companyTimezone: NY, countryCode: 'US' });
  const london = await recipient(o, { countryCode: 'GB' });
  // 08:30 Amsterdam = 07:30 London = 02:30 New York.
  const clock = { now: at('2030-01-08T08:30') };
  const send = sendActivities(clock);
  const toNy = await approved(o, byRecipient, nyCompany);
  expect(wall(((await send.scheduleSend({ organizationId: o.orgId, messageId: toNy })) as { slotAtMs: number }).slotAtMs, NY)).toBe(
    '2030-01-08T09:00:00-05:00',
  );
  const toLondon = await approved(o, byRecipient, london);
  expect(wall(((await send.scheduleSend({ organizationId: o.orgId, messageId: toLondon })) as { slotAtMs: number }).slotAtMs, 'Europe/London')).toBe(
    '2030-01-08T09:00:00+00:00',
  );
  // The contact's own zone beats its company's (PATCH /contacts: now New York for the London contact).
  expect(await o.ok('PATCH', `/contacts/${london.id}`, { timezone: NY })).toMatchObject({ timezone: NY });
  const again = await approved(o, byRecipient, london);
  expect(wall(((await send.scheduleSend({ organizationId: o.orgId, messageId: again })) as { slotAtMs: number }).slotAtMs, NY)).toBe(
    '2030-01-08T09:00:00-05:00',
  );
});

test("the recipient country's holiday is skipped, the mailbox country's is not", async () => {
  const o = await sendingOrg();
  const byRecipient = (await campaign(o, 'recipient')).id;
  const inNy = await recipient(o, { contactTimezone: NY });
  const clock = { now: at('2030-11-28T10:00', NY) }; // Thanksgiving, Thursday 28 November 2030
  const send = sendActivities(clock);
  const m = await approved(o, byRecipient, inNy);
  expect(wall(((await send.scheduleSend({ organizationId: o.orgId, messageId: m })) as { slotAtMs: number }).slotAtMs, NY)).toBe('2030-11-29T09:00:00-05:00');
  // Easter Monday, 22 April 2030: a Dutch holiday (the mailbox's), a New York business day.
  clock.now = at('2030-04-22T10:00', NY);
  const easter = await approved(o, byRecipient, inNy);
  expect(wall(((await send.scheduleSend({ organizationId: o.orgId, messageId: easter })) as { slotAtMs: number }).slotAtMs, NY)).toBe(
    '2030-04-22T10:00:00-04:00',
  );
});

test("the daily cap counts the mailbox's day, shared by recipient-time and mailbox-time e-mails", async () => {
  // A window 09:00-24:00: read in New York, its evening is Amsterdam's next day.
  const o = await sendingOrg({ dailyCap: 1, sendingWindow: { start: '09:00', end: '24:00' } });
  const byRecipient = (await campaign(o, 'recipient')).id;
  const byMailbox = (await campaign(o, 'mailbox')).id;
  const inNy = await recipient(o, { contactTimezone: NY });
  const clock = { now: at('2030-01-08T10:00', NY) }; // Tuesday 16:00 in Amsterdam
  const send = sendActivities(clock);
  const first = await approved(o, byRecipient, inNy);
  await send.scheduleSend({ organizationId: o.orgId, messageId: first });
  expect(await slotOf(first)).toMatchObject({ local_day: '2030-01-08' });
  // Amsterdam's Tuesday is full: the next slot is when Amsterdam's Wednesday begins, 18:00 Tuesday in New York
  // (counted in New York's day it would wait for Wednesday 09:00 there).
  const second = await approved(o, byRecipient, inNy);
  const s2 = (await send.scheduleSend({ organizationId: o.orgId, messageId: second })) as { slotAtMs: number };
  expect(wall(s2.slotAtMs, NY)).toBe('2030-01-08T18:00:00-05:00');
  expect(await slotOf(second)).toMatchObject({ local_day: '2030-01-09' });
  // A mailbox-time e-mail of the same mailbox finds Amsterdam's Wednesday taken too: Thursday 09:00 Amsterdam.
  const third = await approved(o, byMailbox, inNy);
  expect(wall(((await send.scheduleSend({ organizationId: o.orgId, messageId: third })) as { slotAtMs: number }).slotAtMs, AMS)).toBe(
    '2030-01-10T09:00:00+01:00',
  );
});

test('the claim checks the recipient window: inside it (the mailbox closed) it sends; past it the slot is given back', async () => {
  const o = await sendingOrg();
  const byRecipient = (await campaign(o, 'recipient')).id;
  const inNy = await recipient(o, { contactTimezone: NY });
  // 16:58 in New York is 22:58 in Amsterdam: the mailbox's own window is closed.
  const clock = { now: at('2030-01-08T16:58', NY) };
  const send = sendActivities(clock);
  const m = await approved(o, byRecipient, inNy);
  await send.scheduleSend({ organizationId: o.orgId, messageId: m });
  clock.now = at('2030-01-08T16:59', NY);
  expect(await send.sendMessage({ organizationId: o.orgId, messageId: m })).toMatchObject({ status: 'sent' });
  expect(await smtp.received(inNy.email)).toHaveLength(1);
  // Booked at 16:58 again, claimed at 17:01 New York (within the grace of its slot): outside the recipient window.
  const other = await recipient(o, { contactTimezone: NY });
  clock.now = at('2030-01-09T16:58', NY);
  const late = await approved(o, byRecipient, other);
  await send.scheduleSend({ organizationId: o.orgId, messageId: late });
  clock.now = at('2030-01-09T17:01', NY);
  expect(await send.sendMessage({ organizationId: o.orgId, messageId: late })).toMatchObject({
    status: 'approved',
    requeue: true,
    reason: expect.stringContaining('outside the sending window'),
  });
  expect(await slotOf(late)).toBeUndefined();
  expect(await smtp.received(other.email)).toHaveLength(0);
});

test("a step delay counts the business days of the contact's own mailbox, or the recipient's (its country holidays skipped, the country its zone says)", async () => {
  const o = await sendingOrg();
  // The pool's first mailbox keeps American holidays; the enrollment is pinned on the second, the Dutch one (o.mailboxId).
  const american = await o.ok('POST', '/mailboxes', {
    organizationId: o.orgId,
    address: `us-${randomUUID().slice(0, 6)}@good-mail.nl`,
    smtp: { host: smtp.host, port: smtp.port, secure: false },
    secret: 'x',
    ...OFFICE,
    holidayCountry: 'US',
  });
  const plan = async (sendIn: 'mailbox' | 'recipient', place: { contactTimezone?: string; countryCode?: string } = { contactTimezone: NY }) => {
    const inNy = await recipient(o, place);
    const c = await campaign(o, sendIn, [american.id, o.mailboxId]);
    const { rows } = await owners.query<{ id: string }>(
      `INSERT INTO enrollments (organization_id, campaign_id, contact_id, sequence_id, mailbox_id) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
      [o.orgId, c.id, inNy.id, c.sequence_id, o.mailboxId],
    );
    const seq = createSequenceActivities({ db: workerDb });
    // Step 2 waits 1 business day after Wednesday 27 November 2030, 10:00 New York (the day before Thanksgiving).
    const { dueMs } = await seq.planStep({ organizationId: o.orgId, enrollmentId: rows[0]!.id, position: 2, fromMs: at('2030-11-27T10:00', NY).getTime() });
    return wall(dueMs, NY);
  };
  expect(await plan('recipient')).toBe('2030-11-29T10:00:00-05:00');
  // In the mailbox's time: the pinned Dutch mailbox's days (Thanksgiving is one), not the campaign's first mailbox's.
  expect(await plan('mailbox')).toBe('2030-11-28T10:00:00-05:00');
  // A contact in New York at a Dutch company: New York's holidays, not the Netherlands'.
  expect(await plan('recipient', { contactTimezone: NY, countryCode: 'NL' })).toBe('2030-11-29T10:00:00-05:00');
});

test('sendIn on accept and PATCH; timezone checked on contacts and companies (400 naming the field, nothing changed)', async () => {
  const o = await sendingOrg();
  const c = await campaign(o);
  expect((await o.ok('PATCH', `/campaigns/${c.id}`, { sendIn: 'recipient' })).send_in).toBe('recipient');
  expectProblem(await o.call('PATCH', `/campaigns/${c.id}`, { sendIn: 'sometimes' }), 400, 'VALIDATION_FAILED', 'body.sendIn');
  expectProblem(
    await o.call('POST', '/campaigns', { organizationId: o.orgId, name: 'x', sendIn: 'moon', steps: [{ channel: 'email', delayDays: 0 }] }),
    400,
    'VALIDATION_FAILED',
    'body.sendIn',
  );
  const other = await campaign(o, 'recipient');
  const accepted = await o.ok('POST', `/campaigns/${other.id}/accept`, { contactIds: [] });
  expect(accepted.campaign.send_in).toBe('recipient');
  const third = await campaign(o, 'recipient');
  expect((await o.ok('POST', `/campaigns/${third.id}/accept`, { contactIds: [], sendIn: 'mailbox' })).campaign.send_in).toBe('mailbox');

  const who = await recipient(o, { contactTimezone: NY, companyTimezone: 'Europe/London' });
  expect(await o.ok('GET', `/contacts/${who.id}`)).toMatchObject({ timezone: NY });
  expect(await o.ok('GET', `/companies/${who.companyId}`)).toMatchObject({ timezone: 'Europe/London' });
  expectProblem(
    await o.call('POST', '/contacts', { organizationId: o.orgId, companyId: who.companyId, fullName: 'X', timezone: 'Mars/Olympus_Mons' }),
    400,
    'VALIDATION_FAILED',
    'body.timezone',
  );
  expectProblem(
    await o.call('POST', '/companies', { organizationId: o.orgId, name: 'Y Inc.', timezone: 'EST5EDT/Nowhere' }),
    400,
    'VALIDATION_FAILED',
    'body.timezone',
  );
  expectProblem(await o.call('PATCH', `/contacts/${who.id}`, { timezone: 'Mars/Olympus_Mons' }), 400, 'VALIDATION_FAILED', 'body.timezone');
  expectProblem(await o.call('PATCH', `/companies/${who.companyId}`, { timezone: 'Mars/Olympus_Mons' }), 400, 'VALIDATION_FAILED', 'body.timezone');
  expectProblem(await o.call('PATCH', `/contacts/${who.id}`, {}), 400, 'VALIDATION_FAILED');
  expectProblem(await o.call('PATCH', `/contacts/${who.id}`, { email: 'a@b.nl' }), 400, 'VALIDATION_FAILED');
  expect(await o.ok('GET', `/contacts/${who.id}`)).toMatchObject({ timezone: NY });
  expect(await o.ok('GET', `/companies/${who.companyId}`)).toMatchObject({ timezone: 'Europe/London' });
  // PATCH changes what it names, canonical spelling; null clears.
  expect(await o.ok('PATCH', `/companies/${who.companyId}`, { timezone: 'america/new_york', name: 'Renamed Inc.' })).toMatchObject({
    timezone: NY,
    name: 'Renamed Inc.',
  });
  expect(await o.ok('PATCH', `/contacts/${who.id}`, { timezone: null, title: 'Buyer' })).toMatchObject({
    timezone: null,
    title: 'Buyer',
    full_name: 'Pat Baker',
  });

  // Another tenant: 404, nothing changed.
  const stranger = await sendingOrg();
  for (const [path, body] of [
    [`/contacts/${who.id}`, { timezone: 'Asia/Tokyo' }],
    [`/companies/${who.companyId}`, { timezone: 'Asia/Tokyo' }],
    [`/campaigns/${c.id}`, { sendIn: 'mailbox' }],
  ] as const) {
    expectProblem(await stranger.call('PATCH', path, body), 404, 'NOT_FOUND');
  }
  expect(await o.ok('GET', `/companies/${who.companyId}`)).toMatchObject({ timezone: NY });
  expect((await o.ok('GET', `/campaigns/${c.id}`)).send_in).toBe('recipient');
});
