import { newOrganization, addMember, expectProblem } from '../helpers/api';
import type { Schema } from '../helpers/client';
import { startProviderServer, ProviderServer } from '../helpers/provider-server';
import { startDropcontactServer, type DropcontactStandIn } from '../helpers/dropcontact-server';
import { startApolloServer, type ApolloStandIn } from '../helpers/apollo-server';
import { useStack } from '../helpers/stack';
import { startReacherServer, type ReacherStandIn } from '../helpers/reacher-server';
import { testEnv } from '../helpers/tokens';
import { createEnrichmentActivities } from '../../activities/enrichment';
import { SecretBox } from '../../db/secrets';
import { randomUUID } from 'node:crypto';
import { resultWithin } from '../helpers/workflow-result';
import type { TestUser } from '../helpers/tokens';
import type { EnrichCompanyResult } from '../../workflows/enrich-company';

// Each run waits out a loaded machine, where a Temporal timer may fire a minute late.
jest.setTimeout(300_000);

/**
 * The enrichment waterfall through the real worker: the company's website, then the organization's
 * providers in its order (Hunter, Apollo, Dropcontact stand-ins speaking their real shapes), each
 * step's new addresses checked at once, stopping at the first address at the organization's stopAt.
 * The stack's DNS answers an MX for the made-up domains here, so a personal address checks valid
 * and a role address (info@) risky.
 */
const { api, owners, workerDb } = useStack({ api: true, owners: true, workerDb: true });
let site: ProviderServer;
let hunter: ProviderServer;
let dropcontact: DropcontactStandIn;
let apollo: ApolloStandIn;
let reacher: ReacherStandIn;

beforeAll(async () => {
  // A company website that names nobody.
  site = await startProviderServer();
  site.route('GET', '/robots.txt', { body: 'User-agent: *\nAllow: /\n', contentType: 'text/plain' });
  site.route('GET', '/', {
    body: '<html><head><title>Welkom</title></head><body><p>Wij installeren warmtepompen.</p></body></html>',
    contentType: 'text/html; charset=utf-8',
  });
  // Hunter knows no address at these domains (one search, one unit).
  hunter = await startProviderServer();
  hunter.route('GET', '/v2/domain-search', (req) =>
    req.headers['x-api-key'] === 'hunter-key'
      ? {
          body: {
            data: { domain: new URL(req.url!, 'http://x').searchParams.get('domain'), organization: null, pattern: null, emails: [] },
            meta: { results: 0, limit: 20, offset: 0 },
          },
        }
      : { status: 401, body: { errors: [{ id: 'authentication_failed', code: 401, details: 'No user found for the API key supplied' }] } },
  );
  dropcontact = await startDropcontactServer({
    token: 'dc-token',
    notReadyPolls: 2,
    directory: [
      {
        fullName: 'Sanne de Boer',
        company: 'Bakker Installatie B.V.',
        emails: [{ email: 'sanne.deboer@bakker-installatie.nl', qualification: 'nominative@pro' }],
      },
      { fullName: 'Tom Bos', company: 'Bos Bouw B.V.', emails: [{ email: 'known@refusing-server.nl', qualification: 'nominative@pro' }] },
      { fullName: 'Eva Bos', company: 'Bos Bouw Zuid B.V.', emails: [{ email: 'known@refusing-server.nl', qualification: 'nominative@pro' }] },
      { fullName: 'Sanne de Boer', company: 'Eenmaal Bouw B.V.', emails: [{ email: 'sanne@eenmaal.nl', qualification: 'nominative@pro' }] },
    ],
  });
  reacher = await startReacherServer();
  apollo = await startApolloServer({
    apiKey: 'apollo-key',
    directory: [
      // Lisa's address is on a catch-all domain: found, but risky.
      ...[
        ['a1', 'Bos Bouw B.V.', 'bosbouw.nl', 'lisa@accepts-all.nl'],
        ['a2', 'Bos Bouw Zuid B.V.', 'bosbouwzuid.nl', 'lisa.zuid@accepts-all.nl'],
        ['a3', 'Bos Bouw Noord B.V.', 'bosbouwnoord.nl', 'lisa.noord@accepts-all.nl'],
      ].map(([id, organizationName, domain, email]) => ({
        id: id!,
        firstName: 'Lisa',
        lastName: 'Bos',
        organizationName: organizationName!,
        domain: domain!,
        email,
        emailStatus: 'verified',
      })),
    ],
  });
});
afterAll(async () => {
  await site.close();
  await hunter.close();
  await dropcontact.close();
  await apollo.close();
  await reacher.close();
});

async function integration(owner: TestUser, orgId: string, providerKey: string, baseUrl: string, secret: string): Promise<string> {
  const res = await api.call('POST', '/integrations', {
    token: owner.token,
    body: { organizationId: orgId, providerKey, kind: 'enrichment', config: { baseUrl }, secret },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function companyWithPeople(owner: TestUser, orgId: string, name: string, domain: string, people: string[]): Promise<Schema<'Company'>> {
  const c = await api.call('POST', '/companies', { token: owner.token, body: { organizationId: orgId, name, website: `${site.url}/`, domain } });
  expect(c.status).toBe(201);
  for (const fullName of people) {
    const p = await api.call('POST', '/contacts', { token: owner.token, body: { organizationId: orgId, companyId: c.body.id, fullName } });
    expect(p.status).toBe(201);
  }
  return c.body as Schema<'Company'>;
}

async function enrich(owner: TestUser, companyId: string): Promise<EnrichCompanyResult> {
  const res = await api.call('POST', `/companies/${companyId}/enrich`, { token: owner.token, body: {} });
  expect(res.status).toBe(202);
  return resultWithin<EnrichCompanyResult>(api.temporal.workflow.getHandle(`company/${companyId}/enrich`), 120_000);
}

async function runsOf(owner: TestUser, companyId: string): Promise<Schema<'EnrichmentRun'>[]> {
  const res = await api.call('GET', `/companies/${companyId}/enrichment-runs`, { token: owner.token });
  expect(res.status).toBe(200);
  return res.body as Schema<'EnrichmentRun'>[];
}

const contactsOf = async (owner: TestUser, orgId: string, companyId: string) =>
  (await api.call('GET', `/contacts?organizationId=${orgId}&companyId=${companyId}`, { token: owner.token })).body as Schema<'Contact'>[];

test('the waterfall tries the providers in the organization’s order, records each step, and stops at the first valid address', async () => {
  const { owner, orgId } = await newOrganization(api, 'Waterval Installaties B.V.');
  const hunterId = await integration(owner, orgId, 'hunter', hunter.url, 'hunter-key');
  const dropcontactId = await integration(owner, orgId, 'dropcontact', dropcontact.url, 'dc-token');
  const apolloId = await integration(owner, orgId, 'apollo', apollo.url, 'apollo-key');

  // Without an order: the integrations oldest first.
  const defaults = await api.call('GET', `/settings/enrichment?organizationId=${orgId}`, { token: owner.token });
  expect(defaults.status).toBe(200);
  expect(defaults.body).toEqual({
    organization_id: orgId,
    stop_at: 'valid',
    order: [hunterId, dropcontactId, apolloId].map((id) => expect.objectContaining({ integration_id: id, ordered: false })),
  });
  const set = await api.call('PATCH', '/settings/enrichment', {
    token: owner.token,
    body: { organizationId: orgId, order: [hunterId, apolloId, dropcontactId] },
  });
  expect(set.status).toBe(200);
  expect(set.body.order.map((o: { integration_id: string; provider_key: string; ordered: boolean }) => [o.provider_key, o.ordered])).toEqual([
    ['hunter', true],
    ['apollo', true],
    ['dropcontact', true],
  ]);

  // Apollo is down (503 on every call): its step fails with the reason and the waterfall goes on.
  apollo.failWith = 503;
  const polls = dropcontact.polls;
  const c = await companyWithPeople(owner, orgId, 'Bakker Installatie B.V.', 'bakker-installatie.nl', ['Sanne de Boer']);
  let result: EnrichCompanyResult;
  try {
    result = await enrich(owner, c.id);
  } finally {
    apollo.failWith = null;
  }
  expect(result).toMatchObject({ status: 'done', stoppedAtStep: 3 });
  expect(dropcontact.polls - polls).toBe(3); // two "not ready yet", then the result

  const run = (await runsOf(owner, c.id))[0]!;
  expect(run).toMatchObject({ id: result.runId, status: 'done', stop_at: 'valid', stopped_at_step: 3, finished_at: expect.any(String) });
  expect(run.steps.map((s) => [s.position, s.provider, s.status, s.found, s.verified, s.cost_units])).toEqual([
    [0, 'website', 'done', 0, 0, 0],
    [1, 'hunter', 'done', 0, 0, 0], // a domain search that finds nobody is not counted by Hunter
    [2, 'apollo', 'failed', 0, 0, 0],
    [3, 'dropcontact', 'done', 1, 1, 1],
  ]);
  expect(run.steps[2]!.error).toMatch(/503/);
  expect(run.steps[1]!.integration_id).toBe(hunterId);

  // The address keeps which provider, run and step found it; the person was entered by hand.
  const [sanne] = await contactsOf(owner, orgId, c.id);
  expect(sanne).toMatchObject({
    full_name: 'Sanne de Boer',
    email: 'sanne.deboer@bakker-installatie.nl',
    email_status: 'valid',
    data_source: 'manual',
    found_by: { email: { provider: 'dropcontact', run_id: result.runId, step: 3 } },
  });
});

test('stopAt: a risky address does not stop the waterfall at valid, and does at risky', async () => {
  // The organization's verifier is a Reacher stand-in: accepts-all.nl takes every address (catch-all: risky),
  // refusing-server.nl knows only known@ (valid).
  const { owner, orgId } = await newOrganization(api, 'Waterval Bouw B.V.');
  const check = await api.call('POST', '/integrations', {
    token: owner.token,
    body: { organizationId: orgId, providerKey: 'reacher', kind: 'verification', config: { baseUrl: reacher.url }, secret: 'x' },
  });
  expect(check.status).toBe(201);
  const apolloId = await integration(owner, orgId, 'apollo', apollo.url, 'apollo-key');
  const dropcontactId = await integration(owner, orgId, 'dropcontact', dropcontact.url, 'dc-token');
  await api.call('PATCH', '/settings/enrichment', { token: owner.token, body: { organizationId: orgId, order: [apolloId, dropcontactId] } });

  // Apollo finds Lisa's address on a catch-all domain (risky); Dropcontact then finds Tom's (valid) and the run stops there.
  const first = await companyWithPeople(owner, orgId, 'Bos Bouw B.V.', 'bosbouw.nl', ['Lisa Bos', 'Tom Bos']);
  const a = await enrich(owner, first.id);
  expect(a).toMatchObject({ status: 'done', stoppedAtStep: 2 });
  const runA = (await runsOf(owner, first.id))[0]!;
  expect(runA.steps.map((s) => [s.provider, s.status, s.found, s.verified])).toEqual([
    ['website', 'done', 0, 0],
    ['apollo', 'done', 1, 0],
    ['dropcontact', 'done', 1, 1],
  ]);
  const people = await contactsOf(owner, orgId, first.id);
  expect(Object.fromEntries(people.map((p) => [p.full_name, [p.email, p.email_status]]))).toEqual({
    'Lisa Bos': ['lisa@accepts-all.nl', 'risky'],
    'Tom Bos': ['known@refusing-server.nl', 'valid'],
  });

  // At stopAt risky the catch-all address is good enough: Dropcontact is never asked.
  const stop = await api.call('PATCH', '/settings/enrichment', { token: owner.token, body: { organizationId: orgId, stopAt: 'risky' } });
  expect(stop.body).toMatchObject({ stop_at: 'risky' });
  const submits = dropcontact.submits;
  const second = await companyWithPeople(owner, orgId, 'Bos Bouw Zuid B.V.', 'bosbouwzuid.nl', ['Lisa Bos', 'Eva Bos']);
  const b = await enrich(owner, second.id);
  expect(b).toMatchObject({ status: 'done', stoppedAtStep: 1 });
  const runB = (await runsOf(owner, second.id))[0]!;
  expect(runB).toMatchObject({ stop_at: 'risky', stopped_at_step: 1 });
  expect(runB.steps.map((s) => [s.provider, s.status])).toEqual([
    ['website', 'done'],
    ['apollo', 'done'],
    ['dropcontact', 'skipped'],
  ]);
  expect(dropcontact.submits).toBe(submits);

  // The verifier down: the found address stays unchecked, and the run still ends (done, every step tried).
  await owners.query(`UPDATE integrations SET config = '{"baseUrl": "http://127.0.0.1:9"}' WHERE id = $1`, [check.body.id]);
  const third = await companyWithPeople(owner, orgId, 'Bos Bouw Noord B.V.', 'bosbouwnoord.nl', ['Lisa Bos']);
  const c = await enrich(owner, third.id);
  expect(c).toMatchObject({ status: 'done', stoppedAtStep: null });
  const runC = (await runsOf(owner, third.id))[0]!;
  expect(runC).toMatchObject({ status: 'done', finished_at: expect.any(String) });
  expect(runC.steps.map((s) => [s.provider, s.status, s.found, s.verified])).toEqual([
    ['website', 'done', 0, 0],
    ['apollo', 'done', 1, 0],
    ['dropcontact', 'done', 0, 0],
  ]);
  expect((await api.call('GET', `/companies/${third.id}`, { token: owner.token })).body.enrichment_status).toBe('done');
});

test('a Dropcontact request is sent once: a retried submit polls the request recorded, and one whose id was lost is not sent again', async () => {
  const { owner, orgId } = await newOrganization(api, 'Eenmaal B.V.');
  const dropcontactId = await integration(owner, orgId, 'dropcontact', dropcontact.url, 'dc-token');
  const c = await companyWithPeople(owner, orgId, 'Eenmaal Bouw B.V.', 'eenmaal.nl', ['Sanne de Boer']);
  const activities = createEnrichmentActivities({
    db: workerDb,
    limits: { timeoutMs: 5000, maxBytes: 1_000_000 },
    secrets: new SecretBox(testEnv('INTEGRATION_SECRET_KEY')),
  });
  const plan = await activities.startEnrichmentRun({ organizationId: orgId, companyId: c.id, workflowRunId: `test-${randomUUID()}` });
  const planned = plan.steps.find((s) => s.provider === 'dropcontact')!;
  const step = { organizationId: orgId, companyId: c.id, runId: plan.runId, position: planned.position, provider: 'dropcontact', integrationId: dropcontactId };
  const submits = dropcontact.submits;
  const credits = dropcontact.credits;
  const first = await activities.submitEnrichmentBatch(step);
  expect(first).toEqual({ requestId: expect.any(String) });
  // The same activity again (a retry after its answer was lost): the recorded request, nothing sent or paid.
  expect(await activities.submitEnrichmentBatch(step)).toEqual(first);
  expect(dropcontact.submits).toBe(submits + 1);
  expect(dropcontact.credits).toBe(credits - 1);

  // A request claimed whose id never reached the database (the worker died after sending it): not sent again.
  await owners.query(`UPDATE enrichment_run_steps SET request_id = NULL WHERE run_id = $1 AND position = $2`, [plan.runId, planned.position]);
  await expect(activities.submitEnrichmentBatch(step)).rejects.toMatchObject({ type: 'EnrichmentRequestLost', nonRetryable: true });
  expect(dropcontact.submits).toBe(submits + 1);

  // A refusal with an answer (the rate limit) takes nothing: the claim is given back and a retry sends the request.
  await owners.query(`UPDATE enrichment_run_steps SET submitted_at = NULL WHERE run_id = $1 AND position = $2`, [plan.runId, planned.position]);
  dropcontact.failWith = 429;
  try {
    await expect(activities.submitEnrichmentBatch(step)).rejects.toMatchObject({ nonRetryable: false });
  } finally {
    dropcontact.failWith = null;
  }
  expect(await activities.submitEnrichmentBatch(step)).toEqual({ requestId: expect.any(String) });
  expect(dropcontact.submits).toBe(submits + 2);

  // A step whose integration was deleted meanwhile (its id set null) fails; it never falls back to the
  // organization's newest enrichment integration, here an Apollo one, whose key would go to Hunter.
  await integration(owner, orgId, 'apollo', apollo.url, 'apollo-key');
  const apolloRequests = apollo.requests;
  await expect(
    activities.enrichFromProvider({ organizationId: orgId, companyId: c.id, provider: 'apollo', step: { ...step, provider: 'apollo', integrationId: null } }),
  ).rejects.toMatchObject({ type: 'EnrichmentNotConfigured', nonRetryable: true });
  expect(apollo.requests).toBe(apolloRequests);
});

test('the enrichment settings: only the organization’s own enrichment integrations, admins only, audited; another tenant gets 404', async () => {
  const { owner, orgId } = await newOrganization(api, 'Instellingen B.V.');
  const hunterId = await integration(owner, orgId, 'hunter', hunter.url, 'hunter-key');
  const crm = await api.call('POST', '/integrations', {
    token: owner.token,
    body: { organizationId: orgId, providerKey: 'hubspot', kind: 'crm', config: {}, secret: 'hubspot-token' },
  });
  expect(crm.status).toBe(201);
  const other = await newOrganization(api, 'Ander B.V.');
  const theirs = await integration(other.owner, other.orgId, 'hunter', hunter.url, 'hunter-key');

  const patch = (token: string, body: Record<string, unknown>) =>
    api.call('PATCH', '/settings/enrichment', { token, body: { organizationId: orgId, ...body } });
  const refused = await patch(owner.token, { order: [hunterId, theirs] });
  expectProblem(refused, 400, 'VALIDATION_FAILED');
  expect(JSON.stringify(refused.body)).toContain('body.order.1');
  expectProblem(await patch(owner.token, { order: [crm.body.id] }), 400, 'VALIDATION_FAILED');
  expectProblem(await patch(owner.token, { order: [hunterId, hunterId] }), 400, 'VALIDATION_FAILED');
  expectProblem(await patch(owner.token, { stopAt: 'invalid' }), 400, 'VALIDATION_FAILED');
  expectProblem(await patch(owner.token, {}), 400, 'VALIDATION_FAILED');
  const member = await addMember(api, owner, orgId, 'member');
  expectProblem(await patch(member.token, { stopAt: 'risky' }), 403, 'FORBIDDEN');
  expectProblem(await patch(other.owner.token, { stopAt: 'risky' }), 404, 'NOT_FOUND');
  expectProblem(await api.call('GET', `/settings/enrichment?organizationId=${orgId}`, { token: other.owner.token }), 404, 'NOT_FOUND');
  // Nothing changed by the refusals.
  const unchanged = await api.call('GET', `/settings/enrichment?organizationId=${orgId}`, { token: member.token });
  expect(unchanged.body).toMatchObject({ stop_at: 'valid', order: [expect.objectContaining({ integration_id: hunterId, ordered: false })] });

  expect((await patch(owner.token, { order: [hunterId], stopAt: 'risky' })).status).toBe(200);
  const audit = await owners.query(
    `SELECT field, before, after FROM compliance_audit_log WHERE organization_id = $1 AND entity = 'enrichment_settings' ORDER BY field`,
    [orgId],
  );
  expect(audit.rows).toEqual([
    { field: 'order', before: [], after: [hunterId] },
    { field: 'stop_at', before: 'valid', after: 'risky' },
  ]);

  // Deleting the integration takes it out of the order (the database's foreign key).
  expect((await api.call('DELETE', `/integrations/${hunterId}`, { token: owner.token })).status).toBe(204);
  expect((await api.call('GET', `/settings/enrichment?organizationId=${orgId}`, { token: owner.token })).body.order).toEqual([]);

  // A company's runs: any member reads them, another tenant gets 404.
  const c = await api.call('POST', '/companies', { token: owner.token, body: { organizationId: orgId, name: 'Lijst B.V.', website: `${site.url}/` } });
  const done = await enrich(owner, c.body.id);
  const viewer = await addMember(api, owner, orgId, 'viewer');
  expect((await api.call('GET', `/companies/${c.body.id}/enrichment-runs`, { token: viewer.token })).body).toEqual([
    expect.objectContaining({ id: done.runId, company_id: c.body.id, organization_id: orgId }),
  ]);
  expectProblem(await api.call('GET', `/companies/${c.body.id}/enrichment-runs`, { token: other.owner.token }), 404, 'NOT_FOUND');
  expectProblem(await api.call('GET', `/companies/${c.body.id}/enrichment-runs?limit=500`, { token: owner.token }), 400, 'VALIDATION_FAILED');
});

test('a company left enriching by a workflow that ended is enriched again by the reconcile, and the run it left is closed', async () => {
  const { owner, orgId } = await newOrganization(api, 'Verloren B.V.');
  const c = await companyWithPeople(owner, orgId, 'Verloren Bouw B.V.', 'verloren.nl', []);
  // As a terminated workflow leaves it: the company running for an hour, its run and step never finished.
  await owners.query(`UPDATE companies SET enrichment_status = 'running', updated_at = now() - interval '1 hour' WHERE id = $1`, [c.id]);
  const lost = await owners.query<{ id: string }>(
    `INSERT INTO enrichment_runs (organization_id, company_id, workflow_run_id, stop_at) VALUES ($1, $2, 'a-lost-run', 'valid') RETURNING id`,
    [orgId, c.id],
  );
  await owners.query(`INSERT INTO enrichment_run_steps (run_id, organization_id, position, provider, status) VALUES ($1, $2, 0, 'website', 'running')`, [
    lost.rows[0]!.id,
    orgId,
  ]);

  const reconciled = await api.temporal.workflow.execute('reconcileSignalsWorkflow', {
    taskQueue: testEnv('TEMPORAL_TASK_QUEUE'),
    workflowId: `reconcile/test-enrichments-${randomUUID()}`,
    args: [{ stuckAfterSeconds: 300, retryInitialIntervalMs: 200 }],
  });
  // The scheduled reconcile may have started it first: then this run finds it running.
  expect([...reconciled.enrichments.started, ...reconciled.enrichments.running]).toContain(c.id);
  const result = await resultWithin<EnrichCompanyResult>(api.temporal.workflow.getHandle(`company/${c.id}/enrich`), 60_000);
  expect(result.status).toBe('done');
  const runs = await runsOf(owner, c.id);
  expect(runs.map((r) => [r.status, r.steps.map((s) => [s.status, s.error])])).toEqual([
    ['done', [['done', null]]],
    ['failed', [['failed', 'the run ended without finishing this step']]],
  ]);
  expect((await api.call('GET', `/companies/${c.id}`, { token: owner.token })).body.enrichment_status).toBe('done');
});
