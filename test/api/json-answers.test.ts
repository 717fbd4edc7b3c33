import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import { Pool } from 'pg';
import type { Request } from 'express';
import { acceptsGzip } from '../../apps/api/json-text';
import { normalizeCompanyName } from '../../domain/companies/identity';
import { listCompanies, listCompaniesJson, type CompanyFilter } from '../../db/queries/companies';
import { listMessages, listMessagesJson, type MessageFilter } from '../../db/queries/messages';
import { listSignals, listSignalsJson, type SignalFilter } from '../../db/queries/signals';
import { NotAMemberError, readAsUser, readJsonAsUser, type Reader } from '../../db/tenancy';
import type { CompiledQuery } from 'kysely';
import { newOrganization } from '../helpers/api';
import { testEnv, TestUser } from '../helpers/tokens';
import { useStack } from '../helpers/stack';

/**
 * GET /signals, GET /messages (the approval inbox) and GET /companies answer the JSON array PostgreSQL builds
 * (db/json-answers.ts), passed through. It must be what node built before from the same rows: the
 * same fields in the same order with the same values and formats (ISO timestamps with milliseconds
 * and Z, numbers as numbers, why as its object), for every filter and page, under row-level security
 * as the caller. The rows here fill every field (nulls render alike; formats do not), with
 * timestamps whose microseconds must be cut, not rounded, as node-postgres cuts them.
 */
const { api } = useStack({ api: true });
let owner: Pool;
let a: { owner: TestUser; orgId: string };
let b: { owner: TestUser; orgId: string };
const ids: Record<string, string> = {};

const STAMPS = [
  '2026-03-04 05:06:07.999999+00',
  '2026-03-04 05:06:07.029+00',
  '2026-03-04 05:06:07+00',
  '1999-12-31 23:59:59.0005+00',
  '2026-07-01 00:00:00.12+02',
];
const TEXTS = [`O'Brien "loods" 100% klaar`, 'tab\there\nnewline \u0001 control', 'Ünïcödé straat 😀 \u2028', 'back\\slash / solidus <b>'];

async function seed(org: string, user: string, tag: string): Promise<void> {
  const one = async (q: string, params: unknown[]) => (await owner.query<{ id: string }>(q, params)).rows[0]!.id;
  const source = await one(`INSERT INTO sources (organization_id, provider_key, name) VALUES ($1, 'rss', 'json') RETURNING id`, [org]);
  const project = await one(`INSERT INTO projects (organization_id, dedupe_key) VALUES ($1, $2) RETURNING id`, [org, `p-${tag}`]);
  for (const [i, stamp] of STAMPS.entries()) {
    await owner.query(
      `INSERT INTO signals (organization_id, source_id, project_id, external_id, status, signal_type, title, summary, published_at, effective_start, effective_end,
                            source_url, current_score, dedupe_key, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, 'permit', $6, $7, $8, $8::timestamptz + interval '1 day', $8::timestamptz + interval '1 year', 'https://x.example/' || $4, $9, $4, $8, $8)`,
      [
        org,
        source,
        project,
        `${tag}-${i}`,
        i % 2 ? 'ready' : 'scored',
        `${TEXTS[i % TEXTS.length]} ${tag} warmtepomp ${i}`,
        TEXTS[(i + 1) % TEXTS.length],
        stamp,
        [0.8, 12.5, 0.1, 100, 0.333][i],
      ],
    );
  }
  const mailbox = await one(
    `INSERT INTO mailboxes (organization_id, address, domain, holiday_country, smtp_config) VALUES ($1, $2, 'json.example', 'NL', '{"host":"127.0.0.1","port":9}') RETURNING id`,
    [org, `s-${tag}@json.example`],
  );
  const company = await one(`INSERT INTO companies (organization_id, name, normalized_name) VALUES ($1, $2, $3) RETURNING id`, [
    org,
    `${TEXTS[0]} B.V.`,
    `json ${tag}`,
  ]);
  const contact = await one(`INSERT INTO contacts (organization_id, company_id, full_name, email) VALUES ($1, $2, $3, $4) RETURNING id`, [
    org,
    company,
    TEXTS[2],
    `c-${tag}@json.example`,
  ]);
  const campaign = await one(
    `INSERT INTO campaigns (organization_id, name, status, mode, mailbox_id, proposed_by) VALUES ($1, $2, 'active', 'review', $3, 'user') RETURNING id`,
    [org, TEXTS[1], mailbox],
  );
  const sequence = await one(`INSERT INTO sequences (organization_id, campaign_id, name) VALUES ($1, $2, 's') RETURNING id`, [org, campaign]);
  const step = await one(
    `INSERT INTO sequence_steps (organization_id, sequence_id, position, channel, delay_days, instructions) VALUES ($1, $2, 3, 'email', 0, 'x') RETURNING id`,
    [org, sequence],
  );
  const enrollment = await one(
    `INSERT INTO enrollments (organization_id, campaign_id, sequence_id, contact_id, status, pause_reason) VALUES ($1, $2, $3, $4, 'paused', 'out_of_office') RETURNING id`,
    [org, campaign, sequence, contact],
  );
  const thread = await one(`INSERT INTO threads (organization_id, contact_id, mailbox_id, subject, status) VALUES ($1, $2, $3, 's', 'replied') RETURNING id`, [
    org,
    contact,
    mailbox,
  ]);
  const why = {
    signal: { id: randomUUID(), title: TEXTS[0], url: null },
    facts: [{ claim: TEXTS[1], sourceUrl: 'https://x.example/f' }],
    scoreReasons: ['a', TEXTS[2]],
    compliance: { country: 'NL', locale: 'nl-NL', rule: 'art14_notice', requirements: [] },
    n: 1.5,
    deep: { z: [true, null, { y: TEXTS[3] }] },
  };
  let previous: string | null = null;
  for (const [i, stamp] of STAMPS.entries()) {
    previous = await one(
      `INSERT INTO messages (organization_id, enrollment_id, thread_id, contact_id, step_id, mailbox_id, campaign_id, direction, channel, status, subject, body,
                             original_body, from_address, to_address, why, intent, confidence, model, prompt_version, approved_by, approved_at, scheduled_for,
                             sent_at, received_at, provider_message_id, error, needs_check, rejected_reason, redraft_of, completed_note, variant_key, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'outbound', 'email', $8, $9, $10, $11, 'a@json.example', 'b@json.example', $12, 'interested', $13, 'm', 'v1', $14,
               $15, $15::timestamptz + interval '1 hour', $15::timestamptz + interval '2 hours', $15::timestamptz - interval '1 hour', '<x@json.example>', $9, true, $10, $16, $11, 'A', $15, $15)
       RETURNING id`,
      [
        org,
        enrollment,
        thread,
        contact,
        step,
        mailbox,
        campaign,
        i === 1 ? 'sent' : 'pending_approval',
        TEXTS[i % TEXTS.length],
        TEXTS[(i + 1) % TEXTS.length],
        TEXTS[(i + 2) % TEXTS.length],
        JSON.stringify({ ...why, i }),
        [0.8, 0.95, 1, 0.1, 0.333][i],
        user,
        stamp,
        previous,
      ],
    );
  }
  // And one with every optional field null (no joins, an active enrollment's pause_reason null).
  await owner.query(
    `INSERT INTO messages (organization_id, direction, channel, status, created_at) VALUES ($1, 'inbound', 'email', 'received', '2026-01-01T00:00:00.5Z')`,
    [org],
  );
  ids[tag] = previous!;
  // Companies with every field filled (an array of SBI codes, an empty one), beside the one above with most of them null.
  for (const [i, stamp] of STAMPS.entries()) {
    await owner.query(
      `INSERT INTO companies (organization_id, name, normalized_name, domain, kvk_number, address, website, generic_email, phone, enrichment_status, enrichment_error,
                             country_code, locale, recipient_kind, legal_form, sbi_codes, timezone, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'https://' || $4, 'info@' || $4, '+31301234567', $7, $8, 'NL', 'nl-NL', $9, 'B.V.', $10, 'Europe/Amsterdam', $11, $11::timestamptz + interval '1 second')`,
      [
        org,
        `${TEXTS[i % TEXTS.length]} Warmtepomp ${i}`,
        normalizeCompanyName(`${TEXTS[i % TEXTS.length]} Warmtepomp ${i}`),
        `c${i}-${tag}.example`,
        `${tag === 'a' ? 1 : 2}000000${i}`,
        TEXTS[(i + 1) % TEXTS.length],
        ['idle', 'running', 'done', 'failed', 'done'][i],
        i === 3 ? TEXTS[3] : null,
        i % 2 ? 'natural_person' : 'legal_person',
        i === 2 ? [] : ['4322', TEXTS[i % TEXTS.length]],
        stamp,
      ],
    );
  }
}

beforeAll(async () => {
  owner = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 1 });
  a = await newOrganization(api, 'JSON A');
  b = await newOrganization(api, 'JSON B');
  await seed(a.orgId, a.owner.id, 'a');
  await seed(b.orgId, b.owner.id, 'b');
});
afterAll(async () => {
  await owner?.end();
});

/** Same fields, same order, same values: what a client reads (JSON.parse), written out again. */
const canonical = (json: string) => JSON.stringify(JSON.parse(json));

/**
 * A list read as A's owner both ways, the rows node reads and the JSON PostgreSQL builds: the JSON must
 * be those rows written out, and only A's. Answers the rows.
 */
async function builtAsNodeBuilt<R extends { organization_id: string }>(
  rows: (qb: Reader) => { compile(): CompiledQuery<R>; execute(): Promise<R[]> },
  json: (qb: Reader) => { compile(): CompiledQuery<unknown> },
): Promise<R[]> {
  const gate = { organizationId: a.orgId, minRole: 'viewer' as const };
  const read = await readAsUser(api.db, a.owner.id, gate, rows);
  expect(canonical(await readJsonAsUser(api.db, a.owner.id, gate, json))).toBe(JSON.stringify(read));
  expect(read.every((r) => r.organization_id === a.orgId)).toBe(true);
  return read;
}

const signalFilters = (): Array<Omit<SignalFilter, 'organizationId'>> => [
  { limit: 50 },
  { limit: 2 },
  { limit: 50, status: 'ready' },
  { limit: 50, q: 'WARMTEPOMP' },
  { limit: 50, q: "O'Brien" },
  { limit: 50, q: 'nothing like it' },
];

test.each(signalFilters())('GET /signals %j: the JSON PostgreSQL builds is the JSON node built from the rows', async (f) => {
  const filter = { organizationId: a.orgId, ...f };
  const rows = await builtAsNodeBuilt(
    (qb) => listSignals(qb, filter),
    (qb) => listSignalsJson(qb, filter),
  );
  if (!f.q?.startsWith('nothing')) expect(rows.length).toBeGreaterThan(0);
});

// The title search matches the lower-cased title (migration 0032) against the lower-cased pattern:
// exactly the rows `title ILIKE` matched, wildcards in q taken literally, non-ASCII letters folded too.
test.each(['WARMTEPOMP', 'ünïcödé', 'ÜNÏCÖDÉ STRAAT', '100% KLAAR', '100_', '%', 'back\\slash', 'klaar 100', 'Ü'])(
  'GET /signals?q=%s answers the rows title ILIKE matches',
  async (q) => {
    const res = await api.call('GET', `/signals?organizationId=${a.orgId}&limit=50&q=${encodeURIComponent(q)}`, { token: a.owner.token });
    expect(res.status).toBe(200);
    const pattern = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const expected = await owner.query<{ id: string }>(
      `SELECT id FROM signals WHERE organization_id = $1 AND title ILIKE $2 ORDER BY created_at DESC, id DESC LIMIT 50`,
      [a.orgId, pattern],
    );
    expect(res.body.map((s: { id: string }) => s.id)).toEqual(expected.rows.map((r) => r.id));
    if (!['klaar 100', '100_'].includes(q)) expect(expected.rows.length).toBeGreaterThan(0);
  },
);

const messageFilters = (): Array<Omit<MessageFilter, 'organizationId'>> => [
  { limit: 50 },
  { limit: 50, status: 'pending_approval' },
  { limit: 2, status: 'pending_approval' },
  { limit: 50, direction: 'inbound' },
  { limit: 50, status: 'approved' },
];

test.each(messageFilters())('GET /messages %j: the JSON PostgreSQL builds is the JSON node built from the rows', async (f) => {
  const filter = { organizationId: a.orgId, ...f };
  await builtAsNodeBuilt(
    (qb) => listMessages(qb, filter),
    (qb) => listMessagesJson(qb, filter),
  );
});

const companyFilters = (): Array<Omit<CompanyFilter, 'organizationId'>> => [
  { limit: 50 },
  { limit: 2 },
  { limit: 50, q: 'WARMTEPOMP' },
  { limit: 50, q: "O'Brien" },
  { limit: 50, kvkNumber: '10000003' },
  { limit: 50, domain: 'c1-a.example' },
  { limit: 50, q: 'nothing like it' },
];

test.each(companyFilters())('GET /companies %j: the JSON PostgreSQL builds is the JSON node built from the rows', async (f) => {
  const filter = { organizationId: a.orgId, ...f };
  const rows = await builtAsNodeBuilt(
    (qb) => listCompanies(qb, filter),
    (qb) => listCompaniesJson(qb, filter),
  );
  if (!f.q?.startsWith('nothing')) expect(rows.length).toBeGreaterThan(0);
  const res = await api.call(
    'GET',
    `/companies?${new URLSearchParams({ organizationId: a.orgId, ...Object.fromEntries(Object.entries(f).map(([k, v]) => [k, String(v)])) })}`,
    { token: a.owner.token },
  );
  expect(res.status).toBe(200);
  expect(JSON.stringify(res.body)).toBe(JSON.stringify(rows));
});

test('the formats are the API’s: toISOString timestamps (microseconds cut), numbers, why as an object', async () => {
  const res = await api.call('GET', `/signals?organizationId=${a.orgId}&limit=50`, { token: a.owner.token });
  const byTitle = (n: number) => res.body.find((s: { external_id: string }) => s.external_id === `a-${n}`);
  expect(byTitle(0)).toMatchObject({
    created_at: '2026-03-04T05:06:07.999Z',
    published_at: '2026-03-04T05:06:07.999Z',
    effective_start: '2026-03-05T05:06:07.999Z',
    current_score: 0.8,
  });
  expect(byTitle(3)).toMatchObject({ created_at: '1999-12-31T23:59:59.000Z', current_score: 100 });
  expect(byTitle(4)).toMatchObject({ created_at: '2026-06-30T22:00:00.120Z' });
  const inbox = await api.call('GET', `/messages?organizationId=${a.orgId}&status=pending_approval&limit=50`, { token: a.owner.token });
  expect(inbox.body.map((m: { created_at: string }) => m.created_at)).toEqual([
    '2026-06-30T22:00:00.120Z',
    '2026-03-04T05:06:07.999Z',
    '2026-03-04T05:06:07.000Z',
    '1999-12-31T23:59:59.000Z',
  ]);
  expect(inbox.body[0]).toMatchObject({
    confidence: 0.333,
    step_position: 3,
    thread_status: 'replied',
    pause_reason: 'out_of_office',
    needs_check: true,
    why: { i: 4, n: 1.5, deep: { z: [true, null, { y: TEXTS[3] }] } },
  });
});

test('GET /signals and GET /messages over HTTP: the contract, the headers of res.json, and each page as node answered it', async () => {
  const gate = { organizationId: a.orgId, minRole: 'viewer' as const };
  for (const [path, rows] of [
    [`/signals?organizationId=${a.orgId}&limit=3`, () => readAsUser(api.db, a.owner.id, gate, (qb) => listSignals(qb, { organizationId: a.orgId, limit: 3 }))],
    [
      `/messages?organizationId=${a.orgId}&status=pending_approval&limit=3`,
      () => readAsUser(api.db, a.owner.id, gate, (qb) => listMessages(qb, { organizationId: a.orgId, status: 'pending_approval', limit: 3 })),
    ],
  ] as const) {
    const res = await api.call('GET', path, { token: a.owner.token }); // api.call validates the answer against the OpenAPI document
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('etag')).toMatch(/^W\/"/);
    expect(JSON.stringify(res.body)).toBe(JSON.stringify(await rows()));
    const next = await api.call('GET', `${path}&before=${res.body[2].id}`, { token: a.owner.token });
    expect(next.status).toBe(200);
    expect(next.body.map((r: { id: string }) => r.id)).not.toContain(res.body[2].id);
  }
});

test('another tenant sees nothing: 404 on A’s lists, only its own rows in its own', async () => {
  for (const path of [
    `/signals?organizationId=${a.orgId}`,
    `/messages?organizationId=${a.orgId}&status=pending_approval`,
    `/signals?organizationId=${a.orgId}&q=warmtepomp`,
    `/companies?organizationId=${a.orgId}&q=warmtepomp`,
  ]) {
    const res = await api.call('GET', path, { token: b.owner.token });
    expect({ path, status: res.status, code: res.body?.code }).toEqual({ path, status: 404, code: 'NOT_FOUND' });
  }
  for (const path of [
    `/signals?organizationId=${b.orgId}&q=warmtepomp`,
    `/messages?organizationId=${b.orgId}`,
    `/companies?organizationId=${b.orgId}&q=warmtepomp`,
  ]) {
    const res = await api.call('GET', path, { token: b.owner.token });
    expect(res.body.length).toBeGreaterThan(0);
    expect(res.body.every((r: { organization_id: string }) => r.organization_id === b.orgId)).toBe(true);
  }
  // Asking with B's organization but A's row as the cursor finds nothing of A's.
  const cursor = await api.call('GET', `/messages?organizationId=${b.orgId}&before=${ids.a}`, { token: b.owner.token });
  expect(cursor.body.every((r: { organization_id: string }) => r.organization_id === b.orgId)).toBe(true);
  await expect(
    readJsonAsUser(api.db, b.owner.id, { organizationId: a.orgId, minRole: 'viewer' }, (qb) => listSignalsJson(qb, { organizationId: a.orgId, limit: 5 })),
  ).rejects.toBeInstanceOf(NotAMemberError);
});

test('bad input is a problem naming the field, never a 5xx', async () => {
  for (const [path, field] of [
    [`/signals?organizationId=${a.orgId}&limit=0`, 'limit'],
    [`/messages?organizationId=${a.orgId}&status=nope`, 'status'],
    [`/messages?organizationId=not-a-uuid`, 'organizationId'],
  ]) {
    const res = await api.call('GET', path!, { token: a.owner.token });
    expect({ path, status: res.status }).toEqual({ path, status: 400 });
    expect(JSON.stringify(res.body)).toContain(field);
  }
});

/** One GET as node's http client sends it (no decompression), the body as received. */
function rawGet(url: string, headers: Record<string, string>): Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

test('gzip when the client asks for it: the same answer, compressed; not when it refuses it or the answer is small', async () => {
  const path = `${api.url}/messages?organizationId=${a.orgId}&limit=50`;
  const auth = { authorization: `Bearer ${a.owner.token}` };
  const plain = await rawGet(path, auth);
  expect(plain.headers['content-encoding']).toBeUndefined();
  expect(plain.body.length).toBeGreaterThan(1024);
  const zipped = await rawGet(path, { ...auth, 'accept-encoding': 'br;q=1.0, gzip;q=0.8' });
  expect(zipped.headers['content-encoding']).toBe('gzip');
  expect(zipped.headers.vary).toMatch(/Accept-Encoding/);
  expect(zipped.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(zipped.body.length).toBeLessThan(plain.body.length / 3);
  expect(gunzipSync(zipped.body).toString()).toBe(plain.body.toString());
  expect((await rawGet(path, { ...auth, 'accept-encoding': 'gzip;q=0, identity' })).headers['content-encoding']).toBeUndefined();
  const small = await rawGet(`${api.url}/signals?organizationId=${a.orgId}&limit=1`, { ...auth, 'accept-encoding': 'gzip' });
  expect(small.headers['content-encoding']).toBeUndefined();
  expect(JSON.parse(small.body.toString())).toHaveLength(1);
});

test('Accept-Encoding: a named gzip outranks *, q=0 refuses, absent means identity', () => {
  const accepts = (header?: string) => acceptsGzip({ headers: header === undefined ? {} : { 'accept-encoding': header } } as Request);
  expect(accepts('*;q=0, gzip')).toBe(true);
  expect(accepts('gzip;q=0, *')).toBe(false);
  expect(accepts('br, *;q=0.1')).toBe(true);
  expect(accepts('br, *;q=0')).toBe(false);
  expect(accepts('X-GZIP')).toBe(true);
  expect(accepts('br, gzip ;q=0.5')).toBe(true);
  expect(accepts('gzip ; q=0')).toBe(false);
  expect(accepts('identity')).toBe(false);
  expect(accepts('')).toBe(false);
  expect(accepts(undefined)).toBe(false);
});
