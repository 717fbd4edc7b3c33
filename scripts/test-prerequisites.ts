/**
 * `npm test`'s first step (pretest): makes sure what the suite drives from outside npm is on the machine.
 *
 * - Debian's Chromium (the /docs test opens the API reference in it) and Dovecot (the OAuth inbox test
 *   reads mail there): installed with apt-get when they are missing and we run as root; otherwise the run
 *   stops at once, naming the one command to run.
 * - The Temporal CLI and go-imap's imapmemserver: built once with Go into ~/.cache/outreach-signal (or
 *   taken from TEMPORAL_CLI / IMAPMEMSERVER), so their build time is not spent inside a test's timeout.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolveTemporalCli } from './lib/temporal-server';
import { resolveImapMemServer } from './lib/imap-memserver';

/** A Debian package and the file the tests run from it. */
const SYSTEM_PACKAGES = [
  { pkg: 'chromium', file: '/usr/bin/chromium', usedBy: 'test/api/docs.test.ts' },
  // dovecot-core (the master, /usr/sbin/dovecot) can stay when dovecot-imapd goes: the IMAP service's own binary tells.
  { pkg: 'dovecot-imapd', file: '/usr/lib/dovecot/imap', usedBy: 'test/mailboxes/oauth-dovecot.test.ts' },
] as const;

const log = (line: string) => process.stderr.write(`[test-prerequisites] ${line}\n`);

function apt(args: string[]): boolean {
  const r = spawnSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  return r.status === 0;
}

function installSystemPackages(): void {
  const missing = SYSTEM_PACKAGES.filter((p) => !existsSync(p.file));
  if (!missing.length) return;
  const names = missing.map((p) => p.pkg);
  const command = `apt-get update && apt-get install -y ${names.join(' ')}`;
  const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
  if (!canInstall) {
    log(`missing ${missing.map((p) => `${p.file} (package ${p.pkg}, for ${p.usedBy})`).join(' and ')}`);
    log(`run as root, then npm test again:  ${command}`);
    process.exit(1);
  }
  log(`installing ${names.join(', ')} with apt-get (${missing.map((p) => p.usedBy).join(', ')})`);
  // The package lists of a fresh machine may be empty or stale: try as they are, then after an update.
  if (!apt(['install', '-y', ...names]) && !(apt(['update']) && apt(['install', '-y', ...names]))) {
    log(`apt-get could not install ${names.join(', ')}; run: ${command}`);
    process.exit(1);
  }
  const still = SYSTEM_PACKAGES.filter((p) => !existsSync(p.file));
  if (still.length) {
    log(`installed, but ${still.map((p) => p.file).join(', ')} is still missing`);
    process.exit(1);
  }
}

function buildGoTools(): void {
  try {
    log(`Temporal CLI: ${resolveTemporalCli((line) => log(line))}`);
    log(`imapmemserver: ${resolveImapMemServer()}`);
  } catch (err) {
    log((err as Error).message);
    process.exit(1);
  }
}

installSystemPackages();
buildGoTools();
