import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SecretBox, secretContext } from '../../db/secrets';
import { startApi, newOrganization, addMember, expectProblem, TestApi } from '../helpers/api';
import { capturedLogger } from '../helpers/log-capture';
import type { FieldError, Schema } from '../helpers/client';
import { startChatServer, ChatServer } from '../helpers/chat-server';
import { startFeedServer, FeedServer } from '../helpers/feed-server';
import { startGzipBomb } from '../helpers/gzip-bomb';
import { startProviderServer, ProviderServer } from '../helpers/provider-server';
import { rssFeed } from '../helpers/rss';
import { testEnv, type TestUser } from '../helpers/tokens';
import { useStack } from '../helpers/stack';

const HUBSPOT_TOKEN = 'pat-eu1-5d0c1e9a-hubspot-secret-value';
let api: TestApi;
let logLines: string[];
let hubspot: ProviderServer;
const { owners } = useStack({ owners: true });
let owner: TestUser;
let orgId: string;

beforeAll(async () => {
  // Everything the API logs, at the most verbose level, goes to logLines.
  const captured = capturedLogger();
  logLines = captured.lines;
  api = await startApi({ logger: captured.logger });
  hubspot = await startProviderServer();
  hubspot.route('GET', '/account-info/v3/details', (req) =>
    req.headers.authorization === `Bearer ${HUBSPOT_TOKEN}`
      ? {
          body: {
            portalId: 26144811,
            accountType: 'STANDARD',
            timeZone: 'Europe/Amsterdam',
            companyCurrency: 'EUR',
            uiDomain: 'app-eu1.hubspot.com',
            dataHostingLocation: 'eu1',
          },
        }
      : {
          status: 401,
          body: {
            status: 'error',
            message:
              'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview',
            correlationId: '0f4a7c55-7a7b-4b2a-9a41-0d5b8f0e8a11',
            category: 'INVALID_AUTHENTICATION',
          },
        },
  );
  ({ owner, orgId } = await newOrganization(api, 'Integrations B.V.'));
});
afterAll(async () => {
  await hubspot.close();
  await api.close();
});

test('a CRM integration: the secret is write-only, encrypted at rest, and verified against the provider', async () => {
  const created = await api.call('POST', '/integrations', {
    token: owner.token,
    body: {
      organizationId: orgId,
      providerKey: 'hubspot',
      kind: 'crm',
      config: { baseUrl: hubspot.url },
      mapping: { company: { name: 'name' } },
      secret: HUBSPOT_TOKEN,
    },
  });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({
    provider_key: 'hubspot',
    kind: 'crm',
    status: 'disconnected',
    config: { baseUrl: hubspot.url },
    mapping: { company: { name: 'name' } },
  });
  expect(Object.keys(created.body)).not.toEqual(expect.arrayContaining(['secret']));

  const tested = await api.call('POST', `/integrations/${created.body.id}/test`, { token: owner.token, body: {} });
  expect(tested.body).toMatchObject({ id: created.body.id, status: 'connected', last_error: null });
  expect(hubspot.requests.at(-1)!.headers.authorization).toBe(`Bearer ${HUBSPOT_TOKEN}`);

  const list = await api.call('GET', `/integrations?organizationId=${orgId}`, { token: owner.token });
  const one = await api.call('GET', `/integrations/${created.body.id}`, { token: owner.token });
  for (const body of [created.body, tested.body, list.body, one.body]) {
    expect(JSON.stringify(body)).not.toContain(HUBSPOT_TOKEN);
    expect(JSON.stringify(body)).not.toContain('secret_ciphertext');
  }

  // At rest: AES-256-GCM ciphertext, bound to its row.
  const row = (await owners.query('SELECT secret_ciphertext FROM integrations WHERE id = $1', [created.body.id])).rows[0];
  expect(row.secret_ciphertext.toString('latin1')).not.toContain(HUBSPOT_TOKEN);
  const box = new SecretBox(testEnv('INTEGRATION_SECRET_KEY'));
  expect(box.open(row.secret_ciphertext, secretContext(orgId, created.body.id))).toBe(HUBSPOT_TOKEN);
  expect(() => box.open(row.secret_ciphertext, secretContext(orgId, '00000000-0000-4000-8000-000000000000'))).toThrow();

  // Never in a log line, whatever was logged.
  expect(logLines.length).toBeGreaterThan(0);
  expect(logLines.join('\n')).not.toContain(HUBSPOT_TOKEN);
});

test('a wrong secret ends in status error with the provider’s message', async () => {
  const created = await api.call('POST', '/integrations', {
    token: owner.token,
    body: { organizationId: orgId, providerKey: 'hubspot', kind: 'crm', config: { baseUrl: hubspot.url }, secret: 'pat-eu1-wrong' },
  });
  const tested = await api.call('POST', `/integrations/${created.body.id}/test`, { token: owner.token, body: {} });
  expect(tested.body).toMatchObject({ status: 'error' });
  expect(tested.body.last_error).toBe(
    'HubSpot 401 INVALID_AUTHENTICATION: Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview',
  );
  const gone = await api.call('POST', '/integrations', {
    token: owner.token,
    body: { organizationId: orgId, providerKey: 'hubspot', kind: 'crm', config: { baseUrl: 'http://127.0.0.1:9' }, secret: 'x' },
  });
  const unreachable = await api.call('POST', `/integrations/${gone.body.id}/test`, { token: owner.token, body: {} });
  expect(unreachable.body).toMatchObject({ status: 'error', last_error: expect.stringContaining('request failed') });
});

test('a provider whose answer is a gzip bomb: a 400 naming config.baseUrl, nothing recorded, and the API does not grow', async () => {
  const bomb = await startGzipBomb(512);
  try {
    for (const [providerKey, kind, config] of [
      ['hubspot', 'crm', { baseUrl: bomb.url }],
      ['hunter', 'enrichment', { baseUrl: bomb.url }],
      ['openai_compatible', 'llm', { baseUrl: bomb.url, model: 'gpt-4o-mini' }],
    ] as const) {
      const created = await api.call('POST', '/integrations', { token: owner.token, body: { organizationId: orgId, providerKey, kind, config, secret: 'k' } });
      expect(created.status).toBe(201);
      const before = process.memoryUsage().rss;
      const tested = await api.call('POST', `/integrations/${created.body.id}/test`, { token: owner.token, body: {} });
      expect(process.memoryUsage().rss - before).toBeLessThan(96 * 1024 * 1024);
      expectProblem(tested, 400, 'VALIDATION_FAILED');
      expect(tested.body.errors).toEqual([{ path: 'config.baseUrl', message: expect.stringContaining('-byte limit') }]);
      const after = await api.call('GET', `/integrations/${created.body.id}`, { token: owner.token });
      expect(after.body).toMatchObject({ status: 'disconnected', last_error: null });
    }
    expect(bomb.requests).toBe(3);
  } finally {
    await bomb.close();
  }
}, 60_000);

test('validation: provider and kind must agree, config per provider, a secret is required; admin only', async () => {
  const res = await api.call('POST', '/integrations', {
    token: owner.token,
    body: { organizationId: orgId, providerKey: 'hubspot', kind: 'llm', config: { apiVersion: 3 }, secret: 'x' },
  });
  expectProblem(res, 400, 'VALIDATION_FAILED');
  expect(res.body.errors.map((e: FieldError) => e.path).sort()).toEqual(['body.config', 'body.kind']);
  const noSecret = await api.call('POST', '/integrations', { token: owner.token, body: { organizationId: orgId, providerKey: 'hubspot', kind: 'crm' } });
  expect(noSecret.body.errors.map((e: FieldError) => e.path)).toEqual(['body.secret']);
  const member = await addMember(api, owner, orgId, 'member');
  expectProblem(
    await api.call('POST', '/integrations', { token: member.token, body: { organizationId: orgId, providerKey: 'hubspot', kind: 'crm', secret: 'x' } }),
    403,
    'FORBIDDEN',
  );
  const other = await newOrganization(api, 'Other tenant');
  const mine = (await api.call('GET', `/integrations?organizationId=${orgId}`, { token: owner.token })).body[0] as Schema<'Integration'>;
  for (const [method, path] of [
    ['GET', `/integrations/${mine.id}`],
    ['POST', `/integrations/${mine.id}/test`],
    ['GET', `/integrations?organizationId=${orgId}`],
    ['PATCH', `/integrations/${mine.id}`],
    ['DELETE', `/integrations/${mine.id}`],
  ] as const) {
    const body = method === 'POST' ? {} : method === 'PATCH' ? { secret: 'x' } : undefined;
    expectProblem(await api.call(method, path, { token: other.owner.token, body }), 404, 'NOT_FOUND');
  }
  expect((await api.call('GET', `/integrations/${mine.id}`, { token: owner.token })).body).toEqual(mine);
});

test('a rotated key: PATCH replaces the sealed secret and the config, the integration is untested until tested again, audited without the secret', async () => {
  const created = await api.call('POST', '/integrations', {
    token: owner.token,
    body: { organizationId: orgId, providerKey: 'hubspot', kind: 'crm', config: { baseUrl: hubspot.url }, secret: 'pat-eu1-old-and-revoked' },
  });
  const id = created.body.id as string;
  expect((await api.call('POST', `/integrations/${id}/test`, { token: owner.token, body: {} })).body).toMatchObject({ status: 'error' });

  // Bad input names the field and changes nothing.
  const bad = await api.call('PATCH', `/integrations/${id}`, { token: owner.token, body: { config: { baseUrl: 'not a url' }, secret: HUBSPOT_TOKEN } });
  expectProblem(bad, 400, 'VALIDATION_FAILED');
  expect(new Set(bad.body.errors.map((e: FieldError) => e.path))).toEqual(new Set(['body.config.baseUrl']));
  expectProblem(await api.call('PATCH', `/integrations/${id}`, { token: owner.token, body: {} }), 400, 'VALIDATION_FAILED');
  expectProblem(await api.call('PATCH', `/integrations/${id}`, { token: owner.token, body: { providerKey: 'salesforce' } }), 400, 'VALIDATION_FAILED');
  const member = await addMember(api, owner, orgId, 'member');
  expectProblem(await api.call('PATCH', `/integrations/${id}`, { token: member.token, body: { secret: HUBSPOT_TOKEN } }), 403, 'FORBIDDEN');
  expectProblem(await api.call('DELETE', `/integrations/${id}`, { token: member.token }), 403, 'FORBIDDEN');
  expect((await api.call('GET', `/integrations/${id}`, { token: owner.token })).body).toMatchObject({ status: 'error', config: { baseUrl: hubspot.url } });
  const sealed = (await owners.query('SELECT secret_ciphertext FROM integrations WHERE id = $1', [id])).rows[0].secret_ciphertext;
  expect(new SecretBox(testEnv('INTEGRATION_SECRET_KEY')).open(sealed, secretContext(orgId, id))).toBe('pat-eu1-old-and-revoked');

  const rotated = await api.call('PATCH', `/integrations/${id}`, {
    token: owner.token,
    body: { config: { baseUrl: hubspot.url, autoSync: true }, secret: HUBSPOT_TOKEN },
  });
  expect(rotated.status).toBe(200);
  expect(rotated.body).toMatchObject({ id, status: 'disconnected', last_error: null, config: { baseUrl: hubspot.url, autoSync: true } });
  expect(JSON.stringify(rotated.body)).not.toContain(HUBSPOT_TOKEN);
  expect((await api.call('POST', `/integrations/${id}/test`, { token: owner.token, body: {} })).body).toMatchObject({ status: 'connected' });
  expect(hubspot.requests.at(-1)!.headers.authorization).toBe(`Bearer ${HUBSPOT_TOKEN}`);

  // A mapping alone leaves the check as it was; a new URL needs the secret again.
  const mapped = await api.call('PATCH', `/integrations/${id}`, { token: owner.token, body: { mapping: { company: { name: 'name' } } } });
  expect(mapped.body).toMatchObject({ status: 'connected', mapping: { company: { name: 'name' } } });
  const moved = await api.call('PATCH', `/integrations/${id}`, { token: owner.token, body: { config: { baseUrl: 'https://elders.example' } } });
  expectProblem(moved, 400, 'VALIDATION_FAILED');
  expect(moved.body.errors.map((e: FieldError) => e.path)).toEqual(['body.secret']);
  expect((await api.call('GET', `/integrations/${id}`, { token: owner.token })).body).toMatchObject({
    status: 'connected',
    config: { baseUrl: hubspot.url, autoSync: true },
  });

  const audit = await owners.query(
    `SELECT action, field, before, after FROM compliance_audit_log WHERE entity = 'integration' AND entity_id = $1 AND field <> 'mapping' ORDER BY field`,
    [id],
  );
  expect(audit.rows).toEqual([
    { action: 'update', field: 'config', before: { baseUrl: hubspot.url }, after: { baseUrl: hubspot.url, autoSync: true } },
    { action: 'update', field: 'secret', before: null, after: 'replaced' },
  ]);
  expect(JSON.stringify(audit.rows)).not.toContain('pat-eu1');
});

test('a check under way when the key is replaced records nothing: the new key is not marked with the old one’s failure', async () => {
  // A HubSpot stand-in that holds its answer (a refusal of the revoked key) until the key has been replaced.
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let asked!: () => void;
  const arrived = new Promise<void>((r) => (asked = r));
  const slow = http.createServer((req, res) => {
    asked();
    void held.then(() =>
      res
        .writeHead(401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: 'error', message: 'Authentication credentials not found.', category: 'INVALID_AUTHENTICATION' })),
    );
  });
  await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
  try {
    const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
    const created = await api.call('POST', '/integrations', {
      token: owner.token,
      body: { organizationId: orgId, providerKey: 'hubspot', kind: 'crm', config: { baseUrl: url }, secret: 'pat-eu1-revoked' },
    });
    const id = created.body.id as string;
    const check = api.call('POST', `/integrations/${id}/test`, { token: owner.token, body: {} });
    await arrived;
    const rotated = await api.call('PATCH', `/integrations/${id}`, { token: owner.token, body: { secret: HUBSPOT_TOKEN } });
    expect(rotated.body).toMatchObject({ status: 'disconnected' });
    release();
    expectProblem(await check, 409, 'CONFLICT');
    expect((await api.call('GET', `/integrations/${id}`, { token: owner.token })).body).toMatchObject({ status: 'disconnected', last_error: null });
  } finally {
    release();
    slow.closeAllConnections();
    await new Promise((r) => slow.close(r));
  }
});

test('DELETE removes an integration and its sealed secret, audited; it is gone for every later call', async () => {
  const created = await api.call('POST', '/integrations', {
    token: owner.token,
    body: { organizationId: orgId, providerKey: 'hubspot', kind: 'crm', config: { baseUrl: hubspot.url }, secret: HUBSPOT_TOKEN },
  });
  const id = created.body.id as string;
  const gone = await api.call('DELETE', `/integrations/${id}`, { token: owner.token });
  expect(gone.status).toBe(204);
  expectProblem(await api.call('GET', `/integrations/${id}`, { token: owner.token }), 404, 'NOT_FOUND');
  expectProblem(await api.call('POST', `/integrations/${id}/test`, { token: owner.token, body: {} }), 404, 'NOT_FOUND');
  expectProblem(await api.call('DELETE', `/integrations/${id}`, { token: owner.token }), 404, 'NOT_FOUND');
  expect((await owners.query('SELECT count(*)::int AS n FROM integrations WHERE id = $1', [id])).rows[0].n).toBe(0);
  const audit = await owners.query(`SELECT action, field, before FROM compliance_audit_log WHERE entity = 'integration' AND entity_id = $1 ORDER BY field`, [
    id,
  ]);
  expect(audit.rows).toEqual([
    { action: 'delete', field: 'kind', before: 'crm' },
    { action: 'delete', field: 'provider_key', before: 'hubspot' },
  ]);
});

describe('an organization’s llm integration classifies its signals', () => {
  let chat: ChatServer;
  let feeds: FeedServer;
  beforeAll(async () => {
    chat = await startChatServer('org-model-7b');
    feeds = await startFeedServer();
  });
  afterAll(async () => {
    await chat.close();
    await feeds.close();
  });

  test('connected through /models, then used by the classification stage', async () => {
    const { owner, orgId } = await newOrganization(api, 'LLM user B.V.');
    const created = await api.call('POST', '/integrations', {
      token: owner.token,
      body: {
        organizationId: orgId,
        providerKey: 'openai_compatible',
        kind: 'llm',
        config: { baseUrl: chat.baseUrl, model: 'org-model-7b' },
        secret: 'sk-org-secret',
      },
    });
    chat.reply(
      JSON.stringify({
        commercial_relevance: true,
        relevance_reasons: ['school renovation'],
        project_category: 'education',
        project_stage: 'tender',
        estimated_size_eur: 2500000,
        confidence: 0.77,
        fit_matches: [],
      }),
    );
    feeds.set('/llm.xml', { body: rssFeed('LLM', [{ guid: 'llm-1', title: 'Tender: renovatie basisschool De Regenboog', pubDate: new Date() }]) });
    const src = await api.call('POST', '/sources', {
      token: owner.token,
      body: { organizationId: orgId, providerKey: 'rss', name: 'LLM feed', config: { url: `${feeds.url}/llm.xml` } },
    });
    const run = await api.call('POST', `/sources/${src.body.id}/run`, { token: owner.token, body: {} });
    const outcome = await api.temporal.workflow.getHandle(run.body.workflow_id, run.body.run_id).result();
    await api.temporal.workflow.getHandle(`signal/${outcome.signalIds[0]}`).result();
    const detail = (await api.call('GET', `/signals/${outcome.signalIds[0]}`, { token: owner.token })).body as Schema<'SignalDetail'>;
    expect(detail.classification).toMatchObject({
      model: 'org-model-7b',
      prompt_key: 'signal-classification',
      project_category: 'education',
      confidence: 0.77,
    });
    expect(chat.requests.at(-1)!.headers.authorization).toBe('Bearer sk-org-secret');
    expect(created.status).toBe(201);
  });
});
