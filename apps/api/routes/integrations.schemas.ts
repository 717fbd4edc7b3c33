import { z } from 'zod';
import { emptyBody, id, jsonObject, listBase, nullable, record, stamps, timestamp, uuid, type Agrees, type Operation, type Row } from '../contract';
import { INTEGRATION_KINDS, INTEGRATION_PROVIDERS, IntegrationProviderKey } from '../../../activities/providers/registry';
import type { getIntegration } from '../../../db/queries/integrations';

/**
 * The HTTP contract of apps/api/routes/integrations.ts: CRM, enrichment and LLM providers. Its request
 * schemas, the records it answers (registered with `record`) and its operations, which
 * apps/api/openapi.ts assembles into the OpenAPI document.
 */

export const createIntegrationBody = z
  .object({
    organizationId: uuid,
    providerKey: z.enum(Object.keys(INTEGRATION_PROVIDERS) as [IntegrationProviderKey, ...IntegrationProviderKey[]]),
    kind: z.enum(INTEGRATION_KINDS),
    config: jsonObject.optional(),
    mapping: jsonObject.optional(),
    secret: z.string().min(1).max(4096),
  })
  .strict()
  .superRefine((v, ctx) => {
    const provider = INTEGRATION_PROVIDERS[v.providerKey];
    if (provider.kind !== v.kind) ctx.addIssue({ code: 'custom', path: ['kind'], message: `provider ${v.providerKey} is a ${provider.kind} integration` });
    const parsed = provider.config.safeParse(v.config ?? {});
    if (!parsed.success) for (const i of parsed.error.issues) ctx.addIssue({ code: 'custom', message: i.message, path: ['config', ...i.path] });
    const mapping = 'mapping' in provider ? provider.mapping.safeParse(v.mapping ?? {}) : null;
    if (mapping && !mapping.success) for (const i of mapping.error.issues) ctx.addIssue({ code: 'custom', message: i.message, path: ['mapping', ...i.path] });
  });

export const listIntegrationsQuery = z.object({ ...listBase, kind: z.enum(INTEGRATION_KINDS).optional() }).strict();

export const Integration = record(
  'Integration',
  'A provider integration; its secret is write-only and never answered',
  z.object({
    id,
    organization_id: id,
    provider_key: z.enum(Object.keys(INTEGRATION_PROVIDERS) as [IntegrationProviderKey, ...IntegrationProviderKey[]]),
    kind: z.enum(INTEGRATION_KINDS),
    status: z.enum(['connected', 'error', 'disconnected']),
    config: jsonObject,
    mapping: jsonObject,
    last_error: nullable(z.string()),
    last_tested_at: nullable(timestamp),
    ...stamps,
  }),
);

/** Fails to compile, naming the fields, when a query's column list and its response schema drift apart. */
export const ROWS_MATCH: {
  Integration: Agrees<Row<typeof getIntegration>, typeof Integration>;
} = { Integration: true };

export const operations = [
  {
    id: 'createIntegration',
    mcp: 'hidden',
    method: 'post',
    path: '/integrations',
    tag: 'Integrations',
    summary: 'Add an integration (secret write-only; 503 without INTEGRATION_SECRET_KEY)',
    role: 'admin',
    body: createIntegrationBody,
    status: 201,
    answer: Integration,
    problems: [503],
  },
  {
    id: 'listIntegrations',
    method: 'get',
    path: '/integrations',
    tag: 'Integrations',
    summary: 'List integrations',
    role: 'viewer',
    query: listIntegrationsQuery,
    answer: z.array(Integration),
  },
  {
    id: 'getIntegration',
    method: 'get',
    path: '/integrations/{integrationId}',
    tag: 'Integrations',
    summary: 'One integration',
    role: 'viewer',
    answer: Integration,
  },
  {
    id: 'testIntegration',
    method: 'post',
    path: '/integrations/{integrationId}/test',
    tag: 'Integrations',
    summary: "Verify the stored secret with the provider (400 naming config.baseUrl when the provider's answer exceeds the size limit)",
    role: 'admin',
    body: emptyBody,
    answer: Integration,
    problems: [503],
  },
] as const satisfies readonly Operation[];
