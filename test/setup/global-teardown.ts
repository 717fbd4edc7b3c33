import { dropDatabase } from '../../db/migrator';
import type { TestStack } from './global-setup';

const log = (line: string) => process.stderr.write(`[test-teardown] ${line}\n`);

export default async function globalTeardown(): Promise<void> {
  const stack = (globalThis as { __STACK__?: TestStack }).__STACK__;
  if (!stack) return;
  const started = Date.now();
  await Promise.all(
    stack.workers
      .filter((w) => w.exitCode === null)
      .map(async (worker) => {
        const exited = new Promise((r) => worker.once('exit', r));
        const kill = setTimeout(() => worker.kill('SIGKILL'), 15000);
        worker.kill('SIGTERM');
        await exited;
        clearTimeout(kill);
      }),
  );
  await stack.temporal?.stop();
  await stack.dns.close();
  stack.jwks.closeAllConnections();
  await new Promise((r) => stack.jwks.close(r));
  if (!process.env.KEEP_TEST_DB) await dropDatabase(stack.ownerUrl).catch(() => undefined);
  await stack.db.stop();
  log(`stack stopped in ${((Date.now() - started) / 1000).toFixed(1)}s`);
}
