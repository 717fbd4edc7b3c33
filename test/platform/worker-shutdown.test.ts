import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { WorkflowStarter } from '../../apps/shared/temporal';
import { temporalConnectionOptions, temporalConnectionEnv } from '../../apps/shared/temporal-connection';
import { newOrganization, startApi } from '../helpers/api';
import { testEnv } from '../helpers/tokens';
import { startWorkerProcess, workerEnv } from '../helpers/worker-process';

/**
 * SIGTERM drains the worker (apps/worker/main.ts): an activity under way when the signal comes runs
 * to its end on that worker, its result is recorded in the workflow's history (its first attempt, not
 * a retry elsewhere), and the process then exits by itself, 0, within a bounded time (the Workers'
 * shutdownGraceTime is 20 s).
 */
test('a worker given SIGTERM while an activity runs finishes it, records its result and exits 0 in bounded time', async () => {
  const taskQueue = `${testEnv('TEMPORAL_TASK_QUEUE')}-drain`;
  const feed = readFileSync(path.resolve(__dirname, '../fixtures/feeds/permits-rss.xml'), 'utf8');
  // A feed that answers only when released: the ingest activity is under way until then.
  let arrived!: () => void;
  const requested = new Promise<void>((r) => (arrived = r));
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const server = http.createServer((_req, res) => {
    arrived();
    void released.then(() => res.writeHead(200, { 'content-type': 'application/rss+xml' }).end(feed));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const feedUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/permits.xml`;

  const worker = await startWorkerProcess(workerEnv(taskQueue));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    worker.once('exit', (code, signal) => resolve({ code, signal, at: performance.now() })),
  );
  const connection = await Connection.connect(temporalConnectionOptions(temporalConnectionEnv(process.env)));
  const client = new Client({ connection });
  const api = await startApi({ workflows: new WorkflowStarter(client, { TEMPORAL_TASK_QUEUE: taskQueue, INGEST_RETRY_INITIAL_INTERVAL_MS: 200 }) });
  try {
    const { owner, orgId } = await newOrganization(api);
    const src = await api.call('POST', '/sources', {
      token: owner.token,
      body: { organizationId: orgId, providerKey: 'rss', name: 'Slow permits', config: { url: feedUrl } },
    });
    const started = await api.call('POST', `/sources/${src.body.id}/run`, { token: owner.token, body: {} });
    expect(started.status).toBe(202);
    await requested; // ingestSource is fetching

    const sigterm = performance.now();
    worker.kill('SIGTERM');
    // Draining: the process waits for the activity rather than exiting.
    const early = await Promise.race([exited, new Promise((r) => setTimeout(() => r('running'), 1500))]);
    expect(early).toBe('running');
    release();
    const { code, signal, at } = await exited;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(at - sigterm).toBeLessThan(30_000);

    // The activity's result is in the history: completed at its first attempt, by the worker that drained.
    const history = await client.workflow.getHandle(started.body.workflow_id, started.body.run_id).fetchHistory();
    const events = history.events ?? [];
    const scheduled = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'ingestSource')!;
    const startedEvent = events.find(
      (e) => e.activityTaskStartedEventAttributes && Number(e.activityTaskStartedEventAttributes.scheduledEventId) === Number(scheduled.eventId),
    )!;
    expect(startedEvent.activityTaskStartedEventAttributes!.attempt).toBe(1);
    const completed = events.find(
      (e) => e.activityTaskCompletedEventAttributes && Number(e.activityTaskCompletedEventAttributes.scheduledEventId) === Number(scheduled.eventId),
    );
    expect(completed).toBeDefined();
    // And its work is in the database: the feed's publications are the organization's signals.
    const signals = await api.call('GET', `/signals?organizationId=${orgId}`, { token: owner.token });
    expect(signals.status).toBe(200);
    expect(signals.body.length).toBeGreaterThan(0);
  } finally {
    release();
    if (worker.exitCode === null && worker.signalCode === null) worker.kill('SIGKILL');
    await api.close();
    await connection.close();
    await new Promise((r) => server.close(r));
  }
});
