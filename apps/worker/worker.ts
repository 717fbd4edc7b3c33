import { existsSync } from 'node:fs';
import path from 'node:path';
import { ActivityInterceptorsFactory, NativeConnection, Worker } from '@temporalio/worker';
import type { Logger } from 'pino';
import { publicBaseUrl, type Config } from '../shared/config';
import { temporalConnectionOptions } from '../shared/temporal-connection';
import type { DB } from '../../db/pool';
import { createActivities } from '../../activities';
import { PROVIDER_ACTIVITIES, providerTaskQueue, WEBHOOK_ACTIVITIES, webhookTaskQueue } from '../../workflows/task-queues';
import { SELF_HEARTBEATING_ACTIVITIES } from '../../workflows/retry';
import { livenessHeartbeats } from './liveness';

/** The prebuilt workflow bundle of `npm run build`, beside the compiled apps (dist/workflow-bundle.js). */
export const WORKFLOW_BUNDLE_FILE = 'workflow-bundle.js';

/**
 * The compiled worker (dist/apps/worker) loads the bundle `npm run build` made; run from the sources
 * (tsx: tests, `npm run dev`) it bundles the workflows at start, as before.
 */
function prebuiltWorkflowBundle(): string | undefined {
  if (!__filename.endsWith('.js')) return undefined;
  const file = path.resolve(__dirname, '../..', WORKFLOW_BUNDLE_FILE);
  if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` (it compiles and bundles the workflows)`);
  return file;
}

export interface Workers {
  /** The bundled workflows and every activity, on TEMPORAL_TASK_QUEUE. */
  worker: Worker;
  /** Model and provider calls, on <TEMPORAL_TASK_QUEUE>-providers, rate-limited with bounded concurrency. */
  providerWorker: Worker;
  /** Webhook deliveries, on <TEMPORAL_TASK_QUEUE>-webhooks, at most WEBHOOK_MAX_CONCURRENT_DELIVERIES at once. */
  webhookWorker: Worker;
  connection: NativeConnection;
}

/**
 * Two Workers in one process, sharing one connection. The main one hosts the bundled workflows and
 * every activity (runs scheduled before the providers queue existed still find theirs there). The
 * providers one hosts only the model and provider calls, at most PROVIDER_ACTIVITIES_PER_SECOND
 * across all workers of the queue (a server-side limit) and PROVIDER_MAX_CONCURRENT_ACTIVITIES at
 * once in this process, so a burst of signals cannot stampede a provider. Several worker processes
 * may poll the same queues: activities are idempotent and workflows are deterministic.
 */
function workflowSource(workflowsPath: string | undefined): { workflowsPath: string } | { workflowBundle: { codePath: string } } {
  if (workflowsPath) return { workflowsPath };
  const codePath = prebuiltWorkflowBundle();
  return codePath ? { workflowBundle: { codePath } } : { workflowsPath: require.resolve('../../workflows') };
}

export async function createWorker(opts: {
  config: Config;
  db: DB;
  logger: Logger;
  /** The workflow bundle (the benchmark adds its own workflows); default the service's workflows. */
  workflowsPath?: string;
  /** Activities beside the service's, on both task queues (the benchmark's no-op, run where the real one ran). */
  extraActivities?: Record<string, (...args: never[]) => Promise<unknown>>;
  /** Activity interceptors for every Worker of the process (the metrics' outcome recorder). */
  activityInterceptors?: ActivityInterceptorsFactory[];
}): Promise<Workers> {
  const { config } = opts;
  const connection = await NativeConnection.connect(temporalConnectionOptions(config));
  const interceptors = { activity: [livenessHeartbeats(SELF_HEARTBEATING_ACTIVITIES), ...(opts.activityInterceptors ?? [])] };
  const activities = { ...createActivities({ db: opts.db, config, publicBaseUrl: publicBaseUrl(config) }), ...opts.extraActivities };
  const worker = await Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    ...workflowSource(opts.workflowsPath),
    maxCachedWorkflows: config.WORKER_MAX_CACHED_WORKFLOWS,
    activities,
    interceptors,
    shutdownGraceTime: '20 seconds',
  });
  const providerWorker = await Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: providerTaskQueue(config.TEMPORAL_TASK_QUEUE),
    activities: { ...Object.fromEntries(PROVIDER_ACTIVITIES.map((name) => [name, activities[name]])), ...opts.extraActivities },
    maxTaskQueueActivitiesPerSecond: config.PROVIDER_ACTIVITIES_PER_SECOND,
    maxConcurrentActivityTaskExecutions: config.PROVIDER_MAX_CONCURRENT_ACTIVITIES,
    interceptors,
    shutdownGraceTime: '20 seconds',
  });
  const webhookWorker = await Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: webhookTaskQueue(config.TEMPORAL_TASK_QUEUE),
    activities: Object.fromEntries(WEBHOOK_ACTIVITIES.map((name) => [name, activities[name]])),
    maxConcurrentActivityTaskExecutions: config.WEBHOOK_MAX_CONCURRENT_DELIVERIES,
    interceptors,
    shutdownGraceTime: '20 seconds',
  });
  return { worker, providerWorker, webhookWorker, connection };
}
