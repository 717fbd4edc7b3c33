import { z } from 'zod';
import { CronExpressionParser } from 'cron-parser';
import { countryCode, httpUrl, name } from '../../../domain/companies/fields';
import { jsonApiConfigSchema } from '../../../activities/providers/sources/json-api';
import { emptyBody, id, jsonObject, listBase, nullable, record, stamps, timestamp, uuid, type Agrees, type Operation, type Row } from '../contract';
import type { getSource } from '../../../db/queries/sources';

/**
 * The HTTP contract of apps/api/routes/sources.ts: where signals come from. Its request schemas, the
 * records it answers (registered with `record`) and its operations, which apps/api/openapi.ts
 * assembles into the OpenAPI document.
 */

export const cronExpression = z
  .string()
  .trim()
  .refine((v) => v.split(/\s+/).length === 5, 'must be a five-field cron expression (minute hour day month weekday)')
  .refine((v) => {
    try {
      CronExpressionParser.parse(v);
      return true;
    } catch {
      return false;
    }
  }, 'is not a valid cron expression');

export const sourceProviderKeys = ['rss', 'json_api', 'bekendmakingen'] as const;

/** Per-provider config; the provider module owns what it means. */
export const sourceConfigByProvider = {
  rss: z.object({ url: httpUrl, signalType: z.string().min(1).max(50).optional() }).passthrough(),
  json_api: jsonApiConfigSchema.extend({ url: httpUrl }),
  bekendmakingen: z
    .object({ url: httpUrl.optional(), query: z.string().min(1).max(2000).optional(), maximumRecords: z.number().int().min(1).max(1000).optional() })
    .strict(),
} as const;

export const createSourceBody = z
  .object({
    organizationId: uuid,
    providerKey: z.enum(sourceProviderKeys),
    name,
    config: jsonObject,
    enabled: z.boolean().optional(),
    schedule: cronExpression.nullable().optional(),
    countryCode: countryCode.optional(),
    language: z
      .string()
      .regex(/^[a-z]{2,3}$/, 'must be an ISO 639 language code such as nl')
      .optional(),
  })
  .strict()
  .superRefine((v, ctx) => {
    const parsed = sourceConfigByProvider[v.providerKey].safeParse(v.config);
    if (!parsed.success) for (const i of parsed.error.issues) ctx.addIssue({ code: 'custom', message: i.message, path: ['config', ...i.path] });
  });

export const patchSourceBody = z
  .object({
    name: name.optional(),
    config: jsonObject.optional(),
    enabled: z.boolean().optional(),
    schedule: cronExpression.nullable().optional(),
  })
  .strict();

export const listSourcesQuery = z.object(listBase).strict();

export const Source = record(
  'Source',
  'A signal source and the state of its last run',
  z.object({
    id,
    organization_id: id,
    provider_key: z.enum(sourceProviderKeys),
    name: z.string(),
    config: jsonObject.describe('Provider settings (rss: url; json_api: url and field mapping; bekendmakingen: query)'),
    enabled: z.boolean(),
    schedule: nullable(z.string()).describe('Five-field cron expression, or null for manual runs only'),
    country_code: nullable(z.string()),
    language: nullable(z.string()),
    header_names: z.array(z.string()).describe('json_api: the names of the request headers sent with every fetch (values are write-only)'),
    last_run_at: nullable(timestamp),
    last_run_status: nullable(z.enum(['running', 'succeeded', 'not_modified', 'failed'])),
    last_error: nullable(z.string()),
    ...stamps,
  }),
);

export const SourceRun = record(
  'SourceRun',
  'The source, with the ingest workflow run that was started',
  Source.extend({ workflow_id: z.string(), run_id: z.string() }),
);

/** Fails to compile, naming the fields, when a query's column list and its response schema drift apart. */
export const ROWS_MATCH: {
  Source: Agrees<Row<typeof getSource>, typeof Source>;
} = { Source: true };

export const operations = [
  {
    id: 'createSource',
    method: 'post',
    path: '/sources',
    tag: 'Sources',
    summary: 'Create a signal source',
    role: 'member',
    body: createSourceBody,
    status: 201,
    answer: Source,
  },
  {
    id: 'listSources',
    method: 'get',
    path: '/sources',
    tag: 'Sources',
    summary: 'List sources',
    role: 'viewer',
    query: listSourcesQuery,
    answer: z.array(Source),
  },
  { id: 'getSource', method: 'get', path: '/sources/{sourceId}', tag: 'Sources', summary: 'One source', role: 'viewer', answer: Source },
  {
    id: 'updateSource',
    method: 'patch',
    path: '/sources/{sourceId}',
    tag: 'Sources',
    summary: 'Change a source (schedule syncs its Temporal Schedule)',
    role: 'member',
    body: patchSourceBody,
    answer: Source,
  },
  {
    id: 'runSource',
    method: 'post',
    path: '/sources/{sourceId}/run',
    tag: 'Sources',
    summary: 'Start ingestSourceWorkflow (409 while the source is disabled)',
    role: 'member',
    body: emptyBody,
    status: 202,
    answer: SourceRun,
    problems: [409],
  },
] as const satisfies readonly Operation[];
