import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { DatabaseHandle, startDatabase } from '../../scripts/lib/postgres';
import { freePort } from '../helpers/ports';

/**
 * The embedded PostgreSQL of `npm run dev` and of the test suite (scripts/lib/postgres.ts), started
 * for real. As root its programs run as the `postgres` user, which cannot enter a mode-700 folder:
 * the data then lives in a folder of its own per checkout (postgres-root.ts).
 */
const log = () => undefined;
const asRoot = process.getuid?.() === 0;

async function query(db: DatabaseHandle, sql: string): Promise<unknown[]> {
  const client = new Client({ connectionString: db.ownerUrl });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

/** A checkout's DATA_DIR in a private folder (as `mktemp -d` makes it), removed with its cluster. */
function privateDataDir(cleanups: Array<() => void>): string {
  const home = mkdtempSync(path.join(os.tmpdir(), 'outreach-private-'));
  expect(statSync(home).mode & 0o777).toBe(0o700);
  const dataDir = path.join(home, 'app', '.data');
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  return dataDir;
}

function removeCluster(db: DatabaseHandle, cleanups: Array<() => void>): void {
  const dir = db.clusterDir!;
  if (dir.startsWith('/var/lib/outreach-signal/postgres/')) cleanups.push(() => rmSync(path.dirname(dir), { recursive: true, force: true }));
}

describe('embedded PostgreSQL', () => {
  const cleanups: Array<() => void> = [];
  afterAll(() => cleanups.forEach((c) => c()));

  test('two throw-away clusters at once: separate folders and servers, each removed by its stop()', async () => {
    const [a, b] = await Promise.all([
      startDatabase({ port: await freePort(), databaseName: 'postgres', log }),
      startDatabase({ port: await freePort(), databaseName: 'postgres', log }),
    ]);
    try {
      expect(a.clusterDir).not.toBe(b.clusterDir);
      await query(a, 'CREATE TABLE only_in_a (x int)');
      expect(await query(b, `SELECT 1 FROM pg_tables WHERE tablename = 'only_in_a'`)).toEqual([]);
      expect(await query(a, 'SHOW server_encoding')).toEqual([{ server_encoding: 'UTF8' }]);
      if (asRoot) expect(statSync(a.clusterDir!).uid).not.toBe(0);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
    expect(existsSync(a.clusterDir!)).toBe(false);
    expect(existsSync(b.clusterDir!)).toBe(false);
  });

  test('a checkout in a private folder: the first start works, the second keeps the data, two checkouts do not meet', async () => {
    const one = privateDataDir(cleanups);
    const two = privateDataDir(cleanups);
    const port = await freePort();

    const first = await startDatabase({ dataDir: one, port, databaseName: 'postgres', log });
    removeCluster(first, cleanups);
    try {
      await query(first, 'CREATE TABLE kept (x int); INSERT INTO kept VALUES (42)');
    } finally {
      await first.stop();
    }
    // Root: the postgres user cannot enter the private folder, so the cluster lives outside it.
    if (asRoot) {
      expect(first.clusterDir).toMatch(/^\/var\/lib\/outreach-signal\/postgres\/[0-9a-f]{16}\/data$/);
      expect(readFileSync(path.join(path.dirname(first.clusterDir!), 'checkout'), 'utf8')).toBe(`${realpathSync(one)}\n`);
    } else {
      expect(first.clusterDir).toBe(path.join(one, 'postgres'));
    }

    const again = await startDatabase({ dataDir: one, port, databaseName: 'postgres', log });
    try {
      expect(again.clusterDir).toBe(first.clusterDir);
      expect(await query(again, 'SELECT x FROM kept')).toEqual([{ x: 42 }]);
    } finally {
      await again.stop();
    }

    const other = await startDatabase({ dataDir: two, port, databaseName: 'postgres', log });
    removeCluster(other, cleanups);
    try {
      expect(other.clusterDir).not.toBe(first.clusterDir);
      expect(await query(other, `SELECT 1 FROM pg_tables WHERE tablename = 'kept'`)).toEqual([]);
    } finally {
      await other.stop();
    }
  });

  test('a run killed without stop(): the next start stops the server it left, the one after removes its folder', async () => {
    const root = path.resolve(__dirname, '../..');
    const code = `require('./scripts/lib/postgres').startDatabase({ port: ${await freePort()}, databaseName: 'postgres', log: () => {} }).then((db) => console.log(db.clusterDir))`;
    const killed = spawn(process.execPath, ['--import', 'tsx', '-e', code], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    const clusterDir = await new Promise<string>((resolve, reject) => {
      killed.stdout!.on('data', (b: Buffer) => resolve(b.toString().trim()));
      killed.once('exit', (c) => reject(new Error(`exited (${c}) before starting`)));
    });
    const serverPid = Number(readFileSync(path.join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const running = () => {
      try {
        return readFileSync(`/proc/${serverPid}/cmdline`, 'utf8').includes(clusterDir); // empty for a zombie
      } catch {
        return false;
      }
    };
    await new Promise((r) => {
      killed.once('exit', r);
      killed.kill('SIGKILL'); // no exit hook runs: the server is left behind
    });
    expect(running()).toBe(true);

    const next = await startDatabase({ port: await freePort(), databaseName: 'postgres', log });
    await next.stop();
    for (let i = 0; i < 100 && running(); i++) await new Promise((r) => setTimeout(r, 100));
    expect(running()).toBe(false);
    expect(existsSync(clusterDir)).toBe(true);

    const after = await startDatabase({ port: await freePort(), databaseName: 'postgres', log });
    await after.stop();
    expect(existsSync(path.dirname(clusterDir))).toBe(false);
  });
});
