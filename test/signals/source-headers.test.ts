import http from 'node:http';
import { createDb, DB } from '../../db/pool';
import { expectProblem, newOrganization, startApi, TestApi } from '../helpers/api';
import { capturedLogger } from '../helpers/log-capture';
import type { FieldError } from '../helpers/client';
import { testEnv, TestUser } from '../helpers/tokens';

/** A JSON API on 127.0.0.1 that records the headers of every request. */
let seen: http.IncomingHttpHeaders[] = [];
let server: http.Server;
let apiUrl: string;
let api: TestApi;
let owner: TestUser;
let orgId: string;
let ownerDb: DB;
let logLines: string[];

const KEY = 'k-7f3a9c1e-api-key';
const TOKEN = 'tok-51b2d8e4-bearer';

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ items: [{ id: `x-${seen.length}`, title: `Tender ${seen.length}` }] }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  apiUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/tenders`;
  // Every log line the API writes, at the most verbose level, to check that header values never appear.
  const captured = capturedLogger();
  logLines = captured.lines;
  api = await startApi({ logger: captured.logger });
  ({ owner, orgId } = await newOrganization(api));
  ownerDb = createDb(testEnv('TEST_OWNER_DB_URL'), 1);
});
afterAll(async () => {
  await api.close();
  await ownerDb.destroy();
  await new Promise((r) => server.close(r));
});

const config = (extra: Record<string, unknown> = {}) => ({ url: apiUrl, itemsPath: 'items', fields: { externalId: 'id', title: 'title' }, ...extra });
const call = (method: string, path: string, body?: unknown) => api.call(method, path, { token: owner.token, body });

async function run(sourceId: string) {
  const started = await call('POST', `/sources/${sourceId}/run`, {});
  expect(started.status).toBe(202);
  return api.temporal.workflow.getHandle(started.body.workflow_id, started.body.run_id).result();
}

test('json_api headers are sent with the fetch, stored sealed, and answered by name only', async () => {
  const created = await call('POST', '/sources', {
    organizationId: orgId,
    providerKey: 'json_api',
    name: 'Keyed API',
    config: config({ headers: { 'X-Api-Key': KEY, Authorization: `Bearer ${TOKEN}` } }),
  });
  expect(created.status).toBe(201);
  expect(created.body.header_names).toEqual(['X-Api-Key', 'Authorization']);
  expect(created.body.config).toEqual(config());

  seen = [];
  expect(await run(created.body.id)).toMatchObject({ status: 'succeeded', created: 1 });
  expect(seen).toHaveLength(1);
  expect({ key: seen[0]!['x-api-key'], auth: seen[0]!.authorization }).toEqual({ key: KEY, auth: `Bearer ${TOKEN}` });

  // Never answered, never logged, never readable in the row.
  const answers = [created, await call('GET', `/sources/${created.body.id}`), await call('GET', `/sources?organizationId=${orgId}`)];
  for (const a of answers) {
    expect(a.status).toBeLessThan(300);
    expect(JSON.stringify(a.body)).not.toMatch(new RegExp(`${KEY}|${TOKEN}`));
  }
  expect((await call('GET', `/sources/${created.body.id}`)).body.header_names).toEqual(['X-Api-Key', 'Authorization']);
  expect(logLines.length).toBeGreaterThan(0);
  expect(logLines.join('')).not.toMatch(new RegExp(`${KEY}|${TOKEN}`));
  const row = await ownerDb
    .selectFrom('sources')
    .select(['config', 'secret_headers', 'header_names'])
    .where('id', '=', created.body.id)
    .executeTakeFirstOrThrow();
  expect(JSON.stringify(row.config)).not.toContain(KEY);
  expect(row.secret_headers!.toString('latin1')).not.toMatch(new RegExp(`${KEY}|${TOKEN}`));
});

test('a config sent back without headers keeps them; headers {} removes them', async () => {
  const created = (
    await call('POST', '/sources', { organizationId: orgId, providerKey: 'json_api', name: 'Patched API', config: config({ headers: { 'X-Api-Key': KEY } }) })
  ).body;
  const patched = await call('PATCH', `/sources/${created.id}`, { config: { ...config(), itemsPath: 'items' } });
  expect(patched.status).toBe(200);
  expect(patched.body.header_names).toEqual(['X-Api-Key']);
  seen = [];
  await run(created.id);
  expect(seen[0]!['x-api-key']).toBe(KEY);

  const cleared = await call('PATCH', `/sources/${created.id}`, { config: config({ headers: {} }) });
  expect(cleared.body.header_names).toEqual([]);
  seen = [];
  await run(created.id);
  expect(seen[0]!['x-api-key']).toBeUndefined();
});

test('a sealed header set is bound to its source: copied to another row it does not open', async () => {
  const a = (await call('POST', '/sources', { organizationId: orgId, providerKey: 'json_api', name: 'A', config: config({ headers: { 'X-Api-Key': KEY } }) }))
    .body;
  const b = (await call('POST', '/sources', { organizationId: orgId, providerKey: 'json_api', name: 'B', config: config() })).body;
  const sealed = (await ownerDb.selectFrom('sources').select('secret_headers').where('id', '=', a.id).executeTakeFirstOrThrow()).secret_headers;
  await ownerDb
    .updateTable('sources')
    .set({ secret_headers: sealed, header_names: ['X-Api-Key'] })
    .where('id', '=', b.id)
    .execute();
  seen = [];
  await run(b.id).catch(() => undefined);
  expect(seen).toHaveLength(0);
  const after = (await call('GET', `/sources/${b.id}`)).body;
  expect({ status: after.last_run_status, error: after.last_error }).toEqual({ status: 'failed', error: expect.stringMatching(/cannot be decrypted/) });
});

test('bad headers are a 400 naming the header; headers on a provider that cannot send them are refused', async () => {
  const post = (headers: unknown, providerKey = 'json_api') =>
    call('POST', '/sources', {
      organizationId: orgId,
      providerKey,
      name: 'Bad',
      config: providerKey === 'json_api' ? config({ headers }) : { url: apiUrl, headers },
    });
  const crlf = await post({ 'X-Api-Key': 'a\r\nX-Injected: 1' });
  expectProblem(crlf, 400, 'VALIDATION_FAILED');
  expect(crlf.body.errors.map((e: FieldError) => e.path)).toEqual(['body.config.headers.X-Api-Key']);
  const name = await post({ 'Bad Name': 'v' });
  expectProblem(name, 400, 'VALIDATION_FAILED');
  const host = await post({ Host: 'internal' });
  expectProblem(host, 400, 'VALIDATION_FAILED');
  expect(JSON.stringify(host.body.errors)).toMatch(/set by the service/);
  const rss = await post({ 'X-Api-Key': KEY }, 'rss');
  expectProblem(rss, 400, 'VALIDATION_FAILED');
  expect(rss.body.errors).toEqual([{ path: 'body.config.headers', message: 'request headers are supported for json_api sources only' }]);
});

test('pointing a source at another origin cannot send its sealed headers there', async () => {
  const elsewhere: http.IncomingHttpHeaders[] = [];
  const other = http.createServer((req, res) => {
    elsewhere.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ items: [] }));
  });
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
  const otherUrl = `http://127.0.0.1:${(other.address() as { port: number }).port}/collect`;
  try {
    // Through the API: a new origin without new headers drops the stored ones.
    const viaApi = (
      await call('POST', '/sources', { organizationId: orgId, providerKey: 'json_api', name: 'Moved API', config: config({ headers: { 'X-Api-Key': KEY } }) })
    ).body;
    const moved = await call('PATCH', `/sources/${viaApi.id}`, { config: config({ url: otherUrl }) });
    expect(moved.body.header_names).toEqual([]);
    await run(viaApi.id);
    expect(elsewhere).toHaveLength(1);
    expect(elsewhere[0]!['x-api-key']).toBeUndefined();

    // Behind the API's back (the row's URL changed directly): the headers are sealed for the old origin and do not open.
    const direct = (
      await call('POST', '/sources', {
        organizationId: orgId,
        providerKey: 'json_api',
        name: 'Rewritten API',
        config: config({ headers: { 'X-Api-Key': KEY } }),
      })
    ).body;
    await ownerDb
      .updateTable('sources')
      .set({ config: JSON.stringify(config({ url: otherUrl })) })
      .where('id', '=', direct.id)
      .execute();
    await run(direct.id).catch(() => undefined);
    expect(elsewhere).toHaveLength(1);
    expect((await call('GET', `/sources/${direct.id}`)).body.last_error).toMatch(/cannot be decrypted/);
  } finally {
    await new Promise((r) => other.close(r));
  }
});
