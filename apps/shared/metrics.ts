import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { Pool } from 'pg';

/**
 * Prometheus metrics shared by the API and the worker: one registry per process (per app in tests),
 * the default process metrics, the database pool's use, and the one rule for who may read them.
 */
export function newRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** db_pool_connections{state=total|idle}, db_pool_waiting_requests and db_pool_max_connections, read at scrape time. */
export function registerPoolMetrics(registry: Registry, pool: Pool): void {
  new Gauge({
    name: 'db_pool_connections',
    help: 'PostgreSQL connections held by this process, by state (total = idle + in use)',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      this.set({ state: 'total' }, pool.totalCount);
      this.set({ state: 'idle' }, pool.idleCount);
    },
  });
  new Gauge({
    name: 'db_pool_waiting_requests',
    help: 'Queries waiting for a free PostgreSQL connection (above 0 for long: the pool is too small or starved)',
    registers: [registry],
    collect() {
      this.set(pool.waitingCount);
    },
  });
  new Gauge({
    name: 'db_pool_max_connections',
    help: 'The pool size (DB_POOL_SIZE)',
    registers: [registry],
    collect() {
      this.set(pool.options.max ?? 10);
    },
  });
}

/**
 * Who may read /metrics: with METRICS_TOKEN set, only `Authorization: Bearer <METRICS_TOKEN>`; without
 * it, anyone only when it was opened explicitly (METRICS_PUBLIC=true, as `npm run dev` does), and
 * otherwise nobody: a port must not publish its traffic, pool and process details by default,
 * whatever NODE_ENV says.
 */
export interface MetricsAccess {
  token?: string;
  /** METRICS_PUBLIC=true: served to anyone when no token is set. */
  public: boolean;
}

export type MetricsVerdict = 'ok' | 'unauthorized' | 'disabled';

export function metricsVerdict(access: MetricsAccess, authorization: string | undefined): MetricsVerdict {
  if (!access.token) return access.public ? 'ok' : 'disabled';
  const presented = /^bearer\s+(.+)$/i.exec(authorization ?? '')?.[1]?.trim() ?? '';
  const a = Buffer.from(presented);
  const b = Buffer.from(access.token);
  return a.length === b.length && timingSafeEqual(a, b) ? 'ok' : 'unauthorized';
}

/** Serves one registry (plus any extra exposition text, e.g. the Temporal SDK's) at /metrics on a plain http server. */
export function metricsRequestListener(registry: Registry, access: MetricsAccess, extra?: () => Promise<string>) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    const verdict = metricsVerdict(access, req.headers.authorization);
    if (verdict === 'disabled') return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    if (verdict === 'unauthorized') return void res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' }).end('unauthorized\n');
    try {
      const text = (await registry.metrics()) + (extra ? await extra() : '');
      res.writeHead(200, { 'content-type': registry.contentType }).end(text);
    } catch (err) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${(err as Error).message}\n`);
    }
  };
}
