import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { ImapInboxReader } from '../../activities/providers/mail/imap';
import { authorizationRequest, exchangeCode, oauthClientsFrom, OAuthTokenSource } from '../../activities/providers/mail/oauth';
import { dbRefreshTokenStore } from '../../activities/providers/mail/oauth-store';
import { createReplyActivities } from '../../activities/replies';
import { createDb, type DB } from '../../db/pool';
import { mailboxSecretContext, SecretBox } from '../../db/secrets';
import { startDovecot, type TestDovecot } from '../helpers/dovecot-server';
import { startOAuthServer, type TestOAuthServer } from '../helpers/oauth-server';
import { until } from '../helpers/outreach';
import { fixture } from '../helpers/reply-fixtures';
import { seedReplyWorld, type ReplyWorld } from '../helpers/reply-world';
import { testEnv } from '../helpers/tokens';

/**
 * An OAuth mailbox reads its inbox with SASL XOAUTH2 at a real Dovecot (oauth2 passdb: the token is
 * introspected at oidc-provider), through the real inbox activity (pollMailboxInbox) with the
 * worker's token source: new mail is read and stored once, a real UIDVALIDITY change starts at the
 * end again without storing twice, and a revoked grant pauses the mailbox (`auth`).
 */
const EMAIL = 'inbox@oauth-bv.nl';
const REDIRECT_URI = 'http://127.0.0.1:1/mailboxes/oauth/callback';
let oauthServer: TestOAuthServer;
let dovecot: TestDovecot;
let owner: Pool;
let db: DB;
const secrets = new SecretBox(testEnv('INTEGRATION_SECRET_KEY'));

beforeAll(async () => {
  oauthServer = await startOAuthServer({ email: EMAIL, redirectUris: [REDIRECT_URI] });
  // XOAUTH2 the only OAuth mechanism offered (as Microsoft 365 does; with OAUTHBEARER offered too, imapflow prefers that).
  dovecot = await startDovecot({ introspectionUrl: oauthServer.mailServerIntrospectionUrl, mechanisms: 'xoauth2 plain' });
  owner = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 2 });
  db = createDb(testEnv('TEST_WORKER_DB_URL'), 2);
}, 120_000);
afterAll(async () => {
  await db?.destroy();
  await owner?.end();
  await dovecot?.close();
  await oauthServer?.close();
});

const clients = () => oauthClientsFrom(oauthServer.env('GOOGLE'));
/** A worker's inbox activity with its token source (a new one is what a restarted worker has). */
const worker = () =>
  createReplyActivities({
    db,
    secrets,
    config: { IMAP_TIMEOUT_MS: 10_000 },
    reader: new ImapInboxReader(),
    oauthTokens: new OAuthTokenSource(clients(), dbRefreshTokenStore(db, secrets)),
  });

/** A reply world whose mailbox is an OAuth mailbox at Dovecot, its refresh token from the code flow (PKCE) at the authorization server. */
async function oauthWorld(): Promise<ReplyWorld> {
  const state = randomUUID();
  const { url, codeVerifier } = await authorizationRequest('google', clients(), { state, redirectUri: REDIRECT_URI });
  const back = await oauthServer.authorize(url);
  const { refreshToken } = await exchangeCode('google', clients(), {
    code: back.searchParams.get('code')!,
    state,
    iss: back.searchParams.get('iss') ?? undefined,
    codeVerifier,
    redirectUri: REDIRECT_URI,
  });
  const orgId = randomUUID();
  const mailboxId = randomUUID();
  await owner.query(`INSERT INTO organizations (id, name, created_by) VALUES ($1, 'Dovecot org', gen_random_uuid())`, [orgId]);
  const w = await seedReplyWorld(owner, {
    orgId,
    mailboxId,
    replierEmail: 'emily.carter@harbourbuild.co.uk',
    imap: { host: dovecot.host, port: dovecot.port, username: EMAIL },
    secret: secrets.seal(refreshToken, mailboxSecretContext(orgId, mailboxId)),
  });
  await owner.query(`UPDATE mailboxes SET auth_type = 'oauth2', auth_provider = 'google' WHERE id = $1`, [mailboxId]);
  return w;
}
const inbound = async (orgId: string) =>
  (await owner.query(`SELECT intent FROM messages WHERE organization_id = $1 AND direction = 'inbound' ORDER BY created_at`, [orgId])).rows.map(
    (r) => r.intent,
  );
const state = async (mailboxId: string) =>
  (await owner.query(`SELECT uidvalidity, last_uid FROM mailbox_inbox_states WHERE mailbox_id = $1`, [mailboxId])).rows[0];
const mailbox = async (mailboxId: string) => (await owner.query(`SELECT status, paused_reason, last_error FROM mailboxes WHERE id = $1`, [mailboxId])).rows[0];

test('XOAUTH2 at Dovecot: the first poll starts at the end, a delivered reply is read and stored once; a new UIDVALIDITY starts at the end again without storing twice', async () => {
  const w = await oauthWorld();
  const history = await dovecot.deliver(EMAIL, fixture('unsubscribe-en'));
  expect(await worker().pollMailboxInbox({ organizationId: w.orgId, mailboxId: w.mailboxId })).toMatchObject({ read: 0, stored: 0, error: null });
  expect(await state(w.mailboxId)).toMatchObject({ last_uid: history });

  const reply = await dovecot.deliver(EMAIL, fixture('reply-quoted-en'));
  expect(await worker().pollMailboxInbox({ organizationId: w.orgId, mailboxId: w.mailboxId })).toMatchObject({
    read: 1,
    stored: 1,
    duplicates: 0,
    error: null,
  });
  expect(await inbound(w.orgId)).toEqual(['interested']);
  expect(await state(w.mailboxId)).toMatchObject({ last_uid: reply });
  expect(await worker().pollMailboxInbox({ organizationId: w.orgId, mailboxId: w.mailboxId })).toMatchObject({ read: 0, stored: 0 });

  // The mailbox recreated: another UIDVALIDITY, the old UIDs mean nothing; the reader starts at the end, nothing is stored again.
  const before = await dovecot.uidValidity(EMAIL);
  await dovecot.changeUidValidity(EMAIL, before + 1000);
  expect(await worker().pollMailboxInbox({ organizationId: w.orgId, mailboxId: w.mailboxId })).toMatchObject({ read: 0, stored: 0, error: null });
  expect(Number((await state(w.mailboxId)).uidvalidity)).toBe(before + 1000);
  expect(await inbound(w.orgId)).toEqual(['interested']);
  // New mail after the change is read.
  await dovecot.deliver(EMAIL, fixture('gmail-ooo-en'));
  expect(await worker().pollMailboxInbox({ organizationId: w.orgId, mailboxId: w.mailboxId })).toMatchObject({ read: 1, stored: 1, duplicates: 0 });
  expect(await inbound(w.orgId)).toEqual(['interested', 'out_of_office']);
  // Each of the five polls logged in with XOAUTH2 (Dovecot's log, written as it goes).
  await until('five logins logged', async () => dovecot.logins().length >= 5, 30_000);
  expect(dovecot.logins().every((l) => l.user === EMAIL && l.method === 'XOAUTH2')).toBe(true);
}, 120_000);

test('a revoked grant: the poll answers the reason, the mailbox is paused (auth), nothing is read', async () => {
  const w = await oauthWorld();
  const w1 = worker();
  expect(await w1.pollMailboxInbox({ organizationId: w.orgId, mailboxId: w.mailboxId })).toMatchObject({ error: null });
  const refresh = secrets.open(
    (await owner.query('SELECT secret_ciphertext FROM mailboxes WHERE id = $1', [w.mailboxId])).rows[0].secret_ciphertext,
    mailboxSecretContext(w.orgId, w.mailboxId),
  );
  await oauthServer.revoke(refresh);
  await dovecot.deliver(EMAIL, fixture('reply-quoted-en'));
  // The same worker: its cached access token is refused by Dovecot, the refresh finds the grant dead.
  const poll = await w1.pollMailboxInbox({ organizationId: w.orgId, mailboxId: w.mailboxId });
  expect(poll).toMatchObject({ read: 0, stored: 0 });
  expect(poll.error).toMatch(/invalid_grant/);
  expect(await mailbox(w.mailboxId)).toMatchObject({ status: 'paused', paused_reason: 'auth', last_error: expect.stringMatching(/invalid_grant/) });
  expect(await inbound(w.orgId)).toEqual([]);
}, 120_000);
