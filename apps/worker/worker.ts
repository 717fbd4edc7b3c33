import { NativeConnection, Worker } from '@temporalio/worker';
import type { Logger } from 'pino';
import type { Config } from '../shared/config';
import type { DB } from '../../db/pool';
import { createActivities } from '../../activities';

/**
 * One worker hosts the bundled workflows and every activity. Several worker processes may poll
 * the same task queue: activities are idempotent and workflows are deterministic.
 */
export async function createWorker(opts: { config: Config; db: DB; logger: Logger }): Promise<{ worker: Worker; connection: NativeConnection }> {
  const { config } = opts;
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const worker = await Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    workflowsPath: require.resolve('../../workflows'),
    activities: createActivities({ db: opts.db, config }),
    shutdownGraceTime: '20 seconds',
  });
  return { worker, connection };
}
