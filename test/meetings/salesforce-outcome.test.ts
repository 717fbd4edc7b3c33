import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { Pool } from 'pg';
import { WorkflowStarter } from '../../apps/shared/temporal';
import { createDb } from '../../db/pool';
import { linkedCrmOpportunity } from '../../domain/crm/opportunity-stage';
import { opportunityOutcome, recordOutcomeCrmSync } from '../../db/queries/opportunities';
import { asOrganization } from '../../db/tenancy';
import { expectProblem, newOrganization, startApi, TestApi, unreachableTemporal } from '../helpers/api';
import { until } from '../helpers/outreach';
import { SALESFORCE_TEST_APP, SALESFORCE_TEST_REFRESH_TOKEN, startSalesforceServer, SalesforceServer } from '../helpers/salesforce-server';
import { testEnv, type TestUser } from '../helpers/tokens';
import { startWorkerProcess, workerEnv } from '../helpers/worker-process';

/**
 * Salesforce outcomes: POST /opportunities/{id}/outcome with won or lost starts
 * (or wakes) the durable run `crm-outcome/<opportunityId>`, whose activity, in a real worker process
 * configured with the local Salesforce's connected app, sets the StageName of the Opportunity the
 * integration's mapping links (a PATCH of /sobjects/Opportunity/<id> with a bearer token from the
 * refresh-token grant). A 4xx is recorded in the opportunity's crm_error; an outage is retried.
 */
let base: TestApi;
let api: TestApi;
let sf: SalesforceServer;
let worker: ChildProcess;
const queue = `sf-outcome-${randomUUID()}`;

beforeAll(async () => {
  sf = await startSalesforceServer();
  worker = await startWorkerProcess({
    ...workerEnv(queue),
    SALESFORCE_CLIENT_ID: SALESFORCE_TEST_APP.clientId,
    SALESFORCE_CLIENT_SECRET: SALESFORCE_TEST_APP.clientSecret,
    SALESFORCE_TOKEN_URL: sf.tokenUrl,
  });
  base = await startApi();
  api = await startApi({
    salesforce: { ...SALESFORCE_TEST_APP, tokenUrl: sf.tokenUrl },
    workflows: new WorkflowStarter(base.temporal, { TEMPORAL_TASK_QUEUE: queue, INGEST_RETRY_INITIAL_INTERVAL_MS: 200 }),
  });
}, 180_000);
afterAll(async () => {
  worker?.kill('SIGKILL');
  await api?.close();
  await base?.close();
  await sf?.close();
});

async function must(owner: TestUser, method: string, path: string, body?: unknown) {
  const res = await api.call(method, path, { token: owner.token, body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** An organization with an opportunity, linked in its Salesforce integration's mapping to an Opportunity the local Salesforce holds. */
async function seed(mapping: (opportunityId: string, sfId: string) => Record<string, unknown> = (o, s) => ({ opportunities: { [o]: s } }), autoSync = true) {
  const { owner, orgId } = await newOrganization(api, `Salesforce outcome ${randomUUID().slice(0, 6)} B.V.`);
  const opportunity = await must(owner, 'POST', '/opportunities', { organizationId: orgId, summary: 'Nieuwbouw 24 woningen' });
  const sfId = `0065g0000${randomUUID().replace(/-/g, '').slice(0, 9)}`;
  sf.records.Opportunity.set(sfId, { Name: 'Nieuwbouw 24 woningen', StageName: 'Proposal/Price Quote' });
  await must(owner, 'POST', '/integrations', {
    organizationId: orgId,
    providerKey: 'salesforce',
    kind: 'crm',
    config: { instanceUrl: sf.url, autoSync },
    mapping: mapping(opportunity.id, sfId),
    secret: SALESFORCE_TEST_REFRESH_TOKEN,
  });
  return { owner, orgId, opportunity, sfId };
}

const patchesOf = (sfId: string) => sf.requests.filter((r) => r.method === 'PATCH' && r.path.endsWith(`/sobjects/Opportunity/${sfId}`));
const runOf = (opportunityId: string) => base.temporal.workflow.getHandle(`crm-outcome/${opportunityId}`);

test('won: the linked Opportunity moves to Closed Won through the run crm-outcome/<id>, with a bearer token from the grant; a repeat changes nothing', async () => {
  const t = await seed();
  const answered = await must(t.owner, 'POST', `/opportunities/${t.opportunity.id}/outcome`, { outcome: 'won', value: 250000 });
  expect(answered).toMatchObject({ outcome: 'won', status: 'closed', crm_error: null });
  expect(await runOf(t.opportunity.id).result()).toEqual({ synced: true, crmOpportunityId: t.sfId, stage: 'Closed Won' });
  expect(sf.records.Opportunity.get(t.sfId)).toEqual({ Name: 'Nieuwbouw 24 woningen', StageName: 'Closed Won' });
  const [patch] = patchesOf(t.sfId);
  expect(patch).toMatchObject({ body: { StageName: 'Closed Won' }, status: 204, authorization: expect.stringMatching(/^Bearer 00D5g000004Xyz!/) });
  expect(sf.requests.some((r) => r.path === '/services/oauth2/token' && r.body?.refresh_token === SALESFORCE_TEST_REFRESH_TOKEN)).toBe(true);
  const got = (await api.call('GET', `/opportunities/${t.opportunity.id}`, { token: t.owner.token })).body;
  expect(got).toMatchObject({ crm_synced_at: expect.any(String), crm_error: null });

  // The same outcome again: a second run writes the same stage (the PATCH is idempotent), no record is created.
  await must(t.owner, 'POST', `/opportunities/${t.opportunity.id}/outcome`, { outcome: 'won', value: 250000 });
  await until('the second run', async () => (patchesOf(t.sfId).length === 2 ? true : undefined), 30_000);
  expect(await runOf(t.opportunity.id).result()).toMatchObject({ synced: true, stage: 'Closed Won' });
  expect(sf.records.Opportunity.get(t.sfId)).toEqual({ Name: 'Nieuwbouw 24 woningen', StageName: 'Closed Won' });
  expect(sf.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/sobjects/Opportunity'))).toEqual([]);
});

test('lost with the stage names of mapping.stages; an outage is retried until Salesforce answers', async () => {
  // The link written with an upper-case id (as a person may paste it): stored and matched in lower case.
  const t = await seed((o, s) => ({ opportunities: { [o.toUpperCase()]: s }, stages: { won: 'Gewonnen', lost: 'Verloren' } }));
  const [stored] = (await api.call('GET', `/integrations?organizationId=${t.orgId}`, { token: t.owner.token })).body;
  expect(stored.mapping.opportunities).toEqual({ [t.opportunity.id]: t.sfId });
  sf.failNext(2);
  await must(t.owner, 'POST', `/opportunities/${t.opportunity.id}/outcome`, { outcome: 'lost' });
  expect(await runOf(t.opportunity.id).result()).toEqual({ synced: true, crmOpportunityId: t.sfId, stage: 'Verloren' });
  expect(sf.records.Opportunity.get(t.sfId)).toMatchObject({ StageName: 'Verloren' });
  expect(patchesOf(t.sfId).map((r) => r.status)).toEqual([503, 503, 204]);
  expect((await api.call('GET', `/opportunities/${t.opportunity.id}`, { token: t.owner.token })).body).toMatchObject({
    crm_synced_at: expect.any(String),
    crm_error: null,
  });
});

test('a 4xx is recorded in crm_error and not retried; a run goes again for the next outcome', async () => {
  const t = await seed((o, s) => ({ opportunities: { [o]: s }, stages: { won: 'Won [reject]' } }));
  await must(t.owner, 'POST', `/opportunities/${t.opportunity.id}/outcome`, { outcome: 'won' });
  expect(await runOf(t.opportunity.id).result()).toMatchObject({
    synced: false,
    reason: 'rejected',
    error: expect.stringContaining('bad value for restricted picklist'),
  });
  expect(patchesOf(t.sfId).map((r) => r.status)).toEqual([400]);
  expect(sf.records.Opportunity.get(t.sfId)).toMatchObject({ StageName: 'Proposal/Price Quote' });
  const got = (await api.call('GET', `/opportunities/${t.opportunity.id}`, { token: t.owner.token })).body;
  expect(got.crm_error).toContain('INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST');
  expect(got.crm_synced_at).toBeNull();

  // Reopened, then lost: the default stage goes through and the error is cleared.
  await must(t.owner, 'POST', `/opportunities/${t.opportunity.id}/outcome`, { outcome: 'open' });
  await must(t.owner, 'POST', `/opportunities/${t.opportunity.id}/outcome`, { outcome: 'lost' });
  await until('the lost stage', async () => (sf.records.Opportunity.get(t.sfId)?.StageName === 'Closed Lost' ? true : undefined), 30_000);
  await runOf(t.opportunity.id).result();
  expect((await api.call('GET', `/opportunities/${t.opportunity.id}`, { token: t.owner.token })).body).toMatchObject({
    crm_error: null,
    crm_synced_at: expect.any(String),
  });
});

test('no run without a link (or without autoSync); a bad mapping is 400 naming the field; another tenant gets 404', async () => {
  const unlinked = await seed(() => ({}));
  await must(unlinked.owner, 'POST', `/opportunities/${unlinked.opportunity.id}/outcome`, { outcome: 'won' });
  const off = await seed(undefined, false);
  await must(off.owner, 'POST', `/opportunities/${off.opportunity.id}/outcome`, { outcome: 'won' });
  for (const t of [unlinked, off]) await expect(runOf(t.opportunity.id).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  expect(patchesOf(unlinked.sfId)).toEqual([]);
  expect(patchesOf(off.sfId)).toEqual([]);

  const post = (mapping: unknown) =>
    api.call('POST', '/integrations', {
      token: unlinked.owner.token,
      body: { organizationId: unlinked.orgId, providerKey: 'salesforce', kind: 'crm', config: { instanceUrl: sf.url }, mapping, secret: 'x' },
    });
  for (const [mapping, path] of [
    [{ opportunities: { 'not-a-uuid': '0065g00000AbCdE' } }, 'body.mapping.opportunities.not-a-uuid'],
    [{ opportunities: { [unlinked.opportunity.id]: 'short' } }, `body.mapping.opportunities.${unlinked.opportunity.id}`],
    [{ stages: { won: '' } }, 'body.mapping.stages.won'],
    [{ stages: { closed: 'x' } }, 'body.mapping.stages'],
    [{ deals: {} }, 'body.mapping'],
    [
      { opportunities: { [unlinked.opportunity.id]: '0065g00000AbCdE', [unlinked.opportunity.id.toUpperCase()]: '0065g00000AbCdF' } },
      `body.mapping.opportunities.${unlinked.opportunity.id.toUpperCase()}`,
    ],
  ] as const) {
    const res = await post(mapping);
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  }

  const stranger = await newOrganization(api, 'Stranger outcome B.V.');
  const linked = await seed();
  expectProblem(
    await api.call('POST', `/opportunities/${linked.opportunity.id}/outcome`, { token: stranger.owner.token, body: { outcome: 'won' } }),
    404,
    'NOT_FOUND',
  );
  await expect(runOf(linked.opportunity.id).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  expect(sf.records.Opportunity.get(linked.sfId)).toMatchObject({ StageName: 'Proposal/Price Quote' });
});

/** One pass of reconcile/outreach, by hand, over this organization only, on the Salesforce worker's queue (the runs it starts go there). */
function reconcile(organizationId: string) {
  return base.temporal.workflow.execute('reconcileOutreachWorkflow', {
    taskQueue: queue,
    workflowId: `reconcile/outreach-test-${randomUUID()}`,
    args: [{ olderThanSeconds: 0, organizationId, retryInitialIntervalMs: 100 }],
  }) as Promise<{ restarted: string[]; sends: string[]; crmOutcomes: string[]; running: number }>;
}

test('an outcome whose sync start fails (Temporal unreachable) answers 200 and reconcile/outreach syncs it; a synced one is not started again, a changed one is', async () => {
  // The API's starter talks to a Temporal address where nothing listens.
  const unreachable = unreachableTemporal();
  const offline = await startApi({
    salesforce: { ...SALESFORCE_TEST_APP, tokenUrl: sf.tokenUrl },
    workflows: new WorkflowStarter(unreachable, { TEMPORAL_TASK_QUEUE: queue, INGEST_RETRY_INITIAL_INTERVAL_MS: 200 }),
  });
  try {
    const t = await seed();
    const res = await offline.call('POST', `/opportunities/${t.opportunity.id}/outcome`, { token: t.owner.token, body: { outcome: 'won', value: 100000 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: t.opportunity.id, outcome: 'won', status: 'closed', crm_synced_at: null, crm_error: null });
    await expect(runOf(t.opportunity.id).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    expect(patchesOf(t.sfId)).toEqual([]);

    const pass = await reconcile(t.orgId);
    expect(pass).toMatchObject({ crmOutcomes: [t.opportunity.id], running: 0 });
    expect(await runOf(t.opportunity.id).result()).toEqual({ synced: true, crmOpportunityId: t.sfId, stage: 'Closed Won' });
    expect(patchesOf(t.sfId).map((r) => [r.body, r.status])).toEqual([[{ StageName: 'Closed Won' }, 204]]);
    expect((await api.call('GET', `/opportunities/${t.opportunity.id}`, { token: t.owner.token })).body).toMatchObject({
      crm_synced_at: expect.any(String),
      crm_error: null,
    });

    // Synced since the outcome was set: the next pass starts nothing.
    expect(await reconcile(t.orgId)).toMatchObject({ crmOutcomes: [], running: 0 });
    expect(patchesOf(t.sfId)).toHaveLength(1);

    // Changed to lost while Temporal is unreachable (set after the last sync): the next pass syncs it.
    expect((await offline.call('POST', `/opportunities/${t.opportunity.id}/outcome`, { token: t.owner.token, body: { outcome: 'lost' } })).status).toBe(200);
    expect(await reconcile(t.orgId)).toMatchObject({ crmOutcomes: [t.opportunity.id] });
    await until('the lost stage', async () => (sf.records.Opportunity.get(t.sfId)?.StageName === 'Closed Lost' ? true : undefined), 30_000);
    await runOf(t.opportunity.id).result();
    expect(await reconcile(t.orgId)).toMatchObject({ crmOutcomes: [] });
    expect(patchesOf(t.sfId)).toHaveLength(2);
  } finally {
    await offline.close();
    await unreachable.connection.close().catch(() => undefined);
  }
}, 180_000);

test('reconcile/outreach leaves alone an outcome synced through the API, a refused one (crm_error), and one not linked', async () => {
  const synced = await seed();
  await must(synced.owner, 'POST', `/opportunities/${synced.opportunity.id}/outcome`, { outcome: 'won' });
  expect(await runOf(synced.opportunity.id).result()).toMatchObject({ synced: true });
  expect(await reconcile(synced.orgId)).toMatchObject({ crmOutcomes: [], running: 0 });
  expect(patchesOf(synced.sfId)).toHaveLength(1);

  const refused = await seed((o, s) => ({ opportunities: { [o]: s }, stages: { won: 'Won [reject]' } }));
  await must(refused.owner, 'POST', `/opportunities/${refused.opportunity.id}/outcome`, { outcome: 'won' });
  expect(await runOf(refused.opportunity.id).result()).toMatchObject({ synced: false, reason: 'rejected' });
  expect(await reconcile(refused.orgId)).toMatchObject({ crmOutcomes: [] });
  expect(patchesOf(refused.sfId)).toHaveLength(1);

  const unlinked = await seed(() => ({}));
  await must(unlinked.owner, 'POST', `/opportunities/${unlinked.opportunity.id}/outcome`, { outcome: 'won' });
  expect(await reconcile(unlinked.orgId)).toMatchObject({ crmOutcomes: [] });
  await expect(runOf(unlinked.opportunity.id).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);

  // An integration without a token: its run can only give up (no_crm), so reconcile does not start it again and again.
  const tokenless = await seed();
  const owners = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 1 });
  try {
    await owners.query('UPDATE integrations SET secret_ciphertext = NULL WHERE organization_id = $1', [tokenless.orgId]);
  } finally {
    await owners.end();
  }
  await must(tokenless.owner, 'POST', `/opportunities/${tokenless.opportunity.id}/outcome`, { outcome: 'won' });
  expect(await runOf(tokenless.opportunity.id).result()).toMatchObject({ synced: false, reason: 'no_crm' });
  expect(await reconcile(tokenless.orgId)).toMatchObject({ crmOutcomes: [] });
}, 120_000);

test('a sync records only the outcome it sent: an outcome changed meanwhile stays unsynced for reconcile; a new outcome clears an earlier refusal', async () => {
  const { owner, orgId } = await newOrganization(api, `Salesforce race ${randomUUID().slice(0, 6)} B.V.`);
  const opportunity = await must(owner, 'POST', '/opportunities', { organizationId: orgId, summary: 'Renovatie school' });
  const db = createDb(testEnv('TEST_WORKER_DB_URL'), 2);
  try {
    const stateOf = () =>
      asOrganization(db, orgId, (tx) =>
        tx.selectFrom('opportunities').select(['outcome', 'crm_synced_at', 'crm_error']).where('id', '=', opportunity.id).executeTakeFirstOrThrow(),
      );
    await must(owner, 'POST', `/opportunities/${opportunity.id}/outcome`, { outcome: 'won', value: 1000 });
    const sentWon = await asOrganization(db, orgId, (tx) => opportunityOutcome(tx, opportunity.id));
    // The outcome changes to lost while the sync of "won" is under way; the sync's answer must not mark "lost" synced.
    await must(owner, 'POST', `/opportunities/${opportunity.id}/outcome`, { outcome: 'lost' });
    await asOrganization(db, orgId, (tx) => recordOutcomeCrmSync(tx, opportunity.id, sentWon!.outcome_at, { ok: true }));
    expect(await stateOf()).toMatchObject({ outcome: 'lost', crm_synced_at: null });
    await asOrganization(db, orgId, (tx) => recordOutcomeCrmSync(tx, opportunity.id, sentWon!.outcome_at, { error: 'refused' }));
    expect(await stateOf()).toMatchObject({ crm_error: null });
    // The sync of "lost" as read is recorded; a refusal is kept until a new outcome is set, which clears it.
    const sentLost = await asOrganization(db, orgId, (tx) => opportunityOutcome(tx, opportunity.id));
    await asOrganization(db, orgId, (tx) =>
      recordOutcomeCrmSync(tx, opportunity.id, sentLost!.outcome_at, { error: 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST' }),
    );
    expect(await stateOf()).toMatchObject({ crm_error: 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST', crm_synced_at: null });
    await must(owner, 'POST', `/opportunities/${opportunity.id}/outcome`, { outcome: 'won', value: 2000 });
    expect(await stateOf()).toMatchObject({ outcome: 'won', crm_error: null });
    const sentAgain = await asOrganization(db, orgId, (tx) => opportunityOutcome(tx, opportunity.id));
    await asOrganization(db, orgId, (tx) => recordOutcomeCrmSync(tx, opportunity.id, sentAgain!.outcome_at, { ok: true }));
    expect(await stateOf()).toMatchObject({ crm_synced_at: expect.any(Date), crm_error: null });
  } finally {
    await db.destroy();
  }
});

test('the mapping links an opportunity whatever the case of its id; anything but a non-empty string links nothing', () => {
  const id = randomUUID();
  expect(linkedCrmOpportunity({ opportunities: { [id.toUpperCase()]: '006A' } }, id)).toBe('006A');
  expect(linkedCrmOpportunity({ opportunities: { [id]: '006B' } }, id.toUpperCase())).toBe('006B');
  expect(linkedCrmOpportunity({ opportunities: { [id]: '' } }, id)).toBeNull();
  expect(linkedCrmOpportunity({ opportunities: { [id]: 7 } }, id)).toBeNull();
  expect(linkedCrmOpportunity({ opportunities: { [randomUUID()]: '006C' } }, id)).toBeNull();
  expect(linkedCrmOpportunity(null, id)).toBeNull();
});
