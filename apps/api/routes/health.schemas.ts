import { dependencyState, record, type Operation } from '../contract';
import { z } from 'zod';

/**
 * The HTTP contract of apps/api/routes/health.ts (and GET /metrics, served by apps/api/app.ts):
 * liveness, readiness and metrics of the API process. Its request schemas, the records it answers
 * (registered with `record`) and its operations, which apps/api/openapi.ts assembles into the OpenAPI
 * document.
 */

export const Health = record('Health', 'The process answers', z.object({ status: z.literal('ok') }));

export const Readiness = record(
  'Readiness',
  'PostgreSQL and Temporal answer',
  z.object({ status: z.literal('ready'), checks: z.object({ postgres: dependencyState, temporal: dependencyState }).catchall(dependencyState) }),
);

export const operations = [
  { id: 'getHealth', method: 'get', path: '/healthz', tag: 'Health', summary: 'Liveness', role: 'none', answer: Health },
  {
    id: 'getReadiness',
    method: 'get',
    path: '/readyz',
    tag: 'Health',
    summary: 'Readiness: PostgreSQL and Temporal reachable',
    role: 'none',
    answer: Readiness,
    problems: [503],
  },
  {
    id: 'getMetrics',
    method: 'get',
    path: '/metrics',
    tag: 'Health',
    summary: 'Prometheus metrics (text exposition format)',
    role: 'metrics token',
    answer: z.string(),
    media: 'text/plain',
  },
] as const satisfies readonly Operation[];
