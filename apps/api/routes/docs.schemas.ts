import { jsonObject, record, type Operation } from '../contract';
import { z } from 'zod';

/**
 * The HTTP contract of apps/api/routes/docs.ts (and GET /openapi.json, served by apps/api/app.ts):
 * this document and its interactive reference. Its request schemas, the records it answers (registered
 * with `record`) and its operations, which apps/api/openapi.ts assembles into the OpenAPI document.
 */

export const OpenApiDocument = record(
  'OpenApiDocument',
  'An OpenAPI 3.1 document',
  z.object({ openapi: z.string(), info: jsonObject, paths: jsonObject }).catchall(z.unknown()),
);

export const operations = [
  { id: 'getOpenApiDocument', method: 'get', path: '/openapi.json', tag: 'Reference', summary: 'This document', role: 'none', answer: OpenApiDocument },
  {
    id: 'getApiReference',
    method: 'get',
    path: '/docs',
    tag: 'Reference',
    summary: 'Interactive API reference (HTML)',
    role: 'none',
    answer: z.string(),
    media: 'text/html',
  },
] as const satisfies readonly Operation[];
