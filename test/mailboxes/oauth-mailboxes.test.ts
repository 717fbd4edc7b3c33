import { composeEmail } from '../../domain/outreach/compose';
import { createDb } from '../../db/pool';
import { mailboxSecretContext, SecretBox } from '../../db/secrets';
import { OAuthGrantRevoked, oauthClientsFrom, OAuthTokenSource } from '../../activities/providers/mail/oauth';
import { dbRefreshTokenStore } from '../../activities/providers/mail/oauth-store';
import { NodemailerSmtpSender, SmtpPermanentError } from '../../activities/providers/mail/smtp';
import { composeInput } from '../helpers/compose-input';
import { expectProblem, newOrganization, startApi, TestApi } from '../helpers/api';
import { startOAuthServer, startXoauthSmtpServer, TestAccount, TestOAuthServer, XoauthSmtpServer } from '../helpers/oauth-server';
import { verifiedDomain } from '../helpers/domains';
import { testEnv, TestUser } from '../helpers/tokens';
import { workflowIds } from '../../workflows/search-attributes';
import { useStack } from '../helpers/stack';

/**
 * OAuth mailboxes on real components: oidc-provider as the authorization server (codes with PKCE, ID
 * tokens with email, rotating refresh tokens, invalid_grant when revoked), smtp-server taking only
 * SASL XOAUTH2 checked by introspection, the real API and PostgreSQL. The consent flow is driven
 * without a browser: the server's login and consent are automatic, the test follows the redirects, and
 * says who signs in (the person the link was meant for, or anyone else it was sent to).
 */
const EMAIL = 'verkoop@oauth-bv.nl';
const REDIRECT_URI = 'http://127.0.0.1:1/mailboxes/oauth/callback';
let oauthServer: TestOAuthServer;
let smtp: XoauthSmtpServer;
let api: TestApi;
const { owners, workerDb } = useStack({ owners: true, workerDb: true });
let owner: TestUser;
let orgId: string;
let stranger: TestUser;
const box = () => new SecretBox(testEnv('INTEGRATION_SECRET_KEY'));

beforeAll(async () => {
  oauthServer = await startOAuthServer({ email: EMAIL, redirectUris: [REDIRECT_URI], accessTtlSeconds: 3 });
  smtp = await startXoauthSmtpServer(oauthServer);
  // One authorization server stands in for both providers (Microsoft's claims are the account's own).
  api = await startApi({ oauth: { clients: oauthClientsFrom({ ...oauthServer.env('GOOGLE'), ...oauthServer.env('MICROSOFT') }), redirectUri: REDIRECT_URI } });
  ({ owner, orgId } = await newOrganization(api, 'OAuth B.V.'));
  ({ owner: stranger } = await newOrganization(api, 'Vreemd B.V.'));
  // The organization proved oauth-bv.nl (test/mailboxes/domains.test.ts covers the DNS proof itself).
  await verifiedDomain(orgId, 'oauth-bv.nl');
});
afterAll(async () => {
  await api?.close();
  await smtp?.close();
  await oauthServer?.close();
});

const start = (token = owner.token, body: Record<string, unknown> = { organizationId: orgId, provider: 'google' }): Promise<import('../helpers/api').Reply> =>
  api.call('POST', '/mailboxes/oauth/start', { token, body });
/** Start, authorize at the local server (automatic login and consent), and the URL the provider sends the user back to. */
async function consent(body?: Record<string, unknown>, as?: TestAccount): Promise<URL> {
  const started = await start(owner.token, body);
  expect(started.status).toBe(200);
  const back = await oauthServer.authorize(started.body.authorization_url, as);
  expect(back.origin + back.pathname).toBe(REDIRECT_URI);
  expect(back.searchParams.get('state')).toBe(started.body.state);
  return back;
}
const callback = (back: URL) => api.call('GET', `/mailboxes/oauth/callback${back.search}`);
const mailboxByAddress = async () => {
  const list = await api.call('GET', `/mailboxes?organizationId=${orgId}`, { token: owner.token });
  return list.body.find((m: { address: string }) => m.address === EMAIL);
};
const sealedSecret = async (id: string): Promise<Buffer> =>
  (await owners.query('SELECT secret_ciphertext FROM mailboxes WHERE id = $1', [id])).rows[0].secret_ciphertext;

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

// Who may connect which mailbox ------------------------------------------------------------------------

const page = (res: { body: unknown }) => String(res.body);
const addresses = async (org = orgId) =>
  (await owners.query<{ address: string }>('SELECT address FROM mailboxes WHERE organization_id = $1 ORDER BY address', [org])).rows.map((r) => r.address);
/** A callback that connected nothing: an HTML page (403) saying why, and no mailbox added or changed. */
async function refused(back: URL, why: RegExp): Promise<void> {
  const before = await owners.query('SELECT id, address, secret_ciphertext, updated_at FROM mailboxes WHERE organization_id = $1 ORDER BY id', [orgId]);
  const res = await callback(back);
  expect(res.status).toBe(403);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(page(res)).toMatch(/not connected/i);
  expect(page(res)).toMatch(why);
  const after = await owners.query('SELECT id, address, secret_ciphertext, updated_at FROM mailboxes WHERE organization_id = $1 ORDER BY id', [orgId]);
  expect(after.rows).toEqual(before.rows);
}

test('the authorization request always asks the provider for its screen (prompt), with login_hint when the start names the address', async () => {
  for (const provider of ['google', 'microsoft'] as const) {
    const plain = await start(owner.token, { organizationId: orgId, provider });
    expect(plain.status).toBe(200);
    const url = new URL(plain.body.authorization_url);
    expect(url.searchParams.get('prompt')).toMatch(/select_account/);
    expect(url.searchParams.has('login_hint')).toBe(false);
    await oauthServer.authorize(plain.body.authorization_url);
    expect(oauthServer.lastScreens[0]).toBe('select_account');

    const named = await start(owner.token, { organizationId: orgId, provider, address: 'Verkoop@OAuth-BV.nl' });
    expect(named.status).toBe(200);
    expect(new URL(named.body.authorization_url).searchParams.get('login_hint')).toBe(EMAIL);
  }
  // An address the organization has not proven the domain of is refused at the start already.
  const foreign = await start(owner.token, { organizationId: orgId, provider: 'google', address: 'ceo@elders.nl' });
  expectProblem(foreign, 400, 'VALIDATION_FAILED');
  expect(foreign.body.errors[0]).toMatchObject({ path: 'body.address', message: expect.stringMatching(/elders\.nl.*not verified/) });
  const bad = await start(owner.token, { organizationId: orgId, provider: 'google', address: 'not an address' });
  expectProblem(bad, 400, 'VALIDATION_FAILED');
  expect(bad.body.errors[0].path).toBe('body.address');
});

test('someone else completing the link connects nothing: an outsider of an unproven domain, or a colleague when the link named another address', async () => {
  // Mallory's link reaches Victor, whose provider session answers for him.
  await refused(await consent(undefined, { email: 'victor@corp-victim.nl', email_verified: true }), /corp-victim\.nl.*not verified/);
  expect(await addresses()).not.toContain('victor@corp-victim.nl');
  // A link that named verkoop@ reaches a colleague of the same (proven) domain: only the named address connects.
  await refused(
    await consent({ organizationId: orgId, provider: 'google', address: EMAIL }, { email: 'directie@oauth-bv.nl', email_verified: true }),
    /directie@oauth-bv\.nl.*verkoop@oauth-bv\.nl/,
  );
  expect(await addresses()).not.toContain('directie@oauth-bv.nl');
  // The same colleague with a link that names them connects.
  expect(
    (
      await callback(
        await consent({ organizationId: orgId, provider: 'google', address: 'directie@oauth-bv.nl' }, { email: 'directie@oauth-bv.nl', email_verified: true }),
      )
    ).status,
  ).toBe(200);
  expect(await addresses()).toContain('directie@oauth-bv.nl');
});

test('an address the provider does not vouch for connects nothing: Google without email_verified, Microsoft with only preferred_username', async () => {
  await refused(await consent(undefined, { email: 'nieuw@oauth-bv.nl', email_verified: false }), /not verified/);
  await refused(await consent({ organizationId: orgId, provider: 'microsoft' }, { preferred_username: 'nieuw@oauth-bv.nl' }), /verified/);
  await refused(await consent({ organizationId: orgId, provider: 'microsoft' }, { email: 'nieuw@oauth-bv.nl' }), /verified/);
  expect(await addresses()).not.toContain('nieuw@oauth-bv.nl');
  // Microsoft's verified claims: verified_primary_email, or email with xms_edov (the domain owner vouches).
  expect(
    (
      await callback(
        await consent(
          { organizationId: orgId, provider: 'microsoft' },
          { preferred_username: 'upn-1@corp.onmicrosoft.com', verified_primary_email: ['ms-a@oauth-bv.nl'] },
        ),
      )
    ).status,
  ).toBe(200);
  expect((await callback(await consent({ organizationId: orgId, provider: 'microsoft' }, { email: 'ms-b@oauth-bv.nl', xms_edov: true }))).status).toBe(200);
  expect(await addresses()).toEqual(expect.arrayContaining(['ms-a@oauth-bv.nl', 'ms-b@oauth-bv.nl']));
  const ms = (await api.call('GET', `/mailboxes?organizationId=${orgId}`, { token: owner.token })).body.find(
    (m: { address: string }) => m.address === 'ms-a@oauth-bv.nl',
  );
  expect(ms).toMatchObject({ auth: { type: 'oauth2', provider: 'microsoft' }, smtp: { host: 'smtp.office365.com', port: 587, username: 'ms-a@oauth-bv.nl' } });
});

test('a domain only added (pending), or removed, connects nothing', async () => {
  const added = await api.call('POST', '/domains', { token: owner.token, body: { organizationId: orgId, domain: 'pending-bv.nl' } });
  expect(added.status).toBe(201);
  await refused(await consent(undefined, { email: 'sales@pending-bv.nl', email_verified: true }), /pending-bv\.nl.*not verified/);
  const proven = await verifiedDomain(orgId, 'weg-bv.nl');
  expect((await api.call('DELETE', `/domains/${proven}`, { token: owner.token })).status).toBe(204);
  await refused(await consent(undefined, { email: 'sales@weg-bv.nl', email_verified: true }), /weg-bv\.nl.*not verified/);
  expect(await addresses()).not.toEqual(expect.arrayContaining(['sales@pending-bv.nl']));
});

test('connecting an existing mailbox again resets its SMTP and IMAP servers to the provider’s', async () => {
  const created = await api.call('POST', '/mailboxes', {
    token: owner.token,
    body: {
      organizationId: orgId,
      address: 'ceo@oauth-bv.nl',
      auth: { type: 'oauth2', provider: 'google' },
      smtp: { host: 'mx.member-owned.example', port: 587, username: 'collector' },
      imap: { host: 'imap.member-owned.example', port: 993 },
      secret: 'a-refresh-token-of-nobody',
    },
  });
  expect(created.status).toBe(201);
  expect(
    (
      await callback(
        await consent({ organizationId: orgId, provider: 'google', address: 'ceo@oauth-bv.nl' }, { email: 'ceo@oauth-bv.nl', email_verified: true }),
      )
    ).status,
  ).toBe(200);
  const after = await api.call('GET', `/mailboxes/${created.body.id}`, { token: owner.token });
  expect(after.body).toMatchObject({
    auth: { type: 'oauth2', provider: 'google' },
    smtp: { host: 'smtp.gmail.com', port: 465, secure: true, username: 'ceo@oauth-bv.nl' },
    imap: { host: 'imap.gmail.com', port: 993, secure: true, username: 'ceo@oauth-bv.nl' },
  });
});

test('two callbacks for one new address at once both connect it: one mailbox, with its daily health schedule', async () => {
  const address = `tegelijk-${Date.now()}@oauth-bv.nl`;
  const as = { email: address, email_verified: true };
  const backs = await Promise.all([1, 2, 3, 4].map(() => consent({ organizationId: orgId, provider: 'google', address }, as)));
  const done = await Promise.all(backs.map((b) => callback(b)));
  expect(done.map((d) => d.status)).toEqual([200, 200, 200, 200]);
  expect((await addresses()).filter((a) => a === address)).toHaveLength(1);
  const id = (await owners.query('SELECT id FROM mailboxes WHERE organization_id = $1 AND address = $2', [orgId, address])).rows[0].id;
  const schedule = await api.temporal.schedule.getHandle(workflowIds.mailboxHealth(id)).describe();
  expect(schedule.scheduleId).toBe(workflowIds.mailboxHealth(id));
});

test('oauth_states keeps no used state, and a claim sweeps states expired for more than a day', async () => {
  const back = await consent();
  const stale = await start();
  await owners.query(`UPDATE oauth_states SET expires_at = now() - interval '2 days' WHERE state_hash = sha256(convert_to($1, 'UTF8'))`, [stale.body.state]);
  const hash = (s: string) =>
    owners.query("SELECT count(*)::int AS n FROM oauth_states WHERE state_hash = sha256(convert_to($1, 'UTF8'))", [s]).then((r) => r.rows[0].n);
  expect(await hash(stale.body.state)).toBe(1);
  expect((await callback(back)).status).toBe(200);
  expect(await hash(back.searchParams.get('state')!)).toBe(0);
  expect(await hash(stale.body.state)).toBe(0);
  expect((await owners.query('SELECT count(*)::int AS n FROM oauth_states WHERE used_at IS NOT NULL')).rows[0].n).toBe(0);
});

/** A new mailbox of the proven domain connected through the flow: its id and the refresh token stored. */
async function connected(address: string): Promise<{ id: string; refresh: () => Promise<string> }> {
  expect((await callback(await consent({ organizationId: orgId, provider: 'google', address }, { email: address, email_verified: true }))).status).toBe(200);
  const id = (await owners.query('SELECT id FROM mailboxes WHERE organization_id = $1 AND address = $2', [orgId, address])).rows[0].id as string;
  return { id, refresh: async () => box().open(await sealedSecret(id), mailboxSecretContext(orgId, id)) };
}
async function within<T>(ms: number, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

test('a dead grant refreshed by more callers than the pool has connections pauses the mailbox and leaves the pool working', async () => {
  const m = await connected(`dood-${Date.now()}@oauth-bv.nl`);
  await oauthServer.revoke(await m.refresh());
  const small = createDb(testEnv('TEST_WORKER_DB_URL'), 2);
  try {
    const source = new OAuthTokenSource(oauthClientsFrom(oauthServer.env('GOOGLE')), dbRefreshTokenStore(small, box()));
    const ref = { organizationId: orgId, mailboxId: m.id, provider: 'google' as const };
    const outcomes = await within(20_000, Promise.allSettled([1, 2, 3, 4, 5].map(() => source.accessToken(ref, { force: true }))));
    expect(outcomes.map((o) => (o.status === 'rejected' ? (o.reason as Error).name : 'fulfilled'))).toEqual(Array(5).fill('OAuthGrantRevoked'));
    expect((await api.call('GET', `/mailboxes/${m.id}`, { token: owner.token })).body).toMatchObject({ status: 'paused', paused_reason: 'auth' });
    expect((await within(5_000, small.selectFrom('organizations').select('id').limit(1).execute())).length).toBeLessThanOrEqual(1);
  } finally {
    await small.destroy();
  }
});

test('the provider refusing the service’s client (invalid_client) pauses the mailbox (auth) with the reason', async () => {
  const m = await connected(`klant-${Date.now()}@oauth-bv.nl`);
  const env = { ...oauthServer.env('GOOGLE'), OAUTH_GOOGLE_CLIENT_SECRET: 'a-secret-that-expired-0123456789abcdef' };
  const source = new OAuthTokenSource(oauthClientsFrom(env), dbRefreshTokenStore(workerDb, box()));
  await expect(source.accessToken({ organizationId: orgId, mailboxId: m.id, provider: 'google' })).rejects.toThrow(/invalid_client/);
  const after = (await api.call('GET', `/mailboxes/${m.id}`, { token: owner.token })).body;
  expect(after).toMatchObject({ status: 'paused', paused_reason: 'auth' });
  // The grant itself is fine: connecting again (or a fixed client and a resume) makes it active.
  expect((await owners.query('SELECT paused_note FROM mailboxes WHERE id = $1', [m.id])).rows[0].paused_note).toMatch(/invalid_client/);
});
