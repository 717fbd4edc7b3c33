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
    for (const issue of providerSettingIssues(v.providerKey, { config: v.config ?? {}, mapping: v.mapping ?? {} })) ctx.addIssue({ code: 'custom', ...issue });
  });

/** Where a provider's config or mapping breaks its schema (the registry's): each issue's path starts at `config` or `mapping`. */
export function providerSettingIssues(
  providerKey: IntegrationProviderKey,
  settings: { config?: Record<string, unknown>; mapping?: Record<string, unknown> },
): Array<{ path: string[]; message: string }> {
  const provider = INTEGRATION_PROVIDERS[providerKey];
  const issues: Array<{ path: string[]; message: string }> = [];
  if (!provider) return [{ path: ['config'], message: `provider ${providerKey} is no longer offered: delete the integration` }];
  if (settings.config !== undefined) {
    const parsed = provider.config.safeParse(settings.config);
    if (!parsed.success) issues.push(...parsed.error.issues.map((i) => ({ path: ['config', ...i.path.map(String)], message: i.message })));
  }
  if (settings.mapping !== undefined && 'mapping' in provider) {
    const parsed = provider.mapping.safeParse(settings.mapping);
    if (!parsed.success) issues.push(...parsed.error.issues.map((i) => ({ path: ['mapping', ...i.path.map(String)], message: i.message })));
  }
  return issues;
}

/** A change of an integration: its config, mapping or secret (a rotated key). Its provider and kind stay. */
export const patchIntegrationBody = z
  .object({
    config: jsonObject.optional(),
    mapping: jsonObject.optional(),
    secret: z.string().min(1).max(4096).optional(),
  })
  .strict()
  .refine((v) => v.config !== undefined || v.mapping !== undefined || v.secret !== undefined, { message: 'name config, mapping or secret' });

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
    id: 'updateIntegration',
    mcp: 'hidden',
    method: 'patch',
    path: '/integrations/{integrationId}',
    tag: 'Integrations',
    summary:
      'Change the config, mapping or secret (a rotated key; a changed URL needs the secret again); a new config or secret is untested (disconnected) until tested again; audited',
    role: 'admin',
    body: patchIntegrationBody,
    answer: Integration,
    problems: [503],
  },
  {
    id: 'deleteIntegration',
    mcp: 'hidden',
    method: 'delete',
    path: '/integrations/{integrationId}',
    tag: 'Integrations',
    summary: 'Remove an integration and its sealed secret: it leaves the enrichment order and new work does not use it (a call under way ends first); audited',
    role: 'admin',
    status: 204,
    empty: true,
    answer: Integration,
  },
  {
    id: 'testIntegration',
    method: 'post',
    path: '/integrations/{integrationId}/test',
    tag: 'Integrations',
    summary:
      "Verify the stored secret with the provider (400 naming config.baseUrl when the provider's answer exceeds the size limit; 409 when the integration was changed during the check)",
    role: 'admin',
    body: emptyBody,
    answer: Integration,
    problems: [409, 503],
  },
] as const satisfies readonly Operation[];
