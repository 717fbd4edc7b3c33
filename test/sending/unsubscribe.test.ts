import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { UnsubscribeTokens } from '../../domain/outreach/unsubscribe-token';
import { expectProblem, newOrganization, testUnsubscribeTokens } from '../helpers/api';
import { testEnv } from '../helpers/tokens';
import { useStack } from '../helpers/stack';

/**
 * One-click unsubscribe (/u/{token}, no bearer token): GET is a page with a button and changes
 * nothing; POST suppresses the address, skips the contact's pending messages and stops its
 * enrollments, at once and once; a forged or altered token is 404; a token acts within the
 * organization of its message only. Messages, campaigns and enrollments are written as the owner
 * (the sequence workflow that writes them comes later).
 */
const { api } = useStack({ api: true });
let owner: Pool;
let tokens: UnsubscribeTokens;

beforeAll(async () => {
  owner = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 2 });
  tokens = testUnsubscribeTokens();
});
afterAll(async () => {
  await owner?.end();
});

interface Seeded {
  org: string;
  contact: string;
  email: string;
  enrollment: string;
  /** The message that was sent (the token names it) and the contact's other messages by status. */
  sent: string;
  pending: Record<string, string>;
  done: Record<string, string>;
}

const PENDING = ['pending_approval', 'approved', 'scheduled', 'task_open'];
const DONE = ['sent', 'failed', 'rejected', 'task_done'];

async function seed(email: string): Promise<Seeded> {
  const { owner: user, orgId: org } = await newOrganization(api, `Unsubscribe ${randomUUID().slice(0, 6)} B.V.`);
  const company = await api.call('POST', '/companies', { token: user.token, body: { organizationId: org, name: 'Bouw B.V.' } });
  const contact = await api.call('POST', '/contacts', {
    token: user.token,
    body: { organizationId: org, companyId: company.body.id, fullName: 'Jan Jansen', email },
  });
  expect(contact.status).toBe(201);
  const q = async (text: string, values: unknown[]) => (await owner.query<{ id: string }>(text, values)).rows[0]!.id;
  const campaign = await q(`INSERT INTO campaigns (organization_id, name, status) VALUES ($1, 'Warmtepompen', 'active') RETURNING id`, [org]);
  const sequence = await q(`INSERT INTO sequences (organization_id, campaign_id, name) VALUES ($1, $2, 'Warmtepompen') RETURNING id`, [org, campaign]);
  const enrollment = await q(
    `INSERT INTO enrollments (organization_id, campaign_id, sequence_id, contact_id, status) VALUES ($1, $2, $3, $4, 'active') RETURNING id`,
    [org, campaign, sequence, contact.body.id],
  );
  const message = (status: string, channel = 'email') =>
    q(
      `INSERT INTO messages (organization_id, enrollment_id, contact_id, direction, channel, status, subject, body, to_address)
       VALUES ($1, $2, $3, 'outbound', $4, $5, 'Warmtepompen', 'Beste Jan', $6) RETURNING id`,
      [org, enrollment, contact.body.id, channel, status, channel === 'email' ? email : null],
    );
  const sent = await message('sent');
  const pending: Record<string, string> = {};
  for (const s of PENDING) pending[s] = await message(s, s === 'task_open' ? 'phone' : 'email');
  const done: Record<string, string> = {};
  for (const s of DONE) done[s] = await message(s, s === 'task_done' ? 'phone' : 'email');
  return { org, contact: contact.body.id, email, enrollment, sent, pending, done };
}

async function state(s: Seeded) {
  const suppressions = await owner.query(
    `SELECT scope, value, reason, note, created_by FROM suppressions WHERE organization_id = $1 AND scope = 'email' ORDER BY value`,
    [s.org],
  );
  const messages = await owner.query<{ id: string; status: string; updated_at: Date }>(
    `SELECT id, status, updated_at FROM messages WHERE organization_id = $1 ORDER BY id`,
    [s.org],
  );
  const enrollments = await owner.query(`SELECT id, status, stopped_reason, updated_at FROM enrollments WHERE organization_id = $1`, [s.org]);
  return { suppressions: suppressions.rows, messages: messages.rows, enrollments: enrollments.rows };
}

const post = (token: string, body = 'List-Unsubscribe=One-Click') =>
  fetch(`${api.url}/u/${token}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });

test('GET shows a page whose button POSTs, and changes nothing', async () => {
  const s = await seed(`get.${randomUUID().slice(0, 8)}@bouw.nl`);
  const before = await state(s);
  const token = tokens.sign(s.sent);
  const res = await api.call('GET', `/u/${token}`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(res.body).toMatch(/<form method="post">/);
  expect(res.body).toContain('<input type="hidden" name="List-Unsubscribe" value="One-Click">');
  expect(res.body).not.toContain(token); // the form posts to its own URL; the page names nothing
  expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  expect(res.headers.get('cache-control')).toBe('no-store');
  // Link scanners also send HEAD.
  expect((await fetch(`${api.url}/u/${token}`, { method: 'HEAD' })).status).toBe(200);
  expect(await state(s)).toEqual(before);
});

test('POST suppresses the address, skips pending messages, stops the enrollment; a repeat changes nothing more', async () => {
  const s = await seed(`Post.${randomUUID().slice(0, 8)}@Bouw.nl`);
  const before = await state(s);
  const token = tokens.sign(s.sent);

  const res = await post(token);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(await res.text()).toContain('U bent afgemeld');

  const after = await state(s);
  expect(after.suppressions).toEqual([
    { scope: 'email', value: s.email.toLowerCase(), reason: 'unsubscribe', note: `one-click unsubscribe from message ${s.sent}`, created_by: null },
  ]);
  const status = new Map(after.messages.map((m) => [m.id, m.status]));
  for (const id of Object.values(s.pending)) expect(status.get(id)).toBe('skipped');
  for (const [was, id] of Object.entries(s.done)) expect(status.get(id)).toBe(was);
  expect(status.get(s.sent)).toBe('sent');
  expect(after.enrollments).toEqual([expect.objectContaining({ id: s.enrollment, status: 'stopped', stopped_reason: 'unsubscribed' })]);

  // Again (a mail client retrying, a person pressing twice): 200, and not one row changes.
  const again = await post(token);
  expect(again.status).toBe(200);
  expect(await state(s)).toEqual(after);
  expect(before.suppressions).toEqual([]);
});

test('POST with no body (a person pressing the button without the field, curl -X POST) also unsubscribes; a JSON body is 415', async () => {
  const s = await seed(`empty.${randomUUID().slice(0, 8)}@bouw.nl`);
  const token = tokens.sign(s.pending.approved!); // any message of the person names them
  const json = await api.call('POST', `/u/${token}`, { body: { 'List-Unsubscribe': 'One-Click' } });
  expectProblem(json, 415, 'UNSUPPORTED_MEDIA_TYPE');
  expect((await state(s)).suppressions).toEqual([]);
  const res = await api.call('POST', `/u/${token}`);
  expect(res.status).toBe(200);
  expect((await state(s)).suppressions).toHaveLength(1);
});

test('a paused enrollment (out of office) stops too, its pause cleared; an ended one is left as it is', async () => {
  const s = await seed(`paused.${randomUUID().slice(0, 8)}@bouw.nl`);
  const enroll = async (status: string, pause: string | null) => {
    const { rows } = await owner.query<{ id: string }>(
      `WITH c AS (INSERT INTO campaigns (organization_id, name, status) VALUES ($1, $2, 'active') RETURNING id),
            q AS (INSERT INTO sequences (organization_id, campaign_id, name) SELECT $1, id, $2 FROM c RETURNING id, campaign_id)
       INSERT INTO enrollments (organization_id, campaign_id, sequence_id, contact_id, status, pause_reason, resume_at)
       SELECT $1, q.campaign_id, q.id, $3, $4, $5::text, CASE WHEN $5::text IS NULL THEN NULL ELSE now() + interval '3 days' END FROM q RETURNING id`,
      [s.org, `${status} campaign`, s.contact, status, pause],
    );
    return rows[0]!.id;
  };
  // A contact is in one running enrollment at most (migration 0016): the seeded one is the paused one here.
  await owner.query(`UPDATE enrollments SET status = 'paused', pause_reason = 'out_of_office', resume_at = now() + interval '3 days' WHERE id = $1`, [
    s.enrollment,
  ]);
  const paused = s.enrollment;
  const completed = await enroll('completed', null);
  expect((await post(tokens.sign(s.sent))).status).toBe(200);
  const { rows } = await owner.query(`SELECT id, status, stopped_reason, pause_reason, resume_at FROM enrollments WHERE organization_id = $1`, [s.org]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  expect(byId.get(paused)).toEqual({ id: paused, status: 'stopped', stopped_reason: 'unsubscribed', pause_reason: null, resume_at: null });
  expect(byId.get(completed)).toEqual({ id: completed, status: 'completed', stopped_reason: null, pause_reason: null, resume_at: null });
});

test('a forged, altered or unknown token is 404 problem+json and changes nothing', async () => {
  const s = await seed(`forged.${randomUUID().slice(0, 8)}@bouw.nl`);
  const before = await state(s);
  const token = tokens.sign(s.sent);
  const altered = token.slice(0, 20) + (token[20] === 'A' ? 'B' : 'A') + token.slice(21);
  const otherKey = new UnsubscribeTokens(Buffer.alloc(32, 7)).sign(s.sent); // signed with a key this API does not have
  const unknownMessage = tokens.sign(randomUUID()); // genuine, but no such message
  for (const bad of [altered, otherKey, token.slice(0, -1), `${token}A`, 'x', s.sent]) {
    expectProblem(await api.call('GET', `/u/${bad}`), 404, 'NOT_FOUND');
    expectProblem(
      await api.call('POST', `/u/${bad}`, { rawBody: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
      404,
      'NOT_FOUND',
    );
  }
  expectProblem(
    await api.call('POST', `/u/${unknownMessage}`, { rawBody: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
    404,
    'NOT_FOUND',
  );
  expect(await state(s)).toEqual(before);
});

test("tenant isolation: a token acts in its message's organization only, even for the same address elsewhere", async () => {
  const email = `shared.${randomUUID().slice(0, 8)}@bouw.nl`;
  const a = await seed(email);
  const b = await seed(email);
  const beforeB = await state(b);
  expect((await post(tokens.sign(a.sent))).status).toBe(200);
  expect((await state(a)).suppressions).toHaveLength(1);
  expect(await state(b)).toEqual(beforeB);
});

test('only the API role may call app.unsubscribe_message; the workers and PUBLIC may not', async () => {
  const { rows } = await owner.query(`
    SELECT r.rolname AS role, has_function_privilege(r.rolname, 'app.unsubscribe_message(uuid)', 'EXECUTE') AS execute
      FROM pg_roles r WHERE r.rolname IN ('outreach_api', 'outreach_worker', 'outreach_app') ORDER BY 1`);
  expect(rows).toEqual([
    { role: 'outreach_api', execute: true },
    { role: 'outreach_app', execute: false },
    { role: 'outreach_worker', execute: false },
  ]);
  const worker = new Pool({ connectionString: testEnv('TEST_WORKER_DB_URL'), max: 1 });
  try {
    await expect(worker.query('SELECT * FROM app.unsubscribe_message($1)', [randomUUID()])).rejects.toThrow(/permission denied/);
  } finally {
    await worker.end();
  }
});

test('a claimed message (its SMTP conversation under way) is left to its send, and recorded `sent` when the server took it (T5, M3)', async () => {
  const s = await seed(`claimed.${randomUUID().slice(0, 8)}@bouw.nl`);
  // The claim committed: scheduled with send_attempted_at (what claimSend leaves before SMTP).
  await owner.query('UPDATE messages SET send_attempted_at = now() WHERE id = $1', [s.pending.scheduled]);
  expect((await post(tokens.sign(s.sent))).status).toBe(200);
  const after = new Map((await state(s)).messages.map((m) => [m.id, m.status]));
  expect(after.get(s.pending.scheduled!)).toBe('scheduled');
  expect(after.get(s.pending.approved!)).toBe('skipped');
  // The 250 arrives: the send records it (the worker's recordSent, through the owner here: the same SQL guard).
  const { rowCount } = await owner.query(
    `UPDATE messages SET status = 'sent', sent_at = now() WHERE id = $1 AND (status = 'scheduled' OR (status = 'skipped' AND send_attempted_at IS NOT NULL))`,
    [s.pending.scheduled],
  );
  expect(rowCount).toBe(1);
});

test('header injection through unsubscribe_mailto is a 400 naming the field, and nothing changes (S1)', async () => {
  const { owner: user, orgId: org } = await newOrganization(api, `Mailto ${randomUUID().slice(0, 6)} B.V.`);
  const patch = (unsubscribeMailto: string) =>
    api.call('PATCH', '/compliance/settings', { token: user.token, body: { organizationId: org, unsubscribeMailto } });
  expect((await patch('mailto:afmelden@acme.nl?subject=stop')).status).toBe(200);
  for (const bad of [
    'mailto:afmelden@acme.nl?subject=x\r\nBcc: a@evil.example',
    'mailto:afmelden@acme.nl?subject=a b',
    'mailto:afmelden@acme.nl>, <https://evil.example',
  ]) {
    const res = await patch(bad);
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect([...new Set(res.body.errors.map((e: { path: string }) => e.path))]).toEqual(['body.unsubscribeMailto']);
  }
  const row = (await owner.query('SELECT unsubscribe_mailto FROM compliance_settings WHERE organization_id = $1', [org])).rows[0];
  expect(row.unsubscribe_mailto).toBe('mailto:afmelden@acme.nl?subject=stop');
});
