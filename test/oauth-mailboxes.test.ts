import { Pool } from 'pg';
import { composeEmail } from '../domain/outreach/compose';
import { createDb, type DB } from '../db/pool';
import { mailboxSecretContext, SecretBox } from '../db/secrets';
import { OAuthGrantRevoked, oauthClientsFrom, OAuthTokenSource } from '../activities/providers/mail/oauth';
import { dbRefreshTokenStore } from '../activities/providers/mail/oauth-store';
import { NodemailerSmtpSender, SmtpPermanentError } from '../activities/providers/mail/smtp';
import { composeInput } from './helpers/compose-input';
import { expectProblem, newOrganization, startApi, TestApi } from './helpers/api';
import { startOAuthServer, startXoauthSmtpServer, TestOAuthServer, XoauthSmtpServer } from './helpers/oauth-server';
import { testEnv, TestUser } from './helpers/tokens';

/**
 * OAuth mailboxes on real components: oidc-provider as the authorization server (codes with PKCE, ID
 * tokens with email, rotating refresh tokens, invalid_grant when revoked), smtp-server taking only
 * SASL XOAUTH2 checked by introspection, the real API and PostgreSQL. The consent flow is driven
 * without a browser: the server's login and consent are automatic, the test follows the redirects.
 */
const EMAIL = 'verkoop@oauth-bv.nl';
const REDIRECT_URI = 'http://127.0.0.1:1/mailboxes/oauth/callback';
let oauthServer: TestOAuthServer;
let smtp: XoauthSmtpServer;
let api: TestApi;
let owners: Pool;
let workerDb: DB;
let owner: TestUser;
let orgId: string;
let stranger: TestUser;
const box = () => new SecretBox(testEnv('INTEGRATION_SECRET_KEY'));

beforeAll(async () => {
  oauthServer = await startOAuthServer({ email: EMAIL, redirectUris: [REDIRECT_URI], accessTtlSeconds: 3 });
  smtp = await startXoauthSmtpServer(oauthServer);
  api = await startApi({ oauth: { clients: oauthClientsFrom(oauthServer.env('GOOGLE')), redirectUri: REDIRECT_URI } });
  owners = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 1 });
  workerDb = createDb(testEnv('TEST_WORKER_DB_URL'), 2);
  ({ owner, orgId } = await newOrganization(api, 'OAuth B.V.'));
  ({ owner: stranger } = await newOrganization(api, 'Vreemd B.V.'));
});
afterAll(async () => {
  await workerDb?.destroy();
  await owners?.end();
  await api?.close();
  await smtp?.close();
  await oauthServer?.close();
});

const start = (token = owner.token, body: Record<string, unknown> = { organizationId: orgId, provider: 'google' }) => api.call('POST', '/mailboxes/oauth/start', { token, body });
/** Start, authorize at the local server (automatic login and consent), and the URL the provider sends the user back to. */
async function consent(): Promise<URL> {
  const started = await start();
  expect(started.status).toBe(200);
  const back = await oauthServer.authorize(started.body.authorization_url);
  expect(back.origin + back.pathname).toBe(REDIRECT_URI);
  expect(back.searchParams.get('state')).toBe(started.body.state);
  return back;
}
const callback = (back: URL) => api.call('GET', `/mailboxes/oauth/callback${back.search}`);
const mailboxByAddress = async () => {
  const list = await api.call('GET', `/mailboxes?organizationId=${orgId}`, { token: owner.token });
  return list.body.find((m: { address: string }) => m.address === EMAIL);
};
const sealedSecret = async (id: string): Promise<Buffer> => (await owners.query('SELECT secret_ciphertext FROM mailboxes WHERE id = $1', [id])).rows[0].secret_ciphertext;

let mailboxId: string;

test('the authorization-code flow end to end: start (PKCE S256), authorize, callback creates the mailbox of the ID token’s address; a reused state is refused', async () => {
  const started = await start();
  const url = new URL(started.body.authorization_url);
  expect(url.origin).toBe(oauthServer.issuer);
  expect(url.searchParams.get('code_challenge_method')).toBe('S256');
  expect(url.searchParams.get('scope')).toContain('https://mail.google.com/');
  const back = await oauthServer.authorize(started.body.authorization_url);
  const done = await callback(back);
  expect(done.status).toBe(200);
  expect(done.headers.get('content-type')).toMatch(/^text\/html/);
  expect(String(done.body)).toContain(EMAIL);
  const made = await mailboxByAddress();
  expect(made).toMatchObject({
    auth: { type: 'oauth2', provider: 'google' },
    smtp: { host: 'smtp.gmail.com', port: 465, secure: true, username: EMAIL },
    imap: { host: 'imap.gmail.com', port: 993, secure: true, username: EMAIL },
    status: 'active',
  });
  mailboxId = made.id;
  // The stored secret is the refresh token, sealed to the row: it refreshes at the server.
  const refresh = box().open(await sealedSecret(mailboxId), mailboxSecretContext(orgId, mailboxId));
  expect((await oauthServer.introspect(refresh)).active).toBe(true);

  const again = await callback(back);
  expectProblem(again, 400, 'VALIDATION_FAILED');
  expect(again.body.errors[0].path).toBe('query.state');
});

test('an expired state is 400; a second consent for the same address updates the mailbox instead of adding one', async () => {
  const back = await consent();
  await owners.query(`UPDATE oauth_states SET expires_at = now() - interval '1 second' WHERE used_at IS NULL`);
  const expired = await callback(back);
  expectProblem(expired, 400, 'VALIDATION_FAILED');
  expect(expired.body.detail + JSON.stringify(expired.body.errors)).toMatch(/expired/);
  const before = await sealedSecret(mailboxId);
  expect((await callback(await consent())).status).toBe(200);
  const list = await api.call('GET', `/mailboxes?organizationId=${orgId}`, { token: owner.token });
  expect(list.body.filter((m: { address: string }) => m.address === EMAIL)).toHaveLength(1);
  expect((await sealedSecret(mailboxId)).equals(before)).toBe(false);
});

test('start: another tenant gets 404; bad input names the field; an unknown state is 400', async () => {
  expectProblem(await start(stranger.token), 404, 'NOT_FOUND');
  const bad = await start(owner.token, { organizationId: orgId, provider: 'yahoo' });
  expectProblem(bad, 400, 'VALIDATION_FAILED');
  expect(bad.body.errors[0].path).toBe('body.provider');
  const unknown = await api.call('GET', '/mailboxes/oauth/callback?code=x&state=never-issued');
  expectProblem(unknown, 400, 'VALIDATION_FAILED');
  expect(unknown.body.errors[0].path).toBe('query.state');
});

test('sending with XOAUTH2: a cached access token, a rotated refresh token stored, a new token after expiry, and a revoked grant pauses the mailbox (auth)', async () => {
  const source = new OAuthTokenSource(oauthClientsFrom(oauthServer.env('GOOGLE')), dbRefreshTokenStore(workerDb, box()));
  const ref = { organizationId: orgId, mailboxId, provider: 'google' as const };
  const sender = new NodemailerSmtpSender({ connectionMs: 5000, greetingMs: 5000, socketMs: 10000 });
  const settings = (accessToken: string) => ({ host: '127.0.0.1', port: smtp.port, secure: false, username: EMAIL, accessToken, requireTls: false });
  const mail = (to: string) => composeEmail(composeInput({ from: { address: EMAIL, displayName: 'Verkoop' }, to: { address: to, name: 'Jan' } }));

  const sealed0 = await sealedSecret(mailboxId);
  const t1 = await source.accessToken(ref);
  const sealed1 = await sealedSecret(mailboxId);
  expect(sealed1.equals(sealed0)).toBe(false); // rotated: the new refresh token replaced the old one
  await sender.send(mail('jan@bouw.nl'), settings(t1));
  expect(smtp.received.map((m) => m.user)).toEqual([EMAIL]);
  expect(await source.accessToken(ref)).toBe(t1); // cached: no second grant
  expect((await sealedSecret(mailboxId)).equals(sealed1)).toBe(true);

  // The access token lives 3 seconds: wait until the server says it is no longer active.
  for (let i = 0; i < 300 && (await oauthServer.introspect(t1)).active; i++) await new Promise((r) => setTimeout(r, 100));
  expect((await oauthServer.introspect(t1)).active).toBe(false);
  await expect(sender.send(mail('piet@bouw.nl'), settings(t1))).rejects.toBeInstanceOf(SmtpPermanentError);
  const t2 = await source.accessToken(ref);
  expect(t2).not.toBe(t1);
  await sender.send(mail('piet@bouw.nl'), settings(t2));
  expect(smtp.received).toHaveLength(2);

  const current = box().open(await sealedSecret(mailboxId), mailboxSecretContext(orgId, mailboxId));
  await oauthServer.revoke(current);
  await expect(source.accessToken(ref, { force: true })).rejects.toBeInstanceOf(OAuthGrantRevoked);
  const paused = await api.call('GET', `/mailboxes/${mailboxId}`, { token: owner.token });
  expect(paused.body).toMatchObject({ status: 'paused', paused_reason: 'auth' });

  // Connecting it again resumes a mailbox paused for its grant.
  expect((await callback(await consent())).status).toBe(200);
  expect((await api.call('GET', `/mailboxes/${mailboxId}`, { token: owner.token })).body).toMatchObject({ status: 'active', paused_reason: null });
});
