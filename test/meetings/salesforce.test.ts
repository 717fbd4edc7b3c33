import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createMeetingActivities } from '../../activities/meetings';
import { ProviderRequestError } from '../../activities/providers/outcome';
import { SecretBox } from '../../db/secrets';
import { expectProblem, newOrganization, startApi, TestApi } from '../helpers/api';
import { SALESFORCE_TEST_APP, SALESFORCE_TEST_REFRESH_TOKEN, startSalesforceServer, SalesforceServer } from '../helpers/salesforce-server';
import { testEnv, TestUser } from '../helpers/tokens';
import { useStack } from '../helpers/stack';

/**
 * Salesforce as the CRM against a local Salesforce that speaks its REST shapes
 * (token endpoint, query, sobjects) and checks the bearer token. The CRM sync activity runs here, in
 * this process, with the connected app of the local server (the shared test workers have no
 * SALESFORCE_* configuration), on the worker's database role and the real API.
 */
let api: TestApi;
let sf: SalesforceServer;
const { workerDb } = useStack({ workerDb: true });
let activities: ReturnType<typeof createMeetingActivities>;

beforeAll(async () => {
  sf = await startSalesforceServer();
  const app = { ...SALESFORCE_TEST_APP, tokenUrl: sf.tokenUrl };
  api = await startApi({ salesforce: app });
  activities = createMeetingActivities({ db: workerDb, secrets: new SecretBox(testEnv('INTEGRATION_SECRET_KEY')), salesforce: app });
});
afterAll(async () => {
  await api?.close();
  await sf?.close();
});

interface Tenant {
  owner: TestUser;
  org: string;
  contact: { id: string; email: string };
  integration: string;
}

async function must(t: { owner: TestUser }, method: string, path: string, body?: unknown) {
  const res = await api.call(method, path, { token: t.owner.token, body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function seed(config: Record<string, unknown> = { instanceUrl: sf.url, autoSync: true }, secret = SALESFORCE_TEST_REFRESH_TOKEN): Promise<Tenant> {
  const { owner, orgId: org } = await newOrganization(api, `Salesforce ${randomUUID().slice(0, 6)} B.V.`);
  const t = { owner };
  const company = await must(t, 'POST', '/companies', { organizationId: org, name: 'Bouwbedrijf Jansen B.V.', countryCode: 'NL' });
  const email = `jan.${randomUUID().slice(0, 8)}@jansen-bouw.nl`;
  const contact = await must(t, 'POST', '/contacts', { organizationId: org, companyId: company.id, fullName: 'Jan Jansen', email });
  const integration = await must(t, 'POST', '/integrations', { organizationId: org, providerKey: 'salesforce', kind: 'crm', config, secret });
  return { owner, org, contact: { id: contact.id, email }, integration: integration.id };
}

const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();
const HOUR = 3600_000;
const sync = (t: Tenant, meetingId: string) => new MockActivityEnvironment().run(activities.syncMeetingToCrm, { organizationId: t.org, meetingId });
const meetingOf = async (t: Tenant, id: string) => (await api.call('GET', `/meetings/${id}`, { token: t.owner.token })).body;
const eventCreates = (subject: string) => sf.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/sobjects/Event') && r.body?.Subject === subject);

test('a meeting becomes one Event linked to a Lead made for the contact; a repeat changes nothing; a cancellation updates it', async () => {
  const t = await seed();
  const startsAt = inMs(48 * HOUR);
  const endsAt = inMs(49 * HOUR);
  const meeting = await must(t, 'POST', '/meetings', { organizationId: t.org, title: 'Kennismaking Salesforce', startsAt, endsAt, contactId: t.contact.id });

  const first = await sync(t, meeting.id);
  expect(first).toMatchObject({ synced: true, created: true });
  const lead = [...sf.records.Lead].find(([, r]) => r.Email === t.contact.email)!;
  expect(lead[1]).toMatchObject({ FirstName: 'Jan', LastName: 'Jansen', Company: '[not provided]' });
  const eventId = (first as { crmExternalId: string }).crmExternalId;
  expect(sf.records.Event.get(eventId)).toMatchObject({
    Subject: 'Kennismaking Salesforce',
    WhoId: lead[0],
    StartDateTime: new Date(startsAt).toISOString(),
    EndDateTime: new Date(endsAt).toISOString(),
    ShowAs: 'Busy',
    Description: `outreach-meeting:${meeting.id}`,
  });
  expect(await meetingOf(t, meeting.id)).toMatchObject({ crm_external_id: eventId, crm_error: null, crm_synced_at: expect.any(String) });
  // Every data request carried a token the server issued through the refresh-token grant, to the configured instance.
  const grants = sf.requests.filter((r) => r.path === '/services/oauth2/token');
  expect(grants.length).toBeGreaterThanOrEqual(1);
  expect(grants[0]!.body).toMatchObject({ grant_type: 'refresh_token', refresh_token: SALESFORCE_TEST_REFRESH_TOKEN, client_id: SALESFORCE_TEST_APP.clientId });

  // A repeat: the stored Event id is updated with the same fields, no second Event, no second Lead.
  const before = JSON.stringify(sf.records.Event.get(eventId));
  expect(await sync(t, meeting.id)).toMatchObject({ synced: true, created: false, crmExternalId: eventId });
  expect(JSON.stringify(sf.records.Event.get(eventId))).toBe(before);
  expect(eventCreates('Kennismaking Salesforce')).toHaveLength(1);
  expect([...sf.records.Lead.values()].filter((r) => r.Email === t.contact.email)).toHaveLength(1);

  await must(t, 'POST', `/meetings/${meeting.id}/status`, { status: 'cancelled' });
  expect(await sync(t, meeting.id)).toMatchObject({ synced: true, created: false, crmExternalId: eventId });
  expect(sf.records.Event.get(eventId)).toMatchObject({ Subject: 'Cancelled: Kennismaking Salesforce', ShowAs: 'Free', WhoId: lead[0] });
  expect(sf.records.Event.size).toBeGreaterThanOrEqual(1);
});

test('an existing Contact is linked; an access token expired mid-sync is refreshed with the refresh-token grant and the request repeated', async () => {
  const t = await seed();
  sf.records.Contact.set('0035g00000Contact1', { Email: t.contact.email, LastName: 'Jansen' });
  const meeting = await must(t, 'POST', '/meetings', {
    organizationId: t.org,
    title: 'Contact demo',
    startsAt: inMs(50 * HOUR),
    endsAt: inMs(51 * HOUR),
    contactId: t.contact.id,
  });
  const grantsBefore = sf.requests.filter((r) => r.path === '/services/oauth2/token').length;
  const out = (await sync(t, meeting.id)) as { crmExternalId: string };
  expect(sf.records.Event.get(out.crmExternalId)).toMatchObject({ WhoId: '0035g00000Contact1' });
  expect([...sf.records.Lead.values()].filter((r) => r.Email === t.contact.email)).toEqual([]);

  // Each sync starts with a token from the grant: no request goes out without one.
  expect(sf.requests.slice(grantsBefore).filter((r) => r.path.startsWith('/services/data') && !r.authorization)).toEqual([]);

  // A new meeting for the same person; the session expires after its first data request (the Contact query).
  const second = await must(t, 'POST', '/meetings', {
    organizationId: t.org,
    title: 'Second demo',
    startsAt: inMs(60 * HOUR),
    endsAt: inMs(61 * HOUR),
    contactId: t.contact.id,
  });
  const n = sf.requests.length;
  sf.expireSessionsAfter(1);
  const made = (await sync(t, second.id)) as { crmExternalId: string };
  expect(made).toMatchObject({ synced: true, created: true });
  const after = sf.requests.slice(n).map((r) => `${r.method} ${r.path.replace(/\/v\d+\.\d+/, '')} ${r.status}${r.authorization ? ' bearer' : ''}`);
  // A grant, the Contact query, then the Event query refused with the expired token, a second grant, and the same query again.
  expect(after.slice(0, 5)).toEqual([
    'POST /services/oauth2/token 200',
    'GET /services/data/query 200 bearer',
    'GET /services/data/query 401 bearer',
    'POST /services/oauth2/token 200',
    'GET /services/data/query 200 bearer',
  ]);
  expect(sf.records.Event.get(made.crmExternalId)).toMatchObject({ Subject: 'Second demo', WhoId: '0035g00000Contact1' });
  expect(eventCreates('Second demo')).toHaveLength(1);

  await must(t, 'POST', `/meetings/${meeting.id}/status`, { status: 'no_show' });
  expect(await sync(t, meeting.id)).toMatchObject({ synced: true, created: false });
  expect(sf.records.Event.get(out.crmExternalId)).toMatchObject({ Subject: 'No-show: Contact demo' });
});

test('a rotated refresh token is stored and used by the next sync; concurrent syncs of one organization take turns on it', async () => {
  const first = sf.rotatingRefreshToken();
  const t = await seed(undefined, first);
  const grantsWith = (from: number) => sf.requests.slice(from).filter((r) => r.path === '/services/oauth2/token');
  const meeting = await must(t, 'POST', '/meetings', {
    organizationId: t.org,
    title: 'Rotatie',
    startsAt: inMs(70 * HOUR),
    endsAt: inMs(71 * HOUR),
    contactId: t.contact.id,
  });
  let n = sf.requests.length;
  expect(await sync(t, meeting.id)).toMatchObject({ synced: true, created: true });
  expect(grantsWith(n).map((r) => [r.body.refresh_token, r.status])).toEqual([[first, 200]]);
  // The first token is spent: the stand-in refuses it from now on.
  expect(sf.spentRefreshTokens).toContain(first);
  const refused = await fetch(sf.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: first,
      client_id: SALESFORCE_TEST_APP.clientId,
      client_secret: SALESFORCE_TEST_APP.clientSecret,
    }).toString(),
  });
  expect(refused.status).toBe(400);
  expect(await refused.json()).toMatchObject({ error: 'invalid_grant' });

  // The next sync spends the token the grant answered, not the first one.
  await must(t, 'POST', `/meetings/${meeting.id}/status`, { status: 'cancelled' });
  n = sf.requests.length;
  expect(await sync(t, meeting.id)).toMatchObject({ synced: true, created: false });
  const [second] = grantsWith(n);
  expect(second).toMatchObject({ status: 200 });
  expect(second!.body.refresh_token).not.toBe(first);
  expect(sf.spentRefreshTokens).toContain(second!.body.refresh_token);

  // POST /integrations/{id}/test spends the token too: it stores the rotated one, and the check after it still connects.
  for (let i = 0; i < 2; i++) {
    const tested = await api.call('POST', `/integrations/${t.integration}/test`, { token: t.owner.token, body: {} });
    expect(tested.status).toBe(200);
    expect(tested.body).toMatchObject({ status: 'connected', last_error: null });
  }

  // Two syncs of the organization at once: each grant spends the token the one before stored.
  const [a, b] = await Promise.all(
    ['Rotatie A', 'Rotatie B'].map((title, i) =>
      must(t, 'POST', '/meetings', { organizationId: t.org, title, startsAt: inMs((80 + i) * HOUR), endsAt: inMs((81 + i) * HOUR), contactId: t.contact.id }),
    ),
  );
  n = sf.requests.length;
  sf.delayTokenAnswers(300);
  const both = await Promise.all([sync(t, a.id), sync(t, b.id)]).finally(() => sf.delayTokenAnswers(0));
  expect(both).toEqual([expect.objectContaining({ synced: true, created: true }), expect.objectContaining({ synced: true, created: true })]);
  const grants = grantsWith(n);
  expect(grants.map((r) => r.status)).toEqual([200, 200]);
  expect(new Set(grants.map((r) => r.body.refresh_token)).size).toBe(2);
  expect(await meetingOf(t, a.id)).toMatchObject({ crm_error: null });
  expect(await meetingOf(t, b.id)).toMatchObject({ crm_error: null });
});

test('a 400 is recorded in crm_error and not retried; an outage is thrown (retried by the activity); a lost create answer is found, not made twice', async () => {
  const t = await seed();
  const rejected = await must(t, 'POST', '/meetings', {
    organizationId: t.org,
    title: 'Broken [reject]',
    startsAt: inMs(52 * HOUR),
    endsAt: inMs(53 * HOUR),
    contactId: t.contact.id,
  });
  expect(await sync(t, rejected.id)).toMatchObject({ synced: false, reason: 'rejected' });
  const m = await meetingOf(t, rejected.id);
  expect(m.crm_error).toContain('Subject may not contain [reject]');
  expect(m.crm_external_id).toBeNull();
  expect(eventCreates('Broken [reject]')).toHaveLength(1);

  const down = await must(t, 'POST', '/meetings', {
    organizationId: t.org,
    title: 'During an outage',
    startsAt: inMs(54 * HOUR),
    endsAt: inMs(55 * HOUR),
    contactId: t.contact.id,
  });
  sf.failNext(1);
  const err = await sync(t, down.id).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ProviderRequestError);
  expect(err).toMatchObject({ status: 503, retryable: true });
  expect((await meetingOf(t, down.id)).crm_error).toBeNull();

  const lost = await must(t, 'POST', '/meetings', {
    organizationId: t.org,
    title: 'Lost answer',
    startsAt: inMs(56 * HOUR),
    endsAt: inMs(57 * HOUR),
    contactId: t.contact.id,
  });
  sf.loseEventCreateAnswers(1);
  await expect(sync(t, lost.id)).rejects.toMatchObject({ status: 503, retryable: true });
  const retried = (await sync(t, lost.id)) as { crmExternalId: string; created: boolean };
  expect(retried.created).toBe(false);
  expect(eventCreates('Lost answer')).toHaveLength(1);
  expect([...sf.records.Event].filter(([, r]) => r.Description === `outreach-meeting:${lost.id}`).map(([id]) => id)).toEqual([retried.crmExternalId]);
});

test('integration: bad config is 400 naming the field; /test checks the token; a wrong refresh token is reported; another tenant gets 404', async () => {
  const { owner, orgId } = await newOrganization(api, `Salesforce config ${randomUUID().slice(0, 6)} B.V.`);
  const post = (config: unknown, secret = SALESFORCE_TEST_REFRESH_TOKEN) =>
    api.call('POST', '/integrations', { token: owner.token, body: { organizationId: orgId, providerKey: 'salesforce', kind: 'crm', config, secret } });
  for (const [config, path] of [
    [{ autoSync: true }, 'body.config.instanceUrl'],
    [{ instanceUrl: 'not a url' }, 'body.config.instanceUrl'],
    [{ instanceUrl: sf.url, autoSync: 'yes' }, 'body.config.autoSync'],
    [{ instanceUrl: sf.url, baseUrl: sf.url }, 'body.config'],
  ] as const) {
    const res = await post(config);
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  }
  const good = (await post({ instanceUrl: sf.url })).body;
  const tested = await api.call('POST', `/integrations/${good.id}/test`, { token: owner.token, body: {} });
  expect(tested.status).toBe(200);
  expect(tested.body.status).toBe('connected');

  const wrong = (await post({ instanceUrl: sf.url }, 'not-the-refresh-token')).body;
  const refused = await api.call('POST', `/integrations/${wrong.id}/test`, { token: owner.token, body: {} });
  expect(refused.status).toBe(200);
  expect(refused.body).toMatchObject({ status: 'error' });
  expect(JSON.stringify(refused.body)).toContain('expired access/refresh token');

  const stranger = await newOrganization(api, 'Stranger B.V.');
  expectProblem(await api.call('POST', `/integrations/${good.id}/test`, { token: stranger.owner.token, body: {} }), 404, 'NOT_FOUND');
  expectProblem(await api.call('GET', `/integrations/${good.id}`, { token: stranger.owner.token }), 404, 'NOT_FOUND');
});
