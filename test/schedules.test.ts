import { ScheduleNotFoundError } from '@temporalio/client';
import { startApi, newOrganization, expectProblem, TestApi } from './helpers/api';
import { startFeedServer, FeedServer } from './helpers/feed-server';
import type { TestUser } from './helpers/tokens';

/** A source's cron schedule is a Temporal Schedule `source/<id>` that starts ingestSourceWorkflow. */
let api: TestApi;
let feeds: FeedServer;
let owner: TestUser;
let orgId: string;

beforeAll(async () => {
  api = await startApi();
  feeds = await startFeedServer();
  ({ owner, orgId } = await newOrganization(api));
  feeds.set('/sched.xml', { fixture: 'feeds/tenders-atom.xml', contentType: 'application/atom+xml' });
});
afterAll(async () => {
  await feeds.close();
  await api.close();
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
    const source = await waitFor(async () => {
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
