import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { sql } from 'kysely';
import { asOrganization } from '../../db/tenancy';
import { recordHealthCheck } from '../../db/queries/mailbox-health';
import { judgeMailboxProtection } from '../../db/queries/mailbox-protection';
import type { HealthResult } from '../../domain/deliverability/score';
import { publicHolidays } from '../../domain/sending/holidays';
import { expectProblem, newOrganization } from '../helpers/api';
import { TestUser } from '../helpers/tokens';
import { useStack } from '../helpers/stack';

/**
 * Mailboxes at scale: status, pauses and their reasons,
 * protection limits and seven-day stats, ramp-up and cap_today, gap jitter, OAuth auth, recipient
 * time zones on contacts and companies. Real API, real PostgreSQL under row-level security.
 */
const { api, owners, workerDb } = useStack({ api: true, owners: true, workerDb: true });
let owner: TestUser;
let orgId: string;
let other: TestUser;

beforeAll(async () => {
  ({ owner, orgId } = await newOrganization(api, 'Pools B.V.'));
  ({ owner: other } = await newOrganization(api, 'Ander B.V.'));
});

const smtp = { host: 'smtp.example.nl', port: 587, username: 'verkoop@pools-bv.nl' };
let n = 0;
const create = (body: Record<string, unknown> = {}) =>
  api.call('POST', '/mailboxes', { token: owner.token, body: { organizationId: orgId, address: `box${++n}@pools-bv.nl`, smtp, secret: 'pw', ...body } });
const get = (id: string) => api.call('GET', `/mailboxes/${id}`, { token: owner.token });
const health = (sendable: boolean): HealthResult => {
  const c = { status: sendable ? 'pass' : 'fail', record: '', detail: 'test' } as const;
  return { domain: 'pools-bv.nl', spf: c, dkim: c, dmarc: c, mx: c, score: sendable ? 100 : 0, sendable };
};

test('a new mailbox is active, password-authenticated, unramped, with default protection and empty stats', async () => {
  const res = await create();
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({
    status: 'active',
    paused_reason: null,
    paused_at: null,
    protection: { maxBounceRate: 0.02, maxComplaintRate: 0.001, maxBlockRate: 0.05, minSample: 20 },
    ramp_up: null,
    cap_today: 30,
    gap_jitter_seconds: 0,
    auth: { type: 'password', provider: null },
    stats_7d: { sent: 0, hard_bounces: 0, complaints: 0, bounce_rate: 0, complaint_rate: 0, blocks: 0, block_rate: 0 },
  });
});

test('ramp-up: cap_today is startCap on startsOn and grows by sending days; null removes it', async () => {
  const today = DateTime.now().setZone('Europe/Amsterdam');
  const made = await create({ dailyCap: 40, rampUp: { startCap: 5, dailyIncrease: 2 }, gapJitterSeconds: 300, sendingDays: [1, 2, 3, 4, 5, 6, 7] });
  expect(made.status).toBe(201);
  expect(made.body.ramp_up).toEqual({ startCap: 5, dailyIncrease: 2, startsOn: today.toISODate() });
  expect(made.body.cap_today).toBe(5);
  expect(made.body.gap_jitter_seconds).toBe(300);
  const id = made.body.id;
  // Started three days ago on a calendar of seven sending days: n = 3 unless one of those days was a public holiday.
  const startsOn = today.minus({ days: 3 }).toISODate();
  const patched = await api.call('PATCH', `/mailboxes/${id}`, { token: owner.token, body: { rampUp: { startCap: 5, dailyIncrease: 2, startsOn } } });
  expect(patched.status).toBe(200);
  const nl = publicHolidays('NL', null, { from: today.year - 1, to: today.year });
  const sendingDays = [3, 2, 1].filter((d) => !nl.has(today.minus({ days: d }).toISODate()!)).length;
  expect(patched.body.cap_today).toBe(5 + 2 * sendingDays);
  const capped = await api.call('PATCH', `/mailboxes/${id}`, { token: owner.token, body: { dailyCap: 6 } });
  expect(capped.body.cap_today).toBe(6);
  const removed = await api.call('PATCH', `/mailboxes/${id}`, { token: owner.token, body: { rampUp: null } });
  expect(removed.body).toMatchObject({ ramp_up: null, cap_today: 6 });
  const row = (await owners.query('SELECT ramp_start_cap, ramp_daily_increase, ramp_starts_on FROM mailboxes WHERE id = $1', [id])).rows[0];
  expect(row).toEqual({ ramp_start_cap: null, ramp_daily_increase: null, ramp_starts_on: null });
});

test('pause and resume by hand: manual reason, 409 on resuming an active mailbox', async () => {
  const id = (await create()).body.id;
  expectProblem(await api.call('POST', `/mailboxes/${id}/resume`, { token: owner.token, body: {} }), 409, 'CONFLICT');
  const paused = await api.call('POST', `/mailboxes/${id}/pause`, { token: owner.token, body: { reason: 'warming the domain' } });
  expect(paused.status).toBe(200);
  expect(paused.body).toMatchObject({ status: 'paused', paused_reason: 'manual', paused_at: expect.any(String) });
  const again = await api.call('POST', `/mailboxes/${id}/pause`, { token: owner.token, body: {} });
  expect(again.body.paused_at).toBe(paused.body.paused_at);
  const resumed = await api.call('POST', `/mailboxes/${id}/resume`, { token: owner.token, body: {} });
  expect(resumed.status).toBe(200);
  expect(resumed.body).toMatchObject({ status: 'active', paused_reason: null, paused_at: null });
});

test('the database refuses an inconsistent pause or ramp (a rule as a constraint)', async () => {
  const id = (await create()).body.id;
  await expect(owners.query(`UPDATE mailboxes SET status = 'paused' WHERE id = $1`, [id])).rejects.toThrow(/mailboxes_paused_check/);
  await expect(owners.query(`UPDATE mailboxes SET ramp_start_cap = 3 WHERE id = $1`, [id])).rejects.toThrow(/mailboxes_ramp_up_check/);
  await expect(owners.query(`UPDATE mailboxes SET auth_type = 'oauth2' WHERE id = $1`, [id])).rejects.toThrow(/mailboxes_auth_check/);
});

/** n messages sent by the mailbox in the last days; `bounced` of them hard-bounced, `complained` drew a complaint. */
async function sentMessages(mailboxId: string, count: number, opts: { bounced?: number; complained?: number } = {}): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomUUID());
  await owners.query(
    `INSERT INTO messages (id, organization_id, mailbox_id, status, sent_at, bounced_at, complained_at)
     SELECT id, $2, $3, 'sent', now() - interval '1 day',
            CASE WHEN ord <= $4 THEN now() END, CASE WHEN ord > $4 AND ord <= $4 + $5 THEN now() END
     FROM unnest($1::uuid[]) WITH ORDINALITY AS t(id, ord)`,
    [ids, orgId, mailboxId, opts.bounced ?? 0, opts.complained ?? 0],
  );
  return ids;
}

test('protection: a bounce over the rate pauses once the sample is reached; stats_7d counts it; after a resume it is judged again', async () => {
  const id = (await create({ protection: { minSample: 20 } })).body.id;
  await sentMessages(id, 19, { bounced: 5 });
  // 19 sends: below the sample, no pause however high the rate.
  expect(await asOrganization(workerDb, orgId, (tx) => judgeMailboxProtection(tx, id, 'bounce'))).toBeNull();
  expect((await get(id)).body.status).toBe('active');
  await sentMessages(id, 1);
  expect(await asOrganization(workerDb, orgId, (tx) => judgeMailboxProtection(tx, id, 'complaint'))).toBeNull(); // a complaint is judged on complaints
  expect(await asOrganization(workerDb, orgId, (tx) => judgeMailboxProtection(tx, id, 'bounce'))).toBe('bounce_rate');
  const paused = (await get(id)).body;
  expect(paused).toMatchObject({
    status: 'paused',
    paused_reason: 'bounce_rate',
    stats_7d: { sent: 20, hard_bounces: 5, complaints: 0, bounce_rate: 0.25, complaint_rate: 0 },
  });
  await api.call('POST', `/mailboxes/${id}/resume`, { token: owner.token, body: {} });
  expect(await asOrganization(workerDb, orgId, (tx) => judgeMailboxProtection(tx, id, 'bounce'))).toBe('bounce_rate');
});

test('protection: two bounces recorded at once are judged one after the other (the second counts the first)', async () => {
  const id = (await create({ protection: { minSample: 20, maxBounceRate: 0.03 } })).body.id;
  const ids = await sentMessages(id, 100, { bounced: 2 });
  const bounce = (tx: Parameters<Parameters<typeof asOrganization>[2]>[0], messageId: string) =>
    sql`UPDATE messages SET bounced_at = now() WHERE id = ${messageId}`.execute(tx);
  let releaseFirst!: () => void;
  const firstHolds = new Promise<void>((r) => (releaseFirst = r));
  let firstJudged!: () => void;
  const firstReady = new Promise<void>((r) => (firstJudged = r));
  const first = asOrganization(workerDb, orgId, async (tx) => {
    await bounce(tx, ids[50]!);
    const verdict = await judgeMailboxProtection(tx, id, 'bounce'); // 3 of 100: not above 3 %
    firstJudged();
    await firstHolds; // still holding the mailbox's lock
    return verdict;
  });
  await firstReady;
  const second = asOrganization(workerDb, orgId, async (tx) => {
    await bounce(tx, ids[51]!);
    return judgeMailboxProtection(tx, id, 'bounce'); // waits for the lock, then counts 4 of 100
  });
  await new Promise((r) => setTimeout(r, 300));
  releaseFirst();
  expect(await first).toBeNull();
  expect(await second).toBe('bounce_rate');
  expect((await get(id)).body).toMatchObject({ status: 'paused', paused_reason: 'bounce_rate', stats_7d: { hard_bounces: 4 } });
});

test('protection: complaints over 0.1 % pause (complaint_rate); limits are the mailbox’s own', async () => {
  const id = (await create({ protection: { maxComplaintRate: 0.05 } })).body.id;
  expect((await get(id)).body.protection).toEqual({ maxBounceRate: 0.02, maxComplaintRate: 0.05, maxBlockRate: 0.05, minSample: 20 });
  await sentMessages(id, 40, { complained: 2 });
  expect(await asOrganization(workerDb, orgId, (tx) => judgeMailboxProtection(tx, id, 'complaint'))).toBeNull(); // 5 % is not above 5 %
  await sentMessages(id, 0);
  await owners.query(`UPDATE messages SET complained_at = now() WHERE id = (SELECT id FROM messages WHERE mailbox_id = $1 AND complained_at IS NULL LIMIT 1)`, [
    id,
  ]);
  expect(await asOrganization(workerDb, orgId, (tx) => judgeMailboxProtection(tx, id, 'complaint'))).toBe('complaint_rate');
  expect((await get(id)).body).toMatchObject({
    status: 'paused',
    paused_reason: 'complaint_rate',
    stats_7d: { sent: 40, complaints: 3, complaint_rate: 0.075 },
  });
});

test('health: an unsendable check pauses (health); a passing one resumes a health pause only', async () => {
  const a = (await create()).body.id;
  const b = (await create()).body.id;
  const check = (id: string, sendable: boolean) =>
    asOrganization(workerDb, orgId, (tx) => recordHealthCheck(tx, { id: randomUUID(), organizationId: orgId, mailboxId: id, result: health(sendable) }));
  await check(a, false);
  expect((await get(a)).body).toMatchObject({ status: 'paused', paused_reason: 'health' });
  await check(a, true);
  expect((await get(a)).body).toMatchObject({ status: 'active', paused_reason: null });
  await api.call('POST', `/mailboxes/${b}/pause`, { token: owner.token, body: {} });
  await check(b, false);
  await check(b, true);
  expect((await get(b)).body).toMatchObject({ status: 'paused', paused_reason: 'manual' });
});

test('an OAuth mailbox gets its provider’s servers and logs in as its address; answers never show the token', async () => {
  const g = await create({ smtp: undefined, auth: { type: 'oauth2', provider: 'google' }, secret: 'refresh-token-google-xyz' });
  expect(g.status).toBe(201);
  expect(g.body).toMatchObject({
    auth: { type: 'oauth2', provider: 'google' },
    smtp: { host: 'smtp.gmail.com', port: 465, secure: true, username: g.body.address },
    imap: { host: 'imap.gmail.com', port: 993, secure: true, username: g.body.address },
  });
  const m = await create({ smtp: undefined, auth: { type: 'oauth2', provider: 'microsoft' } });
  expect(m.body).toMatchObject({
    smtp: { host: 'smtp.office365.com', port: 587, secure: false },
    imap: { host: 'outlook.office365.com', port: 993, secure: true },
  });
  const own = await create({ auth: { type: 'oauth2', provider: 'google' }, smtp: { host: 'smtp.relay.example', port: 2525 } });
  expect(own.body.smtp.host).toBe('smtp.relay.example');
  expect(JSON.stringify(g.body)).not.toContain('refresh-token-google-xyz');
});

test('bad input: a 400 naming the field, nothing stored', async () => {
  const id = (await create()).body.id;
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ rampUp: { startCap: 0, dailyIncrease: 1 } }, 'body.rampUp.startCap'],
    [{ rampUp: { startCap: 5, dailyIncrease: 101 } }, 'body.rampUp.dailyIncrease'],
    [{ rampUp: { startCap: 5, dailyIncrease: 1, startsOn: '2027-02-30' } }, 'body.rampUp.startsOn'],
    [{ gapJitterSeconds: 901 }, 'body.gapJitterSeconds'],
    [{ protection: { maxBounceRate: 1.5 } }, 'body.protection.maxBounceRate'],
    [{ protection: { minSample: 0 } }, 'body.protection.minSample'],
  ];
  for (const [body, path] of cases) {
    const res = await api.call('PATCH', `/mailboxes/${id}`, { token: owner.token, body });
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  }
  const badAuth = await create({ auth: { type: 'oauth2', provider: 'yahoo' } });
  expectProblem(badAuth, 400, 'VALIDATION_FAILED');
  expect(badAuth.body.errors[0].path).toMatch(/^body\.auth/);
  const noSmtp = await create({ smtp: undefined });
  expectProblem(noSmtp, 400, 'VALIDATION_FAILED');
  expect(noSmtp.body.errors[0].path).toBe('body.smtp');
  expectProblem(await api.call('POST', `/mailboxes/${id}/pause`, { token: owner.token, body: { reason: '' } }), 400, 'VALIDATION_FAILED');
  expect((await get(id)).body).toMatchObject({ status: 'active', gap_jitter_seconds: 0, ramp_up: null });
});

test('another tenant gets 404 on pause and resume, and nothing changes', async () => {
  const id = (await create()).body.id;
  expectProblem(await api.call('POST', `/mailboxes/${id}/pause`, { token: other.token, body: {} }), 404, 'NOT_FOUND');
  expectProblem(await api.call('POST', `/mailboxes/${id}/resume`, { token: other.token, body: {} }), 404, 'NOT_FOUND');
  expect((await get(id)).body.status).toBe('active');
});

test('contacts and companies take an IANA timezone (canonical in the answer); an unknown one is a 400 naming it', async () => {
  const company = await api.call('POST', '/companies', {
    token: owner.token,
    body: { organizationId: orgId, name: 'Big Apple Inc.', countryCode: 'US', timezone: 'america/new_york' },
  });
  expect(company.status).toBe(201);
  expect(company.body.timezone).toBe('America/New_York');
  const contact = await api.call('POST', '/contacts', {
    token: owner.token,
    body: { organizationId: orgId, companyId: company.body.id, fullName: 'Jane Doe', timezone: 'America/Chicago' },
  });
  expect(contact.status).toBe(201);
  expect(contact.body.timezone).toBe('America/Chicago');
  expect((await api.call('GET', `/contacts/${contact.body.id}`, { token: owner.token })).body.timezone).toBe('America/Chicago');
  const plain = await api.call('POST', '/contacts', { token: owner.token, body: { organizationId: orgId, companyId: company.body.id, fullName: 'No Zone' } });
  expect(plain.body.timezone).toBeNull();
  for (const [path, body] of [
    ['/companies', { organizationId: orgId, name: 'Nowhere B.V.', timezone: 'Mars/Olympus_Mons' }],
    ['/contacts', { organizationId: orgId, companyId: company.body.id, fullName: 'Lost', timezone: 'Europe/Atlantis' }],
  ] as const) {
    const res = await api.call('POST', path, { token: owner.token, body });
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(res.body.errors[0].path).toBe('body.timezone');
  }
});
