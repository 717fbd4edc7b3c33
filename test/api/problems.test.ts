import { randomUUID } from 'node:crypto';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { OPERATIONS } from '../../apps/api/openapi';
import { createDb } from '../../db/pool';
import { addMember, expectProblem, newOrganization, startApi, TestApi } from '../helpers/api';
import type { FieldError, Schema } from '../helpers/client';
import type { TestUser } from '../helpers/tokens';

/** Every error path of the API edge answers problem+json and changes nothing. */
let api: TestApi;
let owner: TestUser;
let orgId: string;
beforeAll(async () => {
  api = await startApi();
  ({ owner, orgId } = await newOrganization(api));
});
afterAll(() => api.close());

const sourceCount = async () => (await api.call('GET', `/sources?organizationId=${orgId}`, { token: owner.token })).body.length;

test('malformed JSON is 400 MALFORMED_JSON', async () => {
  const res = await api.call('POST', '/sources', { token: owner.token, rawBody: '{"name": "x",', headers: { 'content-type': 'application/json' } });
  expectProblem(res, 400, 'MALFORMED_JSON');
});

test('a body that is not JSON is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
  const res = await api.call('POST', '/sources', { token: owner.token, rawBody: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  expectProblem(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
});

test('a body over the limit is 413 PAYLOAD_TOO_LARGE', async () => {
  const before = await sourceCount();
  const res = await api.call('POST', '/sources', {
    token: owner.token,
    body: { organizationId: orgId, providerKey: 'rss', name: 'big', config: { url: 'https://x.example/feed', pad: 'x'.repeat(70_000) } },
  });
  expectProblem(res, 413, 'PAYLOAD_TOO_LARGE');
  expect(await sourceCount()).toBe(before);
});

test('validation failures list every field with its path, and nothing is written', async () => {
  const before = await sourceCount();
  const res = await api.call('POST', '/sources', {
    token: owner.token,
    body: { organizationId: orgId, providerKey: 'ftp', name: '', config: {}, schedule: '99 * * * *', countryCode: 'nl' },
  });
  expectProblem(res, 400, 'VALIDATION_FAILED');
  const paths = res.body.errors.map((e: FieldError) => e.path);
  expect(paths).toEqual(expect.arrayContaining(['body.providerKey', 'body.name', 'body.schedule', 'body.countryCode']));
  expect(await sourceCount()).toBe(before);
});

test('provider config is validated per provider', async () => {
  const res = await api.call('POST', '/sources', {
    token: owner.token,
    body: { organizationId: orgId, providerKey: 'rss', name: 'No url', config: { url: 'ftp://x' } },
  });
  expectProblem(res, 400, 'VALIDATION_FAILED');
  expect(res.body.errors).toEqual([expect.objectContaining({ path: 'body.config.url' })]);
});

test('unknown body fields and bad query parameters are 400 with paths', async () => {
  const res = await api.call('POST', '/organizations', { token: owner.token, body: { name: 'x', plan: 'gold' } });
  expectProblem(res, 400, 'VALIDATION_FAILED');
  const q = await api.call('GET', `/signals?organizationId=${orgId}&limit=500&status=hot`, { token: owner.token });
  expectProblem(q, 400, 'VALIDATION_FAILED');
  expect(q.body.errors.map((e: FieldError) => e.path).sort()).toEqual(['query.limit', 'query.status']);
});

test('an invalid cron schedule on PATCH is 400 and the source keeps its schedule', async () => {
  const created = await api.call('POST', '/sources', {
    token: owner.token,
    body: { organizationId: orgId, providerKey: 'rss', name: 'Cron', config: { url: 'https://x.example/feed' }, schedule: '0 6 * * 1-5' },
  });
  expect(created.status).toBe(201);
  const res = await api.call('PATCH', `/sources/${created.body.id}`, { token: owner.token, body: { schedule: '0 25 * * *' } });
  expectProblem(res, 400, 'VALIDATION_FAILED');
  const after = await api.call('GET', `/sources/${created.body.id}`, { token: owner.token });
  expect(after.body.schedule).toBe('0 6 * * 1-5');
  const ok = await api.call('PATCH', `/sources/${created.body.id}`, { token: owner.token, body: { schedule: null, enabled: false, name: 'Cron off' } });
  expect(ok.status).toBe(200);
  expect(ok.body).toMatchObject({ schedule: null, enabled: false, name: 'Cron off' });
});

test('an unknown route is 404 NOT_FOUND', async () => {
  expectProblem(await api.call('GET', '/nope', { token: owner.token }), 404, 'NOT_FOUND');
});

test('a path id that is not a UUID, or names no record, is 404 NOT_FOUND', async () => {
  expectProblem(await api.call('GET', '/signals/not-a-uuid', { token: owner.token }), 404, 'NOT_FOUND');
  expectProblem(await api.call('GET', `/signals/${randomUUID()}`, { token: owner.token }), 404, 'NOT_FOUND');
  expectProblem(await api.call('PATCH', `/sources/${randomUUID()}`, { token: owner.token, body: { name: 'x' } }), 404, 'NOT_FOUND');
});

test('a body organizationId the caller is not a member of is 404', async () => {
  const res = await api.call('POST', '/sources', {
    token: owner.token,
    body: { organizationId: randomUUID(), providerKey: 'rss', name: 'x', config: { url: 'https://x.example/feed' } },
  });
  expectProblem(res, 404, 'NOT_FOUND');
});

test('a viewer writing is 403 FORBIDDEN; an admin cannot grant ownership', async () => {
  const viewer = await addMember(api, owner, orgId, 'viewer');
  const res = await api.call('POST', '/sources', {
    token: viewer.token,
    body: { organizationId: orgId, providerKey: 'rss', name: 'x', config: { url: 'https://x.example/feed' } },
  });
  expectProblem(res, 403, 'FORBIDDEN');
  const admin = await addMember(api, owner, orgId, 'admin');
  const grant = await api.call('POST', `/organizations/${orgId}/members`, { token: admin.token, body: { userId: randomUUID(), role: 'owner' } });
  expectProblem(grant, 403, 'FORBIDDEN');
  const member = await api.call('POST', `/organizations/${orgId}/members`, { token: admin.token, body: { userId: randomUUID(), role: 'member' } });
  expect(member.status).toBe(201);
});

test('an internal failure is 500 INTERNAL without stack, SQL or driver detail', async () => {
  const broken = await startApi({ db: createDb('postgres://outreach_app@127.0.0.1:9/none', 1) });
  try {
    const res = await broken.call('GET', `/sources?organizationId=${orgId}`, { token: owner.token });
    expectProblem(res, 500, 'INTERNAL');
    const text = JSON.stringify(res.body);
    expect(text).not.toMatch(/ECONNREFUSED|at .*\.ts|select|postgres/i);
    expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
  } finally {
    await broken.close();
  }
});

test('every response carries a request id, and a sane incoming one is kept', async () => {
  const res = await api.call('GET', '/healthz', { headers: { 'x-request-id': 'trace-abc.123' } });
  expect(res.headers.get('x-request-id')).toBe('trace-abc.123');
  const other = await api.call('GET', '/nope', { token: owner.token, headers: { 'x-request-id': 'bad id with spaces' } });
  expect(other.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  expect(other.body.request_id).toBe(other.headers.get('x-request-id'));
});

test('healthz answers without a token; readyz checks PostgreSQL and Temporal', async () => {
  expect((await api.call('GET', '/healthz')).status).toBe(200);
  const ready = await api.call('GET', '/readyz');
  expect(ready.status).toBe(200);
  expect(ready.body).toEqual({ status: 'ready', checks: { postgres: 'ok', temporal: 'ok' } });
  const broken = await startApi({ db: createDb('postgres://outreach_app@127.0.0.1:9/none', 1) });
  try {
    const res = await broken.call('GET', '/readyz');
    expectProblem(res, 503, 'SERVICE_UNAVAILABLE');
    expect(res.body.checks.temporal).toBe('ok');
  } finally {
    await broken.close();
  }
});

describe('the edge: malformed input is a clear 4xx problem, never a 500', () => {
  const idPaths = OPERATIONS.filter((op) => /\{\w+\}/.test(op.path));
  const errorPaths = (res: { body: Schema<'Problem'> }) => (res.body.errors ?? []).map((e) => e.path);

  test('an undecodable percent-escape in a path id is 404 on every route with a path id', async () => {
    expect(idPaths.length).toBeGreaterThanOrEqual(10);
    for (const op of idPaths) {
      for (const bad of ['%zz', '%C0%AF', '%', '%E0%A4%A']) {
        const path = op.path.replace(/\{\w+\}/, bad);
        const res = await api.call(op.method.toUpperCase(), path, {
          token: owner.token,
          ...(op.method === 'get' || op.method === 'delete' ? {} : { body: {} }),
        });
        expect({ route: `${op.method} ${path}`, status: res.status, code: res.body?.code }).toEqual({
          route: `${op.method} ${path}`,
          status: 404,
          code: 'NOT_FOUND',
        });
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      }
    }
  });

  test('a NUL character in a body field at any depth is 400 naming the field', async () => {
    const before = await sourceCount();
    const top = await api.call('POST', '/sources', {
      token: owner.token,
      body: { organizationId: orgId, providerKey: 'rss', name: 'a\u0000b', config: { url: 'https://x.example/feed' } },
    });
    expectProblem(top, 400, 'VALIDATION_FAILED');
    expect(errorPaths(top)).toEqual(['body.name']);
    const deep = await api.call('POST', '/sources', {
      token: owner.token,
      body: { organizationId: orgId, providerKey: 'rss', name: 'deep', config: { url: 'https://x.example/feed', extra: { list: ['ok', 'x\u0000'] } } },
    });
    expectProblem(deep, 400, 'VALIDATION_FAILED');
    expect(errorPaths(deep)).toEqual(['body.config.extra.list.1']);
    const key = await api.call('POST', '/sources', {
      token: owner.token,
      body: { organizationId: orgId, providerKey: 'rss', name: 'key', config: { url: 'https://x.example/feed', 'k\u0000': 1 } },
    });
    expectProblem(key, 400, 'VALIDATION_FAILED');
    expect(errorPaths(key)).toEqual(['body.config']);
    expect(await sourceCount()).toBe(before);
  });

  test('a NUL character in a query parameter is 400 naming it', async () => {
    for (const [path, field] of [
      [`/signals?organizationId=${orgId}&q=warmte%00pomp`, 'query.q'],
      [`/companies?organizationId=${orgId}&domain=%00`, 'query.domain'],
      [`/compliance/audit?organizationId=${orgId}&entity=a%00`, 'query.entity'],
    ] as const) {
      const res = await api.call('GET', path, { token: owner.token });
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(errorPaths(res)).toEqual([field]);
    }
  });

  test('a lone UTF-16 surrogate in a body field is 400 naming the field', async () => {
    for (const bad of ['\ud800', 'x\udfffy', '\udc00\ud800']) {
      const res = await api.call('POST', '/companies', { token: owner.token, body: { organizationId: orgId, name: bad } });
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(errorPaths(res)).toEqual(['body.name']);
    }
    // A well-formed pair is text like any other.
    const ok = await api.call('POST', '/companies', { token: owner.token, body: { organizationId: orgId, name: 'Bouw \ud83c\udfd7 B.V.' } });
    expect(ok.status).toBe(201);
  });

  test('JSON nested deeper than 32 levels in config or mapping is 400; 20 levels pass', async () => {
    const nest = (depth: number): unknown => (depth === 0 ? 'leaf' : depth % 2 ? [nest(depth - 1)] : { a: nest(depth - 1) });
    const before = await sourceCount();
    const deepText = `{"organizationId":"${orgId}","providerKey":"rss","name":"deep","config":{"url":"https://x.example/feed","a":${'['.repeat(5000)}${']'.repeat(5000)}}}`;
    const deep = await api.call('POST', '/sources', { token: owner.token, rawBody: deepText, headers: { 'content-type': 'application/json' } });
    expectProblem(deep, 400, 'VALIDATION_FAILED');
    expect(errorPaths(deep)[0]).toMatch(/^body\.config\.a(\.0)+$/);
    const mapping = await api.call('POST', '/integrations', {
      token: owner.token,
      body: { organizationId: orgId, providerKey: 'hunter', kind: 'enrichment', secret: 's', mapping: nest(200) },
    });
    expectProblem(mapping, 400, 'VALIDATION_FAILED');
    expect(errorPaths(mapping)[0]).toMatch(/^body\.mapping\./);
    expect(await sourceCount()).toBe(before);
    const fine = await api.call('POST', '/sources', {
      token: owner.token,
      body: { organizationId: orgId, providerKey: 'rss', name: 'nested 20', config: { url: 'https://x.example/feed', a: nest(20) } },
    });
    expect(fine.status).toBe(201);
  });

  test('a body whose bytes are not its Content-Encoding is 400; an unknown encoding is 415; a real one works', async () => {
    const post = (encoding: string, bytes: Buffer) =>
      fetch(`${api.url}/organizations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json', 'content-encoding': encoding },
        body: bytes,
      });
    const json = Buffer.from(JSON.stringify({ name: 'Gzipped B.V.' }));
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const res = await post(encoding, Buffer.from('this is not compressed at all'));
      expect({ encoding, status: res.status, type: res.headers.get('content-type') }).toEqual({
        encoding,
        status: 400,
        type: expect.stringMatching(/^application\/problem\+json/),
      });
      expect(((await res.json()) as Schema<'Problem'>).code).toBe('MALFORMED_JSON');
    }
    const truncated = await post('gzip', gzipSync(json).subarray(0, 12));
    expect(truncated.status).toBe(400);
    const unknown = await post('compress', json);
    expect(unknown.status).toBe(415);
    expect(((await unknown.json()) as Schema<'Problem'>).code).toBe('UNSUPPORTED_MEDIA_TYPE');
    for (const [encoding, bytes] of [
      ['gzip', gzipSync(json)],
      ['deflate', deflateSync(json)],
      ['br', brotliCompressSync(json)],
    ] as const) {
      expect({ encoding, status: (await post(encoding, bytes)).status }).toEqual({ encoding, status: 201 });
    }
  });

  test('a mailto that does not decode is 400, not a throw', async () => {
    for (const bad of ['mailto:%zz', 'mailto:%', 'mailto:a%C0%AF@x.nl']) {
      const res = await api.call('PATCH', '/compliance/settings', { token: owner.token, body: { organizationId: orgId, unsubscribeMailto: bad } });
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(errorPaths(res)).toEqual(['body.unsubscribeMailto']);
    }
    const ok = await api.call('PATCH', '/compliance/settings', {
      token: owner.token,
      body: { organizationId: orgId, unsubscribeMailto: 'mailto:afmelden%40acme.nl?subject=stop' },
    });
    expect(ok.status).toBe(200);
  });
});

describe('the edge under concurrency', () => {
  test('eight parallel scoring changes all succeed, each with its own version', async () => {
    const { owner: o, orgId: org } = await newOrganization(api, 'Parallel scoring');
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, i) => api.call('PATCH', '/settings/scoring', { token: o.token, body: { organizationId: org, ignoreBelow: 10 + i } })),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(8).fill(200));
    const versions = replies.map((r) => r.body.config.version).sort((a: number, b: number) => a - b);
    expect(versions).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    const active = await api.call('GET', `/settings/scoring?organizationId=${org}`, { token: o.token });
    expect(active.body.config.version).toBe(9);
    expect(active.body.rules).toHaveLength(replies[0]!.body.rules.length);
  });

  test('eight parallel lawful-basis records for one contact all succeed; exactly one is current', async () => {
    const company = await api.call('POST', '/companies', { token: owner.token, body: { organizationId: orgId, name: 'Parallel Basis B.V.' } });
    const contact = await api.call('POST', '/contacts', {
      token: owner.token,
      body: { organizationId: orgId, companyId: company.body.id, fullName: 'Jan Parallel' },
    });
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        api.call('PUT', `/contacts/${contact.body.id}/lawful-basis`, {
          token: owner.token,
          body: { organizationId: orgId, basis: 'legitimate_interest', recipient_kind: 'legal_person', country: 'NL', assessment: `assessment ${i}` },
        }),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(new Set(replies.map((r) => r.body.id)).size).toBe(8);
    const current = await api.call('GET', `/contacts/${contact.body.id}`, { token: owner.token });
    expect(replies.map((r) => r.body.id)).toContain(current.body.lawful_basis.id);
  });

  test('parallel identical member adds: one 201, the rest 200 with the same membership', async () => {
    const user = randomUUID();
    const replies = await Promise.all(
      Array.from({ length: 8 }, () => api.call('POST', `/organizations/${orgId}/members`, { token: owner.token, body: { userId: user, role: 'member' } })),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    for (const r of replies) expect(r.body).toMatchObject({ organization_id: orgId, user_id: user, role: 'member' });
    expect(new Set(replies.map((r) => r.body.created_at)).size).toBe(1);
    const again = await api.call('POST', `/organizations/${orgId}/members`, { token: owner.token, body: { userId: user, role: 'viewer' } });
    expect(again.status).toBe(200);
    expect(again.body.role).toBe('viewer');
  });
});
