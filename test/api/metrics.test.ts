import { ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../../apps/shared/config';
import { WorkflowStarter } from '../../apps/shared/temporal';
import { expectProblem, newOrganization, startApi, TestApi } from '../helpers/api';
import { startFeedServer } from '../helpers/feed-server';
import { freePort } from '../helpers/ports';
import { testEnv } from '../helpers/tokens';

/** One sample's value in Prometheus text: `name{labels} value` (labels in any order). */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return undefined;
}

describe('API metrics', () => {
  let api: TestApi;
  afterEach(() => api.close());

  test('GET /metrics: requests by method, route template and status with durations, the pool, process metrics; never raw ids', async () => {
    api = await startApi({ metricsAccess: { public: true } });
    const { owner, orgId } = await newOrganization(api);
    const missing = randomUUID();
    await api.call('GET', `/signals/${missing}`, { token: owner.token }); // 404 from the route
    await api.call('GET', `/signals?organizationId=${orgId}`, { token: owner.token }); // 200
    await api.call('GET', `/sources/${missing}`); // 401 before any route: still its template
    await api.call('GET', `/no/such/${missing}`, { token: owner.token }); // 404, no route

    const res = await fetch(`${api.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(sample(text, 'http_requests_total', { method: 'GET', route: '/signals/:signalId', status: '404' })).toBe(1);
    expect(sample(text, 'http_requests_total', { method: 'GET', route: '/signals', status: '200' })).toBe(1);
    expect(sample(text, 'http_requests_total', { method: 'GET', route: '/sources/:sourceId', status: '401' })).toBe(1);
    expect(sample(text, 'http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(sample(text, 'http_requests_total', { method: 'POST', route: '/organizations', status: '201' })).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_count', { method: 'GET', route: '/signals/:signalId', status: '404' })).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_bucket', { route: '/signals', le: '+Inf' })).toBe(1);
    expect(text).not.toContain(missing);
    expect(text).not.toContain(orgId);
    // The pool behind the API's db (startApi: 5 connections).
    expect(sample(text, 'db_pool_max_connections', {})).toBe(5);
    // No query is in flight while /metrics answers: every connection the pool holds is idle.
    const total = sample(text, 'db_pool_connections', { state: 'total' });
    expect(total).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'db_pool_connections', { state: 'idle' })).toBe(total);
    expect(sample(text, 'db_pool_waiting_requests', {})).toBe(0);
    expect(sample(text, 'process_cpu_user_seconds_total', {})).toBeGreaterThan(0);
    expect(sample(text, 'nodejs_eventloop_lag_seconds', {})).toBeDefined();
  });

  test('with METRICS_TOKEN, /metrics needs it (even when public); without one it is not served unless METRICS_PUBLIC=true', async () => {
    const token = 'metrics-token-0123456789';
    api = await startApi({ metricsAccess: { token, public: true } });
    expectProblem(await api.call('GET', '/metrics'), 401, 'UNAUTHENTICATED');
    expectProblem(await api.call('GET', '/metrics', { headers: { authorization: 'Bearer wrong-token-0123456789' } }), 401, 'UNAUTHENTICATED');
    const ok = await api.call('GET', '/metrics', { headers: { authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatch(/http_requests_total/);
    await api.close();
    // Not opened: not served, in development as in production; the configuration's default is closed.
    for (const NODE_ENV of ['development', 'test', 'production']) {
      const config = loadConfig({ NODE_ENV });
      expect(config.METRICS_PUBLIC).toBe('false');
      await api.close();
      api = await startApi({ metricsAccess: { token: config.METRICS_TOKEN, public: config.METRICS_PUBLIC === 'true' } });
      expectProblem(await api.call('GET', '/metrics'), 404, 'NOT_FOUND');
    }
    await api.close();
    api = await startApi({ metricsAccess: { public: loadConfig({ METRICS_PUBLIC: 'true' }).METRICS_PUBLIC === 'true' } });
    expect((await api.call('GET', '/metrics')).status).toBe(200);
  });

  test('the app without a metrics rule serves nothing', async () => {
    api = await startApi();
    expectProblem(await api.call('GET', '/metrics'), 404, 'NOT_FOUND');
  });
});

/** The real worker process with its metrics endpoint, on a task queue of its own. */
function startWorker(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.resolve(__dirname, '../../apps/worker/main.ts')], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const timer = setTimeout(() => reject(new Error(`worker did not start:\n${output}`)), 90_000);
    const onData = (b: Buffer) => {
      output = (output + b.toString()).slice(-8000);
      if (output.includes('worker started')) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited (${code}):\n${output}`));
    });
  });
}

const WORKER_METRICS_TOKEN = 'worker-metrics-token-0123456789';

test('worker metrics: activity outcomes by type and task queue, durations, the pool, and the Temporal SDK runtime’s metrics', async () => {
  const port = await freePort();
  const taskQueue = `${testEnv('TEMPORAL_TASK_QUEUE')}-metrics`;
  const worker = await startWorker({
    ...process.env,
    WORKER_DATABASE_URL: testEnv('TEST_WORKER_DB_URL'),
    DATABASE_URL: testEnv('TEST_OWNER_DB_URL'),
    TEMPORAL_TASK_QUEUE: taskQueue,
    WORKER_METRICS_PORT: String(port),
    METRICS_TOKEN: WORKER_METRICS_TOKEN,
    LOG_LEVEL: 'info',
  });
  const connection = await Connection.connect({ address: testEnv('TEMPORAL_ADDRESS') });
  const client = new Client({ connection });
  const feeds = await startFeedServer();
  const api = await startApi({ workflows: new WorkflowStarter(client, { TEMPORAL_TASK_QUEUE: taskQueue, INGEST_RETRY_INITIAL_INTERVAL_MS: 200 }) });
  try {
    feeds.set('/permits.xml', { fixture: 'feeds/permits-rss.xml' });
    feeds.set('/gone.xml', { body: 'gone', status: 404 });
    const { owner, orgId } = await newOrganization(api);
    const run = async (name: string, url: string) => {
      const src = await api.call('POST', '/sources', { token: owner.token, body: { organizationId: orgId, providerKey: 'rss', name, config: { url } } });
      const started = await api.call('POST', `/sources/${src.body.id}/run`, { token: owner.token, body: {} });
      return client.workflow
        .getHandle(started.body.workflow_id, started.body.run_id)
        .result()
        .catch((e: Error) => e);
    };
    await run('Permits', `${feeds.url}/permits.xml`);
    await run('Gone', `${feeds.url}/gone.xml`); // HTTP 404: the fetch fails for good

    // The worker's metrics need the token too.
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(401);
    expect((await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status).toBe(401);
    const res = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${WORKER_METRICS_TOKEN}` } });
    expect(res.status).toBe(200);
    const text = await res.text();
    const outcome = (activity: string, result: string) =>
      sample(text, 'outreach_activity_executions_total', { activity_type: activity, task_queue: taskQueue, outcome: result });
    expect(outcome('ingestSource', 'completed')).toBe(1);
    expect(outcome('ingestSource', 'failed')).toBe(1);
    expect(sample(text, 'outreach_activity_duration_seconds_count', { activity_type: 'ingestSource', task_queue: taskQueue, outcome: 'completed' })).toBe(1);
    expect(sample(text, 'db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'process_resident_memory_bytes', {})).toBeGreaterThan(0);
    // The SDK's own metrics (served by its Core on a loopback port, appended to the same answer).
    expect(text).toMatch(/^temporal_\w+/m);
    expect(text).toMatch(new RegExp(`^temporal_activity_execution_failed\\{[^}]*activity_type="ingestSource"`, 'm'));
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
  } finally {
    await api.close();
    await feeds.close();
    worker.kill('SIGTERM');
    await new Promise((r) => worker.once('exit', r));
    // The worker re-pointed the shared reconcile schedule at its queue: point it back at the suite's.
    await new WorkflowStarter(client, loadConfig(process.env)).ensureReconcileSchedule();
    await connection.close();
  }
});
