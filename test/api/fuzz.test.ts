import { createHmac, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { Pool } from 'pg';
import { openApiDocument } from '../../apps/api/openapi';
import { addMember, newOrganization, startApi, TestApi, testUnsubscribeTokens } from '../helpers/api';
import { testEnv, TestUser } from '../helpers/tokens';

/**
 * Property-based fuzzing of the whole API from its OpenAPI document: for every operation, requests
 * built from its request schema (and a known-valid example), then mutated: wrong types, missing and
 * extra fields, huge strings, NUL and lone surrogates, deep nesting, bodies that are not JSON or not
 * their Content-Encoding, bad query parameters, and path ids that are not UUIDs, do not decode, or
 * belong to another tenant. Whatever comes in: never a 5xx; every 4xx is problem+json with a code;
 * another tenant's ids never answer 2xx (and its records are 404); no 2xx answer carries another
 * tenant's ids. Fixed seed and bounded runs: FUZZ_RUNS (default 25) per operation, FUZZ_SEED.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261121);
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);

// The OpenAPI shapes this suite reads ----------------------------------------------------------------
interface Schema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  items?: Schema;
  maxItems?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  $ref?: string;
}
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Schema;
}
interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  query: Parameter[];
  body?: Schema;
  /** Whether the operation takes the users' bearer tokens (else it is open, or has its own token such as METRICS_TOKEN). */
  bearer: boolean;
}

type Security = Array<Record<string, unknown>>;
const doc = openApiDocument() as {
  security?: Security;
  paths: Record<string, Record<string, { parameters?: Parameter[]; requestBody?: { content: Record<string, { schema: Schema }> }; security?: Security }>>;
};
const operations: Operation[] = Object.entries(doc.paths).flatMap(([path, methods]) =>
  Object.entries(methods)
    .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
    .map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      pathParams: [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!),
      query: (op.parameters ?? []).filter((p) => p.in === 'query'),
      body: op.requestBody?.content['application/json']?.schema,
      bearer: (op.security ?? doc.security ?? []).some((requirement) => 'bearer' in requirement),
    })),
);
const key = (op: Operation) => `${op.method} ${op.path}`;
const seedFor = (name: string) => [...name].reduce((h, ch) => (Math.imul(h, 31) + ch.charCodeAt(0)) | 0, SEED);

// Two tenants with real records ----------------------------------------------------------------------
interface Tenant {
  owner: TestUser;
  org: string;
  /** Record ids by path parameter name. */
  ids: Record<string, string>;
  /** An API key of the tenant with the admin role (osk_...): the foreign probes run with it too. */
  adminKey: string;
}

let api: TestApi;
let owners: Pool;
let a: Tenant;
let b: Tenant;
let viewerA: TestUser;

async function must(res: Promise<{ status: number; body: any }>, what: string): Promise<any> {
  const r = await res;
  if (r.status >= 300) throw new Error(`seeding ${what} failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** The booking webhooks' signing secret of a tenant: send() signs every webhook request with tenant A's, so B's integrations refuse them (401). */
const webhookSecret = (tenantName: string) => `fuzz-webhook-${tenantName.toLowerCase().replace(/\W/g, '')}`;

/** The signature headers of a booking webhook request for this body (Cal.com, or Calendly with t now), under tenant A's secret. */
function webhookSignature(path: string, body: Buffer | string): Record<string, string> {
  const provider = /^\/webhooks\/(calcom|calendly)\//.exec(path)?.[1];
  if (!provider) return {};
  const secret = webhookSecret('Tenant A');
  if (provider === 'calcom') return { 'X-Cal-Signature-256': createHmac('sha256', secret).update(body).digest('hex') };
  const t = Math.floor(Date.now() / 1000);
  return { 'Calendly-Webhook-Signature': `t=${t},v1=${createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex')}` };
}

async function seedTenant(name: string): Promise<Tenant> {
  const { owner, orgId: org } = await newOrganization(api, name);
  const as = (method: string, path: string, body: unknown) => must(api.call(method, path, { token: owner.token, body }), `${name} ${path}`);
  const source = await as('POST', '/sources', {
    organizationId: org,
    providerKey: 'rss',
    name: `${name} feed`,
    config: { url: 'http://127.0.0.1:9/feed.xml' },
  });
  const company = await as('POST', '/companies', {
    organizationId: org,
    name: `${name} Bouw B.V.`,
    kvkNumber: String(10000000 + Math.floor(Math.random() * 89999999)),
  });
  const contact = await as('POST', '/contacts', {
    organizationId: org,
    companyId: company.id,
    fullName: 'Jan Jansen',
    email: `jan.${org.slice(0, 8)}@example.nl`,
  });
  const integration = await as('POST', '/integrations', {
    organizationId: org,
    providerKey: 'hunter',
    kind: 'enrichment',
    config: { baseUrl: 'http://127.0.0.1:9' },
    secret: 'not-a-real-key',
  });
  const suppression = await as('POST', '/compliance/suppressions', {
    organizationId: org,
    scope: 'domain',
    value: `${name.toLowerCase().replace(/\W/g, '')}-blocked.nl`,
  });
  // One-click unsubscribe: a sent message to a contact of its own (the fuzzing unsubscribes them), and its token.
  const unsubscriber = await as('POST', '/contacts', {
    organizationId: org,
    companyId: company.id,
    fullName: 'Piet Afmelder',
    email: `piet.${org.slice(0, 8)}@example.nl`,
  });
  const sent = await owners.query<{ id: string }>(
    `INSERT INTO messages (organization_id, contact_id, direction, channel, status, subject, body, to_address) VALUES ($1, $2, 'outbound', 'email', 'sent', 'Hallo', 'Beste Piet', $3) RETURNING id`,
    [org, unsubscriber.id, unsubscriber.email],
  );
  const opportunity = await as('POST', '/opportunities', { organizationId: org, summary: `${name} manual opportunity` });
  const mailbox = await as('POST', '/mailboxes', {
    organizationId: org,
    address: `verkoop@${name.toLowerCase().replace(/\W/g, '')}.nl`,
    smtp: { host: '127.0.0.1', port: 2525 },
    secret: 'not-a-real-password',
  });
  // Outreach (campaigns and enrollments): an accepted campaign with one enrollment, and a live proposal.
  await as('PUT', `/contacts/${contact.id}/lawful-basis`, {
    organizationId: org,
    basis: 'legitimate_interest',
    recipient_kind: 'legal_person',
    country: 'NL',
    assessment: 'fuzz',
  });
  const accepted = await as('POST', '/campaigns', {
    organizationId: org,
    name: `${name} accepted`,
    contactIds: [contact.id],
    steps: [{ channel: 'linkedin', delayDays: 0 }],
  });
  const enrollment = (await as('POST', `/campaigns/${accepted.id}/accept`, {})).result.enrolled[0];
  if (!enrollment) throw new Error(`seeding ${name}: the enrollment was skipped`);
  const campaign = await as('POST', '/campaigns', {
    organizationId: org,
    name: `${name} proposal`,
    opportunityId: opportunity.id,
    steps: [{ channel: 'email', delayDays: 0 }],
  });
  // Booking webhooks: a Cal.com and a Calendly integration, each tenant with its own signing secret (send() signs with A's).
  const calcom = await as('POST', '/integrations', { organizationId: org, providerKey: 'calcom', kind: 'calendar', secret: webhookSecret(name) });
  const calendly = await as('POST', '/integrations', { organizationId: org, providerKey: 'calendly', kind: 'calendar', secret: webhookSecret(name) });
  // Meetings: one recorded by hand (a week ahead, so its reminder is not due during the run).
  const meeting = await as('POST', '/meetings', {
    organizationId: org,
    title: `${name} kennismaking`,
    startsAt: new Date(Date.now() + 7 * 86400_000).toISOString(),
    endsAt: new Date(Date.now() + 7 * 86400_000 + 1800_000).toISOString(),
    contactId: contact.id,
  });
  // A task as the meeting reminder makes it (written directly, as the owner: the worker writes it after the lead time).
  const task = await owners.query<{ id: string }>(
    `INSERT INTO tasks (organization_id, kind, meeting_id, contact_id, title) VALUES ($1, 'meeting_reminder', $2, $3, 'Prepare the meeting') RETURNING id`,
    [org, meeting.id, contact.id],
  );
  // A draft waiting for approval in the enrollment (the approval inbox; after the meeting, which stopped the enrollment and skipped what waited then).
  const draft = await owners.query<{ id: string }>(
    `INSERT INTO messages (organization_id, enrollment_id, campaign_id, contact_id, direction, channel, status, subject, body, to_address)
     VALUES ($1, $2, $3, $4, 'outbound', 'email', 'pending_approval', 'Uw project', 'Geachte heer Jansen', $5) RETURNING id`,
    [org, enrollment.enrollmentId, accepted.id, contact.id, contact.email],
  );
  // A finished contact import and a thread with the contact (written directly, as the owner: no run to wait for).
  const imported = await owners.query<{ id: string }>(
    `INSERT INTO imports (organization_id, source_description, workflow_id, status, finished_at) VALUES ($1, 'fuzz', 'import/fuzz', 'completed', now()) RETURNING id`,
    [org],
  );
  const thread = await owners.query<{ id: string }>(
    `INSERT INTO threads (organization_id, contact_id, mailbox_id, subject) VALUES ($1, $2, $3, 'Uw project') RETURNING id`,
    [org, contact.id, mailbox.id],
  );
  // Events out: a webhook endpoint (unreachable: its deliveries stay pending), one delivery, an API key.
  const hook = await as('POST', '/webhook-endpoints', { organizationId: org, url: 'http://127.0.0.1:9/hooks', events: ['*'] });
  const hookTest = await as('POST', `/webhook-endpoints/${hook.id}/test`, {});
  const delivery = await owners.query<{ id: string }>('SELECT id FROM webhook_deliveries WHERE event_id = $1', [hookTest.event_id]);
  const apiKey = await as('POST', '/api-keys', { organizationId: org, name: `${name} key`, role: 'admin' });
  const deletableKey = await as('POST', '/api-keys', { organizationId: org, name: `${name} key to delete`, role: 'viewer' });
  // A mail domain to prove (pending: the verify finds no record in the test DNS and answers 409).
  const domain = await as('POST', '/domains', { organizationId: org, domain: `fuzz-${randomUUID().slice(0, 8)}.nl` });
  // A signal comes from an ingest run; written directly (as the owner) to keep the suite fast.
  const { rows } = await owners.query<{ id: string }>(
    `INSERT INTO signals (organization_id, source_id, external_id, title, dedupe_key, status) VALUES ($1, $2, $3, $4, $5, 'scored') RETURNING id`,
    [org, source.id, `fuzz-${randomUUID()}`, 'Nieuwbouw 48 woningen met warmtepomp', 'title:nieuwbouw 48 woningen met warmtepomp'],
  );
  return {
    owner,
    org,
    ids: {
      organizationId: org,
      sourceId: source.id,
      companyId: company.id,
      contactId: contact.id,
      integrationId: integration.id,
      suppressionId: suppression.id,
      opportunityId: opportunity.id,
      mailboxId: mailbox.id,
      signalId: rows[0]!.id,
      token: testUnsubscribeTokens().sign(sent.rows[0]!.id),
      campaignId: campaign.id,
      enrollmentId: enrollment.enrollmentId,
      messageId: draft.rows[0]!.id,
      meetingId: meeting.id,
      taskId: task.rows[0]!.id,
      calcomIntegrationId: calcom.id,
      calendlyIntegrationId: calendly.id,
      importId: imported.rows[0]!.id,
      threadId: thread.rows[0]!.id,
      endpointId: hook.id,
      deliveryId: delivery.rows[0]!.id,
      apiKeyId: deletableKey.id,
      domainId: domain.id,
    },
    adminKey: apiKey.key,
  };
}

beforeAll(async () => {
  // OAuth mailboxes' clients configured (their consent flow is an operation like any other; unset, it is 503 by design).
  const oauthClient = (p: string) => ({
    clientId: `fuzz-${p}`,
    clientSecret: 'fuzz',
    authorizeUrl: 'https://127.0.0.1:9/authorize',
    tokenUrl: 'https://127.0.0.1:9/token',
    issuer: 'https://127.0.0.1:9',
  });
  api = await startApi({
    oauth: { clients: { google: oauthClient('google'), microsoft: oauthClient('microsoft') }, redirectUri: 'http://127.0.0.1:9/mailboxes/oauth/callback' },
  });
  owners = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 1 });
  a = await seedTenant('Tenant A');
  b = await seedTenant('Tenant B');
  viewerA = await addMember(api, a.owner, a.org, 'viewer');
});
afterAll(async () => {
  if (process.env.FUZZ_DEBUG) console.log(`fuzz answers by status: ${JSON.stringify(Object.fromEntries([...seen].sort(([x], [y]) => x - y)))}`);
  await owners?.end();
  await api?.close();
});

// Known-valid requests, so that mutations start from something that reaches the handler ----------------
interface Example {
  query?: Record<string, string>;
  body?: unknown;
  /** A body that is not JSON (a raw e-mail), with its media type. */
  raw?: { body: string; contentType: string };
}
/** A received e-mail from someone who is not a contact (it changes no enrollment), with a new Message-ID each time. */
const inboundMail = () =>
  [
    'From: Iemand <iemand@elders.example>',
    'To: verkoop@example.nl',
    'Subject: Re: Offerte',
    'Date: Thu, 19 Nov 2026 10:00:00 +0100',
    `Message-ID: <${randomUUID()}@elders.example>`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    'Klinkt interessant, stuur meer informatie.',
    '',
  ].join('\r\n');
const bodyOf = (ex: Example): FuzzRequest['body'] =>
  ex.raw ? { raw: ex.raw.body, contentType: ex.raw.contentType } : ex.body === undefined ? undefined : { json: ex.body };
const examples: Record<string, (t: Tenant) => Example> = {
  'POST /organizations': () => ({ body: { name: 'Fuzz Installaties B.V.' } }),
  'GET /imports': (t) => ({ query: { organizationId: t.org } }),
  'GET /threads': (t) => ({ query: { organizationId: t.org, status: 'open' } }),
  'PATCH /threads/{threadId}': () => ({ body: { status: 'closed' } }),
  'POST /threads/{threadId}/reply': () => ({ body: { body: 'Dank voor uw reactie.' } }),
  'POST /organizations/{organizationId}/members': () => ({ body: { userId: randomUUID(), role: 'member' } }),
  'POST /sources': (t) => ({
    body: { organizationId: t.org, providerKey: 'rss', name: 'Fuzz feed', config: { url: 'http://127.0.0.1:9/feed.xml' }, enabled: false },
  }),
  'GET /sources': (t) => ({ query: { organizationId: t.org } }),
  'PATCH /sources/{sourceId}': () => ({ body: { name: 'Renamed feed' } }),
  'PATCH /companies/{companyId}': () => ({ body: { timezone: 'Europe/Amsterdam', phone: '+31 20 123 4567' } }),
  'PATCH /contacts/{contactId}': () => ({ body: { timezone: 'America/New_York', title: 'Inkoper' } }),
  'POST /sources/{sourceId}/run': () => ({ body: {} }),
  'GET /signals': (t) => ({ query: { organizationId: t.org, q: 'warmtepomp' } }),
  'POST /signals/{signalId}/ignore': () => ({ body: {} }),
  'POST /signals/{signalId}/reprocess': () => ({ body: { fromStage: 'scoring' } }),
  'POST /opportunities': (t) => ({ body: { organizationId: t.org, summary: 'Manual fuzz opportunity' } }),
  'GET /opportunities': (t) => ({ query: { organizationId: t.org } }),
  'POST /opportunities/{opportunityId}/outcome': () => ({ body: { outcome: 'lost' } }),
  'GET /settings/scoring': (t) => ({ query: { organizationId: t.org } }),
  'PATCH /settings/scoring': (t) => ({ body: { organizationId: t.org, ignoreBelow: 20 } }),
  'GET /settings/industry-profile': (t) => ({ query: { organizationId: t.org } }),
  'PATCH /settings/industry-profile': (t) => ({ body: { organizationId: t.org, name: 'Installateurs' } }),
  'POST /companies': (t) => ({ body: { organizationId: t.org, name: 'Fuzz Bouw B.V.', domain: 'fuzzbouw.nl' } }),
  'GET /companies': (t) => ({ query: { organizationId: t.org, q: 'bouw' } }),
  'POST /companies/{companyId}/enrich': () => ({ body: {} }),
  'POST /contacts': (t) => ({ body: { organizationId: t.org, companyId: t.ids.companyId, fullName: 'Piet Pietersen' } }),
  'GET /contacts': (t) => ({ query: { organizationId: t.org } }),
  'PUT /contacts/{contactId}/lawful-basis': (t) => ({
    body: { organizationId: t.org, basis: 'legitimate_interest', recipient_kind: 'legal_person', country: 'NL', assessment: 'Balancing test recorded' },
  }),
  'POST /compliance/suppressions': (t) => ({ body: { organizationId: t.org, scope: 'email', value: 'fuzz@example.nl' } }),
  'GET /compliance/suppressions': (t) => ({ query: { organizationId: t.org } }),
  'GET /compliance/settings': (t) => ({ query: { organizationId: t.org } }),
  'PATCH /compliance/settings': (t) => ({
    body: {
      organizationId: t.org,
      retentionMonths: 24,
      senderLegalName: 'Acme Installaties B.V.',
      privacyUrl: 'https://acme.example.nl/privacy',
      unsubscribeMailto: 'mailto:afmelden@acme.nl?subject=stop',
    },
  }),
  'GET /compliance/audit': (t) => ({ query: { organizationId: t.org } }),
  'GET /compliance/channel-policy': () => ({ query: { country: 'NL' } }),
  'POST /integrations': (t) => ({
    body: { organizationId: t.org, providerKey: 'hunter', kind: 'enrichment', config: { baseUrl: 'http://127.0.0.1:9' }, secret: 'k' },
  }),
  'GET /integrations': (t) => ({ query: { organizationId: t.org } }),
  'POST /integrations/{integrationId}/test': () => ({ body: {} }),
  'PATCH /integrations/{integrationId}': () => ({ body: { secret: 'rotated-key' } }),
  // A new address each time (an address is unique in its organization; six identical POSTs at once get one 201 and 409s the state explains).
  'POST /mailboxes': (t) => ({
    body: {
      organizationId: t.org,
      address: `fuzz-${randomUUID().slice(0, 8)}@acme-fuzz.nl`,
      smtp: { host: 'smtp.acme-fuzz.nl', port: 587 },
      secret: 'pw',
      dailyCap: 20,
    },
  }),
  'GET /mailboxes': (t) => ({ query: { organizationId: t.org } }),
  // The fuzz mailboxes' domains are NXDOMAIN on the test DNS server (DNS_SERVERS): a check answers failed statuses, never a 5xx.
  'POST /mailboxes/{mailboxId}/health': () => ({ body: {} }),
  'PATCH /mailboxes/{mailboxId}': () => ({ body: { dailyCap: 25, sendingWindow: { start: '08:00', end: '24:00' }, timezone: 'Europe/Amsterdam' } }),
  'POST /mailboxes/{mailboxId}/inbound': () => ({ raw: { body: inboundMail(), contentType: 'message/rfc822' } }),
  'POST /u/{token}': () => ({}), // no body: the link alone unsubscribes (six at once: all 200)
  // Campaigns and enrollments (outreach: the strategist's slice)
  'POST /campaigns': (t) => ({
    body: { organizationId: t.org, name: 'Fuzz campaign', steps: [{ channel: 'email', delayDays: 2, instructions: 'Cite the permit' }] },
  }),
  'GET /campaigns': (t) => ({ query: { organizationId: t.org, status: 'proposed' } }),
  'POST /campaigns/{campaignId}/accept': () => ({ body: { mode: 'review' } }),
  'POST /campaigns/{campaignId}/dismiss': () => ({ body: { reason: 'not now' } }),
  'PATCH /campaigns/{campaignId}': (t) => ({ body: { name: 'Fuzz campaign, pooled', mailboxIds: [t.ids.mailboxId], mode: 'review' } }),
  'POST /campaigns/{campaignId}/contacts': (t) => ({ body: { contactIds: [t.ids.contactId] } }),
  'GET /campaigns/{campaignId}/variants': () => ({}), // path only: the results per step variant
  'GET /enrollments': (t) => ({ query: { organizationId: t.org, status: 'active' } }),
  'POST /enrollments/{enrollmentId}/stop': () => ({ body: { reason: 'fuzz' } }),
  'POST /enrollments/{enrollmentId}/resume': () => ({ body: {} }),
  'POST /opportunities/{opportunityId}/strategist': () => ({ body: {} }),
  // Messages and the approval inbox
  'GET /messages': (t) => ({ query: { organizationId: t.org, status: 'pending_approval' } }),
  'POST /messages/{messageId}/approve': () => ({ body: { body: 'Geachte heer Jansen, een kort bericht.' } }),
  'POST /messages/{messageId}/reject': () => ({ body: { reason: 'te lang', redraft: true } }),
  'POST /messages/{messageId}/complete': () => ({ body: { note: 'gebeld' } }),
  // Meetings
  'POST /meetings': (t) => ({
    body: {
      organizationId: t.org,
      title: 'Fuzz demo',
      startsAt: '2031-03-03T10:00:00Z',
      endsAt: '2031-03-03T10:30:00Z',
      provider: 'google',
      externalId: 'fuzz-evt-1',
    },
  }),
  'GET /meetings': (t) => ({ query: { organizationId: t.org, status: 'proposed' } }),
  'POST /meetings/{meetingId}/status': () => ({ body: { status: 'completed' } }),
  'GET /tasks': (t) => ({ query: { organizationId: t.org, status: 'open' } }),
  'POST /tasks/{taskId}/complete': () => ({ body: {} }),
  'GET /settings/meetings': (t) => ({ query: { organizationId: t.org } }),
  'POST /webhook-endpoints': (t) => ({ body: { organizationId: t.org, url: 'http://127.0.0.1:9/other', events: ['message.sent'] } }),
  'GET /webhook-endpoints': (t) => ({ query: { organizationId: t.org } }),
  'PATCH /webhook-endpoints/{endpointId}': () => ({ body: { description: 'fuzzed' } }),
  'POST /webhook-endpoints/{endpointId}/rotate-secret': () => ({ body: {} }),
  'POST /webhook-endpoints/{endpointId}/test': () => ({ body: {} }),
  'POST /webhook-deliveries/{deliveryId}/retry': () => ({ body: {} }),
  'POST /api-keys': (t) => ({ body: { organizationId: t.org, name: 'Fuzz key', role: 'viewer' } }),
  'GET /api-keys': (t) => ({ query: { organizationId: t.org } }),
  'POST /domains': (t) => ({ body: { organizationId: t.org, domain: `fuzz-other-${randomUUID().slice(0, 8)}.nl` } }),
  'GET /domains': (t) => ({ query: { organizationId: t.org } }),
  'POST /domains/{domainId}/verify': () => ({ body: {} }),
  'PATCH /settings/meetings': (t) => ({ body: { organizationId: t.org, reminderLeadMinutes: 60 } }),
  'POST /webhooks/calcom/{calcomIntegrationId}': () => ({
    body: { triggerEvent: 'BOOKING_CREATED', payload: { uid: 'fuzz', title: 'Fuzz', startTime: '2031-03-03T10:00:00Z', endTime: '2031-03-03T10:30:00Z' } },
  }),
  'POST /webhooks/calendly/{calendlyIntegrationId}': () => ({
    body: {
      event: 'invitee.created',
      payload: {
        uri: 'https://api.calendly.com/scheduled_events/FUZZ/invitees/1',
        email: 'fuzz@example.nl',
        name: 'Fuzz',
        scheduled_event: {
          name: 'Fuzz',
          start_time: '2031-03-03T10:00:00Z',
          end_time: '2031-03-03T10:30:00Z',
          location: { join_url: 'https://zoom.example/j/1' },
        },
        tracking: { utm_content: 'fuzz' },
      },
    },
  }),
};
const exampleFor = (op: Operation, t: Tenant): Example => examples[key(op)]?.(t) ?? (op.body && op.method !== 'GET' ? { body: {} } : {});

// Sending -----------------------------------------------------------------------------------------------
interface FuzzRequest {
  method: string;
  path: string;
  query: Array<[string, string]>; // already percent-encoded
  token?: string;
  /** Sent instead of `Bearer <token>` when set: a malformed or foreign Authorization header. */
  authorization?: string;
  /** A JSON value, or raw bytes with their headers. */
  body?: { json: unknown } | { raw: Buffer | string; contentType: string; contentEncoding?: string };
  /** Where another tenant's ids appear in a place that names a record or an organization. */
  foreign: boolean;
  caller: 'owner' | 'viewer';
}

/** The owner of tenant A sending an example: path ids from `pathTenant`, the example's query and body (or `body`). */
function ownerRequest(op: Operation, ex: Example, opts: { pathTenant: Tenant; foreign: boolean; body?: FuzzRequest['body'] }): FuzzRequest {
  return {
    method: op.method,
    path: op.path.replace(/\{(\w+)\}/g, (_m, name: string) => opts.pathTenant.ids[name]!),
    query: Object.entries(ex.query ?? {}).map(([k, v]) => [k, enc(v)]),
    token: a.owner.token,
    body: opts.body ?? bodyOf(ex),
    foreign: opts.foreign,
    caller: 'owner',
  };
}
interface Reply {
  status: number;
  contentType: string;
  text: string;
  body: any;
}

async function send(r: FuzzRequest): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (r.token) headers.authorization = `Bearer ${r.token}`;
  if (r.authorization !== undefined) headers.authorization = r.authorization;
  let body: Buffer | string | undefined;
  if (r.body && 'json' in r.body) {
    body = expandNested(JSON.stringify(r.body.json) ?? 'null');
    headers['content-type'] = 'application/json';
  } else if (r.body) {
    body = r.body.raw;
    headers['content-type'] = r.body.contentType;
    if (r.body.contentEncoding) headers['content-encoding'] = r.body.contentEncoding;
  }
  // Booking webhooks are signed over the bytes sent, so that every body reaches the parser behind the signature check.
  if (body !== undefined) Object.assign(headers, webhookSignature(r.path, body));
  const qs = r.query.map(([k, v]) => `${k}=${v}`).join('&');
  const res = await fetch(`${api.url}${r.path}${qs ? `?${qs}` : ''}`, { method: r.method, headers, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text, body: parsed };
}

const describeRequest = (r: FuzzRequest) => {
  const body =
    r.body && 'json' in r.body
      ? JSON.stringify(r.body.json)
      : r.body
        ? `<${r.body.contentType} ${r.body.contentEncoding ?? ''} ${r.body.raw.length} bytes>`
        : '';
  const auth = r.authorization !== undefined ? `[Authorization: ${r.authorization.slice(0, 40)}${r.authorization.length > 40 ? '…' : ''}] ` : '';
  return `${auth}${r.caller} ${r.method} ${r.path}?${r.query.map(([k, v]) => `${k}=${v}`).join('&')} ${body.length > 300 ? `${body.slice(0, 300)}… (${body.length} chars)` : body}`;
};

/** Answers seen, by status (FUZZ_DEBUG=1 prints them, and every request). */
const seen = new Map<number, number>();

/** The properties every answer must have, whatever the request. */
function checkReply(r: FuzzRequest, res: Reply): void {
  seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
  if (process.env.FUZZ_DEBUG) console.log(`${res.status} ${describeRequest(r)}`);
  const where = `${describeRequest(r)}\n  -> ${res.status} ${res.text.slice(0, 300)}`;
  if (res.status >= 500) throw new Error(`5xx answer: ${where}`);
  if (res.status >= 400) {
    if (!/^application\/problem\+json/.test(res.contentType)) throw new Error(`4xx without problem+json: ${where}`);
    if (typeof res.body?.code !== 'string' || res.body.status !== res.status) throw new Error(`4xx problem without code or status: ${where}`);
  }
  if (r.authorization !== undefined && r.token && res.status !== 401) throw new Error(`a bad Authorization header answered ${res.status}, not 401: ${where}`);
  if (r.foreign) {
    if (res.status < 300) throw new Error(`another tenant's id answered ${res.status}: ${where}`);
    if (res.status === 403 && r.caller === 'owner') throw new Error(`another tenant's id answered 403 (reveals it exists): ${where}`);
  }
  if (res.status < 300) {
    const leaked = Object.values(b.ids).find((id) => res.text.includes(id));
    if (leaked) throw new Error(`a 2xx answer carries another tenant's id ${leaked}: ${where}`);
  }
}

// Generators --------------------------------------------------------------------------------------------
/** Percent-encodes any string, lone surrogates included (as the invalid UTF-8 bytes ED A0 80). */
function enc(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return [...s].map((ch) => (/[\ud800-\udfff]/.test(ch) ? '%ED%A0%80' : encodeURIComponent(ch))).join('');
  }
}

function resolve(schema: Schema): Schema {
  if (!schema.$ref) return schema;
  const parts = schema.$ref.replace(/^#\//, '').split('/');
  return parts.reduce<any>((node, p) => node?.[p], doc) ?? {};
}

/** A fuzzing dictionary: strings that decoders, URL parsers and databases have tripped on, alone or after a scheme. */
const tricky = fc
  .tuple(
    fc.constantFrom('', '', 'mailto:', 'https://', 'http://127.0.0.1:9/'),
    fc.constantFrom(
      '%',
      '%zz',
      '%C0%AF',
      '%E0%A4%A',
      'a%C0%AF@x.nl',
      '%ED%A0%80',
      '[::1',
      'x.example/%',
      '\\',
      '../../etc/passwd',
      ' ',
      '',
      '\u00a0',
      '\ufeff',
      'ﬀ',
      '\u202e',
      'İ',
      '𝔘𝔫𝔦',
      "'; DROP TABLE signals; --",
      '${x}',
      '{{x}}',
      '1e309',
      '-0',
      'NaN',
      'null',
      '* * * * *',
      '0 0 31 2 *',
      'nl-NL',
      'NL',
      'a@b',
      'x@example.nl',
      'example.nl',
      '12345678',
      '+31 20 123 4567',
      '\u0000',
      '\ud800',
      'a\udfffb',
    ),
  )
  .map(([scheme, rest]) => scheme + rest);

/** Values that satisfy the JSON schema, as far as a schema can say (zod refinements are not in it). */
function fromSchema(raw: Schema, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(raw);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return fc.oneof(...variants.map((s) => fromSchema(s, depth)));
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length > 1) return fc.oneof(...types.map((type) => fromSchema({ ...schema, type }, depth)));
  switch (types[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({
        min: Math.ceil(schema.minimum ?? schema.exclusiveMinimum ?? -1000),
        max: Math.floor(schema.maximum ?? schema.exclusiveMaximum ?? 1000),
      });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
    case 'string': {
      if (schema.format === 'uuid') return fc.uuid();
      if (schema.format === 'email') return fc.emailAddress();
      if (schema.format === 'uri') return fc.webUrl();
      if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= (schema.maxLength ?? 200));
      // Mostly plain text in the schema's bounds; sometimes a string that parsers and decoders trip on.
      return fc.oneof(
        { weight: 2, arbitrary: fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 40) }) },
        { weight: 1, arbitrary: tricky },
      );
    }
    case 'array':
      return depth > 4 ? fc.constant([]) : fc.array(fromSchema(schema.items ?? {}, depth + 1), { maxLength: Math.min(schema.maxItems ?? 3, 3) });
    case 'object': {
      if (depth > 4) return fc.constant({});
      const props = Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, s]) => [k, fromSchema(s, depth + 1)]));
      const record = fc.record(props, { requiredKeys: (schema.required ?? []).filter((k) => k in props) });
      if (schema.additionalProperties === false || schema.properties) return record;
      return fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

const BAD_SEGMENTS = [
  '%zz',
  '%C0%AF',
  '%',
  '%E0%A4%A',
  '%00',
  'not-a-uuid',
  '0',
  '%ED%A0%80',
  'x'.repeat(3000),
  '12345678-1234-1234-1234-1234567890ab%00',
  '%F0%9F%98',
  ';',
  '%3Cscript%3E',
];

type PathChoice = { kind: 'own' } | { kind: 'foreign' } | { kind: 'random' } | { kind: 'upper' } | { kind: 'bad'; segment: string };
const pathChoice: fc.Arbitrary<PathChoice> = fc.oneof(
  { weight: 5, arbitrary: fc.constant({ kind: 'own' as const }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'foreign' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'random' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'upper' as const }) },
  {
    weight: 3,
    arbitrary: fc
      .oneof(fc.constantFrom(...BAD_SEGMENTS), fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }).map(enc))
      .map((segment) => ({ kind: 'bad' as const, segment })),
  },
);

/**
 * Deep nesting stands in the body as a marker that send() expands into JSON text, so that neither
 * the generators nor JSON.stringify here recurse thousands of levels.
 */
const nested = (depth: number): string => `__NESTED_${depth}__`;
const expandNested = (json: string) => json.replace(/"__NESTED_(\d+)__"/g, (_m, d: string) => `${'['.repeat(Number(d))}${']'.repeat(Number(d))}`);
const wrongValue = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant([]),
  fc.constant({}),
  fc.string({ maxLength: 20 }),
  fc.constant('1e309'),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** One change to the body: at the field with this index among all field paths (wrapping). */
type BodyMutation =
  | { kind: 'field'; name: string; value: unknown }
  | { kind: 'wrongType'; at: number; value: unknown }
  | { kind: 'drop'; at: number }
  | { kind: 'extra'; at: number; name: string; value: unknown }
  | { kind: 'huge'; at: number; size: number }
  | { kind: 'nul'; at: number }
  | { kind: 'escape'; at: number; escape: string }
  | { kind: 'surrogate'; at: number; unit: string }
  | { kind: 'deep'; at: number; depth: number };
const bodyMutation: fc.Arbitrary<BodyMutation> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('wrongType' as const), at: fc.nat(), value: wrongValue }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('drop' as const), at: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('extra' as const),
      at: fc.nat(),
      name: fc.oneof(fc.constantFrom('__proto__', 'constructor', 'id', 'organization_id', 'role'), fc.string({ maxLength: 12 })),
      value: wrongValue,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('huge' as const), at: fc.nat(), size: fc.constantFrom(5_000, 60_000, 70_000) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('nul' as const), at: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('escape' as const), at: fc.nat(), escape: fc.constantFrom('%', '%zz', '%C0%AF', '%E0%A4%A', '%ED%A0%80') }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('surrogate' as const), at: fc.nat(), unit: fc.constantFrom('\ud800', '\udfff', '\udc00\ud800') }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('deep' as const), at: fc.nat(), depth: fc.constantFrom(33, 5000, 20000) }) },
);

/** One top-level field of the body set to a value its schema allows (the example covers the rest). */
function fieldFromSchema(op: Operation): fc.Arbitrary<BodyMutation> {
  const props = Object.entries(resolve(op.body ?? {}).properties ?? {});
  if (!props.length) return fc.constant({ kind: 'drop' as const, at: 0 });
  return fc.constantFrom(...props).chain(([name, schema]) => fromSchema(schema).map((value) => ({ kind: 'field' as const, name, value })));
}

/** Whole-body replacements: not an object, not JSON, not its Content-Encoding, not JSON at all. */
const rawBody: fc.Arbitrary<NonNullable<FuzzRequest['body']>> = fc.oneof(
  fc.constantFrom<unknown>([], 'text', 42, null, true, [{}]).map((json) => ({ json })),
  fc
    .constantFrom('{"name": "x",', '{', '}', '[1,', '{"a":1}{"b":2}', '\u0000', '{"\\ud800": 1}', '{"a": "\\u0000"}')
    .map((raw) => ({ raw, contentType: 'application/json' })),
  fc
    .constantFrom('gzip', 'deflate', 'br', 'compress', 'zstd', 'gzip, br', 'identity')
    .map((contentEncoding) => ({ raw: '{"name":"not compressed"}', contentType: 'application/json', contentEncoding })),
  fc
    .constantFrom(
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=latin1',
      'application/json; charset=utf-7',
    )
    .map((contentType) => ({ raw: 'name=x', contentType })),
);

type QueryMutation =
  | { kind: 'set'; at: number; value: string } // an already-encoded value
  | { kind: 'drop'; at: number }
  | { kind: 'duplicate'; at: number }
  | { kind: 'unknown'; name: string }
  | { kind: 'foreignOrg' };
const queryMutation: fc.Arbitrary<QueryMutation> = fc.oneof(
  fc.record({
    kind: fc.constant('set' as const),
    at: fc.nat(),
    value: fc.oneof(
      fc.constantFrom(
        '%00',
        'a%00b',
        '%ED%A0%80',
        '%zz',
        '%',
        'abc',
        '-1',
        '0',
        '1.5',
        '1e999',
        'NaN',
        '',
        'x'.repeat(5000),
        '%C0%AF',
        'null',
        '[]',
        '%F0%9F%98',
      ),
      fc.string({ unit: 'binary', maxLength: 30 }).map(enc),
    ),
  }),
  fc.record({ kind: fc.constant('drop' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('unknown' as const), name: fc.constantFrom('organizationId[a]', 'organizationId[]', 'x', '__proto__', 'limit[]', '%00') }),
  fc.constant({ kind: 'foreignOrg' as const }),
);

/** Every path to a field in a JSON value (objects and arrays), the value itself first. */
function fieldPaths(v: unknown, at: string[] = [], out: string[][] = []): string[][] {
  out.push(at);
  if (at.length < 6 && v !== null && typeof v === 'object') for (const [k, c] of Object.entries(v)) fieldPaths(c, [...at, k], out);
  return out;
}
function getAt(v: unknown, path: string[]): unknown {
  return path.reduce<any>((node, k) => node?.[k], v);
}
function setAt(root: unknown, path: string[], value: unknown): unknown {
  if (path.length === 0) return value;
  const parent = getAt(root, path.slice(0, -1)) as Record<string, unknown>;
  if (parent !== null && typeof parent === 'object') parent[path.at(-1)!] = value;
  return root;
}
function dropAt(root: unknown, path: string[]): unknown {
  if (path.length === 0) return undefined;
  const parent = getAt(root, path.slice(0, -1)) as Record<string, unknown> | unknown[];
  if (Array.isArray(parent)) parent.splice(Number(path.at(-1)), 1);
  else if (parent !== null && typeof parent === 'object') delete parent[path.at(-1)!];
  return root;
}

function mutateBody(body: unknown, m: BodyMutation): unknown {
  let root = structuredClone(body);
  const paths = fieldPaths(root);
  // Free text first: an id or an enum value with a NUL in it is refused by its own validator anyway.
  const strings = paths.filter((p) => typeof getAt(root, p) === 'string');
  const text = strings.filter((p) => !/^[0-9a-f-]{36}$/i.test(getAt(root, p) as string) && !/^[a-z_]+$/.test(getAt(root, p) as string));
  const stringPaths = text.length ? text : strings;
  const objectPaths = paths.filter((p) => {
    const v = getAt(root, p);
    return v !== null && typeof v === 'object' && !Array.isArray(v);
  });
  const pick = (list: string[][], at: number) => list[at % Math.max(list.length, 1)] ?? [];
  switch (m.kind) {
    case 'field':
      return root && typeof root === 'object' && !Array.isArray(root) ? { ...root, [m.name]: m.value } : root;
    case 'wrongType':
      return setAt(root, pick(paths.slice(1), m.at), m.value);
    case 'drop':
      return dropAt(root, pick(paths.slice(1), m.at));
    case 'extra': {
      const target = objectPaths.length ? pick(objectPaths, m.at) : [];
      const obj = getAt(root, target);
      if (obj && typeof obj === 'object') Object.defineProperty(obj, m.name, { value: m.value, enumerable: true, writable: true, configurable: true });
      return root;
    }
    case 'huge':
      return setAt(root, pick(stringPaths.length ? stringPaths : paths.slice(1), m.at), 'x'.repeat(m.size));
    case 'nul':
    case 'escape':
    case 'surrogate': {
      const bad = m.kind === 'nul' ? '\u0000' : m.kind === 'escape' ? m.escape : m.unit;
      if (!stringPaths.length) root = setAt(root, ['x'], bad);
      else {
        const p = pick(stringPaths, m.at);
        const s = getAt(root, p) as string;
        root = setAt(root, p, `${s.slice(0, m.at % (s.length + 1))}${bad}${s.slice(m.at % (s.length + 1))}`);
      }
      return root;
    }
    case 'deep': {
      // Inside config or mapping when the body has them (where the 500s were), else at any field.
      const free = ['config', 'mapping'].filter((k) => root && typeof root === 'object' && k in (root as object));
      const target = free.length ? [free[m.at % free.length]!, 'nested'] : pick(paths.slice(1), m.at);
      if (free.length && (getAt(root, [target[0]!]) === null || typeof getAt(root, [target[0]!]) !== 'object')) setAt(root, [target[0]!], {});
      return setAt(root, target, nested(m.depth));
    }
  }
}

function mutateQuery(query: Array<[string, string]>, m: QueryMutation): Array<[string, string]> {
  const q = query.map(([k, v]) => [k, v] as [string, string]);
  const i = q.length ? ('at' in m ? m.at : 0) % q.length : -1;
  switch (m.kind) {
    case 'set':
      if (i >= 0) q[i]![1] = m.value;
      else q.push(['organizationId', m.value]);
      return q;
    case 'drop':
      if (i >= 0) q.splice(i, 1);
      return q;
    case 'duplicate':
      if (i >= 0) q.push([q[i]![0], q[i]![1]]);
      return q;
    case 'unknown':
      q.push([m.name, 'x']);
      return q;
    case 'foreignOrg':
      return q.map(([k, v]) => [k, k === 'organizationId' ? b.org : v]);
  }
}

/** Authorization headers that must never pass: no scheme, another scheme, a token cut, altered or made up. */
const badAuthorization: fc.Arbitrary<(token: string) => string> = fc.constantFrom(
  () => '',
  () => 'Bearer',
  () => 'Bearer ',
  (t: string) => `Basic ${t}`,
  (t: string) => t,
  (t: string) => `Bearer ${t.slice(0, -4)}`,
  (t: string) => `Bearer ${t}x`,
  (t: string) => `Bearer ${t.split('.').slice(0, 2).join('.')}.`,
  (t: string) => `Bearer ${t} ${t}`,
  () => `Bearer ${'A'.repeat(8000)}`,
  () => 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.',
);

/** Whether a request names another tenant's record or organization where the API must look it up. */
function namesForeign(op: Operation, path: string, query: Array<[string, string]>, body: FuzzRequest['body']): boolean {
  const segments = path.split('/');
  const templ = op.path.split('/');
  const inPath = templ.some((t, i) => /^\{\w+\}$/.test(t) && Object.values(b.ids).includes(segments[i] ?? ''));
  // Only where the operation reads it: a parameter an operation does not take is ignored.
  const inQuery = op.query.some((p) => p.name === 'organizationId') && query.some(([k, v]) => k === 'organizationId' && v === b.org);
  const json = body && 'json' in body && body.json && typeof body.json === 'object' && !Array.isArray(body.json) ? (body.json as Record<string, unknown>) : {};
  const inBody = ['organizationId', 'companyId', 'signalId'].some((k) => typeof json[k] === 'string' && Object.values(b.ids).includes(json[k] as string));
  return inPath || inQuery || inBody;
}

/** An id field: mostly the caller's own record, sometimes another tenant's, sometimes no one's. */
const idChoice = (name: string): fc.Arbitrary<string> =>
  fc.oneof({ weight: 6, arbitrary: fc.constant(a.ids[name]!) }, { weight: 2, arbitrary: fc.constant(b.ids[name]!) }, { weight: 1, arbitrary: fc.uuid() });

/** Requests for one operation: valid ones (example plus schema-generated fields) and mutated ones. */
function requestsFor(op: Operation): fc.Arbitrary<FuzzRequest> {
  const bodyFields = op.body
    ? fromSchema(op.body).map((v) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {}))
    : fc.constant({});
  const queryFields = fc.record(Object.fromEntries(op.query.map((p) => [p.name, fromSchema(p.schema)])), {
    requiredKeys: op.query.filter((p) => p.required).map((p) => p.name),
  });
  const idFields = ['organizationId', 'companyId', 'signalId'];
  return fc
    .record({
      caller: fc.constantFrom<'owner' | 'viewer'>('owner', 'owner', 'owner', 'viewer'),
      paths: fc.array(pathChoice, { minLength: op.pathParams.length, maxLength: op.pathParams.length }),
      generatedBody: examples[key(op)] ? fc.constant(null) : fc.option(bodyFields, { freq: 4 }),
      generatedQuery: fc.option(queryFields, { freq: 2 }),
      ids: fc.record(Object.fromEntries(idFields.map((n) => [n, idChoice(n)]))),
      bodyMutations: fc.array(fc.oneof({ weight: 3, arbitrary: fieldFromSchema(op) }, { weight: 4, arbitrary: bodyMutation }), { maxLength: 3 }),
      raw: fc.oneof({ weight: 7, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: rawBody }),
      queryMutations: fc.array(queryMutation, { maxLength: 2 }),
      authorization: fc.oneof({ weight: 12, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: badAuthorization }),
    })
    .map((g): FuzzRequest => {
      const example = exampleFor(op, a);
      // Path: the caller's own record, another tenant's, no one's, the own id in capitals, or garbage.
      const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
        const choice = g.paths[op.pathParams.indexOf(name)]!;
        if (choice.kind === 'bad') return choice.segment;
        const own = a.ids[name] ?? randomUUID();
        if (choice.kind === 'own') return own;
        if (choice.kind === 'upper') return own.toUpperCase();
        if (choice.kind === 'random') return randomUUID();
        return b.ids[name] ?? randomUUID();
      });
      // Query: the example's parameters over schema-generated ones, the tenant chosen, then mutations.
      const queryObj: Record<string, unknown> = { ...(g.generatedQuery ?? {}), ...(example.query ?? {}) };
      if ('organizationId' in queryObj) queryObj.organizationId = g.ids.organizationId;
      let query = Object.entries(queryObj).map(([k, v]) => [k, enc(String(v))] as [string, string]);
      for (const m of g.queryMutations) query = mutateQuery(query, m);
      // Body: the example over schema-generated fields, the tenant ids chosen, then mutations.
      let body: FuzzRequest['body'];
      if (op.method !== 'GET' && (op.body || example.body !== undefined)) {
        let json: unknown = { ...(g.generatedBody ?? {}), ...((example.body as object) ?? {}) };
        for (const name of idFields) if (name in (json as object)) (json as Record<string, unknown>)[name] = g.ids[name];
        for (const m of g.bodyMutations) json = mutateBody(json, m);
        body = g.raw ?? (json === undefined ? undefined : { json });
      } else if (op.method !== 'GET' && example.raw) {
        body = g.raw ?? { raw: example.raw.body, contentType: example.raw.contentType };
      }
      const token = !op.bearer ? undefined : g.caller === 'viewer' ? viewerA.token : a.owner.token;
      // An operation without the users' token (the unsubscribe link) has no caller tenant: another tenant's link is its own authority.
      return {
        method: op.method,
        path,
        query,
        token,
        authorization: g.authorization?.(token ?? ''),
        body,
        foreign: op.bearer && namesForeign(op, path, query, body),
        caller: g.caller,
      };
    });
}

// The suite -------------------------------------------------------------------------------------------
test('the served OpenAPI document is the one the suite fuzzes', async () => {
  const res = await api.call('GET', '/openapi.json');
  expect(res.status).toBe(200);
  expect(res.body).toEqual(JSON.parse(JSON.stringify(openApiDocument())));
  expect(operations.length).toBeGreaterThanOrEqual(40);
});

test('every path parameter names a kind of record both tenants have', () => {
  const params = [...new Set(operations.flatMap((op) => op.pathParams))].sort();
  expect(params.filter((p) => !(p in a.ids) || !(p in b.ids))).toEqual([]);
});

// Destructive operations last, so that the records the others act on exist while they run.
const ordered = [...operations].sort((x, y) => Number(x.method === 'DELETE') - Number(y.method === 'DELETE'));

// A 409 that the state explains (a run of the signal already in progress), not a race.
const CONFLICT_BY_STATE = new Set([
  // An address is unique in its organization: six identical POSTs at once create one mailbox, the others 409.
  'POST /mailboxes',
  // An open task is completed once; the repeats find it done.
  'POST /tasks/{taskId}/complete',
  'POST /signals/{signalId}/reprocess',
  'POST /sources/{sourceId}/run',
  // A campaign is accepted or dismissed once; an enrollment stopped once; only a paused one resumes.
  'POST /campaigns/{campaignId}/accept',
  'POST /campaigns/{campaignId}/dismiss',
  'POST /enrollments/{enrollmentId}/stop',
  'POST /enrollments/{enrollmentId}/resume',
  // A draft is approved or rejected once, a task completed once (and a stopped enrollment's draft is skipped).
  'POST /messages/{messageId}/approve',
  'POST /messages/{messageId}/reject',
  'POST /messages/{messageId}/complete',
  // The seeded opportunity has a live proposal: the strategist is asked to wait for it.
  'POST /opportunities/{opportunityId}/strategist',
  // A domain is listed once per organization (six at once: one 201, the others 409 naming it); a domain is
  // verified only when its TXT record is published (the test DNS has none).
  'POST /domains',
  'POST /domains/{domainId}/verify',
]);

test('the same valid write six times at once: all answered, no 5xx, and no 409 from a race', async () => {
  // Races between identical requests (version numbers, one-current rows, idempotent adds) must end in
  // the answer a single request gets, never in a unique-key 409 or 500. Runs before the examples
  // below erase the contact and remove the suppression.
  let sent = 0;
  const conflicts: string[] = [];
  for (const op of ordered.filter((o) => o.method !== 'GET' && examples[key(o)])) {
    const ex = exampleFor(op, a);
    const r = ownerRequest(op, ex, { pathTenant: a, foreign: false });
    const replies = await Promise.all(Array.from({ length: 6 }, () => send(r)));
    for (const res of replies) checkReply(r, res);
    if (!CONFLICT_BY_STATE.has(key(op))) conflicts.push(...replies.filter((res) => res.status === 409).map((res) => `${key(op)}: ${res.text.slice(0, 120)}`));
    sent += replies.length;
  }
  expect(sent).toBeGreaterThan(100);
  expect(conflicts).toEqual([]);
});

test('each valid example succeeds for its own tenant (so mutations start from a request that reaches the handler)', async () => {
  const failures: string[] = [];
  for (const op of ordered.filter((o) => examples[key(o)] || o.pathParams.length)) {
    const ex = exampleFor(op, a);
    const r = ownerRequest(op, ex, { pathTenant: a, foreign: false });
    const res = await send(r);
    checkReply(r, res);
    // 409: a run of the signal or source already in progress.
    if (res.status >= 400 && res.status !== 409) failures.push(`${key(op)} -> ${res.status} ${res.text.slice(0, 200)}`);
  }
  expect(failures).toEqual([]);
});

/** What an API key may never do (apps/api/auth.ts refuseApiKey, on the routes): 403 before any lookup. */
const KEY_REFUSED = /^(POST \/organizations$|(POST|PATCH|DELETE) \/organizations\/\{organizationId\}\/members|(POST|DELETE) \/api-keys)/;

test("another tenant's records are 404 on every route with a path id", async () => {
  const answers: string[] = [];
  // Operations with the users' token only: an unsubscribe link (/u/{token}) is its own authority, whoever follows it.
  for (const op of ordered.filter((o) => o.pathParams.length && o.bearer)) {
    const ex = exampleFor(op, a); // the caller's own organization in the body: only the path is foreign
    const res = await send(ownerRequest(op, ex, { pathTenant: b, foreign: true }));
    answers.push(`${key(op)} ${res.status} ${res.body?.code}`);
    // The same as tenant A's admin API key: a key sees nothing of another organization either
    // (member and key management are refused to keys outright, 403 whatever the id).
    if (KEY_REFUSED.test(key(op))) continue;
    const byKey = await send({ ...ownerRequest(op, ex, { pathTenant: b, foreign: true }), token: a.adminKey });
    answers.push(`key ${key(op)} ${byKey.status} ${byKey.body?.code}`);
  }
  expect(answers).toEqual(answers.map((line) => line.replace(/ \d+ \S+$/, ' 404 NOT_FOUND')));
});

test("another tenant's organizationId is 404 on every operation that takes one", async () => {
  const answers: string[] = [];
  for (const op of operations) {
    const ex = exampleFor(op, b);
    const inQuery = ex.query && 'organizationId' in ex.query;
    const inBody = ex.body && typeof ex.body === 'object' && 'organizationId' in (ex.body as object);
    if (!inQuery && !inBody) continue;
    const res = await send(ownerRequest(op, ex, { pathTenant: a, foreign: true }));
    answers.push(`${key(op)} ${res.status} ${res.body?.code}`);
    // Keys may not create organizations, members or keys at all (403 before any lookup): the others as A's admin key.
    if (!KEY_REFUSED.test(key(op))) {
      const byKey = await send({ ...ownerRequest(op, ex, { pathTenant: a, foreign: true }), token: a.adminKey });
      answers.push(`key ${key(op)} ${byKey.status} ${byKey.body?.code}`);
    }
  }
  expect(answers.length).toBeGreaterThanOrEqual(20);
  expect(answers).toEqual(answers.map((line) => line.replace(/ \d+ \S+$/, ' 404 NOT_FOUND')));
});

test('every field of every example, spoilt each way once: no 5xx, problem+json on every 4xx', async () => {
  // Systematic where the random runs are thin: each text field with a NUL, a lone surrogate, a bad
  // percent-escape and 10,000 characters; each field replaced by a deep nest and by a wrong type.
  let sent = 0;
  for (const op of ordered) {
    const ex = examples[key(op)]?.(a);
    if (!ex?.body || typeof ex.body !== 'object') continue;
    const paths = fieldPaths(ex.body).slice(1);
    for (const p of paths) {
      const value = getAt(ex.body, p);
      const spoilt: unknown[] = [nested(5000), 42, null, ['x'], { x: 1 }];
      if (typeof value === 'string')
        spoilt.push(`${value}\u0000`, `\ud800${value}`, `${value.slice(0, 7)}%zz${value.slice(7)}`, `${value}%`, 'x'.repeat(10_000));
      for (const bad of spoilt) {
        const r = ownerRequest(op, ex, { pathTenant: a, foreign: false, body: { json: setAt(structuredClone(ex.body), p, bad) } });
        checkReply(r, await send(r));
        sent++;
      }
    }
  }
  expect(sent).toBeGreaterThan(200);
});

describe.each(ordered.map((op) => [key(op), op] as const))('fuzz %s', (_name, op) => {
  test(`${RUNS} generated requests: no 5xx, problem+json on every 4xx, no other tenant's data`, async () => {
    await fc.assert(
      fc.asyncProperty(requestsFor(op), async (r) => {
        checkReply(r, await send(r));
      }),
      // One seed per operation (fixed, from FUZZ_SEED and its name), so operations do not all draw the same choices.
      { seed: seedFor(key(op)), numRuns: RUNS, endOnFailure: true },
    );
  });
});
