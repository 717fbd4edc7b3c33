import type { Express } from 'express';
import { OPERATIONS } from '../apps/api/openapi';
import { startApi, TestApi } from './helpers/api';

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

/** Every route the Express app serves, as "METHOD /path/{param}". */
function routesOf(app: Express): string[] {
  const out: string[] = [];
  const walk = (stack: any[]) => { // eslint-disable-line @typescript-eslint/no-explicit-any
    for (const layer of stack) {
      if (layer.route) {
        for (const m of Object.keys(layer.route.methods)) out.push(`${m.toUpperCase()} ${String(layer.route.path).replace(/:(\w+)/g, '{$1}')}`);
      } else if (layer.handle?.stack) walk(layer.handle.stack);
    }
  };
  walk((app as unknown as { router: { stack: unknown[] } }).router.stack);
  return out;
}

test('GET /openapi.json lists every endpoint the API serves, with request schemas from the validators', async () => {
  const res = await api.call('GET', '/openapi.json');
  expect(res.status).toBe(200);
  expect(res.body.openapi).toBe('3.1.0');
  const documented = Object.entries(res.body.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
  const served = routesOf(api.app);
  expect(served.length).toBeGreaterThan(40);
  expect(served.filter((r) => !documented.includes(r))).toEqual([]);
  expect(documented.filter((r) => !served.includes(r))).toEqual([]);
  expect(documented).toHaveLength(OPERATIONS.length);

  const createSource = res.body.paths['/sources'].post.requestBody.content['application/json'].schema;
  expect(createSource.required).toEqual(expect.arrayContaining(['organizationId', 'providerKey', 'name', 'config']));
  expect(createSource.properties.providerKey.enum).toEqual(['rss', 'json_api', 'bekendmakingen']);
  const listSignals = res.body.paths['/signals'].get.parameters.map((p: { name: string }) => p.name);
  expect(listSignals).toEqual(expect.arrayContaining(['organizationId', 'status', 'projectId', 'q', 'limit', 'before']));
});
