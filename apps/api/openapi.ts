import { z } from 'zod';
import * as s from './schemas';

/**
 * The OpenAPI 3.1 document (GET /openapi.json), built from the same zod schemas that validate
 * requests, so it cannot drift from them. test/openapi.test.ts fails when a route is missing here.
 */
interface Operation {
  method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  path: string; // OpenAPI form: /sources/{sourceId}
  summary: string;
  role?: 'viewer' | 'member' | 'admin' | 'any user' | 'none';
  body?: z.ZodType;
  query?: z.ZodType;
  status?: number;
  answers: string;
}

export const OPERATIONS: Operation[] = [
  { method: 'get', path: '/healthz', summary: 'Liveness', role: 'none', answers: '{status}' },
  { method: 'get', path: '/readyz', summary: 'Readiness: PostgreSQL and Temporal reachable', role: 'none', answers: '{status, checks}; 503 problem when not ready' },
  { method: 'get', path: '/openapi.json', summary: 'This document', role: 'none', answers: 'OpenAPI 3.1' },
  { method: 'post', path: '/organizations', summary: 'Create an organization; the caller becomes owner', role: 'any user', body: s.createOrganizationBody, status: 201, answers: 'Organization' },
  { method: 'get', path: '/organizations', summary: "The caller's organizations", role: 'any user', answers: 'Organization[]' },
  { method: 'get', path: '/organizations/{organizationId}', summary: 'One organization', role: 'viewer', answers: 'Organization' },
  { method: 'post', path: '/organizations/{organizationId}/members', summary: 'Add a member or change a role', role: 'admin', body: s.addMemberBody, status: 201, answers: 'Membership' },
  { method: 'post', path: '/sources', summary: 'Create a signal source', role: 'member', body: s.createSourceBody, status: 201, answers: 'Source' },
  { method: 'get', path: '/sources', summary: 'List sources', role: 'viewer', query: s.listSourcesQuery, answers: 'Source[]' },
  { method: 'get', path: '/sources/{sourceId}', summary: 'One source', role: 'viewer', answers: 'Source' },
  { method: 'patch', path: '/sources/{sourceId}', summary: 'Change a source (schedule syncs its Temporal Schedule)', role: 'member', body: s.patchSourceBody, answers: 'Source' },
  { method: 'post', path: '/sources/{sourceId}/run', summary: 'Start ingestSourceWorkflow', role: 'member', body: s.emptyBody, status: 202, answers: 'Source with workflow_id, run_id' },
  { method: 'get', path: '/signals', summary: 'List signals, newest first', role: 'viewer', query: s.listSignalsQuery, answers: 'Signal[]' },
  { method: 'get', path: '/signals/{signalId}', summary: 'A signal with its classification, score and breakdown', role: 'viewer', answers: '{signal, classification?, score?, components?, breakdown?}' },
  { method: 'post', path: '/signals/{signalId}/ignore', summary: 'Ignore a signal', role: 'member', body: s.emptyBody, answers: 'Signal' },
  { method: 'post', path: '/signals/{signalId}/reprocess', summary: 'Run processSignalWorkflow from a stage', role: 'member', body: s.reprocessBody, status: 202, answers: '{workflow_id, run_id, from_stage}; 409 while a run is in progress' },
  { method: 'post', path: '/opportunities', summary: 'Create an opportunity from a signal or manually', role: 'member', body: s.createOpportunityBody, status: 201, answers: 'Opportunity' },
  { method: 'get', path: '/opportunities', summary: 'List opportunities', role: 'viewer', query: s.listOpportunitiesQuery, answers: 'Opportunity[]' },
  { method: 'get', path: '/opportunities/{opportunityId}', summary: 'One opportunity', role: 'viewer', answers: 'Opportunity' },
  { method: 'post', path: '/opportunities/{opportunityId}/outcome', summary: 'Record won, lost, or reopen', role: 'member', body: s.outcomeBody, answers: 'Opportunity' },
  { method: 'get', path: '/settings/scoring', summary: 'The active scoring config and rules', role: 'viewer', query: s.organizationQuery, answers: '{config, rules}' },
  { method: 'patch', path: '/settings/scoring', summary: 'New scoring config version', role: 'admin', body: s.patchScoringBody, answers: '{config, rules}' },
  { method: 'get', path: '/settings/industry-profile', summary: 'The industry profile', role: 'viewer', query: s.organizationQuery, answers: '{profile, personas, products}' },
  { method: 'patch', path: '/settings/industry-profile', summary: 'Change the industry profile', role: 'admin', body: s.patchIndustryProfileBody, answers: '{profile, personas, products}' },
  { method: 'post', path: '/companies', summary: 'Create a company', role: 'member', body: s.createCompanyBody, status: 201, answers: 'Company' },
  { method: 'get', path: '/companies', summary: 'List companies', role: 'viewer', query: s.listCompaniesQuery, answers: 'Company[]' },
  { method: 'get', path: '/companies/{companyId}', summary: 'One company', role: 'viewer', answers: 'Company' },
  { method: 'post', path: '/companies/{companyId}/enrich', summary: 'Start contact enrichment', role: 'member', body: s.emptyBody, status: 202, answers: 'Company (enrichment_status running)' },
  { method: 'post', path: '/contacts', summary: 'Create a contact', role: 'member', body: s.createContactBody, status: 201, answers: 'Contact' },
  { method: 'get', path: '/contacts', summary: 'List contacts', role: 'viewer', query: s.listContactsQuery, answers: 'Contact[]' },
  { method: 'get', path: '/contacts/{contactId}', summary: 'One contact with its lawful basis', role: 'viewer', answers: 'Contact' },
  { method: 'get', path: '/contacts/{contactId}/channels', summary: 'The compliance gate for a contact', role: 'viewer', answers: 'Gate result' },
  { method: 'put', path: '/contacts/{contactId}/lawful-basis', summary: 'Record the lawful basis', role: 'member', body: s.lawfulBasisBody, answers: 'Lawful basis record' },
  { method: 'delete', path: '/contacts/{contactId}', summary: 'Erase a contact (GDPR Art. 17)', role: 'member', answers: 'the erased Contact' },
  { method: 'post', path: '/compliance/suppressions', summary: 'Add a suppression (idempotent)', role: 'member', body: s.createSuppressionBody, status: 201, answers: 'Suppression (200 when it existed)' },
  { method: 'get', path: '/compliance/suppressions', summary: 'List suppressions', role: 'viewer', query: s.listSuppressionsQuery, answers: 'Suppression[]' },
  { method: 'delete', path: '/compliance/suppressions/{suppressionId}', summary: 'Remove a suppression (audited)', role: 'admin', answers: 'Suppression' },
  { method: 'get', path: '/compliance/settings', summary: 'Compliance settings', role: 'viewer', query: s.organizationQuery, answers: 'Compliance settings' },
  { method: 'patch', path: '/compliance/settings', summary: 'Change compliance settings (audited)', role: 'admin', body: s.patchComplianceSettingsBody, answers: 'Compliance settings' },
  { method: 'get', path: '/compliance/audit', summary: 'The compliance audit log', role: 'viewer', query: s.auditQuery, answers: 'Audit entry[]' },
  { method: 'get', path: '/compliance/channel-policy', summary: 'The channel policy table', role: 'any user', query: s.channelPolicyQuery, answers: '{version, rules}' },
  { method: 'post', path: '/integrations', summary: 'Add an integration (secret write-only)', role: 'admin', body: s.createIntegrationBody, status: 201, answers: 'Integration' },
  { method: 'get', path: '/integrations', summary: 'List integrations', role: 'viewer', query: s.listIntegrationsQuery, answers: 'Integration[]' },
  { method: 'get', path: '/integrations/{integrationId}', summary: 'One integration', role: 'viewer', answers: 'Integration' },
  { method: 'post', path: '/integrations/{integrationId}/test', summary: 'Verify the stored secret with the provider', role: 'admin', body: s.emptyBody, answers: 'Integration' },
];

const problem = { description: 'application/problem+json', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } };

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}

function queryParameters(schema: z.ZodType) {
  const js = jsonSchema(schema) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(js.properties ?? {}).map(([name, sch]) => ({ name, in: 'query', required: js.required?.includes(name) ?? false, schema: sch }));
}

let cached: Record<string, unknown> | undefined;

export function openApiDocument(): Record<string, unknown> {
  if (cached) return cached;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    const pathParams = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }));
    const open = op.role === 'none';
    (paths[op.path] ??= {})[op.method] = {
      summary: op.summary,
      description: `Role: ${op.role ?? 'viewer'}. Answers ${op.answers}.`,
      ...(open ? { security: [] } : {}),
      parameters: [...pathParams, ...(op.query ? queryParameters(op.query) : [])],
      ...(op.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(op.body) } } } } : {}),
      responses: {
        [String(op.status ?? 200)]: { description: op.answers },
        ...(open ? {} : { '400': problem, '401': problem, '403': problem, '404': problem }),
      },
    };
  }
  cached = {
    openapi: '3.1.0',
    info: { title: 'Outreach Signal Service', version: '0.1.0', description: 'See docs/api.md for the decisions behind each endpoint.' },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      schemas: {
        Problem: {
          type: 'object',
          required: ['type', 'title', 'status', 'detail', 'code'],
          properties: {
            type: { type: 'string' }, title: { type: 'string' }, status: { type: 'integer' }, detail: { type: 'string' }, code: { type: 'string' },
            instance: { type: 'string' }, request_id: { type: 'string' },
            errors: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } } },
          },
        },
      },
    },
    security: [{ bearer: [] }],
    paths,
  };
  return cached;
}
