import { randomUUID } from 'node:crypto';
import { createDb } from '../db/pool';
import { addMember, expectProblem, newOrganization, startApi, TestApi } from './helpers/api';
import type { TestUser } from './helpers/tokens';

/** Every error path of the API edge answers problem+json (shared/api-contract.md) and changes nothing. */
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
  const paths = res.body.errors.map((e: { path: string }) => e.path);
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
  expect(q.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['query.limit', 'query.status']);
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
