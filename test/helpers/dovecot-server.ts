import { ChildProcess, execFileSync, spawn, type SpawnOptions } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './ports';

/**
 * A real Dovecot IMAP server (Debian's dovecot-imapd; .ci/run installs it) as an unprivileged child
 * process on a free 127.0.0.1 port, from a config generated in a temp dir: Maildir mail there, no TLS,
 * and an oauth2 passdb that asks the tests' authorization server (token introspection, POST) whether
 * an XOAUTH2 or OAUTHBEARER token is active and whose it is (`sub` is the user). Run as root (CI),
 * it runs as `nobody`. Mail is delivered with `doveadm save` (as an MDA would), and `doveadm mailbox
 * update --uid-validity` gives a real UIDVALIDITY change.
 */
export interface TestDovecot {
  host: '127.0.0.1';
  port: number;
  /** The logins Dovecot logged so far: the user and the SASL mechanism. */
  logins(): Array<{ user: string; method: string }>;
  /** Delivers a raw message into the user's INBOX; answers its UID. */
  deliver(user: string, raw: string | Buffer): Promise<number>;
  /** The user's INBOX's UIDVALIDITY. */
  uidValidity(user: string): Promise<number>;
  /** Gives the user's INBOX another UIDVALIDITY (what a recreated mailbox has). */
  changeUidValidity(user: string, next: number): Promise<void>;
  close(): Promise<void>;
}

const DOVECOT = '/usr/sbin/dovecot';
const DOVEADM = '/usr/bin/doveadm';

/** The dovecot binary, or a clear error saying how to install it (never a skipped test). */
export function resolveDovecot(): string {
  if (!existsSync(DOVECOT) || !existsSync(DOVEADM)) throw new Error(`Dovecot is not installed (${DOVECOT}): apt-get install -y dovecot-imapd`);
  return DOVECOT;
}

export async function startDovecot(opts: {
  introspectionUrl: string;
  /** The SASL mechanisms offered (default `xoauth2 oauthbearer plain`; Microsoft 365 offers XOAUTH2 without OAUTHBEARER). */
  mechanisms?: string;
}): Promise<TestDovecot> {
  const binary = resolveDovecot();
  const asRoot = process.getuid?.() === 0;
  const user = asRoot ? 'nobody' : os.userInfo().username;
  const group = asRoot ? 'nogroup' : execFileSync('id', ['-gn']).toString().trim();
  const ids: Pick<SpawnOptions, 'uid' | 'gid'> = asRoot
    ? { uid: Number(execFileSync('id', ['-u', user]).toString()), gid: Number(execFileSync('id', ['-g', user]).toString()) }
    : {};
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dovecot-'));
  for (const d of ['run', 'state', 'mail']) mkdirSync(path.join(dir, d));
  const port = await freePort();
  writeFileSync(
    path.join(dir, 'oauth2.conf'),
    [
      'introspection_mode = post',
      `introspection_url = ${opts.introspectionUrl}`,
      'username_attribute = sub',
      'active_attribute = active',
      'active_value = true',
      'force_introspection = yes',
      '',
    ].join('\n'),
  );
  const config = path.join(dir, 'dovecot.conf');
  writeFileSync(
    config,
    `instance_name = dovecot-test-${path.basename(dir)}
base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = /dev/stderr
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = ${opts.mechanisms ?? 'xoauth2 oauthbearer plain'}
default_internal_user = ${user}
default_internal_group = ${group}
default_login_user = ${user}
mail_location = maildir:${dir}/mail/%u
passdb {
  driver = oauth2
  mechanisms = xoauth2 oauthbearer
  args = ${dir}/oauth2.conf
}
userdb {
  driver = static
  args = uid=${user} gid=${group} home=${dir}/mail/%u allow_all_users=yes
}
service imap-login {
  chroot =
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
}
service stats {
  chroot =
}
`,
  );
  if (asRoot) chownTree(dir, ids.uid!, ids.gid!);
  let log = '';
  let loginLines = ''; // the whole log (a test's is small)
  const child: ChildProcess = spawn(binary, ['-F', '-c', config], { ...ids, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const keep = (b: Buffer) => {
    log = (log + b.toString()).slice(-8000);
    loginLines += b.toString(); // whole, so that a line split between chunks is still found
    if (process.env.DOVECOT_LOG) process.stderr.write(b);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  await waitForGreeting(port, child, () => log);

  const doveadm = (args: string[], input?: string | Buffer) =>
    new Promise<string>((resolve, reject) => {
      const p = spawn(DOVEADM, ['-c', config, ...args], { ...ids, cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      p.stdout!.on('data', (b: Buffer) => (out += b.toString()));
      p.stderr!.on('data', (b: Buffer) => (err += b.toString()));
      p.once('error', reject);
      p.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`doveadm ${args.join(' ')} exited ${code}: ${err}`))));
      p.stdin!.end(input ?? '');
    });
  const status = async (u: string, field: string) => Number(/\d+/.exec(await doveadm(['-f', 'flow', 'mailbox', 'status', '-u', u, field, 'INBOX']))![0]);

  return {
    host: '127.0.0.1',
    port,
    logins: () => [...loginLines.matchAll(/imap-login: Info: Login: user=<([^>]*)>, method=([A-Z0-9-]+)/g)].map((m) => ({ user: m[1]!, method: m[2]! })),
    async deliver(u, raw) {
      const next = await status(u, 'uidnext');
      await doveadm(['save', '-u', u, '-m', 'INBOX'], raw);
      return next;
    },
    uidValidity: (u) => status(u, 'uidvalidity'),
    async changeUidValidity(u, next) {
      await doveadm(['mailbox', 'update', '-u', u, '--uid-validity', String(next), 'INBOX']);
    },
    close: () =>
      new Promise<void>((resolve) => {
        const done = () => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        };
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('exit', done);
        child.kill('SIGTERM');
      }),
  };
}

function chownTree(p: string, uid: number, gid: number): void {
  chownSync(p, uid, gid);
  if (statSync(p).isDirectory()) for (const e of readdirSync(p)) chownTree(path.join(p, e), uid, gid);
}

/** Waits (generously) until the server greets on its port; fails with Dovecot's log if it exits first. */
async function waitForGreeting(port: number, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`dovecot exited (${child.exitCode}) before listening:\n${log()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('data', (b) => {
        s.destroy();
        resolve(b.toString().startsWith('* OK'));
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`dovecot did not greet on 127.0.0.1:${port} within 60s:\n${log()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
