import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/**
 * A real worker process (apps/worker/main.ts) with this environment; resolves once it polls its task
 * queue. The test stack starts two; the sending tests start their own on a task queue of their own,
 * to run several at once or kill one mid-send.
 */
export function startWorkerProcess(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps/worker/main.ts')], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`worker did not start within 120s:\n${output}`));
    }, 120000);
    const onData = (b: Buffer) => {
      const text = b.toString();
      output = (output + text).slice(-8000);
      if (text.includes('worker started')) {
        clearTimeout(timer);
        resolve(child);
      }
      if (process.env.WORKER_LOG_LEVEL) process.stderr.write(text);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited (${code}) before starting:\n${output}`));
    });
  });
}

/** The environment of the test stack's workers (global-setup), on another task queue (which leaves the stack's reconcile schedule alone). */
export function workerEnv(taskQueue: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    RECONCILE_SCHEDULE: 'false',
    WORKER_DATABASE_URL: process.env.TEST_WORKER_DB_URL,
    DATABASE_URL: process.env.TEST_OWNER_DB_URL,
    TEMPORAL_TASK_QUEUE: taskQueue,
    LOG_LEVEL: process.env.WORKER_LOG_LEVEL ?? 'info',
  };
}
