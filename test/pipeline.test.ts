import { Pool } from 'pg';
import { startApi, newOrganization, addMember, expectProblem, TestApi } from './helpers/api';
import { startFeedServer, FeedServer } from './helpers/feed-server';
import { rssFeed } from './helpers/rss';
import { testEnv, newUser, TestUser } from './helpers/tokens';

/**
 * processSignalWorkflow end to end through the real worker: ingest starts it per new signal;
 * classification, scoring and opportunity stages; thresholds and reprocessing; ignore; failure.
 */
let api: TestApi;
let feeds: FeedServer;
let owner: TestUser;
let orgId: string;
let owners: Pool;
const now = new Date();

const HOUSING = 'Aanvraag omgevingsvergunning: nieuwbouw 48 woningen met warmtepompen, Merwedekanaalzone blok 4';
const items = [
  { guid: 'u-1', title: HOUSING, description: 'Ontvangen aanvraag, geraamde bouwsom EUR 14,5 mln.', pubDate: now },
  { guid: 'u-2', title: 'Kapvergunning: 2 bomen Amsterdamsestraatweg 12', description: 'Het kappen van 2 bomen.', pubDate: now },
  { guid: 'u-3', title: 'Verleende omgevingsvergunning: renovatie kantoorpand Catharijnesingel 30', description: 'Renovatie van 1.200 m2 kantoorruimte.', pubDate: now },
];

beforeAll(async () => {
  api = await startApi();
  feeds = await startFeedServer();
  owners = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 1 });
  ({ owner, orgId } = await newOrganization(api));
});
afterAll(async () => {
  await owners.end();
  await feeds.close();
  await api.close();
});

async function ingest(path: string, body: string) {
  feeds.set(path, { body });
  const src = await api.call('POST', '/sources', { token: owner.token, body: { organizationId: orgId, providerKey: 'rss', name: path, config: { url: feeds.url + path } } });
  const run = await api.call('POST', `/sources/${src.body.id}/run`, { token: owner.token, body: {} });
  const outcome = await api.temporal.workflow.getHandle(run.body.workflow_id, run.body.run_id).result();
  // Each new signal has its own processSignalWorkflow, started by the ingest run.
  await Promise.all(outcome.signalIds.map((id: string) => api.temporal.workflow.getHandle(`signal/${id}`).result()));
  return outcome.signalIds as string[];
}

const get = (path: string, token = owner.token) => api.call('GET', path, { token });
const signalBy = async (externalId: string) => {
  const list = await get(`/signals?organizationId=${orgId}&limit=100`);
  return list.body.find((s: { external_id: string }) => s.external_id === externalId);
};

async function reprocess(signalId: string, fromStage?: string) {
  const res = await api.call('POST', `/signals/${signalId}/reprocess`, { token: owner.token, body: fromStage ? { fromStage } : {} });
  expect(res.status).toBe(202);
  expect(res.body).toMatchObject({ workflow_id: `signal/${signalId}`, from_stage: fromStage ?? 'classification' });
  return api.temporal.workflow.getHandle(res.body.workflow_id, res.body.run_id).result();
}

test('ingested signals are classified, scored with a breakdown that adds up, and ignored, qualified or made ready', async () => {
  await ingest('/utrecht.xml', rssFeed('Utrecht', items));

  const housing = await get(`/signals/${(await signalBy('u-1')).id}`);
  expect(housing.status).toBe(200);
  expect(Object.keys(housing.body)).toEqual(['signal', 'classification', 'score', 'components', 'breakdown']);
  const { signal, classification, score, components, breakdown } = housing.body;
  expect(signal.status).toBe('ready');
  expect(classification).toMatchObject({
    version: 1, is_current: true, model: 'rules-classifier@1.0.0', commercial_relevance: true,
    project_category: 'residential', project_stage: 'permit_application', estimated_size: 14_500_000,
  });
  expect(score).toMatchObject({ is_current: true, decision: 'opportunity' });
  expect(breakdown.decision).toBe('opportunity');
  expect(components.map((c: { dimension: string }) => c.dimension)).toEqual(
    ['commercial_relevance', 'distance', 'project_size', 'project_stage', 'recency', 'fit', 'source'],
  );
  const sum = components.reduce((acc: number, c: { points: number }) => acc + c.points, 0);
  expect(sum).toBeCloseTo(score.total, 6);
  expect(breakdown.total).toBe(score.total);
  expect(signal.current_score).toBe(score.total);
  for (const c of components) {
    expect(c).toMatchObject({ origin: 'rule', reason: expect.any(String) });
    expect(c.points).toBeLessThanOrEqual(Math.max(0, c.raw_value * c.weight) + 1e-9);
  }
  expect(components.find((c: { dimension: string }) => c.dimension === 'distance')).toMatchObject({ points: 0, reason: 'no home location configured' });

  expect((await signalBy('u-2')).status).toBe('ignored');
  expect((await signalBy('u-3')).status).toBe('qualified');

  const opportunities = await get(`/opportunities?organizationId=${orgId}`);
  expect(opportunities.body).toHaveLength(1);
  expect(opportunities.body[0]).toMatchObject({
    status: 'ready', outcome: 'open', outcome_at: null, created_from_signal_id: signal.id, project_id: signal.project_id, summary: HOUSING, score: score.total,
  });
});

test('the same project from a second source shares the project and gets no second opportunity', async () => {
  await ingest('/second.xml', rssFeed('Other source', [{ guid: 'other-9', title: HOUSING, description: 'EUR 14,5 mln, 48 woningen.', pubDate: now }]));
  const first = await signalBy('u-1');
  const second = await signalBy('other-9');
  expect(second.project_id).toBe(first.project_id);
  expect(second.status).toBe('ready');
  const byProject = await get(`/signals?organizationId=${orgId}&projectId=${first.project_id}`);
  expect(byProject.body).toHaveLength(2);
  expect((await get(`/opportunities?organizationId=${orgId}`)).body).toHaveLength(1);
});

test('changing thresholds and reprocessing from scoring changes the decision and keeps the old score version', async () => {
  const office = await signalBy('u-3');
  const before = (await get(`/signals/${office.id}`)).body;
  expect(before.breakdown.decision).toBe('qualify');

  const settings = await api.call('PATCH', '/settings/scoring', { token: owner.token, body: { organizationId: orgId, opportunityAt: 50, qualifyAt: 40 } });
  expect(settings.status).toBe(200);
  expect(settings.body.config).toMatchObject({ version: 2, is_active: true, opportunity_at: 50, qualify_at: 40, ignore_below: 30 });
  expect(settings.body.rules).toHaveLength(7);

  const result = await reprocess(office.id, 'scoring');
  expect(result.stages.map((s: { stage: string }) => s.stage)).toEqual(['scoring', 'opportunity', 'enrichment']);
  const after = (await get(`/signals/${office.id}`)).body;
  expect(after.signal.status).toBe('ready');
  expect(after.breakdown.decision).toBe('opportunity');
  expect(after.score.scoring_config_id).toBe(settings.body.config.id);
  expect(after.classification.version).toBe(1); // not re-classified

  const versions = await owners.query('SELECT version, is_current, scoring_config_id, decision FROM scores WHERE signal_id = $1 ORDER BY version', [office.id]);
  expect(versions.rows).toEqual([
    { version: 1, is_current: false, scoring_config_id: before.score.scoring_config_id, decision: 'qualify' },
    { version: 2, is_current: true, scoring_config_id: settings.body.config.id, decision: 'opportunity' },
  ]);
  expect((await get(`/opportunities?organizationId=${orgId}`)).body).toHaveLength(2);

  // Reprocessing from classification writes new versions and moves is_current, never a duplicate.
  await reprocess(office.id);
  const classifications = await owners.query('SELECT version, is_current FROM classifications WHERE signal_id = $1 ORDER BY version', [office.id]);
  expect(classifications.rows).toEqual([{ version: 1, is_current: false }, { version: 2, is_current: true }]);
  expect((await get(`/opportunities?organizationId=${orgId}`)).body).toHaveLength(2);
});

test('thresholds must stay ordered; settings changes need admin and are audited', async () => {
  const bad = await api.call('PATCH', '/settings/scoring', { token: owner.token, body: { organizationId: orgId, ignoreBelow: 80 } });
  expectProblem(bad, 400, 'VALIDATION_FAILED');
  const member = await addMember(api, owner, orgId, 'member');
  expectProblem(await api.call('PATCH', '/settings/scoring', { token: member.token, body: { organizationId: orgId, homeLat: 52.09, homeLng: 5.12 } }), 403, 'FORBIDDEN');
  const audit = await owners.query(`SELECT actor_id, entity, field, before, after FROM compliance_audit_log WHERE organization_id = $1 AND entity = 'scoring_config' ORDER BY field`, [orgId]);
  expect(audit.rows).toEqual([
    { actor_id: owner.id, entity: 'scoring_config', field: 'opportunity_at', before: 65, after: 50 },
    { actor_id: owner.id, entity: 'scoring_config', field: 'qualify_at', before: 45, after: 40 },
  ]);
});

test('the industry profile is changed, validated and audited, and feeds classification', async () => {
  const res = await api.call('PATCH', '/settings/industry-profile', {
    token: owner.token,
    body: { organizationId: orgId, name: 'Groen Dak Installaties', products: [{ key: 'green_roofs', name: 'Green roofs', fitKeywords: ['groendak', 'sedum'] }] },
  });
  expect(res.status).toBe(200);
  expect(res.body.profile.name).toBe('Groen Dak Installaties');
  expect(res.body.products).toEqual([expect.objectContaining({ key: 'green_roofs', fit_keywords: ['groendak', 'sedum'] })]);
  expect(res.body.personas.length).toBeGreaterThan(0); // not given: kept
  const invalid = await api.call('PATCH', '/settings/industry-profile', { token: owner.token, body: { organizationId: orgId, products: [{ key: 'Bad Key', name: 'x', fitKeywords: [] }] } });
  expectProblem(invalid, 400, 'VALIDATION_FAILED');
  expect(invalid.body.errors[0].path).toBe('body.products.0.key');

  await ingest('/roofs.xml', rssFeed('Roofs', [{ guid: 'r-1', title: 'Aanvraag: sedum groendak op bedrijfshal', pubDate: now }]));
  const roof = (await get(`/signals/${(await signalBy('r-1')).id}`)).body;
  expect(roof.classification.relevance_reasons[0]).toContain('sedum');
});

test('an ignored signal stops before the next stage; ignore needs a write role', async () => {
  const office = await signalBy('u-3');
  const viewer = await addMember(api, owner, orgId, 'viewer');
  expectProblem(await api.call('POST', `/signals/${office.id}/ignore`, { token: viewer.token, body: {} }), 403, 'FORBIDDEN');
  const ignored = await api.call('POST', `/signals/${office.id}/ignore`, { token: owner.token, body: {} });
  expect(ignored.status).toBe(200);
  expect(ignored.body).toMatchObject({ id: office.id, status: 'ignored' });
  const result = await reprocess(office.id, 'scoring');
  expect(result).toMatchObject({ stoppedAt: 'scoring', stages: [], finalStatus: 'ignored' });
});

test('reprocess: unknown stage is 400, viewer is 403, a run in progress is 409', async () => {
  const housing = await signalBy('u-1');
  expectProblem(await api.call('POST', `/signals/${housing.id}/reprocess`, { token: owner.token, body: { fromStage: 'sending' } }), 400, 'VALIDATION_FAILED');
  const viewer = await addMember(api, owner, orgId, 'viewer');
  expectProblem(await api.call('POST', `/signals/${housing.id}/reprocess`, { token: viewer.token, body: {} }), 403, 'FORBIDDEN');

  // A run that no worker picks up stays in progress.
  const stuck = await api.temporal.workflow.start('processSignalWorkflow', {
    taskQueue: 'nobody-polls-this',
    workflowId: `signal/${housing.id}`,
    args: [{ organizationId: orgId, signalId: housing.id }],
  });
  try {
    expectProblem(await api.call('POST', `/signals/${housing.id}/reprocess`, { token: owner.token, body: {} }), 409, 'CONFLICT');
  } finally {
    await stuck.terminate('test done');
  }
});

test('a stage that keeps failing marks the signal failed with the reason', async () => {
  const housing = await signalBy('u-1');
  await owners.query('UPDATE scoring_configs SET is_active = false WHERE organization_id = $1', [orgId]);
  try {
    await expect(reprocess(housing.id, 'scoring')).rejects.toThrow();
    const after = await owners.query('SELECT status, failure_reason FROM signals WHERE id = $1', [housing.id]);
    expect(after.rows[0]).toEqual({ status: 'failed', failure_reason: 'scoring: the organization has no active scoring config' });
  } finally {
    await owners.query('UPDATE scoring_configs SET is_active = true WHERE organization_id = $1 AND version = (SELECT max(version) FROM scoring_configs WHERE organization_id = $1)', [orgId]);
  }
  await reprocess(housing.id);
  expect((await signalBy('u-1')).status).toBe('ready');
});

test('opportunities: manual and from a signal, outcomes won/lost/open, one open per project', async () => {
  const manual = await api.call('POST', '/opportunities', { token: owner.token, body: { organizationId: orgId, summary: 'Referral from a partner', score: 70 } });
  expect(manual.status).toBe(201);
  expect(manual.body).toMatchObject({ status: 'ready', outcome: 'open', project_id: null, summary: 'Referral from a partner', score: 70 });

  const housing = await signalBy('u-1');
  const dup = await api.call('POST', '/opportunities', { token: owner.token, body: { organizationId: orgId, signalId: housing.id } });
  expectProblem(dup, 409, 'CONFLICT');
  const existingId = dup.body.opportunity_id;

  expectProblem(await api.call('POST', `/opportunities/${existingId}/outcome`, { token: owner.token, body: { outcome: 'lost', value: 5 } }), 400, 'VALIDATION_FAILED');
  const won = await api.call('POST', `/opportunities/${existingId}/outcome`, { token: owner.token, body: { outcome: 'won', value: 125000 } });
  expect(won.body).toMatchObject({ outcome: 'won', status: 'closed', outcome_value: 125000, outcome_at: expect.any(String) });

  // Closed: a new one may be opened for the project; then reopening the old one conflicts.
  const again = await api.call('POST', '/opportunities', { token: owner.token, body: { organizationId: orgId, signalId: housing.id } });
  expect(again.status).toBe(201);
  expectProblem(await api.call('POST', `/opportunities/${existingId}/outcome`, { token: owner.token, body: { outcome: 'open' } }), 409, 'CONFLICT');
  const lost = await api.call('POST', `/opportunities/${again.body.id}/outcome`, { token: owner.token, body: { outcome: 'lost' } });
  expect(lost.body).toMatchObject({ outcome: 'lost', status: 'closed', outcome_value: null });
  const reopened = await api.call('POST', `/opportunities/${existingId}/outcome`, { token: owner.token, body: { outcome: 'open' } });
  expect(reopened.body).toMatchObject({ outcome: 'open', status: 'ready', outcome_at: null, outcome_value: null });

  expect((await get(`/opportunities?organizationId=${orgId}&outcome=lost`)).body.map((o: { id: string }) => o.id)).toEqual([again.body.id]);
  expect((await get(`/opportunities/${existingId}`)).body.id).toBe(existingId);
});

test('another tenant sees none of it (404) on every endpoint of the pipeline', async () => {
  const other = await newUser();
  const otherOrg = await api.call('POST', '/organizations', { token: other.token, body: { name: 'Other' } });
  expect(otherOrg.status).toBe(201);
  const housing = await signalBy('u-1');
  const opp = (await get(`/opportunities?organizationId=${orgId}`)).body[0];
  const calls: Array<[string, string, unknown?]> = [
    ['GET', `/signals/${housing.id}`],
    ['POST', `/signals/${housing.id}/ignore`, {}],
    ['POST', `/signals/${housing.id}/reprocess`, {}],
    ['GET', `/opportunities?organizationId=${orgId}`],
    ['GET', `/opportunities/${opp.id}`],
    ['POST', `/opportunities/${opp.id}/outcome`, { outcome: 'lost' }],
    ['POST', '/opportunities', { organizationId: orgId, summary: 'x' }],
    ['POST', '/opportunities', { organizationId: otherOrg.body.id, signalId: housing.id }],
    ['GET', `/settings/scoring?organizationId=${orgId}`],
    ['PATCH', '/settings/scoring', { organizationId: orgId, qualifyAt: 41 }],
    ['GET', `/settings/industry-profile?organizationId=${orgId}`],
    ['PATCH', '/settings/industry-profile', { organizationId: orgId, name: 'x' }],
  ];
  for (const [method, path, body] of calls) {
    const res = await api.call(method, path, { token: other.token, body });
    expect({ method, path, status: res.status, code: res.body?.code }).toEqual({ method, path, status: 404, code: 'NOT_FOUND' });
  }
  expect((await signalBy('u-1')).status).toBe('ready');
});

test('signal runs are readable in Temporal: id signal/<id>, searchable by OrganizationId and SignalId', async () => {
  const housing = await signalBy('u-1');
  const found: string[] = [];
  for (let i = 0; i < 40 && found.length === 0; i++) {
    for await (const wf of api.temporal.workflow.list({ query: `OrganizationId = '${orgId}' AND SignalId = '${housing.id}'` })) found.push(wf.workflowId);
    if (!found.length) await new Promise((r) => setTimeout(r, 250));
  }
  expect(found[0]).toBe(`signal/${housing.id}`);
});
