import { z } from 'zod';
import { id, pagedOrganizationQuery, record, timestamp, uuid, type Operation } from '../contract';

/**
 * The HTTP contract of apps/api/routes/api-keys.ts: keys for machine clients. Its request schemas, the
 * records it answers (registered with `record`) and its operations, which apps/api/openapi.ts
 * assembles into the OpenAPI document.
 */

export const apiKeyRoles = ['viewer', 'member', 'admin'] as const;

export const createApiKeyBody = z
  .object({ organizationId: uuid, name: z.string().trim().min(1, 'must not be empty').max(200), role: z.enum(apiKeyRoles) })
  .strict();

const apiKeyFields = {
  id,
  organization_id: id,
  name: z.string(),
  role: z.enum(apiKeyRoles),
  prefix: z.string(),
  created_by: id,
  created_at: timestamp,
  last_used_at: timestamp.nullable(),
};

export const ApiKey = record(
  'ApiKey',
  'A key for a machine client, acting in its organization with its role; the key itself is answered only on creation',
  z.object(apiKeyFields),
);

export const ApiKeyWithSecret = record(
  'ApiKeyWithSecret',
  'A new API key with the key (`osk_...`), answered only here: keep it',
  z.object({ ...apiKeyFields, key: z.string().regex(/^osk_/) }),
);

export const operations = [
  {
    id: 'createApiKey',
    mcp: 'hidden',
    method: 'post',
    path: '/api-keys',
    tag: 'API keys',
    summary: 'Create a key (viewer, member or admin; not above your own role); the key (osk_...) is answered here only. A key cannot create keys',
    role: 'admin',
    body: createApiKeyBody,
    status: 201,
    answer: ApiKeyWithSecret,
  },
  {
    id: 'listApiKeys',
    mcp: 'hidden',
    method: 'get',
    path: '/api-keys',
    tag: 'API keys',
    summary: "The organization's live keys (without the key)",
    role: 'admin',
    query: pagedOrganizationQuery,
    answer: z.array(ApiKey),
  },
  {
    id: 'deleteApiKey',
    mcp: 'hidden',
    method: 'delete',
    path: '/api-keys/{apiKeyId}',
    tag: 'API keys',
    summary: 'Revoke a key: refused (401) from then on',
    role: 'admin',
    status: 204,
    empty: true,
    answer: ApiKey,
  },
] as const satisfies readonly Operation[];
