import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { SMTPServer } from 'smtp-server';

/**
 * The tests' OAuth 2.0 authorization server (oidc-provider in its own process, oauth-server.mjs), with
 * what the tests do at it: introspect a token, revoke a refresh token, and authorize without a
 * browser (its login and consent are automatic: follow the redirects, cookies kept, to the redirect
 * URI). And a real SMTP server that accepts only SASL XOAUTH2 with a token the authorization server
 * says is active (introspection).
 */
export const TEST_OAUTH_CLIENT = { id: 'outreach-test', secret: 'outreach-test-secret-0123456789abcdef' };
const MAIL_SERVER_CLIENT = { id: 'mail-server', secret: 'mail-server-secret-0123456789abcdef' };

export interface TestOAuthServer {
  issuer: string;
  authorizeUrl: string;
  tokenUrl: string;
  /** The introspection endpoint with the mail servers' client in it (basic auth), for Dovecot's oauth2 passdb. */
  mailServerIntrospectionUrl: string;
  /** OAUTH_GOOGLE_* for this server. */
  env(provider?: 'GOOGLE' | 'MICROSOFT'): Record<string, string>;
  introspect(token: string): Promise<{ active: boolean; sub?: string; token_type?: string }>;
  /** Revokes a refresh token (the grant with it), or an access token alone (hint `access_token`). */
  revoke(token: string, hint?: 'refresh_token' | 'access_token'): Promise<void>;
  /**
   * Follows an authorization URL through the automatic login and consent to the redirect URI; answers
   * that final URL. `as`: who signs in (the ID token's claims; default the server's account, verified).
   */
  authorize(url: string, as?: TestAccount): Promise<URL>;
  /** The screens the last authorize was shown (select_account, login, consent), in order. */
  lastScreens: string[];
  close(): Promise<void>;
}

/** Who signs in at the authorization server: the ID token's claims (email, email_verified, Microsoft's verified_primary_email, xms_edov...). */
export type TestAccount = {
  email?: string;
  email_verified?: boolean;
  preferred_username?: string;
  verified_primary_email?: string | string[];
  xms_edov?: boolean;
};

export async function startOAuthServer(opts: { email: string; redirectUris: string[]; accessTtlSeconds?: number }): Promise<TestOAuthServer> {
  const child: ChildProcess = spawn(process.execPath, [path.join(__dirname, 'oauth-authorization-server.mjs')], {
    env: {
      ...process.env,
      OAUTH_TEST_EMAIL: opts.email,
      OAUTH_TEST_REDIRECT_URIS: opts.redirectUris.join(','),
      OAUTH_TEST_CLIENT_ID: TEST_OAUTH_CLIENT.id,
      OAUTH_TEST_CLIENT_SECRET: TEST_OAUTH_CLIENT.secret,
      OAUTH_TEST_ACCESS_TTL: String(opts.accessTtlSeconds ?? 3600),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const issuer = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve((JSON.parse(line) as { issuer: string }).issuer));
    child.once('exit', (code) => reject(new Error(`the OAuth test server exited (${code})`)));
  });
  const basic = 'Basic ' + Buffer.from(`${MAIL_SERVER_CLIENT.id}:${MAIL_SERVER_CLIENT.secret}`).toString('base64');
  const form = (body: Record<string, string>) => ({
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(body).toString(),
  });
  const server: TestOAuthServer = {
    issuer,
    lastScreens: [],
    authorizeUrl: `${issuer}/auth`,
    tokenUrl: `${issuer}/token`,
    mailServerIntrospectionUrl: `http://${MAIL_SERVER_CLIENT.id}:${MAIL_SERVER_CLIENT.secret}@${new URL(issuer).host}/token/introspection`,
    env: (p = 'GOOGLE') => ({
      [`OAUTH_${p}_CLIENT_ID`]: TEST_OAUTH_CLIENT.id,
      [`OAUTH_${p}_CLIENT_SECRET`]: TEST_OAUTH_CLIENT.secret,
      [`OAUTH_${p}_AUTHORIZE_URL`]: `${issuer}/auth`,
      [`OAUTH_${p}_TOKEN_URL`]: `${issuer}/token`,
      [`OAUTH_${p}_ISSUER`]: issuer,
    }),
    async introspect(token) {
      const res = await fetch(`${issuer}/token/introspection`, form({ token }));
      return (await res.json()) as { active: boolean; sub?: string };
    },
    async revoke(refreshToken, hint = 'refresh_token') {
      // A token is revoked by the client it was issued to (the service's client, as a user revoking access would).
      const res = await fetch(`${issuer}/token/revocation`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          token: refreshToken,
          token_type_hint: hint,
          client_id: TEST_OAUTH_CLIENT.id,
          client_secret: TEST_OAUTH_CLIENT.secret,
        }).toString(),
      });
      if (!res.ok) throw new Error(`revocation failed: ${res.status}`);
    },
    async authorize(url, as) {
      const cookies = new Map<string, string>();
      const account: Record<string, string> = as ? { 'x-test-account': Buffer.from(JSON.stringify(as)).toString('base64url') } : {};
      server.lastScreens = [];
      let next = new URL(url);
      for (let hop = 0; hop < 10; hop++) {
        if (!next.href.startsWith(issuer)) return next;
        const res = await fetch(next, { redirect: 'manual', headers: { ...account, cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
        const screen = res.headers.get('x-test-prompt');
        if (screen) server.lastScreens.push(screen);
        for (const c of res.headers.getSetCookie()) {
          const [pair] = c.split(';');
          const i = pair!.indexOf('=');
          cookies.set(pair!.slice(0, i), pair!.slice(i + 1));
        }
        const location = res.headers.get('location');
        if (!location) throw new Error(`the authorization server answered ${res.status} without a redirect: ${(await res.text()).slice(0, 300)}`);
        next = new URL(location, next);
      }
      throw new Error('too many redirects');
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
  return server;
}

export interface XoauthSmtpServer {
  port: number;
  received: Array<{ user: string; raw: string }>;
  logins: Array<{ user: string; accepted: boolean; token: string }>;
  close(): Promise<void>;
}

/** A certificate for 127.0.0.1 (openssl, self-signed): a client that trusts certPath (NODE_EXTRA_CA_CERTS) checks it like any other. */
export function localhostCertificate(): { key: Buffer; cert: Buffer; certPath: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'oauth-tls-'));
  const [keyPath, certPath] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      keyPath,
      '-out',
      certPath,
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(keyPath), cert: readFileSync(certPath), certPath };
}

/**
 * A real SMTP server (smtp-server) that takes only AUTH XOAUTH2, checking the token at the authorization server and that it belongs to the user.
 * With tls it offers STARTTLS (a client sending a token requires it); without, it offers none.
 */
export async function startXoauthSmtpServer(oauth: TestOAuthServer, tls?: { key: Buffer; cert: Buffer }): Promise<XoauthSmtpServer> {
  const received: XoauthSmtpServer['received'] = [];
  const logins: XoauthSmtpServer['logins'] = [];
  const server = new SMTPServer({
    authMethods: ['XOAUTH2'],
    authOptional: false,
    ...(tls ? { key: tls.key, cert: tls.cert } : { disabledCommands: ['STARTTLS'] }),
    allowInsecureAuth: !tls,
    logger: false,
    onAuth(auth, _session, cb) {
      oauth
        .introspect(auth.accessToken ?? '')
        .then((r) => {
          const ok = r.active && r.sub === auth.username && r.token_type !== 'refresh_token';
          logins.push({ user: auth.username ?? '', accepted: ok, token: auth.accessToken ?? '' });
          if (!ok) return cb(null, { data: { status: '401', schemes: 'bearer' } });
          cb(null, { user: auth.username });
        })
        .catch((err: Error) => cb(err));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({ user: String(session.user), raw: Buffer.concat(chunks).toString('utf8') });
        cb();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.server.address() as { port: number }).port;
  return { port, received, logins, close: () => new Promise<void>((r) => server.close(() => r())) };
}
