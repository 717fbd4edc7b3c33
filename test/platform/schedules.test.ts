import { ScheduleNotFoundError } from '@temporalio/client';
import { newOrganization, expectProblem } from '../helpers/api';
import type { Schema } from '../helpers/client';
import { Pool } from 'pg';
import { startFeedServer, FeedServer } from '../helpers/feed-server';
import { rssFeed } from '../helpers/rss';
import { testEnv, TestUser } from '../helpers/tokens';
import { useStack } from '../helpers/stack';

/** A source's cron schedule is a Temporal Schedule `source/<id>` that starts ingestSourceWorkflow. */
const { api } = useStack({ api: true });
let feeds: FeedServer;
let owner: TestUser;
let orgId: string;

beforeAll(async () => {
  feeds = await startFeedServer();
  ({ owner, orgId } = await newOrganization(api));
  feeds.set('/sched.xml', { fixture: 'feeds/tenders-atom.xml', contentType: 'application/atom+xml' });
});
afterAll(async () => {
  await feeds.close();
});

const describeSchedule = (sourceId: string) => api.temporal.schedule.getHandle(`source/${sourceId}`).describe();

async function waitFor<T>(fn: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 500));
  }
}

test('create, update, pause and delete follow the source', async () => {
  const created = await api.call('POST', '/sources', {
    token: owner.token,
    body: { organizationId: orgId, providerKey: 'rss', name: 'Scheduled', config: { url: `${feeds.url}/sched.xml` }, schedule: '0 6 * * 1-5' },
  });
  expect(created.status).toBe(201);
  const id = created.body.id;

  let d = await describeSchedule(id);
  expect(d.spec.calendars?.length ?? 0).toBeGreaterThan(0);
  expect(d.action).toMatchObject({ type: 'startWorkflow', workflowType: 'ingestSourceWorkflow', workflowId: `ingest/${id}` });
  expect(d.policies.overlap).toBe('SKIP');
  expect(d.state.paused).toBe(false);
  expect(d.info.nextActionTimes[0]!.getUTCHours()).toBe(6);

  await api.call('PATCH', `/sources/${id}`, { token: owner.token, body: { schedule: '30 7 * * *' } });
  d = await describeSchedule(id);
  expect(d.info.nextActionTimes[0]!.getUTCHours()).toBe(7);
  expect(d.info.nextActionTimes[0]!.getUTCMinutes()).toBe(30);

  await api.call('PATCH', `/sources/${id}`, { token: owner.token, body: { enabled: false } });
  expect((await describeSchedule(id)).state.paused).toBe(true);
  await api.call('PATCH', `/sources/${id}`, { token: owner.token, body: { enabled: true } });
  expect((await describeSchedule(id)).state.paused).toBe(false);

  await api.call('PATCH', `/sources/${id}`, { token: owner.token, body: { schedule: null } });
  await expect(describeSchedule(id)).rejects.toBeInstanceOf(ScheduleNotFoundError);
});

test('an invalid cron never reaches Temporal', async () => {
  const res = await api.call('POST', '/sources', {
    token: owner.token,
    body: { organizationId: orgId, providerKey: 'rss', name: 'Bad cron', config: { url: `${feeds.url}/x.xml` }, schedule: '* * *' },
  });
  expectProblem(res, 400, 'VALIDATION_FAILED');
});

test('the schedule fires on its cron and ingests the source, findable by OrganizationId', async () => {
  const created = await api.call('POST', '/sources', {
    token: owner.token,
    body: { organizationId: orgId, providerKey: 'rss', name: 'Every minute', config: { url: `${feeds.url}/sched.xml` }, schedule: '* * * * *' },
  });
  const id = created.body.id;
  try {
    // The next minute boundary: at most a minute away.
    const fired = await waitFor(async () => {
      const d = await describeSchedule(id);
      return d.info.recentActions.length > 0 ? d.info.recentActions[0] : undefined;
    }, 75_000);
    expect(fired.action.workflow.workflowId).toMatch(new RegExp(`^ingest/${id}`));
    const source = await waitFor<Schema<'Source'>>(async () => {
      const s = await api.call('GET', `/sources/${id}`, { token: owner.token });
      return s.body.last_run_status === 'succeeded' ? s.body : undefined;
    }, 20_000);
    expect(source.last_run_status).toBe('succeeded');
    const runs: string[] = [];
    for await (const wf of api.temporal.workflow.list({ query: `OrganizationId = '${orgId}' AND SourceId = '${id}'` })) runs.push(wf.workflowId);
    expect(runs.some((r) => r.startsWith(`ingest/${id}`))).toBe(true);
  } finally {
    await api.call('PATCH', `/sources/${id}`, { token: owner.token, body: { schedule: null } });
  }
}, 120_000);

test('the worker keeps the reconcile schedule reconcile/signals: every few minutes, overlap skip', async () => {
  const handle = api.temporal.schedule.getHandle('reconcile/signals');
  const d = await handle.describe();
  expect(d.action).toMatchObject({ type: 'startWorkflow', workflowType: 'reconcileSignalsWorkflow', taskQueue: testEnv('TEMPORAL_TASK_QUEUE') });
  // The defaults of RECONCILE_INTERVAL_SECONDS and RECONCILE_STUCK_AFTER_SECONDS.
  expect(d.spec.intervals?.[0]?.every).toBe(300_000);
  expect((d.action as { args: unknown[] }).args[0]).toMatchObject({ stuckAfterSeconds: 600 });
  expect(d.policies.overlap).toBe('SKIP');
  await handle.trigger();
  const fired = await waitFor(async () => {
    const now = await handle.describe();
    return now.info.recentActions.length > 0 ? now.info.recentActions[0] : undefined;
  }, 20_000);
  expect(fired.action.workflow.workflowId).toMatch(/^reconcile\/signals/);
});

test('reconcile starts processing for signals left ingested or mid-pipeline in every organization; finished, recent, ignored and running ones are left alone', async () => {
  const owners = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 1 });
  const schedule = api.temporal.schedule.getHandle('reconcile/signals');
  await schedule.pause('test: reconcile run by hand'); // so the scheduled run cannot take the signals first
  const stuck: Array<{ terminate(reason: string): Promise<unknown> }> = [];
  try {
    const now = new Date();
    const ingestAll = async (org: string, token: string, name: string, items: Array<{ guid: string; title: string; description?: string }>) => {
      feeds.set(`/${name}.xml`, {
        body: rssFeed(
          name,
          items.map((i) => ({ ...i, pubDate: now })),
        ),
      });
      const src = await api.call('POST', '/sources', {
        token,
        body: { organizationId: org, providerKey: 'rss', name, config: { url: `${feeds.url}/${name}.xml` } },
      });
      const run = await api.call('POST', `/sources/${src.body.id}/run`, { token, body: {} });
      const outcome = await api.temporal.workflow.getHandle(run.body.workflow_id, run.body.run_id).result();
      await Promise.all(outcome.signalIds.map((id: string) => api.temporal.workflow.getHandle(`signal/${id}`).result()));
      const rows = await owners.query('SELECT id, external_id FROM signals WHERE source_id = $1', [src.body.id]);
      return Object.fromEntries(rows.rows.map((r) => [r.external_id, r.id as string]));
    };
    const housing = 'Aanvraag omgevingsvergunning: nieuwbouw 48 woningen met warmtepompen';
    const a = await ingestAll(orgId, owner.token, 'reconcile-a', [
      { guid: 'a-1', title: housing, description: 'Bouwsom EUR 14,5 mln.' },
      { guid: 'a-2', title: 'Verleende omgevingsvergunning: renovatie kantoorpand Catharijnesingel 30', description: 'Renovatie van 1.200 m2 kantoorruimte.' },
      { guid: 'a-3', title: 'Kapvergunning: 2 bomen Amsterdamsestraatweg 12' },
      { guid: 'a-4', title: 'Verleende omgevingsvergunning: renovatie kantoorpand Maliebaan 8', description: 'Renovatie van 1.100 m2 kantoorruimte.' },
    ]);
    const other = await newOrganization(api, 'Other Installaties B.V.');
    const b = await ingestAll(other.orgId, other.owner.token, 'reconcile-b', [
      { guid: 'b-1', title: `${housing}, kavel 2`, description: 'Bouwsom EUR 14,5 mln.' },
      { guid: 'b-2', title: `${housing}, kavel 3`, description: 'Bouwsom EUR 14,5 mln.' },
      { guid: 'b-3', title: `${housing}, kavel 4`, description: 'Bouwsom EUR 14,5 mln.' },
    ]);
    expect((await api.call('POST', `/signals/${b['b-2']}/ignore`, { token: other.owner.token, body: {} })).status).toBe(200);

    const set = (id: string | undefined, fields: string) => owners.query(`UPDATE signals SET ${fields} WHERE id = $1`, [id]);
    const OLD = "updated_at = now() - interval '1 hour'";
    await set(a['a-1'], `status = 'ingested', processed_at = NULL, ${OLD}`); // the ingest's child never started
    await set(a['a-2'], `status = 'classified', processed_at = NULL, ${OLD}`); // the worker died after classification
    await set(a['a-3'], OLD); // finished (ignored by its score)
    await set(a['a-4'], `status = 'qualified', processed_at = NULL`); // mid-pipeline, but only just
    await set(b['b-1'], `status = 'ingested', processed_at = NULL, ${OLD}`);
    await set(b['b-2'], `processed_at = NULL, ${OLD}`); // a person ignored it
    await set(b['b-3'], `status = 'ingested', processed_at = NULL, ${OLD}`);
    // b-3 has a run in progress (on a queue no worker polls): reconcile must not start a second one.
    stuck.push(
      await api.temporal.workflow.start('processSignalWorkflow', {
        taskQueue: 'nobody-polls-this',
        workflowId: `signal/${b['b-3']}`,
        args: [{ organizationId: other.orgId, signalId: b['b-3'] }],
      }),
    );

    const result = await api.temporal.workflow.execute('reconcileSignalsWorkflow', {
      taskQueue: testEnv('TEMPORAL_TASK_QUEUE'),
      workflowId: `reconcile/test-${Date.now()}`,
      args: [{ stuckAfterSeconds: 300, retryInitialIntervalMs: 200 }],
    });
    expect(result.started).toEqual(expect.arrayContaining([a['a-1'], a['a-2'], b['b-1']]));
    for (const untouched of [a['a-3'], a['a-4'], b['b-2'], b['b-3']]) expect(result.started).not.toContain(untouched);
    expect(result.running).toContain(b['b-3']);

    const finished = await Promise.all([a['a-1'], a['a-2'], b['b-1']].map((id) => api.temporal.workflow.getHandle(`signal/${id}`).result()));
    expect(finished.map((r) => r.finalStatus)).toEqual(['ready', 'qualified', 'ready']);
    expect(finished[1].stages[0].stage).toBe('scoring'); // resumed after its classification
    const versions = await owners.query(
      `SELECT s.external_id, (SELECT count(*)::int FROM classifications c WHERE c.signal_id = s.id) AS classifications,
              (SELECT count(*)::int FROM scores c WHERE c.signal_id = s.id) AS scores, s.processed_at IS NOT NULL AS processed
         FROM signals s WHERE s.id = ANY($1) ORDER BY s.external_id`,
      [[a['a-1'], a['a-2'], a['a-3'], a['a-4'], b['b-1'], b['b-2']]],
    );
    expect(versions.rows).toEqual([
      { external_id: 'a-1', classifications: 2, scores: 2, processed: true },
      { external_id: 'a-2', classifications: 1, scores: 2, processed: true },
      { external_id: 'a-3', classifications: 1, scores: 1, processed: true },
      { external_id: 'a-4', classifications: 1, scores: 1, processed: false },
      { external_id: 'b-1', classifications: 2, scores: 2, processed: true },
      { external_id: 'b-2', classifications: 1, scores: 1, processed: false },
    ]);
  } finally {
    for (const s of stuck) await s.terminate('test done').catch(() => undefined);
    await schedule.unpause().catch(() => undefined);
    await owners.end();
  }
}, 120_000);

test('stuck signals are listed across organizations by ids only, and only the worker role may ask', async () => {
  const worker = new Pool({ connectionString: testEnv('TEST_WORKER_DB_URL'), max: 1 });
  const apiRole = new Pool({ connectionString: testEnv('TEST_APP_DB_URL'), max: 1 });
  try {
    const listed = await worker.query('SELECT * FROM app.stuck_signals(0, 5)');
    expect(listed.fields.map((f) => f.name)).toEqual(['organization_id', 'signal_id']);
    await expect(apiRole.query('SELECT * FROM app.stuck_signals(0, 5)')).rejects.toThrow(/permission denied/);
  } finally {
    await worker.end();
    await apiRole.end();
  }
});
