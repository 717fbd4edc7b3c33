import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * go-imap's imapmemserver (one user, an in-memory INBOX), the IMAP server of the inbox tests
 * (test/helpers/imap-server.ts): built once with `go install` into a cache folder outside the clone,
 * the way temporal-server.ts builds the Temporal CLI. IMAPMEMSERVER overrides the binary.
 */
export const IMAPMEMSERVER_MODULE = 'github.com/emersion/go-imap/v2/cmd/imapmemserver@v2.0.0-beta.8';

export function imapServerCacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'outreach-signal', 'imapmemserver-v2.0.0-beta.8');
}

export function resolveImapMemServer(): string {
  if (process.env.IMAPMEMSERVER) return process.env.IMAPMEMSERVER;
  const dir = imapServerCacheDir();
  const bin = path.join(dir, 'imapmemserver');
  if (existsSync(bin)) return bin;
  const go = existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : 'go';
  mkdirSync(dir, { recursive: true });
  const r = spawnSync(go, ['install', IMAPMEMSERVER_MODULE], {
    stdio: 'inherit',
    env: { ...process.env, GOBIN: dir, GOFLAGS: process.env.GOFLAGS ?? '-mod=mod' },
  });
  if (r.status !== 0 || !existsSync(bin)) throw new Error(`go install ${IMAPMEMSERVER_MODULE} failed`);
  return bin;
}
