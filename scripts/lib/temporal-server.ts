import { spawn, spawnSync, ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';
const REPO_ROOT = path.resolve(__dirname, '../..');

const devConfigSchema = z.object({
  namespace: z.string().min(1),
  ip: z.string().min(1),
  grpcPort: z.number().int(),
  uiPort: z.number().int(),
  dbFile: z.string().min(1),
  logLevel: z.enum(['debug', 'info', 'warn', 'error', 'never']),
  startTimeoutSeconds: z.number().positive(),
  searchAttributes: z.record(z.string(), z.enum(['Text', 'Keyword', 'Int', 'Double', 'Bool', 'Datetime', 'KeywordList'])),
});
export type TemporalDevConfig = z.infer<typeof devConfigSchema>;

/** The one loader of temporal-dev.yml, for the dev launcher and the test set-up alike. */
export function loadTemporalDevConfig(file = path.join(REPO_ROOT, 'temporal-dev.yml')): TemporalDevConfig {
  return devConfigSchema.parse(parseYaml(readFileSync(file, 'utf8')));
}

function onPath(cmd: string): string | undefined {
  const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  const found = r.stdout.trim();
  return r.status === 0 && found ? found : undefined;
}

export function temporalCacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'outreach-signal', 'temporal-cli-v1.5.1');
}

/**
 * TEMPORAL_CLI if set, else `temporal` on PATH, else the binary built once into a cache folder
 * outside the clone (built now with `go install` when it is not there yet).
 */
export function resolveTemporalCli(log: (line: string) => void = console.log): string {
  const fromEnv = process.env.TEMPORAL_CLI;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`TEMPORAL_CLI=${fromEnv} does not exist`);
    return fromEnv;
  }
  const onPathCli = onPath('temporal');
  if (onPathCli) return onPathCli;
  const cacheDir = temporalCacheDir();
  const cached = path.join(cacheDir, 'temporal');
  if (existsSync(cached)) return cached;
  const go = onPath('go') ?? (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
  if (!go) {
    throw new Error(
      'No Temporal CLI found: set TEMPORAL_CLI to a `temporal` binary, put one on PATH, or install Go so that ' +
        `it can be built with: go install ${TEMPORAL_CLI_MODULE}`,
    );
  }
  log(`building the Temporal CLI once into ${cacheDir} (takes a few minutes)…`);
  mkdirSync(cacheDir, { recursive: true });
  const r = spawnSync(go, ['install', TEMPORAL_CLI_MODULE], {
    stdio: 'inherit',
    env: { ...process.env, GOBIN: cacheDir, GOFLAGS: process.env.GOFLAGS ?? '-mod=mod' },
  });
  if (r.status !== 0 || !existsSync(cached)) throw new Error(`go install ${TEMPORAL_CLI_MODULE} failed`);
  return cached;
}

export interface TemporalServerHandle {
  address: string;
  namespace: string;
  uiUrl?: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `temporal server start-dev` with temporal-dev.yml's settings and waits until it answers. */
export async function startTemporalDevServer(opts: {
  cli: string;
  config: TemporalDevConfig;
  dataDir?: string; // persistence under this folder; omitted = in-memory (tests)
  grpcPort?: number;
  uiPort?: number;
  headless?: boolean;
  /** Its own process group, so that Ctrl-C in a terminal leaves it to the caller to stop (in order). */
  ownProcessGroup?: boolean;
  log: (line: string) => void;
}): Promise<TemporalServerHandle> {
  const { config } = opts;
  const grpcPort = opts.grpcPort ?? config.grpcPort;
  const uiPort = opts.uiPort ?? config.uiPort;
  const args = ['server', 'start-dev', '--ip', config.ip, '--port', String(grpcPort), '--log-level', config.logLevel];
  if (config.namespace !== 'default') args.push('--namespace', config.namespace);
  if (opts.headless) args.push('--headless');
  else args.push('--ui-port', String(uiPort));
  if (opts.dataDir) {
    const dbFile = path.join(opts.dataDir, config.dbFile);
    mkdirSync(path.dirname(dbFile), { recursive: true });
    args.push('--db-filename', dbFile);
  }
  for (const [name, type] of Object.entries(config.searchAttributes)) args.push('--search-attribute', `${name}=${type}`);

  const child = spawn(opts.cli, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: opts.ownProcessGroup ?? false });
  // A Go panic names its cause in its first lines and where it happened in its last: keep both ends.
  let head = '';
  let tail = '';
  const collect = (b: Buffer) => {
    if (head.length < 4000) head += b.toString();
    else tail = (tail + b.toString()).slice(-4000);
  };
  const output = () => (tail ? `${head.slice(0, 4000)}\n…\n${tail}` : head);
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const address = `${config.ip}:${grpcPort}`;
  const deadline = Date.now() + config.startTimeoutSeconds * 1000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Temporal dev server exited (${child.exitCode}):\n${output()}`);
    // lazy + close in finally: a failed attempt must not leave a gRPC channel retrying behind us.
    const connection = Connection.lazy({ address, connectTimeout: 1000 });
    try {
      await connection.ensureConnected();
      {
        await connection.workflowService.describeNamespace({ namespace: config.namespace });
        // Search attributes are registered a moment after the namespace exists.
        const sa = await connection.operatorService.listSearchAttributes({ namespace: config.namespace });
        const have = Object.keys(sa.customAttributes ?? {});
        if (Object.keys(config.searchAttributes).every((k) => have.includes(k))) break;
      }
    } catch {
      // not up yet
    } finally {
      await connection.close().catch(() => undefined);
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`Temporal dev server did not answer on ${address} within ${config.startTimeoutSeconds}s:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  opts.log(`Temporal dev server up on ${address}`);
  return {
    address,
    namespace: config.namespace,
    uiUrl: opts.headless ? undefined : `http://${config.ip}:${uiPort}`,
    process: child,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10000);
      await exited;
      clearTimeout(timer);
    },
  };
}
