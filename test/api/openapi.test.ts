import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Express, Router } from 'express';
import { boundOperations } from '../../apps/api/bind';
import { OPERATIONS } from '../../apps/api/openapi';
import { startApi, TestApi } from '../helpers/api';
import { contractViolation } from '../helpers/contract';

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

type Json = Record<string, any>;
const ROOT = path.resolve(__dirname, '../..');

/** Every route the Express app serves, as "METHOD /path/{param}". */
function routesOf(app: Express): string[] {
  const out: string[] = [];
  const walk = (stack: any[]) => {
    for (const layer of stack) {
      if (layer.route) {
        for (const m of Object.keys(layer.route.methods)) out.push(`${m.toUpperCase()} ${String(layer.route.path).replace(/:(\w+)/g, '{$1}')}`);
      } else if (layer.handle?.stack) walk(layer.handle.stack);
      else if (layer.handle?.routers) for (const router of layer.handle.routers) walk(router.stack); // apps/api/route-dispatch.ts
    }
  };
  walk((app as unknown as { router: { stack: unknown[] } }).router.stack);
  return out;
}

/** The routers behind the app's dispatches (apps/api/route-dispatch.ts). */
function routersOf(app: Express): Router[] {
  const out: Router[] = [];
  const walk = (stack: any[]) => {
    for (const layer of stack) {
      if (layer.handle?.routers) out.push(...layer.handle.routers);
      else if (layer.handle?.stack) walk(layer.handle.stack);
    }
  };
  walk((app as unknown as { router: { stack: unknown[] } }).router.stack);
  return out;
}

async function servedDocument(): Promise<Json> {
  const res = await api.call('GET', '/openapi.json');
  expect(res.status).toBe(200);
  return res.body;
}

function operationsOf(doc: Json): Array<{ key: string; op: Json }> {
  return Object.entries(doc.paths as Json).flatMap(([p, ops]) =>
    Object.entries(ops as Json).map(([m, op]) => ({ key: `${m.toUpperCase()} ${p}`, op: op as Json })),
  );
}

test('GET /openapi.json lists every endpoint the API serves, with request schemas from the validators', async () => {
  const doc = await servedDocument();
  expect(doc.openapi).toBe('3.1.0');
  const documented = operationsOf(doc).map((o) => o.key);
  const served = routesOf(api.app);
  expect(served.length).toBeGreaterThan(40);
  expect(served.filter((r) => !documented.includes(r))).toEqual([]);
  expect(documented.filter((r) => !served.includes(r))).toEqual([]);
  expect(documented).toHaveLength(OPERATIONS.length);

  const createSource = doc.paths['/sources'].post.requestBody.content['application/json'].schema;
  expect(createSource.required).toEqual(expect.arrayContaining(['organizationId', 'providerKey', 'name', 'config']));
  expect(createSource.properties.providerKey.enum).toEqual(['rss', 'json_api', 'bekendmakingen']);
  const listSignals = doc.paths['/signals'].get.parameters.map((p: { name: string }) => p.name);
  expect(listSignals).toEqual(expect.arrayContaining(['organizationId', 'status', 'projectId', 'q', 'limit', 'before']));
});

test('every operation has a readable operationId, a tag, a 2xx answer with its schema, its problem answers and its security', async () => {
  const doc = await servedDocument();
  expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
  expect(doc.info.license).toEqual(expect.objectContaining({ name: expect.any(String) }));
  const tags = (doc.tags as Json[]).map((t) => t.name);
  const ids = new Set<string>();
  const problem = { $ref: '#/components/schemas/Problem' };
  for (const { key, op } of operationsOf(doc)) {
    const where = `${key} (${op.operationId})`;
    expect([where, op.operationId]).toEqual([where, expect.stringMatching(/^[a-z]+[A-Z][A-Za-z]+$/)]);
    expect(ids.has(op.operationId)).toBe(false);
    ids.add(op.operationId);
    expect([where, tags]).toEqual([where, expect.arrayContaining(op.tags)]);

    const success = Object.entries(op.responses as Json).filter(([status]) => /^2\d\d$/.test(status));
    expect([where, success.length > 0]).toEqual([where, true]);
    for (const [status, response] of success) {
      if (status === '204') continue; // no body (a DELETE)
      const [media, { schema }] = Object.entries(response.content as Json)[0]! as [string, Json];
      // A JSON answer is a named record (or an array of one) of components/schemas.
      if (media === 'application/json')
        expect([where, schema.$ref ?? schema.items?.$ref]).toEqual([where, expect.stringMatching(/^#\/components\/schemas\/\w+$/)]);
      else expect([where, media, schema]).toEqual([where, expect.stringMatching(/^text\/(html|plain)$/), { type: 'string' }]);
    }

    const problems = Object.keys(op.responses).filter((s) => /^[45]\d\d$/.test(s));
    for (const status of problems) {
      // A public page's refusal is a page of its own (the OAuth callback's 403), not a problem.
      if (!op.responses[status].$ref) {
        expect([where, status, op.responses[status].content]).toEqual([where, status, { 'text/html': { schema: { type: 'string' } } }]);
        continue;
      }
      const ref = op.responses[status].$ref.replace('#/components/responses/', '');
      expect([where, status, doc.components.responses[ref].content]).toEqual([where, status, { 'application/problem+json': { schema: problem } }]);
    }
    const open = [
      '/healthz',
      '/readyz',
      '/openapi.json',
      '/docs',
      '/u/{token}',
      '/webhooks/calcom/{calcomIntegrationId}',
      '/webhooks/calendly/{calendlyIntegrationId}',
      '/mailboxes/oauth/callback',
    ].includes(key.split(' ')[1]!);
    const metrics = key === 'GET /metrics';
    expect([where, op.security]).toEqual([where, open ? [] : metrics ? [{ metricsToken: [] }] : [{ bearer: [] }]]);
    if (metrics) expect([where, problems]).toEqual([where, ['401', '404', '500']]);
    else if (!open) expect([where, problems]).toEqual([where, expect.arrayContaining(['401', '429', '500'])]);
    if (op.requestBody) expect([where, problems]).toEqual([where, expect.arrayContaining(['400', '413', '415'])]);
    if (/\{\w+\}/.test(key)) expect([where, problems]).toEqual([where, expect.arrayContaining(['404'])]);
  }
  expect(doc.paths['/readyz'].get.responses['503']).toBeDefined();
  expect(ids.size).toBe(OPERATIONS.length);
  expect([...ids]).toEqual(expect.arrayContaining(['listSignals', 'getSignal', 'ignoreSignal', 'reprocessSignal', 'createOrganization', 'getApiReference']));
});

test('every route is bound from its operation (apps/api/bind.ts), and every operation once: method and path are written only in the operation', () => {
  const routers = routersOf(api.app);
  const bound = routers.flatMap((router) => boundOperations(router));
  expect([...bound].sort()).toEqual(OPERATIONS.map((op) => op.id).sort());
  const routes = routers.flatMap((router) => (router.stack as any[]).filter((layer) => layer.route).flatMap((layer) => Object.keys(layer.route.methods)));
  expect(routes).toHaveLength(bound.length);
});

test('the records answered are described field by field: timestamps as date-time, nullable columns as null', async () => {
  const doc = await servedDocument();
  const signal = doc.components.schemas.Signal;
  expect(signal.required).toEqual(expect.arrayContaining(['id', 'status', 'title', 'published_at', 'current_score', 'created_at']));
  expect(signal.properties.created_at).toEqual({ type: 'string', format: 'date-time' });
  expect(signal.properties.published_at).toEqual({ anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] });
  expect(signal.properties.current_score).toEqual({ type: ['number', 'null'] });
  expect(signal.properties.status.enum).toContain('ignored');
  // Open objects: a client must accept fields added later.
  expect(signal.additionalProperties).toBeUndefined();
  expect(doc.paths['/signals'].get.responses['200'].content['application/json'].schema).toEqual({
    type: 'array',
    items: { $ref: '#/components/schemas/Signal' },
  });
});

test('answers that do not match the document are refused with a readable reason', () => {
  const signal = {
    id: '00000000-0000-4000-8000-000000000001',
    organization_id: '00000000-0000-4000-8000-000000000002',
    source_id: '00000000-0000-4000-8000-000000000003',
    raw_publication_id: null,
    project_id: null,
    external_id: 'x',
    status: 'ingested',
    signal_type: 'permit',
    title: 't',
    summary: null,
    published_at: null,
    effective_start: null,
    effective_end: null,
    source_url: null,
    current_score: null,
    dedupe_key: 'k',
    created_at: '2026-11-21T08:00:00.000Z',
    updated_at: '2026-11-21T08:00:00.000Z',
  };
  const json = 'application/json; charset=utf-8';
  const path = `/signals/${signal.id}/ignore`;
  expect(contractViolation('POST', path, 200, json, signal)).toBeNull();
  expect(contractViolation('POST', path, 200, json, { ...signal, secret: 'x' })).toMatch(/must NOT have additional properties: secret/);
  expect(contractViolation('POST', path, 200, json, { ...signal, created_at: '21-11-2026' })).toMatch(/\/created_at must match format "date-time"/);
  expect(contractViolation('POST', path, 200, json, { ...signal, current_score: '3' })).toMatch(/\/current_score must be number,null/);
  expect(contractViolation('POST', path, 418, 'application/problem+json', {})).toMatch(/418, which ignoreSignal .* does not document/);
  expect(contractViolation('POST', path, 404, json, { code: 'NOT_FOUND' })).toMatch(
    /Content-Type application\/json; the document says application\/problem\+json/,
  );
  expect(contractViolation('GET', '/nowhere', 200, json, {})).toMatch(/has no operation GET for this path/);
});

test('Redocly lint (recommended rules, redocly.yaml) finds no error and no warning in the served document', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'openapi-lint-'));
  try {
    const file = path.join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(await servedDocument(), null, 2));
    const cli = path.join(ROOT, 'node_modules/.bin/redocly');
    const { stdout } = await promisify(execFile)(cli, ['lint', file, '--config', path.join(ROOT, 'redocly.yaml'), '--format', 'json'], { cwd: ROOT }).catch(
      (e: { stdout: string }) => ({ stdout: e.stdout }), // exits 1 on errors: the report says which
    );
    const report = JSON.parse(stdout.slice(stdout.indexOf('{')));
    const problems = (report.problems as Json[]).map((p) => `${p.severity} ${p.ruleId} ${p.location?.[0]?.pointer}: ${p.message}`);
    expect(problems).toEqual([]);
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the typed client (test/helpers/openapi-types.ts) is generated from the current document: else run `npm run openapi:types`', async () => {
  // openapi-typescript loads ESM-only modules, which Jest's module system cannot: it runs in its own process.
  const tsx = path.join(ROOT, 'node_modules/.bin/tsx');
  const outcome = await promisify(execFile)(tsx, ['scripts/openapi-types.ts', '--check'], { cwd: ROOT }).then(
    () => 'up to date',
    (e: { stderr: string }) => e.stderr.trim(),
  );
  expect(outcome).toBe('up to date');
});
