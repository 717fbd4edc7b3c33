import { DefaultLogger, Runtime } from '@temporalio/worker';
import { allowPrivateDestinations } from '../../activities/providers/destination';
import { allowsPrivateNetworks, ConfigError, workerDatabaseUrl, loadConfig, productionProblems } from '../shared/config';
import { createLogger } from '../shared/logger';
import { connectTemporal, WorkflowStarter } from '../shared/temporal';
import { createDb, poolOf } from '../../db/pool';
import { freeLoopbackPort } from '../shared/ports';
import { serveWorkerMetrics, WorkerMetrics } from './metrics';
import { createWorker } from './worker';
import { startWebhookDispatcher } from './webhook-dispatcher';

async function main() {
  const config = loadConfig();
  const problems = productionProblems(config, 'worker');
  if (problems.length) throw new ConfigError(`The worker refuses to start:\n  ${problems.join('\n  ')}`);
  allowPrivateDestinations(allowsPrivateNetworks(config));
  const logger = createLogger(config.LOG_LEVEL, 'worker');
  // Metrics (WORKER_METRICS_PORT): the SDK's Core serves its own on a loopback port, appended to ours.
  const sdkMetrics = config.WORKER_METRICS_PORT ? `127.0.0.1:${await freeLoopbackPort()}` : undefined;
  Runtime.install({
    logger: new DefaultLogger(config.LOG_LEVEL === 'debug' ? 'DEBUG' : 'WARN'),
    ...(sdkMetrics ? { telemetryOptions: { metrics: { prometheus: { bindAddress: sdkMetrics } } } } : {}),
  });
  const db = createDb(workerDatabaseUrl(config), config.DB_POOL_SIZE, { namedStatements: config.DB_NAMED_STATEMENTS === 'true' });
  const metrics = config.WORKER_METRICS_PORT ? new WorkerMetrics({ pool: poolOf(db) }) : undefined;
  const { worker, providerWorker, webhookWorker, connection } = await createWorker({
    config,
    db,
    logger,
    activityInterceptors: metrics ? [metrics.interceptor] : [],
  });
  const metricsServer = metrics
    ? await serveWorkerMetrics({
        metrics,
        host: config.WORKER_METRICS_HOST,
        port: config.WORKER_METRICS_PORT,
        access: { token: config.METRICS_TOKEN, public: config.METRICS_PUBLIC === 'true' },
        sdkAddress: sdkMetrics,
      })
    : undefined;
  if (metricsServer)
    logger.info({ url: `http://${config.WORKER_METRICS_HOST}:${config.WORKER_METRICS_PORT}/metrics`, sdk: sdkMetrics }, 'worker metrics served');
  // The scheduled reconcile of unfinished signals: created, or brought in line with the configuration
  // (by the workers of the deployment's queue; workers of another queue leave it alone).
  if (config.RECONCILE_SCHEDULE === 'true') {
    const client = await connectTemporal(config);
    const starter = new WorkflowStarter(client, config);
    await starter.ensureReconcileSchedule();
    await starter.ensureOutreachReconcileSchedule();
    await client.connection.close();
  }
  // Webhook deliveries: woken after each event commits, and swept for any whose wake was lost.
  const dispatcherClient = config.RECONCILE_SCHEDULE === 'true' ? await connectTemporal(config) : undefined;
  const dispatcher = dispatcherClient
    ? startWebhookDispatcher({
        db,
        connectionString: workerDatabaseUrl(config),
        starter: new WorkflowStarter(dispatcherClient, config),
        logger,
        sweepSeconds: config.WEBHOOK_SWEEP_SECONDS,
      })
    : undefined;
  logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, address: config.TEMPORAL_ADDRESS, startup_ms: Math.round(performance.now()) }, 'worker started');
  // Runtime.install's default shutdown signals (SIGINT, SIGTERM) make run() resolve after in-flight tasks finish.
  await Promise.all([worker.run(), providerWorker.run(), webhookWorker.run()]);
  await dispatcher?.stop();
  await dispatcherClient?.connection.close();
  await connection.close();
  await new Promise((r) => (metricsServer ? metricsServer.close(r) : r(undefined)));
  await db.destroy();
  logger.info('worker stopped');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
