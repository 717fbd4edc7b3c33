import { z } from 'zod';
import { RECORDS, type Operation, type ProblemStatus, type Tag } from './contract';
import * as health from './routes/health.schemas';
import * as docs from './routes/docs.schemas';
import * as unsubscribe from './routes/unsubscribe.schemas';
import * as organizations from './routes/organizations.schemas';
import * as sources from './routes/sources.schemas';
import * as signals from './routes/signals.schemas';
import * as opportunities from './routes/opportunities.schemas';
import * as settings from './routes/settings.schemas';
import * as analytics from './routes/analytics.schemas';
import * as companies from './routes/companies.schemas';
import * as contacts from './routes/contacts.schemas';
import * as imports from './routes/imports.schemas';
import * as compliance from './routes/compliance.schemas';
import * as integrations from './routes/integrations.schemas';
import * as mailboxes from './routes/mailboxes.schemas';
import * as inbound from './routes/inbound.schemas';
import * as mailboxOauth from './routes/mailbox-oauth.schemas';
import * as campaigns from './routes/campaigns.schemas';
import * as variants from './routes/variants.schemas';
import * as enrollments from './routes/enrollments.schemas';
import * as messages from './routes/messages.schemas';
import * as meetings from './routes/meetings.schemas';
import * as threads from './routes/threads.schemas';
import * as tasks from './routes/tasks.schemas';
import * as webhooks from './routes/webhooks.schemas';
import * as webhookEndpoints from './routes/webhook-endpoints.schemas';
import * as apiKeys from './routes/api-keys.schemas';
import * as domains from './routes/domains.schemas';
import * as mcp from './routes/mcp.schemas';
import { WEBHOOK_EVENT_TYPES } from '../../db/queries/webhook-events';

/**
 * The OpenAPI 3.1 document (GET /openapi.json), built from the zod schemas that validate requests
 * and those of the records the API answers, so it cannot drift from them. Each feature's contract
 * lives next to its handlers, in apps/api/routes/<feature>.schemas.ts: its request schemas, its
 * records (registered with `record`, apps/api/contract.ts) and its `operations`; this file only
 * assembles them (FEATURES) and builds the document. test/api/openapi.test.ts fails when a route has
 * no operation, an operation no handler or no answer, and every response a test receives is
 * validated against this document (test/helpers/api.ts).
 *
 * A new endpoint: its request schemas and the record it answers (`record(...)`) in
 * apps/api/routes/<feature>.schemas.ts, and one entry in that file's `operations` naming them, with
 * its operationId, method, path, tag, role and the problems it can answer beyond those its role and
 * inputs imply; then its handler in apps/api/routes/<feature>.ts, bound by the operationId
 * (`serve('getSource', (req, res, call) => ...)`, apps/api/bind.ts), which takes the method and path
 * from the operation and gives the handler its role, body and query (`call.role`, `call.body`,
 * `call.query`). A new feature: its .schemas.ts, added to FEATURES below.
 */
export const TAGS: Record<Tag, string> = {
  Health: 'Liveness, readiness and metrics of the API process',
  Reference: 'This document and its interactive reference (no token)',
  Organizations: 'Tenants and their members; every other record belongs to one organization',
  Sources: 'Where signals come from: RSS/Atom feeds, JSON APIs, Dutch official publications',
  Signals: 'Publications turned into signals, classified and scored by the pipeline',
  Opportunities: 'Sales opportunities opened from ready signals or by hand',
  Settings: "Scoring thresholds and rules, the learning loop's suggestions, and the industry profile",
  Companies: 'Companies and their enrichment with contacts',
  Contacts: 'People at companies, their lawful basis, the compliance gate and erasure',
  Compliance: 'Suppressions, compliance settings and their audit log, the channel policy',
  Integrations: 'CRM, enrichment and LLM providers (write-only secrets)',
  Campaigns: "Outreach campaigns: the strategist's proposals and a person's own, accepted or dismissed",
  Enrollments: "Contacts in a campaign's sequence: stop and resume",
  Messages: 'Drafts, sent e-mail, tasks and replies; the approval inbox',
  Threads: 'Conversations with one contact from one mailbox: read, assign, close and answer',
  Meetings: 'Meetings booked by link (Cal.com, Calendly webhooks), reply or by hand: outcomes, reminders (tasks) and the CRM record',
  Analytics: 'Outreach analytics: attribution by source, deliverability per mailbox, agent quality and prompt evals',
  Mailboxes: 'Sending mailboxes: SMTP/IMAP server (write-only secret), sending window, days, holidays and limits',
  Webhooks: 'Signed webhooks (Standard Webhooks) for every event: endpoints, secrets, deliveries and retries. The events are listed under `webhooks`',
  'API keys': 'Keys for machine clients (`Authorization: Bearer osk_...`), acting in one organization with one role',
  Agents: 'AI assistants as clients: the Model Context Protocol server, whose tools are these operations run as the caller (docs/features/agents.md)',
};

/** The features whose operations the document lists, in order. */
const FEATURES: ReadonlyArray<{ operations: readonly Operation[] }> = [
  health,
  docs,
  unsubscribe,
  organizations,
  sources,
  signals,
  opportunities,
  settings,
  analytics,
  companies,
  contacts,
  imports,
  compliance,
  integrations,
  mailboxes,
  inbound,
  mailboxOauth,
  campaigns,
  variants,
  enrollments,
  messages,
  meetings,
  threads,
  tasks,
  webhooks,
  webhookEndpoints,
  apiKeys,
  domains,
  mcp,
];

/** Every operation of the API, feature by feature. */
export const OPERATIONS: readonly Operation[] = FEATURES.flatMap((f) => f.operations);

/** The named problem responses (components/responses), by status. */
const PROBLEM_RESPONSES: Record<ProblemStatus, { name: string; description: string; headers?: Record<string, unknown> }> = {
  400: { name: 'BadRequest', description: 'VALIDATION_FAILED (with errors[]) or MALFORMED_JSON' },
  401: {
    name: 'Unauthorized',
    description: 'UNAUTHENTICATED: no bearer token, or one that is invalid or expired',
    headers: { 'WWW-Authenticate': { description: 'Bearer', schema: { type: 'string' } } },
  },
  403: { name: 'Forbidden', description: 'FORBIDDEN: a member of the organization whose role is too low' },
  404: { name: 'NotFound', description: 'NOT_FOUND: absent or not visible to the caller (never says which)' },
  408: {
    name: 'RequestTimeout',
    description: 'REQUEST_TIMEOUT: the upload sent nothing for IMPORT_IDLE_TIMEOUT_MS, or took over 10 minutes in all; the connection is closed',
  },
  409: {
    name: 'Conflict',
    description:
      'CONFLICT: the request conflicts with the current state (the problem names the existing record); IDEMPOTENCY_IN_PROGRESS: a request with this Idempotency-Key is still running',
  },
  413: { name: 'PayloadTooLarge', description: 'PAYLOAD_TOO_LARGE: the body exceeds BODY_LIMIT (a raw e-mail: INBOUND_MAX_BYTES)' },
  422: { name: 'UnprocessableContent', description: 'IDEMPOTENCY_KEY_REUSED: this Idempotency-Key was used for another request within 24 hours' },
  415: { name: 'UnsupportedMediaType', description: 'UNSUPPORTED_MEDIA_TYPE: bodies must be application/json (a raw e-mail: message/rfc822)' },
  429: {
    name: 'TooManyRequests',
    description: 'RATE_LIMITED: too many requests for this user or organization',
    headers: { 'Retry-After': { description: 'Seconds until a request will be accepted', schema: { type: 'integer' } } },
  },
  500: { name: 'InternalError', description: 'INTERNAL: an unexpected error; request_id finds it in the logs' },
  503: { name: 'ServiceUnavailable', description: 'SERVICE_UNAVAILABLE: a dependency or a required setting is missing' },
};

/** The problems an operation can answer: from its token, role, inputs and body, plus its own. */
export function problemsOf(op: Operation): ProblemStatus[] {
  const out = new Set<ProblemStatus>(op.problems ?? []);
  // GET /metrics: a wrong token is 401; not served without METRICS_TOKEN unless METRICS_PUBLIC=true (404).
  if (op.role === 'metrics token') [401, 404, 500].forEach((st) => out.add(st as ProblemStatus));
  if (op.role === 'metrics token') return [...out].sort();
  if (op.role !== 'none') [401, 429, 500].forEach((st) => out.add(st as ProblemStatus));
  // The public routes have a per-address limit (RATE_LIMIT_PUBLIC_PER_MINUTE).
  if (op.role === 'none' && /^\/(webhooks|u)\//.test(op.path)) out.add(429);
  if (op.body || op.form || op.query) out.add(400);
  if (op.body || op.form || op.raw) [413, 415].forEach((st) => out.add(st as ProblemStatus));
  if (op.raw) out.add(400);
  if (op.role === 'member' || op.role === 'admin') out.add(403);
  if (idempotent(op)) [409, 422].forEach((st) => out.add(st as ProblemStatus));
  // An API key may not create organizations (apps/api/auth.ts refuseApiKey).
  if (op.role === 'any user' && op.method === 'post') out.add(403);
  // Every record belongs to an organization the caller may not be a member of.
  if (op.path.includes('{') || ['viewer', 'member', 'admin'].includes(op.role)) out.add(404);
  return [...out].sort();
}

/** Every authenticated POST takes an Idempotency-Key (apps/api/idempotency.ts; a raw body, CSV or RFC 822, is compared byte for byte). */
const idempotent = (op: Operation) => op.method === 'post' && op.role !== 'none';

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

const ROLE_TEXT: Record<Operation['role'], string> = {
  none: 'No token needed.',
  'any user': 'Any authenticated user.',
  viewer: 'Any member of the organization (viewer or above).',
  member: 'The member role or above in the organization.',
  admin: 'The admin or owner role in the organization.',
  'metrics token': 'The METRICS_TOKEN as a bearer token when it is set; without it, not served (404) unless METRICS_PUBLIC=true opens it to anyone.',
};

type Json = Record<string, unknown>;

/**
 * Drops what JSON Schema output of zod adds and a reader does not need: $schema and $id on each
 * component, the regular expressions behind `format: uuid` and `format: date-time`, and the
 * ±2^53 bounds of every integer. With `open`, objects stop saying additionalProperties: false:
 * a client must accept fields added later (the tests still refuse undocumented ones).
 */
function tidy(node: unknown, open: boolean): unknown {
  if (Array.isArray(node)) return node.map((n) => tidy(n, open));
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (k === '$schema' || k === '$id') continue;
    out[k] = tidy(v, open);
  }
  if (out.format === 'uuid' || out.format === 'date-time') delete out.pattern;
  if (out.type === 'integer' && out.minimum === Number.MIN_SAFE_INTEGER && out.maximum === Number.MAX_SAFE_INTEGER) {
    delete out.minimum;
    delete out.maximum;
  }
  if (open && out.additionalProperties === false) delete out.additionalProperties;
  return out;
}

function jsonSchema(schema: z.ZodType): Json {
  return tidy(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }), false) as Json;
}

function queryParameters(schema: z.ZodType) {
  const js = jsonSchema(schema) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(js.properties ?? {}).map(([name, sch]) => ({ name, in: 'query', required: js.required?.includes(name) ?? false, schema: sch }));
}

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

type Records = z.core.$ZodRegistry<{ id: string; description: string }>;

/** The records (contract.ts RECORDS) as a zod registry, in the order of components/schemas. */
function recordRegistry(): Records {
  const registry = z.registry<{ id: string; description: string }>();
  const ids = inOrder(
    [...RECORDS.keys()],
    (id) => id,
    COMPONENT_ORDER,
    (a, b) => a.localeCompare(b),
  );
  for (const id of ids) registry.add(RECORDS.get(id)!.schema, { id, description: RECORDS.get(id)!.description });
  return registry;
}

/** An answer is a registered record, or an array of one; anything else is a mistake in its feature's operations. */
function answerSchema(op: Operation, records: Records): Json {
  if (op.media && op.media !== 'application/json') return { type: 'string' };
  const named = records.get(op.answer)?.id;
  if (named) return ref(named);
  if (op.answer instanceof z.ZodArray) {
    const item = records.get(op.answer.element as z.ZodType)?.id;
    if (item) return { type: 'array', items: ref(item) };
  }
  throw new Error(`${op.id}: its answer must be a schema registered with record() (apps/api/contract.ts), or an array of one`);
}

function componentSchemas(records: Records): Record<string, Json> {
  const { schemas } = z.toJSONSchema(records, { io: 'output', uri: (id) => `#/components/schemas/${id}` }) as { schemas: Record<string, Json> };
  return Object.fromEntries(Object.entries(schemas).map(([id, sch]) => [id, { ...(tidy(sch, true) as Json), description: RECORDS.get(id)!.description }]));
}

function operationObject(op: Operation, records: Records): Json {
  const pathParams = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: op.pathSchemas?.[m[1]!] ?? { type: 'string', format: 'uuid' },
  }));
  const success = op.empty
    ? { description: op.summary }
    : { description: op.summary, content: { [op.media ?? 'application/json']: { schema: answerSchema(op, records) } } };
  const responses: Json = { [String(op.status ?? 200)]: success };
  if (op.repeatStatus) responses[String(op.repeatStatus)] = { ...success, description: 'The existing record (a repeat)' };
  for (const st of problemsOf(op)) responses[String(st)] = { $ref: `#/components/responses/${PROBLEM_RESPONSES[st].name}` };
  for (const [st, description] of Object.entries(op.pages ?? {})) responses[st] = { description, content: { 'text/html': { schema: { type: 'string' } } } };
  return {
    operationId: op.id,
    tags: [op.tag],
    summary: op.summary,
    description: ROLE_TEXT[op.role],
    security: op.role === 'none' ? [] : op.role === 'metrics token' ? [{ metricsToken: [] }] : [{ bearer: [] }],
    ...(pathParams.length || op.query || idempotent(op)
      ? { parameters: [...pathParams, ...(op.query ? queryParameters(op.query) : []), ...(idempotent(op) ? [IDEMPOTENCY_KEY] : [])] }
      : {}),
    ...(op.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(op.body) } } } } : {}),
    ...(op.form ? { requestBody: { required: false, content: { 'application/x-www-form-urlencoded': { schema: jsonSchema(op.form) } } } } : {}),
    ...(op.raw
      ? { requestBody: { required: true, description: op.raw.description, content: { [op.raw.media]: { schema: { type: 'string', format: 'binary' } } } } }
      : {}),
    responses,
  };
}

/**
 * The events sent to webhook endpoints (OpenAPI 3.1 `webhooks`): one POST per event type with its
 * body `{type, timestamp, organization_id, data}`, `data` the record as the API answers it, from
 * WEBHOOK_EVENT_DATA (apps/api/routes/webhook-endpoints.schemas.ts), and the Standard Webhooks headers.
 */
function webhooksSection(records: Records): Record<string, Json> {
  const header = (name: string, description: string) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } });
  return Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => {
      const { schema, summary } = webhookEndpoints.WEBHOOK_EVENT_DATA[type];
      const dataId = records.get(schema)?.id;
      if (!dataId) throw new Error(`webhook ${type}: its data schema must be a registered record`);
      return [
        type,
        {
          post: {
            operationId: `${type.replace(/[._](\w)/g, (_m, c: string) => c.toUpperCase())}Webhook`,
            tags: ['Webhooks'],
            summary,
            description: `Sent to every enabled endpoint subscribed to \`${type}\` (or \`*\`). Verify it with any Standard Webhooks library; answer 2xx within 10 s, else it is retried with backoff for over 24 hours; 410 Gone disables the endpoint.`,
            security: [],
            parameters: [
              header('webhook-id', 'The event id: the same on every attempt (deduplicate on it)'),
              header('webhook-timestamp', 'Unix seconds of this attempt'),
              header('webhook-signature', 'Space-separated `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`; two during a rotation'),
            ],
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['type', 'timestamp', 'organization_id', 'data'],
                    properties: {
                      type: { type: 'string', const: type },
                      timestamp: { type: 'string', format: 'date-time' },
                      organization_id: { type: 'string', format: 'uuid' },
                      data: ref(dataId),
                    },
                  },
                },
              },
            },
            responses: {
              '200': { description: 'Received (any 2xx)' },
              '410': { description: 'Gone: the endpoint is disabled and not called again' },
            },
          },
        },
      ];
    }),
  );
}

let cached: Json | undefined;

export function openApiDocument(): Json {
  if (cached) return cached;
  const records = recordRegistry();
  const paths: Record<string, Json> = {};
  for (const op of inOrder(OPERATIONS, (o) => o.path, PATH_ORDER)) (paths[op.path] ??= {})[op.method] = operationObject(op, records);
  const used = new Set(OPERATIONS.flatMap(problemsOf));
  cached = {
    openapi: '3.1.0',
    info: {
      title: 'Outreach Signal Service',
      version: '0.1.0',
      description:
        'A multi-tenant, signal-driven outbound-outreach backend. Requests are camelCase, answers snake_case; errors are ' +
        'RFC 9457 application/problem+json with a machine-readable `code`. Lists are newest first with keyset pagination ' +
        '(`limit`, `before`). See docs/api.md for the decisions behind each endpoint.',
      license: { name: 'Proprietary (UNLICENSED)', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: '/', description: 'The server that serves this document' }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    webhooks: webhooksSection(records),
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'An access token of the identity provider (JWKS or HS256), or an API key (osk_...)',
        },
        metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN, for GET /metrics only' },
      },
      schemas: componentSchemas(records),
      responses: Object.fromEntries(
        [...used].sort().map((st) => {
          const p = PROBLEM_RESPONSES[st];
          return [
            p.name,
            { description: p.description, ...(p.headers ? { headers: p.headers } : {}), content: { 'application/problem+json': { schema: ref('Problem') } } },
          ];
        }),
      ),
    },
  };
  return cached;
}

/**
 * The order of the document's `paths` and components/schemas: the order they had when the
 * operations were one table, kept so that splitting the contract by feature did not change the
 * document. A path not listed follows the listed ones, in the order of OPERATIONS; a record not
 * listed follows them, by id.
 */
const PATH_ORDER: readonly string[] = [
  '/healthz',
  '/readyz',
  '/metrics',
  '/openapi.json',
  '/docs',
  '/u/{token}',
  '/organizations',
  '/organizations/{organizationId}',
  '/organizations/{organizationId}/members',
  '/sources',
  '/sources/{sourceId}',
  '/sources/{sourceId}/run',
  '/signals',
  '/signals/{signalId}',
  '/signals/{signalId}/ignore',
  '/signals/{signalId}/reprocess',
  '/opportunities',
  '/opportunities/{opportunityId}',
  '/opportunities/{opportunityId}/outcome',
  '/settings/scoring',
  '/settings/scoring/suggestions',
  '/analytics/outreach',
  '/settings/industry-profile',
  '/companies',
  '/companies/{companyId}',
  '/companies/{companyId}/enrich',
  '/contacts',
  '/contacts/{contactId}',
  '/imports',
  '/imports/{importId}',
  '/contacts/{contactId}/channels',
  '/contacts/{contactId}/lawful-basis',
  '/compliance/suppressions',
  '/compliance/suppressions/{suppressionId}',
  '/compliance/settings',
  '/compliance/audit',
  '/compliance/channel-policy',
  '/integrations',
  '/integrations/{integrationId}',
  '/integrations/{integrationId}/test',
  '/mailboxes',
  '/mailboxes/{mailboxId}',
  '/mailboxes/{mailboxId}/health',
  '/mailboxes/{mailboxId}/inbound',
  '/mailboxes/oauth/start',
  '/mailboxes/oauth/callback',
  '/mailboxes/{mailboxId}/pause',
  '/mailboxes/{mailboxId}/resume',
  '/campaigns',
  '/campaigns/{campaignId}',
  '/campaigns/{campaignId}/accept',
  '/campaigns/{campaignId}/contacts',
  '/campaigns/{campaignId}/variants',
  '/campaigns/{campaignId}/dismiss',
  '/enrollments',
  '/enrollments/{enrollmentId}',
  '/enrollments/{enrollmentId}/stop',
  '/opportunities/{opportunityId}/strategist',
  '/enrollments/{enrollmentId}/resume',
  '/messages',
  '/messages/{messageId}',
  '/messages/{messageId}/approve',
  '/messages/{messageId}/reject',
  '/messages/{messageId}/complete',
  '/meetings',
  '/meetings/{meetingId}',
  '/threads',
  '/threads/{threadId}',
  '/threads/{threadId}/reply',
  '/meetings/{meetingId}/status',
  '/tasks',
  '/tasks/{taskId}/complete',
  '/settings/meetings',
  '/webhooks/calcom/{calcomIntegrationId}',
  '/webhook-endpoints',
  '/webhook-endpoints/{endpointId}',
  '/webhook-endpoints/{endpointId}/rotate-secret',
  '/webhook-endpoints/{endpointId}/test',
  '/webhook-endpoints/{endpointId}/deliveries',
  '/webhook-deliveries/{deliveryId}/retry',
  '/api-keys',
  '/api-keys/{apiKeyId}',
  '/domains',
  '/domains/{domainId}/verify',
  '/domains/{domainId}',
  '/domains/{domainId}/volume',
  '/webhooks/calendly/{calendlyIntegrationId}',
];
const COMPONENT_ORDER: readonly string[] = [
  'Problem',
  'Health',
  'Readiness',
  'OpenApiDocument',
  'Organization',
  'Membership',
  'Source',
  'SourceRun',
  'Signal',
  'Classification',
  'Score',
  'ScoreComponent',
  'ScoreBreakdown',
  'SignalDetail',
  'SignalRun',
  'Opportunity',
  'ScoringConfig',
  'ScoringRule',
  'ScoringSettings',
  'IndustryProfile',
  'Persona',
  'Product',
  'IndustryProfileSettings',
  'ScoringSuggestions',
  'OutreachAnalytics',
  'Company',
  'Contact',
  'Import',
  'LawfulBasis',
  'ContactDetail',
  'ChannelDecision',
  'GateBlock',
  'ComplianceGate',
  'Suppression',
  'ComplianceSettings',
  'AuditEntry',
  'ChannelPolicyRule',
  'ChannelPolicy',
  'Integration',
  'Mailbox',
  'MailboxHealth',
  'InboundReceipt',
  'OAuthStart',
  'CampaignStep',
  'Campaign',
  'CampaignAcceptance',
  'Enrollment',
  'StrategistRun',
  'Message',
  'Thread',
  'ThreadDetail',
  'Meeting',
  'MeetingSettings',
  'Task',
  'BookingReceipt',
  'WebhookEndpoint',
  'WebhookEndpointWithSecret',
  'WebhookDelivery',
  'WebhookTestReceipt',
  'ApiKey',
  'ApiKeyWithSecret',
  'WebhookTestData',
  'VariantResult',
  'Domain',
  'DomainVolume',
  'DomainBulkThresholdNear',
];

/** The items listed in `order` first, in its order, then the others as `rest` sorts them. */
function inOrder<T>(items: readonly T[], key: (item: T) => string, order: readonly string[], rest: (a: T, b: T) => number = () => 0): T[] {
  const rank = (item: T) => {
    const i = order.indexOf(key(item));
    return i === -1 ? order.length : i;
  };
  return [...items].sort((a, b) => rank(a) - rank(b) || rest(a, b));
}
