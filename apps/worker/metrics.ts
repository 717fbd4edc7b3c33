import http from 'node:http';
import { CancelledFailure } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { Counter, Histogram, Registry } from 'prom-client';
import type { Pool } from 'pg';
import { MetricsAccess, metricsRequestListener, newRegistry, registerPoolMetrics } from '../shared/metrics';

/**
 * The worker's Prometheus metrics (WORKER_METRICS_PORT): activity outcomes and durations by activity
 * type and task queue, the database pool, the default process metrics, and, appended to the same
 * answer, the Temporal SDK's own metrics (workflow and activity task latencies, slots, polls), which
 * the SDK's Core serves on an internal loopback port of its own.
 */
export class WorkerMetrics {
  readonly registry: Registry;
  private readonly outcomes: Counter<'activity_type' | 'task_queue' | 'outcome'>;
  private readonly duration: Histogram<'activity_type' | 'task_queue' | 'outcome'>;

  constructor(opts: { pool?: Pool } = {}) {
    this.registry = newRegistry();
    this.outcomes = new Counter({
      name: 'outreach_activity_executions_total',
      help: 'Activity executions (attempts) that ended, by activity type, task queue and outcome (completed, failed, cancelled)',
      labelNames: ['activity_type', 'task_queue', 'outcome'],
      registers: [this.registry],
    });
    this.duration = new Histogram({
      name: 'outreach_activity_duration_seconds',
      help: 'Time one activity attempt ran in this worker, by activity type, task queue and outcome',
      labelNames: ['activity_type', 'task_queue', 'outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers: [this.registry],
    });
    if (opts.pool) registerPoolMetrics(this.registry, opts.pool);
  }

  /** An activity interceptor that records every attempt's outcome and duration (every Worker of the process). */
  readonly interceptor: ActivityInterceptorsFactory = (ctx) => ({
    inbound: {
      execute: async (input, next) => {
        const labels = { activity_type: ctx.info.activityType, task_queue: ctx.info.taskQueue };
        const end = this.duration.startTimer();
        const record = (outcome: 'completed' | 'failed' | 'cancelled') => {
          end({ ...labels, outcome });
          this.outcomes.inc({ ...labels, outcome });
        };
        try {
          const result = await next(input);
          record('completed');
          return result;
        } catch (err) {
          record(err instanceof CancelledFailure || ctx.cancellationSignal.aborted ? 'cancelled' : 'failed');
          throw err;
        }
      },
    },
  });
}

/** The SDK's exposition text, read from its loopback endpoint; a comment when it does not answer. */
export function sdkMetricsReader(address: string, timeoutMs = 2000): () => Promise<string> {
  return () =>
    new Promise((resolve) => {
      const req = http.get(`http://${address}/metrics`, { timeout: timeoutMs }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve(res.statusCode === 200 ? `\n${text}` : `\n# Temporal SDK metrics unavailable (HTTP ${res.statusCode})\n`));
      });
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.on('error', (e) => resolve(`\n# Temporal SDK metrics unavailable (${e.message})\n`));
    });
}

/** GET /metrics on host:port: this worker's registry, then the SDK's metrics. */
export function serveWorkerMetrics(opts: {
  metrics: WorkerMetrics;
  host: string;
  port: number;
  access: MetricsAccess;
  sdkAddress?: string;
}): Promise<http.Server> {
  const server = http.createServer(metricsRequestListener(opts.metrics.registry, opts.access, opts.sdkAddress ? sdkMetricsReader(opts.sdkAddress) : undefined));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve(server));
  });
}
