/**
 * What running the embedded PostgreSQL as root needs. PostgreSQL refuses to run as root, so its
 * programs run as the `postgres` system user, which may not be able to enter the checkout (root's
 * home, a `mktemp -d` folder: mode 700). So, as root only:
 * - the binaries are copied once into a versioned cache that user can read and execute
 *   (/var/cache/outreach-signal/postgres-<version>-<platform>-<arch>, complete when its marker names
 *   the version);
 * - the data stays in DATA_DIR/postgres when that user can reach it, else in a folder of its own
 *   per checkout: /var/lib/outreach-signal/postgres/<hash of DATA_DIR>/data (`checkout` beside it
 *   names the DATA_DIR it belongs to).
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';

export interface SystemUser {
  name: string;
  uid: number;
  gid: number;
}

const BIN_CACHE = '/var/cache/outreach-signal';
const DATA_ROOT = '/var/lib/outreach-signal/postgres';
const MARKER = '.outreach-signal-complete';

export const runningAsRoot = (): boolean => process.getuid?.() === 0;

function getent(db: 'passwd' | 'group', name: string): string[] | undefined {
  try {
    return execFileSync('getent', [db, name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .trim()
      .split(':');
  } catch {
    return undefined;
  }
}

/** The `postgres` system user, created (without a home) when the machine has none. */
export function postgresUser(log: (line: string) => void): SystemUser {
  let entry = getent('passwd', 'postgres');
  if (!entry) {
    log('creating the `postgres` system user for the embedded PostgreSQL');
    const group = getent('group', 'postgres') ? ['-g', 'postgres'] : ['--user-group'];
    try {
      execFileSync('useradd', ['--system', ...group, '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'], { stdio: 'inherit' });
    } catch (e) {
      throw new Error(`PostgreSQL cannot run as root and no \`postgres\` user could be created (${String(e)}); create one, or set DATABASE_URL`, { cause: e });
    }
    entry = getent('passwd', 'postgres');
    if (!entry) throw new Error('the `postgres` user was created but cannot be looked up');
  }
  return { name: 'postgres', uid: Number(entry[2]), gid: Number(entry[3]) };
}

/** Whether `user` may enter `dir` and every folder above it (mode bits; its primary group only). */
export function reachableBy(user: SystemUser, dir: string): boolean {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    const st = statSync(d);
    const bit = st.uid === user.uid ? 0o100 : st.gid === user.gid ? 0o010 : 0o001;
    if ((st.mode & bit) === 0) return false;
    if (d === path.dirname(d)) return true;
  }
}

/** A folder only root can change (created when missing); refuses one another user could swap out. */
function rootOwnedDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  const st = lstatSync(dir);
  if (!st.isDirectory() || st.uid !== 0 || (st.mode & 0o022) !== 0) {
    throw new Error(`${dir} must be a folder owned by root and writable by root only`);
  }
  return dir;
}

/** A folder for `user` to write in (created when missing). */
export function ownedDir(dir: string, user: SystemUser): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chownSync(dir, user.uid, user.gid);
  return dir;
}

/**
 * The embedded PostgreSQL's native folder copied where `user` can execute it, once per version.
 * The copy is made beside the target and renamed into place, so concurrent first runs are safe.
 */
export function executableCopy(nativeDir: string, version: string, user: SystemUser, log: (line: string) => void): string {
  const target = path.join(rootOwnedDir(BIN_CACHE), `postgres-${version}-${process.platform}-${process.arch}`);
  const complete = (dir: string) => existsSync(path.join(dir, MARKER)) && readFileSync(path.join(dir, MARKER), 'utf8') === version;
  if (complete(target) && reachableBy(user, path.join(target, 'bin'))) return target;
  log(`copying the PostgreSQL ${version} binaries to ${target} (once), where the postgres user can run them`);
  const staging = `${target}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  cpSync(nativeDir, staging, { recursive: true, verbatimSymlinks: true });
  makeReadable(staging);
  writeFileSync(path.join(staging, MARKER), version, { mode: 0o644 });
  try {
    if (existsSync(target) && !complete(target)) rmSync(target, { recursive: true, force: true });
    renameSync(staging, target);
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    if (!complete(target)) throw e; // else another run put the same copy in place first
  }
  return target;
}

function makeReadable(dir: string): void {
  chmodSync(dir, 0o755);
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    const st = lstatSync(p);
    if (st.isSymbolicLink()) continue;
    if (st.isDirectory()) makeReadable(p);
    else chmodSync(p, st.mode & 0o111 ? 0o755 : 0o644);
  }
}

/**
 * Where the cluster of DATA_DIR lives when its programs run as `user`: DATA_DIR/postgres when the
 * user can reach DATA_DIR, else a folder of its own per checkout, keyed by DATA_DIR's real path.
 */
export function clusterDirFor(dataDir: string, user: SystemUser): string {
  mkdirSync(dataDir, { recursive: true });
  if (reachableBy(user, dataDir)) return ownedDir(path.join(dataDir, 'postgres'), user);
  const real = realpathSync(dataDir);
  const home = rootOwnedDir(path.join(rootOwnedDir(DATA_ROOT), createHash('sha256').update(real).digest('hex').slice(0, 16)));
  writeFileSync(path.join(home, 'checkout'), `${real}\n`);
  return ownedDir(path.join(home, 'data'), user);
}
