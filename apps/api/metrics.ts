import type { Request, RequestHandler } from 'express';
import { Counter, Histogram, Registry } from 'prom-client';
import type { Pool } from 'pg';
import { MetricsAccess, metricsVerdict, newRegistry, registerPoolMetrics } from '../shared/metrics';
import { sendProblem } from './errors';
import { OPERATIONS } from './openapi';

/**
 * The API's Prometheus metrics (GET /metrics): requests by method, route template and status, their
 * duration, the database pool, and the default process metrics. Routes are labelled by their
 * template ("/signals/:signalId"), never by the raw path, so ids cannot blow up the label space.
 */
export class ApiMetrics {
  readonly registry: Registry;
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly duration: Histogram<'method' | 'route' | 'status'>;

  constructor(opts: { pool?: Pool } = {}) {
    this.registry = newRegistry();
    this.requests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by method, route template and status code',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.duration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from receiving a request to finishing its response, by method, route template and status code',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    if (opts.pool) registerPoolMetrics(this.registry, opts.pool);
  }

  /** First middleware: times every request and counts it when its response finishes. */
  middleware(): RequestHandler {
    return (req, res, next) => {
      const end = this.duration.startTimer();
      res.once('finish', () => {
        const labels = { method: req.method, route: routeTemplate(req), status: String(res.statusCode) };
        end(labels);
        this.requests.inc(labels);
      });
      next();
    };
  }

  /** GET /metrics, guarded by METRICS_TOKEN (see apps/shared/metrics.ts). */
  handler(access: MetricsAccess): RequestHandler {
    return async (req, res) => {
      const verdict = metricsVerdict(access, req.headers.authorization);
      if (verdict === 'disabled') return sendProblem(res, 'NOT_FOUND', 'Metrics are not served here (set METRICS_TOKEN, or METRICS_PUBLIC=true to open them)');
      if (verdict === 'unauthorized') return sendProblem(res, 'UNAUTHENTICATED', 'GET /metrics needs the metrics token');
      res.type(this.registry.contentType).send(await this.registry.metrics());
    };
  }
}

// Requests that never reached a route (401, 429, 404) are matched against the documented operations.
const TEMPLATES = [...new Set(OPERATIONS.map((op) => op.path))].map((p) => ({
  template: p.replace(/\{(\w+)\}/g, ':$1'),
  re: new RegExp(`^${p.replace(/\{\w+\}/g, '[^/]+')}/?$`),
}));

export function routeTemplate(req: Request): string {
  const routePath = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof routePath === 'string') return (req.baseUrl ?? '') + routePath;
  const path = req.path;
  return TEMPLATES.find((t) => t.re.test(path))?.template ?? 'unmatched';
}
