/**
 * The benchmark's worker process: the service's two Workers (apps/worker/worker.ts) with the bench
 * bundle (the real workflows plus the empty pipeline) and a no-op activity. It runs in its own
 * process so that bench/pipeline.ts can report the worker's memory, not its own.
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import pino from 'pino';
import { allowPrivateDestinations } from '../activities/providers/destination';
import { loadConfig, workerDatabaseUrl } from '../apps/shared/config';
import { createWorker } from '../apps/worker/worker';
import { createDb } from '../db/pool';

async function main() {
  const config = loadConfig();
  allowPrivateDestinations(true); // the generated feed is served on 127.0.0.1
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const db = createDb(workerDatabaseUrl(config), 20);
  const { worker, providerWorker, webhookWorker, connection } = await createWorker({
    config,
    db,
    logger: pino({ level: 'warn' }),
    workflowsPath: require.resolve('./workflows'),
    extraActivities: { benchNoop: async () => undefined },
  });
  process.stdout.write('bench worker started\n');
  await Promise.all([worker.run(), providerWorker.run(), webhookWorker.run()]);
  await connection.close();
  await db.destroy();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
