import { WorkflowStarter } from '../../apps/shared/temporal';
import { startApi, newOrganization, addMember, expectProblem, TestApi } from '../helpers/api';
import type { Schema } from '../helpers/client';
import { startFeedServer, FeedServer } from '../helpers/feed-server';
import { rssFeed, RssItem } from '../helpers/rss';
import { testEnv, newUser, TestUser } from '../helpers/tokens';
import { useStack } from '../helpers/stack';

/**
 * processSignalWorkflow end to end through the real worker: ingest starts it per new signal;
 * classification, scoring and opportunity stages; thresholds and reprocessing; ignore; failure.
 * Every test has its own organization, source and feed, so each runs (and fails) on its own.
 */
const { api, owners } = useStack({ api: true, owners: true });
let feeds: FeedServer;
const now = new Date();

const HOUSING = 'Aanvraag omgevingsvergunning: nieuwbouw 48 woningen met warmtepompen, Merwedekanaalzone blok 4';
const housing: RssItem = { guid: 'u-1', title: HOUSING, description: 'Ontvangen aanvraag, geraamde bouwsom EUR 14,5 mln.', pubDate: now };
const trees: RssItem = { guid: 'u-2', title: 'Kapvergunning: 2 bomen Amsterdamsestraatweg 12', description: 'Het kappen van 2 bomen.', pubDate: now };
const office: RssItem = {
  guid: 'u-3',
  title: 'Verleende omgevingsvergunning: renovatie kantoorpand Catharijnesingel 30',
  description: 'Renovatie van 1.200 m2 kantoorruimte.',
  pubDate: now,
};

beforeAll(async () => {
  feeds = await startFeedServer();
});
afterAll(async () => {
  await feeds.close();
});

interface Tenant {
  owner: TestUser;
  orgId: string;
  /** Serves the items as a new RSS source, runs it and waits for every signal's processing. */
  ingest(items: RssItem[]): Promise<Array<{ id: string; result: any }>>;
  get(path: string, token?: string): ReturnType<TestApi['call']>;
  signalBy(externalId: string): Promise<Schema<'Signal'>>;
  reprocess(signalId: string, fromStage?: string): Promise<any>;
}

let feedCount = 0;
async function tenant(): Promise<Tenant> {
  const { owner, orgId } = await newOrganization(api);
  const get = (path: string, token = owner.token) => api.call('GET', path, { token });
  return {
    owner,
    orgId,
    get,
    async ingest(items) {
      const path = `/feed-${++feedCount}.xml`;
      feeds.set(path, { body: rssFeed(path, items) });
      const src = await api.call('POST', '/sources', {
        token: owner.token,
        body: { organizationId: orgId, providerKey: 'rss', name: path, config: { url: feeds.url + path } },
      });
      expect(src.status).toBe(201);
      const run = await api.call('POST', `/sources/${src.body.id}/run`, { token: owner.token, body: {} });
      const outcome = await api.temporal.workflow.getHandle(run.body.workflow_id, run.body.run_id).result();
      // Each new signal has its own processSignalWorkflow, started by the ingest run.
      return Promise.all(outcome.signalIds.map(async (id: string) => ({ id, result: await api.temporal.workflow.getHandle(`signal/${id}`).result() })));
    },
    async signalBy(externalId) {
      const list = await get(`/signals?organizationId=${orgId}&limit=100`);
      return list.body.find((s: Schema<'Signal'>) => s.external_id === externalId);
    },
    async reprocess(signalId, fromStage) {
      const res = await api.call('POST', `/signals/${signalId}/reprocess`, { token: owner.token, body: fromStage ? { fromStage } : {} });
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ workflow_id: `signal/${signalId}`, from_stage: fromStage ?? 'classification' });
      return api.temporal.workflow.getHandle(res.body.workflow_id, res.body.run_id).result();
    },
  };
}

test('ingested signals are classified, scored with a breakdown that adds up, and ignored, qualified or made ready', async () => {
  const t = await tenant();
  await t.ingest([housing, trees, office]);

  const detail = await t.get(`/signals/${(await t.signalBy('u-1')).id}`);
  expect(detail.status).toBe(200);
  expect(Object.keys(detail.body)).toEqual(['signal', 'classification', 'score', 'components', 'breakdown']);
  const { signal, classification, score, components, breakdown } = detail.body;
  expect(signal.status).toBe('ready');
  expect(classification).toMatchObject({
    version: 1,
    is_current: true,
    model: 'rules-classifier@1.0.0',
    commercial_relevance: true,
    project_category: 'residential',
    project_stage: 'permit_application',
    estimated_size: 14_500_000,
  });
  expect(score).toMatchObject({ is_current: true, decision: 'opportunity' });
  expect(breakdown.decision).toBe('opportunity');
  expect(components.map((c: Schema<'ScoreComponent'>) => c.dimension)).toEqual([
    'commercial_relevance',
    'distance',
    'project_size',
    'project_stage',
    'recency',
    'fit',
    'source',
  ]);
  const sum = components.reduce((acc: number, c: Schema<'ScoreComponent'>) => acc + c.points, 0);
  expect(sum).toBeCloseTo(score.total, 6);
  expect(breakdown.total).toBe(score.total);
  expect(signal.current_score).toBe(score.total);
  for (const c of components) {
    expect(c).toMatchObject({ origin: 'rule', reason: expect.any(String) });
    expect(c.points).toBeLessThanOrEqual(Math.max(0, c.raw_value * c.weight) + 1e-9);
  }
  expect(components.find((c: Schema<'ScoreComponent'>) => c.dimension === 'distance')).toMatchObject({ points: 0, reason: 'no home location configured' });

  expect((await t.signalBy('u-2')).status).toBe('ignored');
  expect((await t.signalBy('u-3')).status).toBe('qualified');

  const opportunities = await t.get(`/opportunities?organizationId=${t.orgId}`);
  expect(opportunities.body).toHaveLength(1);
  expect(opportunities.body[0]).toMatchObject({
    status: 'ready',
    outcome: 'open',
    outcome_at: null,
    created_from_signal_id: signal.id,
    project_id: signal.project_id,
    summary: HOUSING,
    score: score.total,
  });
});

test('the same project from a second source shares the project and gets no second opportunity', async () => {
  const t = await tenant();
  await t.ingest([housing]);
  await t.ingest([{ guid: 'other-9', title: HOUSING, description: 'EUR 14,5 mln, 48 woningen.', pubDate: now }]);
  const first = await t.signalBy('u-1');
  const second = await t.signalBy('other-9');
  expect(second.project_id).toBe(first.project_id);
  expect(second.status).toBe('ready');
  const byProject = await t.get(`/signals?organizationId=${t.orgId}&projectId=${first.project_id}`);
  expect(byProject.body).toHaveLength(2);
  expect((await t.get(`/opportunities?organizationId=${t.orgId}`)).body).toHaveLength(1);
});

test('changing thresholds and reprocessing from scoring changes the decision and keeps the old score version', async () => {
  const t = await tenant();
  await t.ingest([office]);
  const signal = await t.signalBy('u-3');
  const before = (await t.get(`/signals/${signal.id}`)).body;
  expect(before.breakdown.decision).toBe('qualify');
  expect((await t.get(`/opportunities?organizationId=${t.orgId}`)).body).toHaveLength(0);

  const settings = await api.call('PATCH', '/settings/scoring', { token: t.owner.token, body: { organizationId: t.orgId, opportunityAt: 50, qualifyAt: 40 } });
  expect(settings.status).toBe(200);
  expect(settings.body.config).toMatchObject({ version: 2, is_active: true, opportunity_at: 50, qualify_at: 40, ignore_below: 30 });
  expect(settings.body.rules).toHaveLength(7);

  const result = await t.reprocess(signal.id, 'scoring');
  expect(result.stages.map((s: { stage: string }) => s.stage)).toEqual(['scoring', 'opportunity', 'enrichment', 'drafting', 'strategist']);
  const after = (await t.get(`/signals/${signal.id}`)).body;
  expect(after.signal.status).toBe('ready');
  expect(after.breakdown.decision).toBe('opportunity');
  expect(after.score.scoring_config_id).toBe(settings.body.config.id);
  expect(after.classification.version).toBe(1); // not re-classified

  const versions = await owners.query('SELECT version, is_current, scoring_config_id, decision FROM scores WHERE signal_id = $1 ORDER BY version', [signal.id]);
  expect(versions.rows).toEqual([
    { version: 1, is_current: false, scoring_config_id: before.score.scoring_config_id, decision: 'qualify' },
    { version: 2, is_current: true, scoring_config_id: settings.body.config.id, decision: 'opportunity' },
  ]);
  expect((await t.get(`/opportunities?organizationId=${t.orgId}`)).body).toHaveLength(1);

  // Reprocessing from classification writes new versions and moves is_current, never a duplicate.
  await t.reprocess(signal.id);
  const classifications = await owners.query('SELECT version, is_current FROM classifications WHERE signal_id = $1 ORDER BY version', [signal.id]);
  expect(classifications.rows).toEqual([
    { version: 1, is_current: false },
    { version: 2, is_current: true },
  ]);
  expect((await t.get(`/opportunities?organizationId=${t.orgId}`)).body).toHaveLength(1);
});

test('thresholds must stay ordered; settings changes need admin and are audited', async () => {
  const t = await tenant();
  const bad = await api.call('PATCH', '/settings/scoring', { token: t.owner.token, body: { organizationId: t.orgId, ignoreBelow: 80 } });
  expectProblem(bad, 400, 'VALIDATION_FAILED');
  const member = await addMember(api, t.owner, t.orgId, 'member');
  expectProblem(
    await api.call('PATCH', '/settings/scoring', { token: member.token, body: { organizationId: t.orgId, homeLat: 52.09, homeLng: 5.12 } }),
    403,
    'FORBIDDEN',
  );
  const ok = await api.call('PATCH', '/settings/scoring', { token: t.owner.token, body: { organizationId: t.orgId, opportunityAt: 50, qualifyAt: 40 } });
  expect(ok.status).toBe(200);
  const audit = await owners.query(
    `SELECT actor_id, entity, field, before, after FROM compliance_audit_log WHERE organization_id = $1 AND entity = 'scoring_config' ORDER BY field`,
    [t.orgId],
  );
  expect(audit.rows).toEqual([
    { actor_id: t.owner.id, entity: 'scoring_config', field: 'opportunity_at', before: 65, after: 50 },
    { actor_id: t.owner.id, entity: 'scoring_config', field: 'qualify_at', before: 45, after: 40 },
  ]);
});

test('the industry profile is changed, validated and audited, and feeds classification', async () => {
  const t = await tenant();
  const res = await api.call('PATCH', '/settings/industry-profile', {
    token: t.owner.token,
    body: {
      organizationId: t.orgId,
      name: 'Groen Dak Installaties',
      products: [{ key: 'green_roofs', name: 'Green roofs', fitKeywords: ['groendak', 'sedum'] }],
    },
  });
  expect(res.status).toBe(200);
  expect(res.body.profile.name).toBe('Groen Dak Installaties');
  expect(res.body.products).toEqual([expect.objectContaining({ key: 'green_roofs', fit_keywords: ['groendak', 'sedum'] })]);
  expect(res.body.personas.length).toBeGreaterThan(0); // not given: kept
  const invalid = await api.call('PATCH', '/settings/industry-profile', {
    token: t.owner.token,
    body: { organizationId: t.orgId, products: [{ key: 'Bad Key', name: 'x', fitKeywords: [] }] },
  });
  expectProblem(invalid, 400, 'VALIDATION_FAILED');
  expect(invalid.body.errors[0].path).toBe('body.products.0.key');

  await t.ingest([{ guid: 'r-1', title: 'Aanvraag: sedum groendak op bedrijfshal', pubDate: now }]);
  const roof = (await t.get(`/signals/${(await t.signalBy('r-1')).id}`)).body;
  expect(roof.classification.relevance_reasons[0]).toContain('sedum');
});

test('a signal ignored by its score runs every stage, is re-scored on reprocess and comes back when the thresholds change', async () => {
  const t = await tenant();
  const [run] = await t.ingest([trees]);
  // Its score put it below ignore_below: the pipeline still runs to its end (nothing to open or enrich).
  expect(run!.result).toMatchObject({ finalStatus: 'ignored' });
  expect(run!.result.stoppedAt).toBeUndefined();
  expect(run!.result.stages.map((s: { stage: string }) => s.stage)).toEqual([
    'classification',
    'scoring',
    'opportunity',
    'enrichment',
    'drafting',
    'strategist',
  ]);
  const signal = await t.signalBy('u-2');
  expect(signal.status).toBe('ignored');

  const lowered = await api.call('PATCH', '/settings/scoring', { token: t.owner.token, body: { organizationId: t.orgId, ignoreBelow: 0 } });
  expect(lowered.status).toBe(200);
  const result = await t.reprocess(signal.id, 'scoring');
  expect(result.stoppedAt).toBeUndefined();
  expect(result.stages[0]).toMatchObject({ stage: 'scoring', status: 'scored' });
  expect((await t.signalBy('u-2')).status).toBe('scored');
  const scores = await owners.query('SELECT version, is_current FROM scores WHERE signal_id = $1 ORDER BY version', [signal.id]);
  expect(scores.rows).toEqual([
    { version: 1, is_current: false },
    { version: 2, is_current: true },
  ]);
});

test("a person's ignore stops the pipeline and records who and when; ignore needs a write role", async () => {
  const t = await tenant();
  await t.ingest([office]);
  const signal = await t.signalBy('u-3');
  const viewer = await addMember(api, t.owner, t.orgId, 'viewer');
  expectProblem(await api.call('POST', `/signals/${signal.id}/ignore`, { token: viewer.token, body: {} }), 403, 'FORBIDDEN');
  const before = Date.now();
  const ignored = await api.call('POST', `/signals/${signal.id}/ignore`, { token: t.owner.token, body: {} });
  expect(ignored.status).toBe(200);
  expect(ignored.body).toMatchObject({ id: signal.id, status: 'ignored' });
  const row = (await owners.query('SELECT ignored_by, ignored_at FROM signals WHERE id = $1', [signal.id])).rows[0];
  expect(row.ignored_by).toBe(t.owner.id);
  expect(row.ignored_at.getTime()).toBeGreaterThanOrEqual(before - 5000);

  const result = await t.reprocess(signal.id, 'scoring');
  expect(result).toMatchObject({ stoppedAt: 'scoring', stages: [], finalStatus: 'ignored' });
  // Even a full reprocess leaves it ignored: every stage keeps a person's decision.
  const full = await t.reprocess(signal.id);
  expect(full).toMatchObject({ stoppedAt: 'classification', stages: [], finalStatus: 'ignored' });
  expect((await t.signalBy('u-3')).status).toBe('ignored');
});

test('reprocess: unknown stage is 400, viewer is 403, a run in progress is 409', async () => {
  const t = await tenant();
  await t.ingest([housing]);
  const signal = await t.signalBy('u-1');
  expectProblem(await api.call('POST', `/signals/${signal.id}/reprocess`, { token: t.owner.token, body: { fromStage: 'sending' } }), 400, 'VALIDATION_FAILED');
  const viewer = await addMember(api, t.owner, t.orgId, 'viewer');
  expectProblem(await api.call('POST', `/signals/${signal.id}/reprocess`, { token: viewer.token, body: {} }), 403, 'FORBIDDEN');

  // A run that no worker picks up stays in progress.
  const stuck = await api.temporal.workflow.start('processSignalWorkflow', {
    taskQueue: 'nobody-polls-this',
    workflowId: `signal/${signal.id}`,
    args: [{ organizationId: t.orgId, signalId: signal.id }],
  });
  try {
    expectProblem(await api.call('POST', `/signals/${signal.id}/reprocess`, { token: t.owner.token, body: {} }), 409, 'CONFLICT');
  } finally {
    await stuck.terminate('test done');
  }
});

test('a stage that keeps failing marks the signal failed with the reason', async () => {
  const t = await tenant();
  await t.ingest([housing]);
  const signal = await t.signalBy('u-1');
  await owners.query('UPDATE scoring_configs SET is_active = false WHERE organization_id = $1', [t.orgId]);
  try {
    await expect(t.reprocess(signal.id, 'scoring')).rejects.toThrow();
    const after = await owners.query('SELECT status, failure_reason FROM signals WHERE id = $1', [signal.id]);
    expect(after.rows[0]).toEqual({ status: 'failed', failure_reason: 'scoring: the organization has no active scoring config' });
  } finally {
    await owners.query(
      'UPDATE scoring_configs SET is_active = true WHERE organization_id = $1 AND version = (SELECT max(version) FROM scoring_configs WHERE organization_id = $1)',
      [t.orgId],
    );
  }
  await t.reprocess(signal.id);
  expect((await t.signalBy('u-1')).status).toBe('ready');
});

test('stage activities: database work has a time budget instead of an attempt cap; classification runs on the rate-limited providers task queue', async () => {
  const t = await tenant();
  const [run] = await t.ingest([housing]);
  const history = await api.temporal.workflow.getHandle(`signal/${run!.id}`).fetchHistory();
  const scheduled = new Map<string, any>();
  for (const e of history.events ?? []) {
    const a = e.activityTaskScheduledEventAttributes;
    if (a?.activityType?.name) scheduled.set(a.activityType.name, a);
  }
  const seconds = (d: any) => Number(d?.seconds ?? 0);
  const queue = testEnv('TEMPORAL_TASK_QUEUE');
  expect(scheduled.get('classifySignal').taskQueue.name).toBe(`${queue}-providers`);
  for (const name of ['scoreSignal', 'openSignalOpportunity', 'enrichSignalCompany']) {
    const a = scheduled.get(name);
    expect({ name, queue: a.taskQueue.name }).toEqual({ name, queue });
  }
  // The providers queue is polled by a Worker that reports its rate limit (PROVIDER_ACTIVITIES_PER_SECOND, default 20).
  const providers = await api.temporal.workflowService.describeTaskQueue({
    namespace: 'default',
    taskQueue: { name: `${queue}-providers`, kind: 1 /* TASK_QUEUE_KIND_NORMAL */ },
    taskQueueType: 2 /* TASK_QUEUE_TYPE_ACTIVITY */,
  });
  expect(providers.pollers.length).toBeGreaterThan(0);
  expect(providers.pollers.map((p) => p.ratePerSecond)).toEqual(providers.pollers.map(() => 20));
  for (const [name, a] of scheduled) {
    // No attempt cap (0 = unlimited): a database failover or a burst of 429s waits, within hours.
    expect({ name, maximumAttempts: a.retryPolicy.maximumAttempts ?? 0 }).toEqual({ name, maximumAttempts: 0 });
    expect({ name, hours: seconds(a.scheduleToCloseTimeout) >= 3600 }).toEqual({ name, hours: true });
    expect(a.retryPolicy.nonRetryableErrorTypes).toEqual(expect.arrayContaining(['SignalNotFound', 'StagePrecondition']));
  }
});

test('opportunities: manual and from a signal, outcomes won/lost/open, one open per project', async () => {
  const t = await tenant();
  await t.ingest([housing]);
  const manual = await api.call('POST', '/opportunities', {
    token: t.owner.token,
    body: { organizationId: t.orgId, summary: 'Referral from a partner', score: 70 },
  });
  expect(manual.status).toBe(201);
  expect(manual.body).toMatchObject({ status: 'ready', outcome: 'open', project_id: null, summary: 'Referral from a partner', score: 70 });

  const signal = await t.signalBy('u-1');
  const dup = await api.call('POST', '/opportunities', { token: t.owner.token, body: { organizationId: t.orgId, signalId: signal.id } });
  expectProblem(dup, 409, 'CONFLICT');
  const existingId = dup.body.opportunity_id;

  expectProblem(
    await api.call('POST', `/opportunities/${existingId}/outcome`, { token: t.owner.token, body: { outcome: 'lost', value: 5 } }),
    400,
    'VALIDATION_FAILED',
  );
  const won = await api.call('POST', `/opportunities/${existingId}/outcome`, { token: t.owner.token, body: { outcome: 'won', value: 125000 } });
  expect(won.body).toMatchObject({ outcome: 'won', status: 'closed', outcome_value: 125000, outcome_at: expect.any(String) });

  // Closed: a new one may be opened for the project; then reopening the old one conflicts.
  const again = await api.call('POST', '/opportunities', { token: t.owner.token, body: { organizationId: t.orgId, signalId: signal.id } });
  expect(again.status).toBe(201);
  expectProblem(await api.call('POST', `/opportunities/${existingId}/outcome`, { token: t.owner.token, body: { outcome: 'open' } }), 409, 'CONFLICT');
  const lost = await api.call('POST', `/opportunities/${again.body.id}/outcome`, { token: t.owner.token, body: { outcome: 'lost' } });
  expect(lost.body).toMatchObject({ outcome: 'lost', status: 'closed', outcome_value: null });
  const reopened = await api.call('POST', `/opportunities/${existingId}/outcome`, { token: t.owner.token, body: { outcome: 'open' } });
  expect(reopened.body).toMatchObject({ outcome: 'open', status: 'ready', outcome_at: null, outcome_value: null });

  expect((await t.get(`/opportunities?organizationId=${t.orgId}&outcome=lost`)).body.map((o: Schema<'Opportunity'>) => o.id)).toEqual([again.body.id]);
  expect((await t.get(`/opportunities/${existingId}`)).body.id).toBe(existingId);
});

test('another tenant sees none of it (404) on every endpoint of the pipeline', async () => {
  const t = await tenant();
  await t.ingest([housing]);
  const other = await newUser();
  const otherOrg = await api.call('POST', '/organizations', { token: other.token, body: { name: 'Other' } });
  expect(otherOrg.status).toBe(201);
  const signal = await t.signalBy('u-1');
  const opp = (await t.get(`/opportunities?organizationId=${t.orgId}`)).body[0];
  expect(opp).toBeDefined();
  const calls: Array<[string, string, unknown?]> = [
    ['GET', `/signals/${signal.id}`],
    ['POST', `/signals/${signal.id}/ignore`, {}],
    ['POST', `/signals/${signal.id}/reprocess`, {}],
    ['GET', `/opportunities?organizationId=${t.orgId}`],
    ['GET', `/opportunities/${opp.id}`],
    ['POST', `/opportunities/${opp.id}/outcome`, { outcome: 'lost' }],
    ['POST', '/opportunities', { organizationId: t.orgId, summary: 'x' }],
    ['POST', '/opportunities', { organizationId: otherOrg.body.id, signalId: signal.id }],
    ['GET', `/settings/scoring?organizationId=${t.orgId}`],
    ['PATCH', '/settings/scoring', { organizationId: t.orgId, qualifyAt: 41 }],
    ['GET', `/settings/industry-profile?organizationId=${t.orgId}`],
    ['PATCH', '/settings/industry-profile', { organizationId: t.orgId, name: 'x' }],
  ];
  for (const [method, path, body] of calls) {
    const res = await api.call(method, path, { token: other.token, body });
    expect({ method, path, status: res.status, code: res.body?.code }).toEqual({ method, path, status: 404, code: 'NOT_FOUND' });
  }
  expect((await t.signalBy('u-1')).status).toBe('ready');
});

test('signal runs are readable in Temporal: id signal/<id>, searchable by OrganizationId and SignalId', async () => {
  const t = await tenant();
  await t.ingest([housing]);
  const signal = await t.signalBy('u-1');
  const found: string[] = [];
  for (let i = 0; i < 40 && found.length === 0; i++) {
    for await (const wf of api.temporal.workflow.list({ query: `OrganizationId = '${t.orgId}' AND SignalId = '${signal.id}'` })) found.push(wf.workflowId);
    if (!found.length) await new Promise((r) => setTimeout(r, 250));
  }
  expect(found[0]).toBe(`signal/${signal.id}`);
});

test('an accepted reprocess marks the signal mid-pipeline, so a run that dies before its first stage is reconciled', async () => {
  const t = await tenant();
  await t.ingest([office]);
  const signal = await t.signalBy('u-3');
  const processed = async () => (await owners.query('SELECT processed_at FROM signals WHERE id = $1', [signal.id])).rows[0].processed_at;
  expect(await processed()).not.toBeNull();
  // An API whose runs go to a queue no worker polls: the run never reaches its first stage.
  const stalled = await startApi({
    workflows: new WorkflowStarter(api.temporal, { TEMPORAL_TASK_QUEUE: `nobody-${signal.id}`, INGEST_RETRY_INITIAL_INTERVAL_MS: 200 }),
  });
  try {
    const res = await stalled.call('POST', `/signals/${signal.id}/reprocess`, { token: t.owner.token, body: { fromStage: 'scoring' } });
    expect(res.status).toBe(202);
    expect(await processed()).toBeNull();
    await api.temporal.workflow.getHandle(res.body.workflow_id, res.body.run_id).terminate('test: the run died');
  } finally {
    await stalled.close();
  }
  const stuck = await owners.query('SELECT signal_id FROM app.stuck_signals(0, 100000)');
  expect(stuck.rows.map((r: { signal_id: string }) => r.signal_id)).toContain(signal.id);
});
