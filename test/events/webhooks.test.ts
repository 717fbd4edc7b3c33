import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { Client, Pool } from 'pg';
import { testEnv } from '../helpers/tokens';
import { API_DB_ROLE } from '../../db/roles';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { allowPrivateDestinations } from '../../activities/providers/destination';
import { addMember, expectProblem, newOrganization, startApi, TestApi, testUnsubscribeTokens } from '../helpers/api';
import { outreachOrg, until } from '../helpers/outreach';
import { startSmtpServer, TestSmtpServer } from '../helpers/smtp-server';
import type { TestUser } from '../helpers/tokens';
import { dsnMail } from '../helpers/hostile-mail';
import { asUser } from '../../db/tenancy';
import { recordSendFailure } from '../../db/queries/sending';

/**
 * Signed webhooks on the real stack: the API in-process, the worker processes of the test
 * stack (their dispatcher wakes webhook-endpoint/<id> on the outbox's NOTIFY and sweeps every 2 s;
 * WEBHOOK_RETRY_SCHEDULE=1,1,1,3600, test/setup/global-setup.ts), and receivers on 127.0.0.1 that
 * verify every delivery with the standardwebhooks package, as a receiver would.
 */
interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  json: { type: string; timestamp: string; organization_id: string; data: Record<string, unknown> };
}

interface Receiver {
  url: string;
  received: Received[];
  /** The status of each next answer, in order; then 200. */
  answers: number[];
  close(): Promise<void>;
}

async function receiver(answers: number[] = []): Promise<Receiver> {
  const received: Received[] = [];
  const state = { answers: [...answers] };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({
        id: String(req.headers['webhook-id']),
        timestamp: String(req.headers['webhook-timestamp']),
        signature: String(req.headers['webhook-signature']),
        body,
        json: JSON.parse(body),
      });
      res.statusCode = state.answers.shift() ?? 200;
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    get answers() {
      return state.answers;
    },
    set answers(v: number[]) {
      state.answers = v;
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** Verifies as a receiver does (throws on a bad signature), answering the parsed body. */
function verify(secret: string, r: Received): unknown {
  return new Webhook(secret).verify(r.body, { 'webhook-id': r.id, 'webhook-timestamp': r.timestamp, 'webhook-signature': r.signature });
}

let api: TestApi;
let smtp: TestSmtpServer;
const receivers: Receiver[] = [];
beforeAll(async () => {
  api = await startApi();
  smtp = await startSmtpServer();
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await smtp?.close();
  await api?.close();
});

async function tenant() {
  const { owner, orgId } = await newOrganization(api, `Hooks ${randomUUID().slice(0, 6)} B.V.`);
  const call = (method: string, path: string, body?: unknown, token: string = owner.token) => api.call(method, path, { token, body });
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await call(method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  return { owner, orgId, call, ok };
}

async function endpoint(t: Awaited<ReturnType<typeof tenant>>, answers: number[] = [], events: string[] = ['*']) {
  const rx = await receiver(answers);
  receivers.push(rx);
  const created = await t.ok('POST', '/webhook-endpoints', { organizationId: t.orgId, url: rx.url, events, description: 'test receiver' });
  return { rx, id: created.id as string, secret: created.secret as string, created };
}

test('an endpoint is created with its secret once; a change made through the API reaches it signed, verified with standardwebhooks', async () => {
  const t = await tenant();
  const { rx, id, secret, created } = await endpoint(t, [], ['suppression.created', 'opportunity.created']);
  expect(created).toMatchObject({ organization_id: t.orgId, url: rx.url, events: ['suppression.created', 'opportunity.created'], enabled: true });
  expect(secret).toMatch(/^whsec_/);
  const read = await t.ok('GET', `/webhook-endpoints/${id}`);
  expect(read.secret).toBeUndefined();
  expect((await t.ok('GET', `/webhook-endpoints?organizationId=${t.orgId}`)).map((e: { id: string }) => e.id)).toEqual([id]);

  const suppression = await t.ok('POST', '/compliance/suppressions', {
    organizationId: t.orgId,
    scope: 'email',
    value: 'nee@voorbeeld.nl',
    reason: 'objection',
  });
  const opportunity = await t.ok('POST', '/opportunities', { organizationId: t.orgId, summary: 'Renovatie 12 woningen' });
  await until('both events delivered', async () => rx.received.length >= 2 && rx.received, 30_000);
  const byType = Object.fromEntries(rx.received.map((r) => [r.json.type, r]));
  expect(verify(secret, byType['suppression.created']!)).toMatchObject({
    type: 'suppression.created',
    organization_id: t.orgId,
    data: { id: suppression.id, value: 'nee@voorbeeld.nl' },
  });
  // data is the record as the API answers it.
  expect(verify(secret, byType['opportunity.created']!)).toMatchObject({
    type: 'opportunity.created',
    data: await t.ok('GET', `/opportunities/${opportunity.id}`),
  });
  expect(() => verify(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, byType['opportunity.created']!)).toThrow();

  const deliveries = await t.ok('GET', `/webhook-endpoints/${id}/deliveries`);
  expect(deliveries).toHaveLength(2);
  expect(deliveries[0]).toMatchObject({ status: 'delivered', attempts: 1, last_status_code: 200, next_attempt_at: null });

  // An event type the endpoint did not subscribe to is not sent.
  await t.ok('POST', `/webhook-endpoints/${id}/test`, {});
  const other = await endpoint(t, [], ['webhook.test']);
  await t.ok('POST', `/webhook-endpoints/${other.id}/test`, {});
  await until('the test event', async () => other.rx.received.length === 1);
  expect(verify(other.secret, other.rx.received[0]!)).toMatchObject({ type: 'webhook.test', data: { endpoint_id: other.id } });
});

test('an endpoint with nothing left to deliver waits for its next wake: its run does not ask again and again', async () => {
  const t = await tenant();
  const { rx, id } = await endpoint(t, [], ['webhook.test']);
  await t.ok('POST', `/webhook-endpoints/${id}/test`, {});
  await until('the test event', async () => rx.received.length === 1);
  const handle = api.temporal.workflow.getHandle(`webhook-endpoint/${id}`);
  const rounds = async () => {
    const { events } = await handle.fetchHistory();
    return (events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'deliverDueWebhooks').length;
  };
  await until('the delivery recorded', async () => (await t.ok('GET', `/webhook-endpoints/${id}/deliveries`))[0]?.status === 'delivered');
  const { runId } = await handle.describe();
  const before = await rounds();
  await new Promise((r) => setTimeout(r, 3000));
  // Nothing is pending, so the run sleeps until a wake (the sweep wakes only endpoints with a delivery due),
  // in the same run: a run that went on as new would start its count again.
  expect(await rounds()).toBeLessThanOrEqual(before + 1);
  expect(await handle.describe()).toMatchObject({ runId, status: { name: 'RUNNING' } });
});

test('a receiver that answers 500 three times and then 200 gets the event on the fourth attempt with the same webhook-id', async () => {
  const t = await tenant();
  const { rx, id, secret } = await endpoint(t, [500, 500, 500]);
  const sent = await t.ok('POST', `/webhook-endpoints/${id}/test`, {});
  await until('four attempts', async () => rx.received.length >= 4, 60_000);
  expect(rx.received).toHaveLength(4);
  expect(new Set(rx.received.map((r) => r.id))).toEqual(new Set([sent.event_id]));
  for (const r of rx.received) expect(verify(secret, r)).toMatchObject({ type: 'webhook.test' });
  const [delivery] = await until('delivered', async () => {
    const d = await t.ok('GET', `/webhook-endpoints/${id}/deliveries`);
    return d[0]?.status === 'delivered' && d;
  });
  expect(delivery).toMatchObject({ event_id: sent.event_id, event_type: 'webhook.test', status: 'delivered', attempts: 4, last_status_code: 200 });
});

test('a receiver that is down stays pending with next_attempt_at in the future; another endpoint is not held up; a retry by hand sends again', async () => {
  const t = await tenant();
  const down = await endpoint(t, Array(100).fill(503));
  const up = await endpoint(t);
  await t.ok('POST', '/compliance/suppressions', { organizationId: t.orgId, scope: 'email', value: 'down@voorbeeld.nl', reason: 'objection' });
  await until('the healthy endpoint got it', async () => up.rx.received.length === 1);
  const [pending] = await until(
    'four failed attempts',
    async () => {
      const d = await t.ok('GET', `/webhook-endpoints/${down.id}/deliveries`);
      return d[0]?.attempts === 4 && d;
    },
    60_000,
  );
  expect(pending).toMatchObject({ status: 'pending', attempts: 4, last_status_code: 503, last_error: expect.stringContaining('HTTP 503') });
  expect(new Date(pending.next_attempt_at).getTime()).toBeGreaterThan(Date.now() + 30 * 60_000);
  expect((await t.ok('GET', `/webhook-endpoints/${down.id}/deliveries?status=pending`)).map((d: { id: string }) => d.id)).toEqual([pending.id]);

  // The receiver is back: a retry by hand delivers now.
  down.rx.answers = [];
  const retried = await t.ok('POST', `/webhook-deliveries/${pending.id}/retry`, {});
  expect(retried).toMatchObject({ id: pending.id, status: 'pending', attempts: 0 });
  await until('delivered after the retry', async () => (await t.ok('GET', `/webhook-endpoints/${down.id}/deliveries`))[0]?.status === 'delivered');
});

test('410 Gone disables the endpoint', async () => {
  const t = await tenant();
  const { id } = await endpoint(t, [410]);
  await t.ok('POST', `/webhook-endpoints/${id}/test`, {});
  await until('disabled', async () => (await t.ok('GET', `/webhook-endpoints/${id}`)).enabled === false);
  expect((await t.ok('GET', `/webhook-endpoints/${id}/deliveries`))[0]).toMatchObject({ status: 'failed', last_status_code: 410 });
});

test('a rotated secret: the new one is answered once, and for the overlap both sign', async () => {
  const t = await tenant();
  const { rx, id, secret: old } = await endpoint(t);
  const rotated = await t.ok('POST', `/webhook-endpoints/${id}/rotate-secret`, {});
  expect(rotated.secret).toMatch(/^whsec_/);
  expect(rotated.secret).not.toBe(old);
  await t.ok('POST', `/webhook-endpoints/${id}/test`, {});
  await until('delivered', async () => rx.received.length === 1);
  const r = rx.received[0]!;
  expect(r.signature.split(' ')).toHaveLength(2);
  expect(verify(rotated.secret, r)).toMatchObject({ type: 'webhook.test' });
  expect(verify(old, r)).toMatchObject({ type: 'webhook.test' });
});

test('two rotations at once take turns: each caller is answered a secret that signs the next delivery', async () => {
  const t = await tenant();
  const { rx, id } = await endpoint(t);
  // Hold the endpoint's row so both rotations are in flight together, then let them go.
  const holder = new Client({ connectionString: testEnv('TEST_OWNER_DB_URL') });
  await holder.connect();
  try {
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM webhook_endpoints WHERE id = $1 FOR UPDATE', [id]);
    const rotations = [0, 1].map(() => t.ok('POST', `/webhook-endpoints/${id}/rotate-secret`, {}));
    await until('both rotations wait on the row', async () => {
      // The API's sessions of this database that wait on another's lock (the holder's, or the first rotation's);
      // the activity view is read afresh, not from the snapshot the holder's transaction took at its first read.
      await holder.query('SELECT pg_stat_clear_snapshot()');
      const waiting = await holder.query(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = $1 AND datname = current_database() AND cardinality(pg_blocking_pids(pid)) > 0',
        [API_DB_ROLE],
      );
      return waiting.rows[0].n === 2;
    });
    await holder.query('COMMIT');
    const [first, second] = await Promise.all(rotations);
    expect(first.secret).not.toBe(second.secret);
    await t.ok('POST', `/webhook-endpoints/${id}/test`, {});
    await until('delivered', async () => rx.received.length === 1);
    const r = rx.received[0]!;
    expect(verify(first.secret, r)).toMatchObject({ type: 'webhook.test' });
    expect(verify(second.secret, r)).toMatchObject({ type: 'webhook.test' });
  } finally {
    await holder.end();
  }
});

test('a private-network url is refused unless private networks are allowed; bad input is a 400 naming the field', async () => {
  const t = await tenant();
  allowPrivateDestinations(false);
  try {
    const refused = await t.call('POST', '/webhook-endpoints', { organizationId: t.orgId, url: 'http://127.0.0.1:9/hooks', events: ['*'] });
    expectProblem(refused, 400, 'VALIDATION_FAILED');
    expect(refused.body.errors).toEqual([expect.objectContaining({ path: 'body.url', message: expect.stringContaining('private') })]);
    const metadata = await t.call('POST', '/webhook-endpoints', { organizationId: t.orgId, url: 'http://169.254.169.254/latest', events: ['*'] });
    expectProblem(metadata, 400, 'VALIDATION_FAILED');
  } finally {
    allowPrivateDestinations(true);
  }
  expect((await t.call('POST', '/webhook-endpoints', { organizationId: t.orgId, url: 'http://127.0.0.1:9/hooks', events: ['*'] })).status).toBe(201);
  const badEvent = await t.call('POST', '/webhook-endpoints', { organizationId: t.orgId, url: 'https://example.com/h', events: ['message.opened'] });
  expectProblem(badEvent, 400, 'VALIDATION_FAILED');
  expect(badEvent.body.errors[0].path).toBe('body.events.0');
  expectProblem(await t.call('POST', '/webhook-endpoints', { organizationId: t.orgId, url: 'ftp://example.com/h', events: ['*'] }), 400, 'VALIDATION_FAILED');
});

test('the url check tells nobody what a name resolves to: an outsider gets 404 before it runs, an admin one answer for private and unresolvable names', async () => {
  const a = await tenant();
  const b = await tenant();
  const { id } = await endpoint(a);
  allowPrivateDestinations(false);
  try {
    // localhost resolves to 127.0.0.1 on every machine: a private address the answer must not name.
    const outsider = await b.call('POST', '/webhook-endpoints', { organizationId: a.orgId, url: 'http://localhost:9/hooks', events: ['*'] });
    expectProblem(outsider, 404, 'NOT_FOUND');
    expect(JSON.stringify(outsider.body)).not.toMatch(/127\.0\.0\.1|::1|private/);
    const outsiderPatch = await b.call('PATCH', `/webhook-endpoints/${id}`, { url: 'http://localhost:9/hooks' });
    expectProblem(outsiderPatch, 404, 'NOT_FOUND');
    expect(JSON.stringify(outsiderPatch.body)).not.toMatch(/127\.0\.0\.1|::1|private/);

    const privateName = await a.call('POST', '/webhook-endpoints', { organizationId: a.orgId, url: 'http://localhost:9/hooks', events: ['*'] });
    const unresolvable = await a.call('POST', '/webhook-endpoints', { organizationId: a.orgId, url: 'http://no-such-host.invalid/hooks', events: ['*'] });
    expectProblem(privateName, 400, 'VALIDATION_FAILED');
    expectProblem(unresolvable, 400, 'VALIDATION_FAILED');
    expect(JSON.stringify(privateName.body)).not.toMatch(/127\.0\.0\.1|::1/);
    expect(privateName.body.errors).toEqual(unresolvable.body.errors);
  } finally {
    allowPrivateDestinations(true);
  }
});

test('another tenant gets 404 on every webhook operation; a member gets 403', async () => {
  const a = await tenant();
  const b = await tenant();
  const { id } = await endpoint(a);
  await a.ok('POST', `/webhook-endpoints/${id}/test`, {});
  const [delivery] = await until('a delivery', async () => {
    const d = await a.ok('GET', `/webhook-endpoints/${id}/deliveries`);
    return d.length && d;
  });
  const other: TestUser = b.owner;
  for (const [method, path, body] of [
    ['GET', `/webhook-endpoints/${id}`],
    ['PATCH', `/webhook-endpoints/${id}`, { enabled: false }],
    ['DELETE', `/webhook-endpoints/${id}`],
    ['POST', `/webhook-endpoints/${id}/rotate-secret`, {}],
    ['POST', `/webhook-endpoints/${id}/test`, {}],
    ['GET', `/webhook-endpoints/${id}/deliveries`],
    ['POST', `/webhook-deliveries/${delivery.id}/retry`, {}],
    ['GET', `/webhook-endpoints?organizationId=${a.orgId}`],
    ['POST', '/webhook-endpoints', { organizationId: a.orgId, url: 'https://example.com/h', events: ['*'] }],
  ] as Array<[string, string, unknown?]>) {
    expectProblem(await api.call(method, path, { token: other.token, body }), 404, 'NOT_FOUND');
  }
  expect((await a.ok('GET', `/webhook-endpoints/${id}`)).enabled).toBe(true);
  // Owners and admins manage endpoints: a member of the organization is 403.
  const member = await addMember(api, a.owner, a.orgId, 'member');
  expectProblem(await api.call('GET', `/webhook-endpoints/${id}`, { token: member.token }), 403, 'FORBIDDEN');
  expectProblem(
    await api.call('POST', '/webhook-endpoints', { token: member.token, body: { organizationId: a.orgId, url: 'https://example.com/h', events: ['*'] } }),
    403,
    'FORBIDDEN',
  );
  const removed = await a.call('DELETE', `/webhook-endpoints/${id}`);
  expect(removed.status).toBe(204);
  expectProblem(await a.call('GET', `/webhook-endpoints/${id}`), 404, 'NOT_FOUND');
});

test('the outreach flow reports itself: a draft pending approval, the e-mail sent, the reply with its intent, the meeting booked', async () => {
  const o = await outreachOrg(api, newOrganization, smtp);
  const rx = await receiver();
  receivers.push(rx);
  const { secret } = await o.ok('POST', '/webhook-endpoints', {
    organizationId: o.orgId,
    url: rx.url,
    events: ['message.pending_approval', 'message.sent', 'reply.received', 'meeting.booked', 'enrollment.stopped'],
  });
  const events = (type: string) => rx.received.filter((r) => r.json.type === type).map((r) => verify(secret, r) as Received['json']);
  const person = await o.contact();
  const campaign = await o.ok('POST', '/campaigns', {
    organizationId: o.orgId,
    name: 'Warmtepompen',
    contactIds: [person.id],
    mailboxId: o.mailboxId,
    steps: [{ channel: 'email', delayDays: 0 }],
  });
  const accepted = await o.ok('POST', `/campaigns/${campaign.id}/accept`, {});
  const enrollmentId = accepted.result.enrolled[0].enrollmentId;

  const [pending] = await until(
    'message.pending_approval',
    async () => (events('message.pending_approval').length ? events('message.pending_approval') : undefined),
    60_000,
  );
  const draftId = pending!.data.id as string;
  expect(pending!.data).toMatchObject({ status: 'pending_approval', enrollment_id: enrollmentId, direction: 'outbound' });
  await o.ok('POST', `/messages/${draftId}/approve`, {});
  const [sent] = await until('message.sent', async () => (events('message.sent').length ? events('message.sent') : undefined), 60_000);
  expect(sent!.data).toMatchObject({ id: draftId, status: 'sent', provider_message_id: expect.any(String) });

  const reply = [
    `From: ${person.email}`,
    `To: ${sent!.data.from_address}`,
    'Subject: Re: Warmtepompen',
    `Message-ID: <reply-${randomUUID()}@bouw.example>`,
    `In-Reply-To: ${sent!.data.provider_message_id}`,
    `References: ${sent!.data.provider_message_id}`,
    'Date: ' + new Date().toUTCString(),
    'Content-Type: text/plain; charset=utf-8',
    '',
    'Goedemiddag, dit klinkt interessant. Kunnen we volgende week een afspraak maken om het te bespreken?',
    '',
  ].join('\r\n');
  const pushed = await api.call('POST', `/mailboxes/${o.mailboxId}/inbound`, {
    token: o.owner.token,
    rawBody: reply,
    headers: { 'content-type': 'message/rfc822' },
  });
  expect(pushed.status).toBe(202);
  const [replied] = await until('reply.received', async () => (events('reply.received').length ? events('reply.received') : undefined), 30_000);
  expect(replied!.data).toMatchObject({ direction: 'inbound', contact_id: person.id, intent: expect.any(String) });
  expect(replied!.data.intent).not.toBeNull();

  const meeting = await o.ok('POST', '/meetings', {
    organizationId: o.orgId,
    title: 'Kennismaking',
    contactId: person.id,
    startsAt: new Date(Date.now() + 7 * 86400_000).toISOString(),
    endsAt: new Date(Date.now() + 7 * 86400_000 + 1800_000).toISOString(),
  });
  const [booked] = await until('meeting.booked', async () => (events('meeting.booked').length ? events('meeting.booked') : undefined), 30_000);
  expect(booked!.data).toMatchObject({ id: meeting.id, contact_id: person.id });
  expect(booked!.organization_id).toBe(o.orgId);
}, 180_000);

test('the outbox: a process killed right after its change commits still has the event delivered; a lost wake is found by the sweep', async () => {
  const t = await tenant();
  const { rx, id, secret } = await endpoint(t, [], ['suppression.created']);
  const value = `killed-${randomUUID().slice(0, 8)}@voorbeeld.nl`;
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, '../helpers/outbox-writer.ts'), t.orgId, value], {
    env: process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (b: Buffer) => {
      output += b.toString();
      if (output.includes('committed')) {
        child.kill('SIGKILL');
        resolve();
      }
    });
    child.stderr!.on('data', (b: Buffer) => (output += b.toString()));
    child.once('exit', (code) => (output.includes('committed') ? resolve() : reject(new Error(`the writer exited (${code}): ${output}`))));
  });
  await until('delivered after the writer was killed', async () => rx.received.length === 1, 30_000);
  expect(verify(secret, rx.received[0]!)).toMatchObject({ type: 'suppression.created', data: { value } });

  // A wake that never came (written without NOTIFY, as if the dispatcher was down at the commit): the sweep delivers it.
  const owners = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 1 });
  try {
    const event = await owners.query<{ id: string }>(
      `INSERT INTO webhook_events (organization_id, type, payload) VALUES ($1, 'suppression.created', $2) RETURNING id`,
      [t.orgId, JSON.stringify({ type: 'suppression.created', timestamp: new Date().toISOString(), organization_id: t.orgId, data: { lost: true } })],
    );
    await owners.query('INSERT INTO webhook_deliveries (organization_id, endpoint_id, event_id) VALUES ($1, $2, $3)', [t.orgId, id, event.rows[0]!.id]);
    await until('the sweep delivered the unwoken event', async () => rx.received.length === 2, 30_000);
    expect(rx.received[1]!.id).toBe(event.rows[0]!.id);
    expect(verify(secret, rx.received[1]!)).toMatchObject({ data: { lost: true } });
  } finally {
    await owners.end();
  }
});

test('a one-click unsubscribe (no caller, app.unsubscribe_message) reports suppression.created and enrollment.stopped, written by the same transaction', async () => {
  const t = await tenant();
  const { rx, secret } = await endpoint(t, [], ['suppression.created', 'enrollment.stopped']);
  const email = `afmelden.${randomUUID().slice(0, 8)}@bouw.nl`;
  const company = await t.ok('POST', '/companies', { organizationId: t.orgId, name: 'Bouw B.V.' });
  const contact = await t.ok('POST', '/contacts', { organizationId: t.orgId, companyId: company.id, fullName: 'Jan Jansen', email });
  // The sent e-mail the link is in, with its campaign and enrollment (written as the owner, as test/sending/unsubscribe.test.ts does).
  const owners = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 1 });
  let enrollment: string;
  let sent: string;
  try {
    const q = async (text: string, values: unknown[]) => (await owners.query<{ id: string }>(text, values)).rows[0]!.id;
    const campaign = await q(`INSERT INTO campaigns (organization_id, name, status) VALUES ($1, 'Warmtepompen', 'active') RETURNING id`, [t.orgId]);
    const sequence = await q(`INSERT INTO sequences (organization_id, campaign_id, name) VALUES ($1, $2, 'Warmtepompen') RETURNING id`, [t.orgId, campaign]);
    enrollment = await q(
      `INSERT INTO enrollments (organization_id, campaign_id, sequence_id, contact_id, status, next_action_at) VALUES ($1, $2, $3, $4, 'active', now() + interval '2 days') RETURNING id`,
      [t.orgId, campaign, sequence, contact.id],
    );
    sent = await q(
      `INSERT INTO messages (organization_id, enrollment_id, contact_id, direction, channel, status, subject, body, to_address)
       VALUES ($1, $2, $3, 'outbound', 'email', 'sent', 'Warmtepompen', 'Beste Jan', $4) RETURNING id`,
      [t.orgId, enrollment, contact.id, email],
    );
  } finally {
    await owners.end();
  }
  const unsubscribe = () =>
    fetch(`${api.url}/u/${testUnsubscribeTokens().sign(sent)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
  expect((await unsubscribe()).status).toBe(200);

  await until('both events delivered', async () => rx.received.length >= 2, 30_000);
  const byType = Object.fromEntries(rx.received.map((r) => [r.json.type, verify(secret, r) as Received['json']]));
  // data is the record as the API answers it, timestamps included.
  const [suppression] = (await t.ok('GET', `/compliance/suppressions?organizationId=${t.orgId}`)) as Array<Record<string, unknown>>;
  expect(suppression).toMatchObject({ value: email, reason: 'unsubscribe', created_by: null });
  expect(byType['suppression.created']).toMatchObject({ type: 'suppression.created', organization_id: t.orgId });
  expect(byType['suppression.created']!.data).toEqual(suppression);
  const stopped = await t.ok('GET', `/enrollments/${enrollment}`);
  expect(stopped).toMatchObject({ status: 'stopped', stopped_reason: 'unsubscribed', next_action_at: null });
  expect(byType['enrollment.stopped']).toMatchObject({ type: 'enrollment.stopped', organization_id: t.orgId });
  expect(byType['enrollment.stopped']!.data).toEqual(stopped);
  expect(new Date(byType['enrollment.stopped']!.timestamp).toISOString()).toBe(byType['enrollment.stopped']!.timestamp);

  // A repeat changes nothing, so it reports nothing.
  expect((await unsubscribe()).status).toBe(200);
  await new Promise((r) => setTimeout(r, 3000));
  expect(rx.received).toHaveLength(2);
});

test('the rest of the contract: campaign.proposed, enrollment.paused (a colleague replied), message.failed (a bounce after the send), meeting.updated', async () => {
  const o = await outreachOrg(api, newOrganization, smtp);
  const rx = await receiver();
  receivers.push(rx);
  const { secret } = await o.ok('POST', '/webhook-endpoints', {
    organizationId: o.orgId,
    url: rx.url,
    events: ['campaign.proposed', 'message.pending_approval', 'message.sent', 'message.failed', 'enrollment.paused', 'meeting.updated'],
  });
  const events = (type: string) => rx.received.filter((r) => r.json.type === type).map((r) => verify(secret, r) as Received['json']);
  const first = (type: string, where: (e: Received['json']) => boolean = () => true) => until(type, async () => events(type).find(where), 60_000);
  const replier = await o.contact();
  const colleague = await o.contact({ fullName: 'Sanne de Vries' });

  const campaign = await o.ok('POST', '/campaigns', {
    organizationId: o.orgId,
    name: 'Zonnepanelen',
    contactIds: [replier.id, colleague.id],
    mailboxId: o.mailboxId,
    steps: [{ channel: 'email', delayDays: 0 }],
  });
  const proposed = await first('campaign.proposed');
  expect(proposed).toMatchObject({ type: 'campaign.proposed', organization_id: o.orgId });
  expect(proposed.data).toEqual(await o.ok('GET', `/campaigns/${campaign.id}`));

  const accepted = await o.ok('POST', `/campaigns/${campaign.id}/accept`, {});
  const enrollmentOf = (contactId: string) => accepted.result.enrolled.find((e: { contactId: string }) => e.contactId === contactId).enrollmentId as string;
  const draft = await first('message.pending_approval', (e) => e.data.contact_id === replier.id);
  await o.ok('POST', `/messages/${draft.data.id}/approve`, {});
  const sent = await first('message.sent', (e) => e.data.id === draft.data.id);

  // The replier answers: the colleague's running enrollment pauses (account_replied).
  const reply = [
    `From: ${replier.email}`,
    `To: ${sent.data.from_address}`,
    'Subject: Re: Zonnepanelen',
    `Message-ID: <reply-${randomUUID()}@bouw.example>`,
    `In-Reply-To: ${sent.data.provider_message_id}`,
    `References: ${sent.data.provider_message_id}`,
    'Date: ' + new Date().toUTCString(),
    'Content-Type: text/plain; charset=utf-8',
    '',
    'Goedemiddag, dit klinkt interessant. Kunnen we volgende week een afspraak maken?',
    '',
  ].join('\r\n');
  const push = (raw: string | Buffer) =>
    api.call('POST', `/mailboxes/${o.mailboxId}/inbound`, { token: o.owner.token, rawBody: String(raw), headers: { 'content-type': 'message/rfc822' } });
  expect((await push(reply)).status).toBe(202);
  const paused = await first('enrollment.paused');
  expect(paused.data).toMatchObject({ id: enrollmentOf(colleague.id), status: 'paused', pause_reason: 'account_replied' });
  expect(paused.data).toEqual(await o.ok('GET', `/enrollments/${enrollmentOf(colleague.id)}`));

  // A delivery report after the send: the sent e-mail has failed after all.
  expect((await push(dsnMail({ originalMessageId: String(sent.data.provider_message_id), finalRecipient: replier.email }))).status).toBe(202);
  const failed = await first('message.failed');
  expect(failed.data).toMatchObject({ id: draft.data.id, status: 'failed' });
  expect(failed.data).toEqual(await o.ok('GET', `/messages/${draft.data.id}`));

  const meeting = await o.ok('POST', '/meetings', {
    organizationId: o.orgId,
    title: 'Kennismaking',
    contactId: replier.id,
    startsAt: new Date(Date.now() + 7 * 86400_000).toISOString(),
    endsAt: new Date(Date.now() + 7 * 86400_000 + 1800_000).toISOString(),
  });
  await o.ok('POST', `/meetings/${meeting.id}/status`, { status: 'cancelled' });
  const updated = await first('meeting.updated');
  expect(updated.data).toMatchObject({ id: meeting.id, status: 'cancelled' });
}, 180_000);

/** An outreach organization (test/helpers/outreach.ts) with one endpoint for `events`, and its verified deliveries by type. */
async function hookedOutreach(events: string[]) {
  const o = await outreachOrg(api, newOrganization, smtp);
  const rx = await receiver();
  receivers.push(rx);
  const endpoint = await o.ok('POST', '/webhook-endpoints', { organizationId: o.orgId, url: rx.url, events });
  const received = (type: string) => rx.received.filter((r) => r.json.type === type).map((r) => verify(endpoint.secret, r) as Received['json']);
  const first = (type: string, where: (e: Received['json']) => boolean = () => true) => until(type, async () => received(type).find(where), 60_000);
  /** The endpoint's deliveries of `type` in the outbox (the database's truth: what was written, delivered yet or not). */
  const written = async (type: string) =>
    ((await o.ok('GET', `/webhook-endpoints/${endpoint.id}/deliveries`)) as Array<{ event_type: string }>).filter((d) => d.event_type === type);
  const push = (raw: string | Buffer) =>
    api.call('POST', `/mailboxes/${o.mailboxId}/inbound`, { token: o.owner.token, rawBody: String(raw), headers: { 'content-type': 'message/rfc822' } });
  return { o, rx, received, first, written, push };
}

test('message.failed from a delivery report (db/queries/inbound-actions.ts): the bounced e-mail is reported once as GET /messages answers it; a repeat, or a report naming no e-mail we sent, reports nothing', async () => {
  const h = await hookedOutreach(['message.pending_approval', 'message.sent', 'message.failed']);
  const { o } = h;
  const person = await o.contact();
  const campaign = await o.ok('POST', '/campaigns', {
    organizationId: o.orgId,
    name: 'Isolatie',
    contactIds: [person.id],
    mailboxId: o.mailboxId,
    steps: [{ channel: 'email', delayDays: 0 }],
  });
  await o.ok('POST', `/campaigns/${campaign.id}/accept`, {});
  const draft = await h.first('message.pending_approval');
  await o.ok('POST', `/messages/${draft.data.id}/approve`, {});
  const sent = await h.first('message.sent', (e) => e.data.id === draft.data.id);

  // A report naming no e-mail we sent is recorded only (each push's 202 answers after its transaction committed).
  expect((await h.push(dsnMail({ originalMessageId: `<never-sent-${randomUUID()}@good-mail.nl>`, finalRecipient: person.email }))).status).toBe(202);
  expect((await o.ok('GET', `/messages/${draft.data.id}`)).status).toBe('sent');
  expect(await h.written('message.failed')).toEqual([]);

  expect((await h.push(dsnMail({ originalMessageId: String(sent.data.provider_message_id), finalRecipient: person.email }))).status).toBe(202);
  const failed = await h.first('message.failed');
  const message = await o.ok('GET', `/messages/${draft.data.id}`);
  expect(message).toMatchObject({ id: draft.data.id, status: 'failed', error: expect.stringContaining('5.1.1') });
  expect(failed).toMatchObject({ type: 'message.failed', organization_id: o.orgId });
  expect(failed.data).toEqual(message);

  // The same report again (another Message-ID, so not a duplicate): the e-mail had failed already, nothing more is written.
  expect((await h.push(dsnMail({ originalMessageId: String(sent.data.provider_message_id), finalRecipient: person.email }))).status).toBe(202);
  expect(await h.written('message.failed')).toHaveLength(1);
}, 120_000);

test('suppression.created from an erasure (DELETE /contacts/{id}, db/queries/compliance/erasure.ts): one event per hashed marker, as GET /compliance/suppressions answers it; a marker that exists already, or erasing again, reports nothing', async () => {
  const t = await tenant();
  const { rx, id, secret } = await endpoint(t, [], ['suppression.created']);
  const company = await t.ok('POST', '/companies', { organizationId: t.orgId, name: 'Bouw B.V.' });
  const contact = await t.ok('POST', '/contacts', {
    organizationId: t.orgId,
    companyId: company.id,
    fullName: 'Jan Jansen',
    email: `wissen.${randomUUID().slice(0, 8)}@bouw.nl`,
  });
  expect(await t.ok('DELETE', `/contacts/${contact.id}`)).toMatchObject({ id: contact.id, full_name: 'erased', email: null, erased_at: expect.any(String) });

  await until('both markers delivered', async () => rx.received.length >= 2, 30_000);
  const byId = (a: Record<string, unknown>, b: Record<string, unknown>) => String(a.id).localeCompare(String(b.id));
  const markers = ((await t.ok('GET', `/compliance/suppressions?organizationId=${t.orgId}`)) as Array<Record<string, unknown>>).sort(byId);
  expect(markers.map((m) => [m.scope, m.reason]).sort()).toEqual([
    ['email_hash', 'erasure'],
    ['person_hash', 'erasure'],
  ]);
  const reported = rx.received.map((r) => verify(secret, r) as Received['json']);
  for (const e of reported) expect(e).toMatchObject({ type: 'suppression.created', organization_id: t.orgId });
  expect(reported.map((e) => e.data).sort(byId)).toEqual(markers);

  // Erasing again changes nothing. A namesake at the same company has the person marker already: only the address marker is new.
  expect((await t.call('DELETE', `/contacts/${contact.id}`)).status).toBe(200);
  expect(await t.ok('GET', `/webhook-endpoints/${id}/deliveries`)).toHaveLength(2);
  const namesake = await t.ok('POST', '/contacts', {
    organizationId: t.orgId,
    companyId: company.id,
    fullName: 'Jan Jansen',
    email: `ander.${randomUUID().slice(0, 8)}@bouw.nl`,
  });
  await t.ok('DELETE', `/contacts/${namesake.id}`);
  expect(await t.ok('GET', `/webhook-endpoints/${id}/deliveries`)).toHaveLength(3);
  const known = new Set(markers.map((m) => m.id));
  const [added] = ((await t.ok('GET', `/compliance/suppressions?organizationId=${t.orgId}`)) as Array<Record<string, unknown>>).filter((m) => !known.has(m.id));
  expect(added).toMatchObject({ scope: 'email_hash', reason: 'erasure' });
  // Found by its id, not its place: a delivery retried by the sweep would arrive twice with the same webhook-id.
  const third = await until(
    'the third event',
    async () => rx.received.map((r) => verify(secret, r) as Received['json']).find((e) => e.data.id === added!.id),
    30_000,
  );
  expect(third.data).toEqual(added);
});

test('message.pending_approval for a meeting reminder (db/queries/meetings.ts createMeetingReminder): a meeting inside its lead time gets the reminder draft at once, reported as GET /messages answers it', async () => {
  const t = await tenant();
  const { rx, secret } = await endpoint(t, [], ['message.pending_approval']);
  const company = await t.ok('POST', '/companies', { organizationId: t.orgId, name: 'Bouwbedrijf Jansen B.V.', countryCode: 'NL' });
  const email = `jan.${randomUUID().slice(0, 8)}@jansen-bouw.nl`;
  const contact = await t.ok('POST', '/contacts', { organizationId: t.orgId, companyId: company.id, fullName: 'Jan Jansen', email });
  // Two hours from now, with the default lead time of 24 hours: the meeting's run makes the reminder at once.
  const startsAt = new Date(Date.now() + 2 * 3600_000).toISOString();
  const meeting = await t.ok('POST', '/meetings', {
    organizationId: t.orgId,
    title: 'Kennismaking',
    contactId: contact.id,
    startsAt,
    endsAt: new Date(Date.now() + 2.5 * 3600_000).toISOString(),
  });

  await until('the reminder draft reported', async () => rx.received.length >= 1, 30_000);
  const reminded = await until('the meeting reminded', async () => {
    const m = await t.ok('GET', `/meetings/${meeting.id}`);
    return m.reminder_message_id && m;
  });
  const event = verify(secret, rx.received[0]!) as Received['json'];
  expect(event).toMatchObject({ type: 'message.pending_approval', organization_id: t.orgId });
  const draft = await t.ok('GET', `/messages/${reminded.reminder_message_id}`);
  expect(draft).toMatchObject({
    status: 'pending_approval',
    direction: 'outbound',
    contact_id: contact.id,
    to_address: email,
    subject: 'Herinnering: Kennismaking',
  });
  expect(event.data).toEqual(draft);
});

test('message.failed from the send (db/queries/sending.ts recordSendFailure): a 550 at RCPT TO, and a connection dropped after the message (delivery unknown, needs_check), each reported as GET /messages answers it', async () => {
  const h = await hookedOutreach(['message.pending_approval', 'message.failed']);
  const { o } = h;
  const refused = await o.contact();
  const dropped = await o.contact({ fullName: 'Sanne de Vries' });
  smtp.refuse(refused.email, 550, '5.1.1 <unknown> User unknown');
  smtp.dropAfterData(dropped.email);
  const campaign = await o.ok('POST', '/campaigns', {
    organizationId: o.orgId,
    name: 'Dakisolatie',
    contactIds: [refused.id, dropped.id],
    mailboxId: o.mailboxId,
    steps: [{ channel: 'email', delayDays: 0 }],
  });
  await o.ok('POST', `/campaigns/${campaign.id}/accept`, {});
  for (const [person, needsCheck] of [
    [refused, false],
    [dropped, true],
  ] as const) {
    const draft = await h.first('message.pending_approval', (e) => e.data.contact_id === person.id);
    await o.ok('POST', `/messages/${draft.data.id}/approve`, {});
    const failed = await h.first('message.failed', (e) => e.data.id === draft.data.id);
    const message = await o.ok('GET', `/messages/${draft.data.id}`);
    expect(message).toMatchObject({ status: 'failed', needs_check: needsCheck, error: expect.any(String) });
    expect(failed).toMatchObject({ type: 'message.failed', organization_id: o.orgId });
    expect(failed.data).toEqual(message);
  }
  expect(await h.written('message.failed')).toHaveLength(2);
}, 120_000);

test('a refusal recorded for an e-mail that is no longer being sent (skipped by an unsubscribe during the SMTP conversation, or flagged failed by a later claim) leaves its status as it is, so reports no message.failed', async () => {
  const t = await tenant();
  const { id } = await endpoint(t, [], ['message.failed', 'suppression.created']);
  const company = await t.ok('POST', '/companies', { organizationId: t.orgId, name: 'Bouw B.V.' });
  const email = `weg.${randomUUID().slice(0, 8)}@bouw.nl`;
  const contact = await t.ok('POST', '/contacts', { organizationId: t.orgId, companyId: company.id, fullName: 'Jan Jansen', email });
  // The two states a slow attempt's refusal can find its e-mail in (written as the owner, as the unsubscribe test does).
  const owners = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 1 });
  const messages: Array<{ id: string; status: string }> = [];
  try {
    for (const [status, needsCheck] of [
      ['skipped', false],
      ['failed', true],
    ] as const) {
      const { rows } = await owners.query<{ id: string }>(
        `INSERT INTO messages (organization_id, contact_id, direction, channel, status, needs_check, send_attempted_at, subject, body, to_address)
         VALUES ($1, $2, 'outbound', 'email', $3, $4, now(), 'Warmtepompen', 'Beste Jan', $5) RETURNING id`,
        [t.orgId, contact.id, status, needsCheck, email],
      );
      messages.push({ id: rows[0]!.id, status });
    }
  } finally {
    await owners.end();
  }
  // What activities/send.ts runs on a 550 at RCPT TO, as the organization's owner under row-level security.
  for (const m of messages) {
    await asUser(api.db, t.owner.id, (tx) =>
      recordSendFailure(tx, {
        messageId: m.id,
        organizationId: t.orgId,
        error: 'SMTP RCPT TO refused: 550 5.1.1',
        hardBounce: true,
        address: email,
        contactId: contact.id,
      }),
    );
    expect((await t.ok('GET', `/messages/${m.id}`)).status).toBe(m.status);
  }
  // The refused address is suppressed all the same; no e-mail failed here, so nothing says one did.
  const deliveries = (await t.ok('GET', `/webhook-endpoints/${id}/deliveries`)) as Array<{ event_type: string }>;
  expect(deliveries.map((d) => d.event_type)).toEqual(['suppression.created']);
});
