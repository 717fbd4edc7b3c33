import { DefaultLogger, Runtime } from '@temporalio/worker';
import { allowPrivateDestinations } from '../../activities/providers/destination';
import { allowsPrivateNetworks, workerDatabaseUrl, loadConfig } from '../shared/config';
import { createLogger } from '../shared/logger';
import { createDb } from '../../db/pool';
import { createWorker } from './worker';

async function main() {
  const config = loadConfig();
  allowPrivateDestinations(allowsPrivateNetworks(config));
  const logger = createLogger(config.LOG_LEVEL, 'worker');
  Runtime.install({ logger: new DefaultLogger(config.LOG_LEVEL === 'debug' ? 'DEBUG' : 'WARN') });
  const db = createDb(workerDatabaseUrl(config), config.DB_POOL_SIZE);
  const { worker, connection } = await createWorker({ config, db, logger });
  logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, address: config.TEMPORAL_ADDRESS }, 'worker started');
  // Runtime.install's default shutdown signals (SIGINT, SIGTERM) make run() resolve after in-flight tasks finish.
  await worker.run();
  await connection.close();
  await db.destroy();
  logger.info('worker stopped');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
