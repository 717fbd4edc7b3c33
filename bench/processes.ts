import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freeLoopbackPort } from '../apps/shared/ports';
import { DEV_AUDIENCE, devIssuer, loadOrCreateDevKey, serveJwks, signDevToken } from '../scripts/lib/dev-identity';

/** A bench's helper process (a worker, the API) run with tsx, answered once its output says `ready`. */
export function startProcess(name: string, script: string, env: NodeJS.ProcessEnv, ready: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (b: Buffer) => {
      output = (output + b.toString()).slice(-4000);
      if (output.includes(ready)) resolve(child);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${name} exited (${code}):\n${output}`)));
  });
}

/** Stops a helper process and waits for it to exit. */
export function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/**
 * The API as `npm run dev:api` runs it, for a bench: a development identity provider of its own, the
 * API process on a free loopback port, and a token for `userId`. `env` is the API's environment beyond
 * its port and authentication; `cleanups` gets the identity provider's close.
 */
export async function startBenchApi(opts: {
  env: NodeJS.ProcessEnv;
  userId: string;
  cleanups: Array<() => Promise<unknown>>;
}): Promise<{ child: ChildProcess; base: string; token: string }> {
  const keyDir = mkdtempSync(path.join(os.tmpdir(), 'outreach-bench-idp-'));
  const { publicJwk, privateJwk } = await loadOrCreateDevKey(keyDir);
  const jwks = await serveJwks(0, [publicJwk]);
  opts.cleanups.push(() => new Promise((r) => jwks.close(r)));
  const issuer = devIssuer((jwks.address() as { port: number }).port);
  const port = await freeLoopbackPort();
  const child = await startProcess(
    'api',
    path.resolve(__dirname, '../apps/api/main.ts'),
    {
      ...opts.env,
      PORT: String(port),
      AUTH_MODE: 'jwks',
      AUTH_JWKS_URL: `${issuer}/.well-known/jwks.json`,
      AUTH_ISSUER: issuer,
      AUTH_AUDIENCE: DEV_AUDIENCE,
    },
    // The API says it at info.
    'api listening',
  );
  const token = await signDevToken({ privateJwk, issuer, audience: DEV_AUDIENCE, userId: opts.userId, expiresIn: '2h' });
  return { child, base: `http://127.0.0.1:${port}`, token };
}
