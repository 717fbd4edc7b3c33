import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Client, Connection, WorkflowIdConflictPolicy } from '@temporalio/client';
import { oauthClientsFrom, OAuthTokenSource } from '../../activities/providers/mail/oauth';
import { dbRefreshTokenStore } from '../../activities/providers/mail/oauth-store';
import { NodemailerSmtpSender } from '../../activities/providers/mail/smtp';
import { createSendActivities } from '../../activities/send';
import { mailboxSecretContext, SecretBox } from '../../db/secrets';
import { workflowIds } from '../../workflows/search-attributes';
import type { sendMessageWorkflow } from '../../workflows/send-message';
import { newOrganization, startApi, TestApi, testUnsubscribeTokens } from '../helpers/api';
import { verifiedDomain } from '../helpers/domains';
import { localhostCertificate, startOAuthServer, startXoauthSmtpServer, TestOAuthServer, XoauthSmtpServer } from '../helpers/oauth-server';
import { outreachOrg, until, type OutreachOrg } from '../helpers/outreach';
import { testEnv } from '../helpers/tokens';
import { startWorkerProcess, workerEnv } from '../helpers/worker-process';
import { useStack } from '../helpers/stack';

/**
 * An OAuth mailbox sends through the real worker path: a worker process (apps/worker/main.ts, with
 * OAUTH_GOOGLE_* pointing at oidc-provider) runs the send workflow; its send activity fetches an
 * access token after the claim and logs in with SASL XOAUTH2 over STARTTLS at a real SMTP server that
 * checks the token by introspection. A token the server no longer takes is replaced once; a revoked
 * grant pauses the mailbox (`auth`) and holds the e-mail with the reason.
 */
const EMAIL = `verkoop-oauth-${randomUUID().slice(0, 6)}@good-mail.nl`;
const REDIRECT_URI = 'http://127.0.0.1:1/mailboxes/oauth/callback';
const QUEUE = `oauth-send-${randomUUID()}`;
let oauthServer: TestOAuthServer;
let smtp: XoauthSmtpServer;
let api: TestApi;
let temporal: Client;
const { owners, workerDb } = useStack({ owners: true, workerDb: true });
let worker: ChildProcess | undefined;
let o: OutreachOrg;
const box = () => new SecretBox(testEnv('INTEGRATION_SECRET_KEY'));
const started: string[] = [];

beforeAll(async () => {
  oauthServer = await startOAuthServer({ email: EMAIL, redirectUris: [REDIRECT_URI] });
  const tls = localhostCertificate();
  smtp = await startXoauthSmtpServer(oauthServer, tls);
  api = await startApi({ oauth: { clients: oauthClientsFrom(oauthServer.env('GOOGLE')), redirectUri: REDIRECT_URI } });
  temporal = new Client({ connection: await Connection.connect({ address: testEnv('TEMPORAL_ADDRESS') }) });
  // The worker trusts the SMTP server's certificate like any CA's: a token is only ever sent over TLS.
  worker = await startWorkerProcess({ ...workerEnv(QUEUE), ...oauthServer.env('GOOGLE'), NODE_EXTRA_CA_CERTS: tls.certPath });
  // A mailbox on a domain whose deliverability passes, pointed at the SMTP server, then connected with OAuth (the consent flow gives it the grant).
  o = await outreachOrg(api, newOrganization, { host: '127.0.0.1', port: smtp.port }, { address: EMAIL });
  await verifiedDomain(o.orgId, 'good-mail.nl');
  const start = await o.ok('POST', '/mailboxes/oauth/start', { organizationId: o.orgId, provider: 'google', address: EMAIL });
  const back = await oauthServer.authorize(start.authorization_url);
  expect((await api.call('GET', `/mailboxes/oauth/callback${back.search}`)).status).toBe(200);
  // Connecting set the provider's servers (smtp.gmail.com); the test's SMTP server stands in for them,
  // which like any host change needs the mailbox's secret (for an OAuth mailbox its refresh token).
  expect(await o.ok('GET', `/mailboxes/${o.mailboxId}`)).toMatchObject({ auth: { type: 'oauth2', provider: 'google' }, smtp: { host: 'smtp.gmail.com' } });
  await o.ok('PATCH', `/mailboxes/${o.mailboxId}`, {
    smtp: { host: '127.0.0.1', port: smtp.port, secure: false, username: EMAIL },
    imap: null,
    secret: await refreshToken(),
  });
  expect(await o.ok('POST', `/mailboxes/${o.mailboxId}/health`, {})).toMatchObject({ sendable: true });
}, 180_000);
afterAll(async () => {
  for (const id of started)
    await temporal.workflow
      .getHandle(workflowIds.sendMessage(id))
      .terminate('test over')
      .catch(() => undefined);
  worker?.kill('SIGKILL');
  await temporal?.connection.close();
  await api?.close();
  await smtp?.close();
  await oauthServer?.close();
});

/** An approved e-mail of the OAuth mailbox to a consenting contact (what approval leaves). */
async function approved(): Promise<{ id: string; to: string }> {
  const c = await o.contact();
  const { rows } = await owners.query<{ id: string }>(
    `INSERT INTO messages (organization_id, contact_id, mailbox_id, direction, channel, status, subject, body, to_address, approved_at)
     VALUES ($1, $2, $3, 'outbound', 'email', 'approved', 'Uw project', 'Geachte heer Bakker,', $4, now()) RETURNING id`,
    [o.orgId, c.id, o.mailboxId, c.email],
  );
  return { id: rows[0]!.id, to: c.email };
}
/** An approved e-mail, its send workflow started on the worker's queue. */
async function send(): Promise<{ id: string; to: string }> {
  const { id, to } = await approved();
  started.push(id);
  await temporal.workflow.start<typeof sendMessageWorkflow>('sendMessageWorkflow', {
    taskQueue: QUEUE,
    workflowId: workflowIds.sendMessage(id),
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    args: [{ organizationId: o.orgId, messageId: id, retryInitialIntervalMs: 200 }],
  });
  return { id, to };
}
const message = async (id: string) =>
  (await owners.query<{ status: string; error: string | null }>('SELECT status, error FROM messages WHERE id = $1', [id])).rows[0]!;
const deliveredTo = (to: string) => smtp.received.filter((m) => new RegExp(`^To:.*${to.replace(/[.]/g, '\\.')}`, 'im').test(m.raw));
const refreshToken = async () =>
  box().open(
    (await owners.query('SELECT secret_ciphertext FROM mailboxes WHERE id = $1', [o.mailboxId])).rows[0].secret_ciphertext,
    mailboxSecretContext(o.orgId, o.mailboxId),
  );

test('the send workflow sends an OAuth mailbox’s approved e-mail with XOAUTH2, and sends the next with a new token after the old one stopped working', async () => {
  const first = await send();
  await until('the first e-mail sent', async () => (await message(first.id)).status === 'sent', 90_000);
  expect(deliveredTo(first.to)).toHaveLength(1);
  expect(deliveredTo(first.to)[0]!.user).toBe(EMAIL);
  const accepted = smtp.logins.filter((l) => l.accepted);
  expect(accepted.length).toBeGreaterThan(0);
  const t1 = accepted.at(-1)!.token;

  // The access token stops working before the worker's cache would refresh it (the server says: not active).
  await oauthServer.revoke(t1, 'access_token');
  expect((await oauthServer.introspect(t1)).active).toBe(false);
  const second = await send();
  await until('the second e-mail sent', async () => (await message(second.id)).status === 'sent', 90_000);
  expect(deliveredTo(second.to)).toHaveLength(1);
  // The worker tried the cached token, was refused, and logged in again with a fresh one.
  const after = smtp.logins.slice(smtp.logins.findIndex((l) => l.token === t1 && !l.accepted));
  expect(after[0]).toMatchObject({ token: t1, accepted: false });
  expect(after.at(-1)).toMatchObject({ user: EMAIL, accepted: true });
  expect(after.at(-1)!.token).not.toBe(t1);
}, 180_000);

test('no OAuth client for the provider on the worker: the claim is released and the e-mail waits with the reason; the mailbox is not paused', async () => {
  const clock = { now: new Date() };
  const activities = createSendActivities({
    db: workerDb,
    sender: new NodemailerSmtpSender({ connectionMs: 5000, greetingMs: 5000, socketMs: 10000 }),
    secrets: box(),
    tokens: testUnsubscribeTokens(),
    publicBaseUrl: 'http://127.0.0.1:3000',
    oauthTokens: new OAuthTokenSource({}, dbRefreshTokenStore(workerDb, box())),
    now: () => clock.now,
  });
  const m = await approved();
  const ref = { organizationId: o.orgId, messageId: m.id };
  const booked = await activities.scheduleSend(ref);
  if (booked.state !== 'scheduled') throw new Error(`not booked: ${JSON.stringify(booked)}`);
  clock.now = new Date(booked.slotAtMs);
  const out = await activities.sendMessage(ref);
  expect(out).toMatchObject({ status: 'approved', requeue: true, hold: true, reason: expect.stringMatching(/no OAuth client is configured for google/) });
  expect(await message(m.id)).toMatchObject({ status: 'approved', error: expect.stringMatching(/OAUTH_GOOGLE_CLIENT_ID/) });
  expect((await owners.query('SELECT send_attempted_at FROM messages WHERE id = $1', [m.id])).rows[0].send_attempted_at).toBeNull();
  expect(await o.ok('GET', `/mailboxes/${o.mailboxId}`)).toMatchObject({ status: 'active' });
  expect(deliveredTo(m.to)).toHaveLength(0);
}, 120_000);

test('a revoked grant pauses the mailbox (auth) and holds the e-mail, unsent, with the reason', async () => {
  const lastToken = smtp.logins.filter((l) => l.accepted).at(-1)!.token;
  await oauthServer.revoke(await refreshToken());
  // Revoking the grant's refresh token ends its access tokens too (whatever the server does, this one is revoked).
  await oauthServer.revoke(lastToken, 'access_token').catch(() => undefined);
  const held = await send();
  const row = await until(
    'the e-mail held',
    async () => {
      const m = await message(held.id);
      return m.status === 'approved' && m.error ? m : undefined;
    },
    90_000,
  );
  expect(row.error).toMatch(/invalid_grant.*connect the mailbox again/);
  expect(await o.ok('GET', `/mailboxes/${o.mailboxId}`)).toMatchObject({ status: 'paused', paused_reason: 'auth' });
  expect(deliveredTo(held.to)).toHaveLength(0);
  const claim = (await owners.query('SELECT send_attempted_at, scheduled_for FROM messages WHERE id = $1', [held.id])).rows[0];
  expect(claim).toMatchObject({ send_attempted_at: null, scheduled_for: null });
}, 180_000);
