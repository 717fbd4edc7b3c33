import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CompiledQuery } from 'kysely';
import { WorkflowStarter } from '../../apps/shared/temporal';
import { threadListQuery } from '../../db/queries/threads';
import { asUser } from '../../db/tenancy';
import { expectProblem, newOrganization, startApi } from '../helpers/api';
import { outreachOrg, until, type OutreachOrg } from '../helpers/outreach';
import { testEnv } from '../helpers/tokens';
import { useStack } from '../helpers/stack';

/**
 * Machine clients, events and erasure on the real stack (the API in-process, the worker processes of
 * the test stack, PostgreSQL): secrets kept by idempotent POSTs, a send whose start fails after its
 * commit, the outbox after erasure and after 30 days, a receiver answering any bytes, the endpoint
 * limit and the deliveries' own task queue, and the plan of GET /threads.
 */
const { api, owners, smtp } = useStack({ api: true, owners: true, smtp: true });

/** A Temporal that refuses every start and signal, as during an overload or a deploy. */
class UnavailableStarter extends WorkflowStarter {
  override async startMessageSend(): Promise<void> {
    throw new Error('Temporal is unavailable');
  }
  override async wakeMeeting(): Promise<never> {
    throw new Error('Temporal is unavailable');
  }
  override async notifyEnrollments(): Promise<void> {
    throw new Error('Temporal is unavailable');
  }
}

async function receiver(answer: (res: http.ServerResponse) => void) {
  let hits = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hits++;
      answer(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    hits: () => hits,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

async function threadWithReply(o: OutreachOrg) {
  const contact = await o.contact({ fullName: 'Jan de Vries' });
  const threadId = (
    await owners.query<{ id: string }>(
      `INSERT INTO threads (organization_id, contact_id, mailbox_id, subject) VALUES ($1, $2, $3, 'Uw project') RETURNING id`,
      [o.orgId, contact.id, o.mailboxId],
    )
  ).rows[0]!.id;
  await owners.query(
    `INSERT INTO messages (organization_id, thread_id, contact_id, mailbox_id, direction, status, subject, body, from_address, received_at, internet_message_id, intent)
     VALUES ($1, $2, $3, $4, 'inbound', 'received', 'Re: Uw project', 'Graag meer informatie', $5, now() - interval '1 hour', $6, 'interested')`,
    [o.orgId, threadId, contact.id, o.mailboxId, contact.email, `<${randomUUID()}@klant.nl>`],
  );
  return { threadId, contact };
}

test('a thread reply and a meeting whose workflow start fails after the commit answer 201; the retry with the same Idempotency-Key replays it and nothing is written twice', async () => {
  const down = await startApi({
    workflows: new UnavailableStarter(api.temporal, {
      TEMPORAL_TASK_QUEUE: testEnv('TEMPORAL_TASK_QUEUE'),
      INGEST_RETRY_INITIAL_INTERVAL_MS: Number(testEnv('INGEST_RETRY_INITIAL_INTERVAL_MS')),
    }),
  });
  try {
    const o = await outreachOrg(api, newOrganization, smtp);
    const { threadId, contact } = await threadWithReply(o);
    const key = `reply-${randomUUID()}`;
    const send = () =>
      down.call('POST', `/threads/${threadId}/reply`, {
        token: o.owner.token,
        body: { body: 'Dank u, ik bel u morgen.' },
        headers: { 'Idempotency-Key': key },
      });
    const first = await send();
    expect(first.status).toBe(201);
    const again = await send();
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    const { rows } = await owners.query(`SELECT id, status FROM messages WHERE thread_id = $1 AND direction = 'outbound'`, [threadId]);
    expect(rows).toEqual([{ id: first.body.id, status: expect.stringMatching(/^(approved|sending|sent)$/) }]);

    const meetingKey = `meeting-${randomUUID()}`;
    const book = () =>
      down.call('POST', '/meetings', {
        token: o.owner.token,
        body: { organizationId: o.orgId, title: 'Kennismaking', startsAt: '2030-03-04T09:00:00Z', endsAt: '2030-03-04T09:30:00Z', contactId: contact.id },
        headers: { 'Idempotency-Key': meetingKey },
      });
    const booked = await book();
    expect(booked.status).toBe(201);
    const rebooked = await book();
    expect({ status: rebooked.status, id: rebooked.body.id, replayed: rebooked.headers.get('idempotent-replayed') }).toEqual({
      status: 201,
      id: booked.body.id,
      replayed: 'true',
    });
    expect((await owners.query(`SELECT count(*)::int AS n FROM meetings WHERE organization_id = $1`, [o.orgId])).rows[0].n).toBe(1);
  } finally {
    await down.close();
  }
});

test('idempotent answers that carry an API key or a signing secret are kept sealed, bodies are fingerprinted with a keyed hash, and expired records are deleted', async () => {
  const { owner, orgId } = await newOrganization(api, `Sealed ${randomUUID().slice(0, 6)} B.V.`);
  const rx = await receiver((res) => res.end());
  try {
    const keyBody = { organizationId: orgId, name: 'CRM sync', role: 'viewer' };
    const k1 = `key-${randomUUID()}`;
    const created = await api.call('POST', '/api-keys', { token: owner.token, body: keyBody, headers: { 'Idempotency-Key': k1 } });
    expect(created.status).toBe(201);
    const replay = await api.call('POST', '/api-keys', { token: owner.token, body: keyBody, headers: { 'Idempotency-Key': k1 } });
    expect({ status: replay.status, replayed: replay.headers.get('idempotent-replayed'), key: replay.body.key }).toEqual({
      status: 201,
      replayed: 'true',
      key: created.body.key,
    });
    const k2 = `endpoint-${randomUUID()}`;
    const endpointBody = { organizationId: orgId, url: rx.url, events: ['*'] };
    const endpoint = await api.call('POST', '/webhook-endpoints', { token: owner.token, body: endpointBody, headers: { 'Idempotency-Key': k2 } });
    expect(endpoint.status).toBe(201);
    const k3 = `rotate-${randomUUID()}`;
    const rotated = await api.call('POST', `/webhook-endpoints/${endpoint.body.id}/rotate-secret`, {
      token: owner.token,
      body: {},
      headers: { 'Idempotency-Key': k3 },
    });
    expect(rotated.status).toBe(200);

    const { rows } = await owners.query(`SELECT key, body_hash, response_body, response_sealed FROM idempotency_keys WHERE user_id = $1 ORDER BY key`, [
      owner.id,
    ]);
    expect(rows.map((r) => r.key).sort()).toEqual([k1, k2, k3].sort());
    const stored = rows.map((r) => `${r.response_body ?? ''} ${(r.response_sealed as Buffer | null)?.toString('latin1') ?? ''}`).join('\n');
    for (const secret of [created.body.key, created.body.key.slice(4), endpoint.body.secret, endpoint.body.secret.slice(6), rotated.body.secret.slice(6)]) {
      expect(stored).not.toContain(secret);
    }
    expect(rows.every((r) => r.response_body === null && Buffer.isBuffer(r.response_sealed))).toBe(true);
    // Not the plain SHA-256 of the body: without the server's key a body cannot be tested against it.
    const plain = createHash('sha256').update(JSON.stringify(keyBody)).digest();
    expect(rows.find((r) => r.key === k1)!.body_hash.equals(plain)).toBe(false);

    // Past its 24 hours a record is deleted by the workers' sweep, not only when its key comes again.
    await owners.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 minute' WHERE user_id = $1 AND key = $2`, [owner.id, k1]);
    await until(
      'the expired record deleted',
      async () => (await owners.query(`SELECT 1 FROM idempotency_keys WHERE user_id = $1 AND key = $2`, [owner.id, k1])).rowCount === 0,
    );
    expect((await owners.query(`SELECT count(*)::int AS n FROM idempotency_keys WHERE user_id = $1`, [owner.id])).rows[0].n).toBe(2);
  } finally {
    await rx.close();
  }
});

test('a receiver answering 500 with NUL bytes, control characters and invalid UTF-8 is recorded: the attempt counts, last_error holds the readable rest', async () => {
  const { owner, orgId } = await newOrganization(api, `Bytes ${randomUUID().slice(0, 6)} B.V.`);
  const rx = await receiver((res) => {
    res.statusCode = 500;
    res.end(Buffer.concat([Buffer.from('bad\u0000gateway '), Buffer.from([0xff, 0xfe, 0x01, 0x00, 0xc3]), Buffer.from(' proto')]));
  });
  try {
    const endpoint = await api.call('POST', '/webhook-endpoints', { token: owner.token, body: { organizationId: orgId, url: rx.url, events: ['*'] } });
    expect(endpoint.status).toBe(201);
    expect((await api.call('POST', `/webhook-endpoints/${endpoint.body.id}/test`, { token: owner.token, body: {} })).status).toBe(202);
    const [delivery] = await until('the failed attempt recorded', async () => {
      const list = await api.call('GET', `/webhook-endpoints/${endpoint.body.id}/deliveries`, { token: owner.token });
      return list.body.length && list.body[0].attempts >= 1 && list.body;
    });
    expect(delivery).toMatchObject({ status: 'pending', last_status_code: 500, last_error: expect.stringMatching(/^HTTP 500: badgateway .*proto$/) });
    // eslint-disable-next-line no-control-regex -- no control character may be left
    expect(delivery.last_error).not.toMatch(/[\u0000-\u0008]/);
    expect(rx.hits()).toBeGreaterThanOrEqual(1);
  } finally {
    await rx.close();
  }
});

test('at most 20 webhook endpoints per organization: the 21st is 409, also when created at once; deliveries run on the webhooks task queue', async () => {
  const { owner, orgId } = await newOrganization(api, `Many ${randomUUID().slice(0, 6)} B.V.`);
  const rx = await receiver((res) => res.end());
  try {
    const create = () => api.call('POST', '/webhook-endpoints', { token: owner.token, body: { organizationId: orgId, url: rx.url, events: ['webhook.test'] } });
    const created = [];
    for (let i = 0; i < 18; i++) created.push(await create());
    // Four at once for the last two places: two are created, two refused.
    const racing = await Promise.all([create(), create(), create(), create()]);
    expect(racing.map((r) => r.status).sort()).toEqual([201, 201, 409, 409]);
    for (const r of racing.filter((x) => x.status === 409)) expectProblem(r, 409, 'CONFLICT');
    expectProblem(await create(), 409, 'CONFLICT');
    expect((await owners.query(`SELECT count(*)::int AS n FROM webhook_endpoints WHERE organization_id = $1`, [orgId])).rows[0].n).toBe(20);

    const id = created[0]!.body.id as string;
    expect((await api.call('POST', `/webhook-endpoints/${id}/test`, { token: owner.token, body: {} })).status).toBe(202);
    await until('delivered', async () => {
      const list = await api.call('GET', `/webhook-endpoints/${id}/deliveries`, { token: owner.token });
      return list.body[0]?.status === 'delivered';
    });
    const history = await api.temporal.workflow.getHandle(`webhook-endpoint/${id}`).fetchHistory();
    const queues = history.events!.filter((e) => e.activityTaskScheduledEventAttributes).map((e) => e.activityTaskScheduledEventAttributes!.taskQueue!.name);
    expect(queues.length).toBeGreaterThan(0);
    expect(new Set(queues)).toEqual(new Set([`${testEnv('TEMPORAL_TASK_QUEUE')}-webhooks`]));
  } finally {
    await rx.close();
  }
});

/** Every text, json and array column of every table of the schema that holds `needle` (case-insensitive), as table.column. */
async function holders(needle: string): Promise<string[]> {
  const { rows: columns } = await owners.query<{ table_name: string; column_name: string }>(
    `SELECT c.table_name, c.column_name FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
      WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND c.data_type IN ('text', 'character varying', 'jsonb', 'json', 'ARRAY', 'USER-DEFINED', 'citext')`,
  );
  const found: string[] = [];
  for (const c of columns) {
    const { rows } = await owners.query(`SELECT 1 FROM public."${c.table_name}" WHERE strpos(lower("${c.column_name}"::text), lower($1)) > 0 LIMIT 1`, [
      needle,
    ]);
    if (rows.length) found.push(`${c.table_name}.${c.column_name}`);
  }
  return found;
}

test('erasure (DELETE /contacts/{id}) leaves nothing of the person in clear in any table: outbox events and pending deliveries included, only hashed markers stay', async () => {
  const o = await outreachOrg(api, newOrganization, smtp);
  const person = { name: 'Wilhelmina Kwakernaak-Zeeuwsmeisje', email: `w.kwakernaak.${randomUUID().slice(0, 6)}@zeeuws-bouw.nl`, phone: '+31 6 4817 2390' };
  const theirWords = 'Haal mij uit jullie bestand, Kwakernaakse groet';
  const ourWords = 'Excuses, wij verwijderen uw gegevens per direct';
  // A receiver that is down: every event waits in the outbox, pending.
  const endpoint = await o.ok('POST', '/webhook-endpoints', { organizationId: o.orgId, url: 'http://127.0.0.1:9/down', events: ['*'] });
  const contact = await o.ok('POST', '/contacts', {
    organizationId: o.orgId,
    companyId: o.companyId,
    fullName: person.name,
    title: 'Directeur',
    email: person.email,
    phone: person.phone,
  });
  await o.ok('PUT', `/contacts/${contact.id}/lawful-basis`, {
    organizationId: o.orgId,
    basis: 'consent',
    recipient_kind: 'legal_person',
    country: 'NL',
    consent_evidence: `formulier van ${person.name}`,
  });
  const threadId = (
    await owners.query<{ id: string }>(
      `INSERT INTO threads (organization_id, contact_id, mailbox_id, subject) VALUES ($1, $2, $3, 'Uw project') RETURNING id`,
      [o.orgId, contact.id, o.mailboxId],
    )
  ).rows[0]!.id;
  await owners.query(
    `INSERT INTO messages (organization_id, thread_id, contact_id, mailbox_id, direction, status, subject, body, from_address, received_at, internet_message_id, intent)
     VALUES ($1, $2, $3, $4, 'inbound', 'received', 'Re: Uw project', $5, $6, now() - interval '1 hour', $7, 'not_interested')`,
    [o.orgId, threadId, contact.id, o.mailboxId, theirWords, person.email, `<${randomUUID()}@zeeuws-bouw.nl>`],
  );
  // A bounce of an earlier e-mail quotes the address in its error; mail of theirs that could not be read is kept raw.
  await owners.query(
    `INSERT INTO messages (organization_id, contact_id, mailbox_id, direction, status, subject, body, to_address, error)
     VALUES ($1, $2, $3, 'outbound', 'failed', 'Eerder', 'Eerder bericht', $4, $5)`,
    [o.orgId, contact.id, o.mailboxId, person.email, `bounced: 5.1.1 550 5.1.1 <${person.email}>: Recipient address rejected: User unknown`],
  );
  await owners.query(
    `INSERT INTO messages (organization_id, mailbox_id, direction, status, received_at, internet_message_id, processing_error, inbound_source)
     VALUES ($1, $2, 'inbound', 'received', now(), $3, 'the parse took too long', $4)`,
    [
      o.orgId,
      o.mailboxId,
      `<unprocessed-${randomUUID()}@inbound.invalid>`,
      Buffer.from(`From: ${person.name} <${person.email}>\r\nSubject: x\r\n\r\n${theirWords}`),
    ],
  );
  // Events about the person: our reply sent, a meeting booked, then a suppression of their address.
  const reply = await o.ok('POST', `/threads/${threadId}/reply`, { body: ourWords });
  await until(
    'our reply sent and reported',
    async () => {
      const { rows } = await owners.query(
        `SELECT count(*)::int AS n FROM webhook_events WHERE organization_id = $1 AND type = 'message.sent' AND payload->'data'->>'id' = $2`,
        [o.orgId, reply.id],
      );
      return rows[0].n === 1;
    },
    45_000,
  );
  await o.ok('POST', '/meetings', {
    organizationId: o.orgId,
    title: `Gesprek met ${person.name}`,
    startsAt: '2030-03-04T09:00:00Z',
    endsAt: '2030-03-04T09:30:00Z',
    contactId: contact.id,
    attendeeEmail: person.email,
  });
  await o.ok('POST', '/compliance/suppressions', { organizationId: o.orgId, scope: 'email', value: person.email, reason: 'objection' });
  const pending = await owners.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending'`, [endpoint.id]);
  expect(pending.rows[0].n).toBeGreaterThanOrEqual(3);
  const needles = [person.name, 'Kwakernaak', person.email, person.phone, '4817 2390', '48172390', theirWords, ourWords];
  // Before: the outbox holds the person (the scan sees what it looks for).
  expect(await holders(person.email)).toEqual(expect.arrayContaining(['webhook_events.payload', 'contacts.email']));
  expect(await holders(ourWords)).toEqual(expect.arrayContaining(['webhook_events.payload', 'messages.body']));

  const erased = await o.call('DELETE', `/contacts/${contact.id}`);
  expect(erased.status).toBe(200);
  const left: Record<string, string[]> = {};
  for (const n of needles) left[n] = await holders(n);
  expect(left).toEqual(Object.fromEntries(needles.map((n) => [n, []])));
  // Raw sources are bytes: none of the organization's still holds the address.
  const raw = await owners.query(
    `SELECT count(*)::int AS n FROM messages WHERE organization_id = $1 AND strpos(lower(encode(inbound_source, 'escape')), lower($2)) > 0`,
    [o.orgId, person.email],
  );
  expect(raw.rows[0].n).toBe(0);
  // The person stays blocked by the hashed marker of their address.
  const markers = await owners.query(`SELECT scope FROM suppressions WHERE organization_id = $1 AND reason = 'erasure' ORDER BY scope`, [o.orgId]);
  expect(markers.rows.map((r) => r.scope)).toEqual(['email_hash', 'person_hash']);
});

test('outbox events are deleted 30 days after their last delivery, not before, and never while a delivery is pending', async () => {
  const { orgId } = await newOrganization(api, `Purge ${randomUUID().slice(0, 6)} B.V.`);
  const endpointId = randomUUID();
  await owners.query(
    `INSERT INTO webhook_endpoints (id, organization_id, url, events, secret_ciphertext, created_by, enabled) VALUES ($1, $2, 'http://127.0.0.1:9/x', '{*}', '\\x00', gen_random_uuid(), false)`,
    [endpointId, orgId],
  );
  const event = async (ageDays: number, delivery: { status: string; lastDays: number } | null) => {
    const id = (
      await owners.query<{ id: string }>(
        `INSERT INTO webhook_events (organization_id, type, payload, created_at) VALUES ($1, 'webhook.test', '{}', now() - make_interval(days => $2)) RETURNING id`,
        [orgId, ageDays],
      )
    ).rows[0]!.id;
    if (delivery) {
      await owners.query(
        `INSERT INTO webhook_deliveries (organization_id, endpoint_id, event_id, status, next_attempt_at, delivered_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, CASE WHEN $4 = 'pending' THEN now() + interval '1 hour' END, CASE WHEN $4 = 'delivered' THEN now() - make_interval(days => $5) END,
                 now() - make_interval(days => $6), now() - make_interval(days => $5))`,
        [orgId, endpointId, id, delivery.status, delivery.lastDays, ageDays],
      );
    }
    return id;
  };
  const old = await event(40, { status: 'delivered', lastDays: 31 });
  const oldFailed = await event(45, { status: 'failed', lastDays: 32 });
  const retriedLately = await event(40, { status: 'failed', lastDays: 3 });
  const stillPending = await event(40, { status: 'pending', lastDays: 35 });
  const recent = await event(5, { status: 'delivered', lastDays: 5 });
  const orphanOld = await event(31, null);
  await until('the old events purged', async () => {
    const { rows } = await owners.query(`SELECT id FROM webhook_events WHERE id = ANY($1)`, [[old, oldFailed, orphanOld]]);
    return rows.length === 0;
  });
  const { rows } = await owners.query(`SELECT id FROM webhook_events WHERE organization_id = $1`, [orgId]);
  expect(rows.map((r) => r.id).sort()).toEqual([retriedLately, stillPending, recent].sort());
});

test('GET /threads is read from the threads index: a page reads a page of threads, with no aggregate over messages and no sort', async () => {
  const o = await outreachOrg(api, newOrganization, smtp);
  const contact = await o.contact({ fullName: 'Veel Draden' });
  // 3,000 threads of two messages each; the newest activity is that of the lowest g.
  await owners.query(
    `WITH t AS (
       INSERT INTO threads (organization_id, contact_id, mailbox_id, subject, created_at)
       SELECT $1, $2, $3, 'Draad ' || g, now() - make_interval(days => 30) FROM generate_series(1, 3000) g RETURNING id, subject)
     INSERT INTO messages (organization_id, thread_id, contact_id, mailbox_id, direction, status, subject, body, from_address, to_address, internet_message_id, received_at, sent_at, intent, created_at)
     SELECT $1, t.id, $2, $3, d.direction, CASE WHEN d.direction = 'inbound' THEN 'received' ELSE 'sent' END, t.subject, 'x', $4, $4,
            CASE WHEN d.direction = 'inbound' THEN '<' || t.id || '@klant.nl>' END,
            CASE WHEN d.direction = 'inbound' THEN now() - make_interval(mins => split_part(t.subject, ' ', 2)::int) END,
            CASE WHEN d.direction = 'outbound' THEN now() - make_interval(mins => split_part(t.subject, ' ', 2)::int + 5) END,
            CASE WHEN d.direction = 'inbound' THEN (CASE WHEN split_part(t.subject, ' ', 2)::int % 3 = 0 THEN 'interested' ELSE 'other' END) END,
            now() - make_interval(days => 1)
       FROM t CROSS JOIN (VALUES ('outbound'), ('inbound')) d(direction)`,
    [o.orgId, contact.id, o.mailboxId, contact.email],
  );
  await owners.query('ANALYZE threads; ANALYZE messages');

  const page = await o.ok('GET', `/threads?organizationId=${o.orgId}&limit=50`);
  expect(page.map((t: { subject: string }) => t.subject)).toEqual(Array.from({ length: 50 }, (_v, i) => `Draad ${i + 1}`));
  expect(page[0]).toMatchObject({ message_count: 2, last_intent: 'other', contact_name: 'Veel Draden' });
  const next = await o.ok('GET', `/threads?organizationId=${o.orgId}&limit=2&before=${page[49].id}`);
  expect(next.map((t: { subject: string }) => t.subject)).toEqual(['Draad 51', 'Draad 52']);
  const interested = await o.ok('GET', `/threads?organizationId=${o.orgId}&intent=interested&limit=3`);
  expect(interested.map((t: { subject: string }) => t.subject)).toEqual(['Draad 3', 'Draad 6', 'Draad 9']);

  // The plan, as the owner under row-level security, with what it actually read.
  const plan = await asUser(api.db, o.owner.id, async (tx) => {
    const q = threadListQuery(tx, { organizationId: o.orgId, limit: 50 }).compile();
    const { rows } = await tx.executeQuery<{ 'QUERY PLAN': unknown }>(CompiledQuery.raw(`EXPLAIN (ANALYZE, FORMAT JSON) ${q.sql}`, [...q.parameters]));
    return rows[0]!['QUERY PLAN'] as Array<{ Plan: PlanNode }>;
  });
  const nodes: PlanNode[] = [];
  const walk = (n: PlanNode) => {
    nodes.push(n);
    n.Plans?.forEach(walk);
  };
  walk(plan[0]!.Plan);
  const summary = nodes.map((n) => `${n['Node Type']}${n['Index Name'] ? ` ${n['Index Name']}` : ''}${n['Relation Name'] ? ` on ${n['Relation Name']}` : ''}`);
  expect(summary.filter((s) => /Aggregate|on messages|Seq Scan on threads/.test(s))).toEqual([]);
  const threadsScan = nodes.find((n) => n['Relation Name'] === 'threads')!;
  expect(threadsScan['Index Name']).toBe('threads_org_activity_idx');
  expect(threadsScan['Actual Rows']! * (threadsScan['Actual Loops'] ?? 1)).toBeLessThanOrEqual(51);
  // A sort, if any, orders the page's rows only.
  expect(nodes.filter((n) => /Sort/.test(n['Node Type'])).map((n) => n['Actual Rows']! * (n['Actual Loops'] ?? 1) <= 50)).not.toContain(false);
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

test('a disabled endpoint: /test and a delivery retry are 409 and write nothing, instead of a delivery pending for ever', async () => {
  const { owner, orgId } = await newOrganization(api, `Disabled ${randomUUID().slice(0, 6)} B.V.`);
  const rx = await receiver((res) => res.end());
  try {
    const endpoint = await api.call('POST', '/webhook-endpoints', { token: owner.token, body: { organizationId: orgId, url: rx.url, events: ['*'] } });
    const id = endpoint.body.id as string;
    expect((await api.call('POST', `/webhook-endpoints/${id}/test`, { token: owner.token, body: {} })).status).toBe(202);
    const [delivery] = await until('delivered', async () => {
      const list = await api.call('GET', `/webhook-endpoints/${id}/deliveries`, { token: owner.token });
      return list.body[0]?.status === 'delivered' && list.body;
    });
    expect((await api.call('PATCH', `/webhook-endpoints/${id}`, { token: owner.token, body: { enabled: false } })).status).toBe(200);
    expectProblem(await api.call('POST', `/webhook-endpoints/${id}/test`, { token: owner.token, body: {} }), 409, 'CONFLICT');
    expectProblem(await api.call('POST', `/webhook-deliveries/${delivery.id}/retry`, { token: owner.token, body: {} }), 409, 'CONFLICT');
    const { rows } = await owners.query(`SELECT status FROM webhook_deliveries WHERE endpoint_id = $1`, [id]);
    expect(rows).toEqual([{ status: 'delivered' }]);
  } finally {
    await rx.close();
  }
});

test('the sweep answers the endpoint whose delivery has waited longest first', async () => {
  const { orgId } = await newOrganization(api, `Sweep ${randomUUID().slice(0, 6)} B.V.`);
  const client = await owners.connect();
  try {
    // In one transaction that is rolled back: the workers never see these deliveries.
    await client.query('BEGIN');
    const ids = Array.from({ length: 20 }, () => randomUUID());
    for (const [i, id] of ids.entries()) {
      await client.query(
        `INSERT INTO webhook_endpoints (id, organization_id, url, events, secret_ciphertext, created_by) VALUES ($1, $2, 'http://127.0.0.1:9/x', '{*}', '\\x00', gen_random_uuid())`,
        [id, orgId],
      );
      const event = await client.query(`INSERT INTO webhook_events (organization_id, type, payload) VALUES ($1, 'webhook.test', '{}') RETURNING id`, [orgId]);
      // Nineteen endpoints with a delivery due for an hour; the eighth one written has waited since 2001.
      await client.query(`INSERT INTO webhook_deliveries (organization_id, endpoint_id, event_id, next_attempt_at) VALUES ($1, $2, $3, $4)`, [
        orgId,
        id,
        event.rows[0].id,
        i !== 7 ? new Date(Date.now() - 3600_000) : new Date('2001-01-01T00:00:00Z'),
      ]);
    }
    const { rows } = await client.query(`SELECT endpoint_id FROM app.webhook_endpoints_due(1)`);
    expect(rows).toEqual([{ endpoint_id: ids[7] }]);
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
});

test('GET /api-keys and GET /webhook-endpoints page with limit and before, newest first', async () => {
  const { owner, orgId } = await newOrganization(api, `Pages ${randomUUID().slice(0, 6)} B.V.`);
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await api.call(method, path, { token: owner.token, body });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const keys = [];
  for (const name of ['een', 'twee', 'drie']) keys.push(await ok('POST', '/api-keys', { organizationId: orgId, name, role: 'viewer' }));
  const first = await ok('GET', `/api-keys?organizationId=${orgId}&limit=2`);
  expect(first.map((k: { name: string }) => k.name)).toEqual(['drie', 'twee']);
  expect((await ok('GET', `/api-keys?organizationId=${orgId}&limit=2&before=${first[1].id}`)).map((k: { name: string }) => k.name)).toEqual(['een']);
  const endpoints = [];
  for (const description of ['a', 'b', 'c'])
    endpoints.push(await ok('POST', '/webhook-endpoints', { organizationId: orgId, url: 'https://example.com/hooks', events: ['*'], description }));
  const page = await ok('GET', `/webhook-endpoints?organizationId=${orgId}&limit=1&before=${endpoints[2].id}`);
  expect(page.map((e: { description: string }) => e.description)).toEqual(['b']);
  expectProblem(await api.call('GET', `/api-keys?organizationId=${orgId}&limit=101`, { token: owner.token }), 400, 'VALIDATION_FAILED');
});

test('GET /threads/{id} answers at most the newest 200 messages, oldest first, whatever a sender adds to the thread', async () => {
  const o = await outreachOrg(api, newOrganization, smtp);
  const { threadId, contact } = await threadWithReply(o);
  await owners.query(
    `INSERT INTO messages (organization_id, thread_id, contact_id, mailbox_id, direction, status, subject, body, from_address, received_at, internet_message_id, created_at)
     SELECT $1, $2, $3, $4, 'inbound', 'received', 'Re: ' || g, 'Bericht ' || g, $5, now() - make_interval(secs => 1000 - g), '<' || gen_random_uuid() || '@klant.nl>', now() - make_interval(secs => 1000 - g)
       FROM generate_series(1, 250) g`,
    [o.orgId, threadId, contact.id, o.mailboxId, contact.email],
  );
  const view = await o.ok('GET', `/threads/${threadId}`);
  expect(view.message_count).toBe(251);
  expect(view.messages).toHaveLength(200);
  expect(view.messages[0].body).toBe('Bericht 52');
  expect(view.messages[199].body).toBe('Graag meer informatie');
});
