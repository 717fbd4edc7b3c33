import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { createReplyActivities } from '../../activities/replies';
import { ImapConnectError, ImapInboxReader } from '../../activities/providers/mail/imap';
import { createDb, type DB } from '../../db/pool';
import { mailboxSecretContext, SecretBox } from '../../db/secrets';
import { startImapServer, type ImapTestServer } from '../helpers/imap-server';
import { freePort } from '../helpers/ports';
import { startChatServer } from '../helpers/chat-server';
import { fixture } from '../helpers/reply-fixtures';
import { seedReplyWorld, type ReplyWorld } from '../helpers/reply-world';
import { testEnv } from '../helpers/tokens';

/**
 * Reading a mailbox's inbox over IMAP, against a real IMAP server on 127.0.0.1 (go-imap's
 * imapmemserver): new mail is stored once, the UID is remembered across worker restarts, a lost or
 * reset position re-reads without storing twice, and wrong credentials end up in last_error.
 */
let owner: Pool;
let db: DB;
let imap: ImapTestServer;
const secrets = new SecretBox(testEnv('INTEGRATION_SECRET_KEY'));

beforeAll(async () => {
  owner = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 2 });
  db = createDb(testEnv('TEST_WORKER_DB_URL'), 2);
  imap = await startImapServer();
}, 300_000);
afterAll(async () => {
  await imap?.close();
  await db.destroy();
  await owner.end();
});

/** A worker's activities: a new instance is what a restarted worker has (nothing kept in memory). */
const worker = () => createReplyActivities({ db, secrets, config: { IMAP_TIMEOUT_MS: 5000 }, reader: new ImapInboxReader() });

async function world(password: string, port = imap.port): Promise<ReplyWorld> {
  const orgId = randomUUID();
  const mailboxId = randomUUID();
  await owner.query(`INSERT INTO organizations (id, name, created_by) VALUES ($1, 'Inbox org', gen_random_uuid())`, [orgId]);
  return seedReplyWorld(owner, {
    orgId,
    mailboxId,
    replierEmail: 'emily.carter@harbourbuild.co.uk',
    imap: { host: '127.0.0.1', port, username: imap.username },
    secret: secrets.seal(password, mailboxSecretContext(orgId, mailboxId)),
  });
}
const inbound = async (orgId: string) =>
  (await owner.query(`SELECT intent FROM messages WHERE organization_id = $1 AND direction = 'inbound' ORDER BY created_at`, [orgId])).rows.map(
    (r) => r.intent,
  );
const state = async (mailboxId: string) =>
  (await owner.query(`SELECT uidvalidity, last_uid FROM mailbox_inbox_states WHERE mailbox_id = $1`, [mailboxId])).rows[0];

/** The first poll of a new mailbox: it starts at the current end of the shared INBOX (what other tests appended is history). */
async function firstPoll(w: ReplyWorld): Promise<number> {
  expect(await worker().pollMailboxInbox({ organizationId: w.orgId, mailboxId: w.mailboxId })).toMatchObject({ read: 0, stored: 0, error: null });
  return Number((await state(w.mailboxId)).last_uid);
}

test('the first poll starts at the end of the inbox: mail that was there before is history, not replies (review A6)', async () => {
  await imap.append(fixture('unsubscribe-en'));
  await imap.append(fixture('reply-quoted-en'));
  const w = await world(imap.password);
  const end = await firstPoll(w);
  expect(end).toBeGreaterThanOrEqual(2);
  expect(await inbound(w.orgId)).toEqual([]);
  expect((await owner.query(`SELECT count(*)::int AS n FROM suppressions WHERE organization_id = $1`, [w.orgId])).rows[0].n).toBe(0);
  expect((await owner.query(`SELECT status FROM enrollments WHERE id = $1`, [w.replier.enrollmentId])).rows[0].status).toBe('active');
});

test('new mail is read once: the position survives a worker restart; a lost position re-reads without storing twice; a new UIDVALIDITY starts at the end', async () => {
  const w = await world(imap.password);
  const start = await firstPoll(w);
  const first = await imap.append(fixture('gmail-ooo-en'));
  await imap.append(fixture('reply-quoted-en'));

  const poll = await worker().pollMailboxInbox({ organizationId: w.orgId, mailboxId: w.mailboxId });
  expect(poll).toMatchObject({ read: 2, stored: 2, duplicates: 0, error: null, more: false });
  expect(poll.changedEnrollmentIds.sort()).toEqual([w.replier.enrollmentId, w.colleague.enrollmentId].sort());
  expect(await inbound(w.orgId)).toEqual(['out_of_office', 'interested']);
  expect(await state(w.mailboxId)).toMatchObject({ last_uid: first + 1 });

  // A restarted worker (new activities, state only in the database): nothing new, nothing read again.
  expect(await worker().pollMailboxInbox({ organizationId: w.orgId, mailboxId: w.mailboxId })).toMatchObject({ read: 0, stored: 0 });
  await imap.append(fixture('unsubscribe-en'));
  expect(await worker().pollMailboxInbox({ organizationId: w.orgId, mailboxId: w.mailboxId })).toMatchObject({ read: 1, stored: 1, duplicates: 0 });
  expect(await inbound(w.orgId)).toEqual(['out_of_office', 'interested', 'unsubscribe']);

  // The position lost (a crash after storing, before saving it): read again, stored once.
  await owner.query(`UPDATE mailbox_inbox_states SET last_uid = $2 WHERE mailbox_id = $1`, [w.mailboxId, start]);
  expect(await worker().pollMailboxInbox({ organizationId: w.orgId, mailboxId: w.mailboxId })).toMatchObject({ read: 3, stored: 0, duplicates: 3 });
  // Another UIDVALIDITY than the one stored: the UIDs mean other messages; it starts at the end again.
  await owner.query(`UPDATE mailbox_inbox_states SET uidvalidity = 999, last_uid = 0 WHERE mailbox_id = $1`, [w.mailboxId]);
  expect(await worker().pollMailboxInbox({ organizationId: w.orgId, mailboxId: w.mailboxId })).toMatchObject({ read: 0, stored: 0 });
  expect(await state(w.mailboxId)).toMatchObject({ last_uid: first + 2 });
  expect((await state(w.mailboxId)).uidvalidity).not.toBe(999);
  expect(await inbound(w.orgId)).toHaveLength(3);
});

test('a message in the inbox that is no e-mail is kept with its error and shown, never dropped, never retried', async () => {
  const w = await world(imap.password);
  await firstPoll(w);
  await imap.append('this is just some text someone saved in the inbox, not an e-mail at all\r\n');
  const poll = await worker().pollMailboxInbox({ organizationId: w.orgId, mailboxId: w.mailboxId });
  expect(poll).toMatchObject({ read: 1, stored: 0, unprocessed: 1 });
  const kept = (await owner.query(`SELECT processing_error, inbound_source FROM messages WHERE organization_id = $1 AND direction = 'inbound'`, [w.orgId]))
    .rows;
  expect(kept).toEqual([{ processing_error: expect.stringContaining('not an RFC 822 message'), inbound_source: null }]);
  expect((await owner.query(`SELECT last_error FROM mailboxes WHERE id = $1`, [w.mailboxId])).rows[0].last_error).toContain('is not an e-mail');
});

test('batches: at most batchSize per read, `more` while mail waits, the next read continues after the batch', async () => {
  const w = await world(imap.password);
  await firstPoll(w);
  const uids = [await imap.append(fixture('gmail-ooo-en')), await imap.append(fixture('reply-quoted-en')), await imap.append(fixture('unsubscribe-en'))];
  const before = await worker().pollMailboxInbox({ organizationId: w.orgId, mailboxId: w.mailboxId, batchSize: 2 });
  expect(before).toMatchObject({ read: 2, stored: 2, more: true });
  expect(await state(w.mailboxId)).toMatchObject({ last_uid: uids[1] });
  expect(await inbound(w.orgId)).toEqual(['out_of_office', 'interested']);
  const after = await worker().pollMailboxInbox({ organizationId: w.orgId, mailboxId: w.mailboxId, batchSize: 2 });
  expect(after).toMatchObject({ read: 1, stored: 1, more: false });
  expect(await state(w.mailboxId)).toMatchObject({ last_uid: uids[2] });
  expect(await inbound(w.orgId)).toEqual(['out_of_office', 'interested', 'unsubscribe']);
});

test('a password is never sent in cleartext: a server without STARTTLS is refused when TLS is required', async () => {
  const reader = new ImapInboxReader();
  await expect(
    reader.readSince(
      { host: imap.host, port: imap.port, secure: false, username: imap.username, password: imap.password, timeoutMs: 5000, requireTls: true },
      { uidValidity: null, lastUid: 0 },
      10,
    ),
  ).rejects.toBeInstanceOf(ImapConnectError);
  // The same server over loopback without the requirement (the default on 127.0.0.1) is read.
  await expect(
    reader.readSince(
      { host: imap.host, port: imap.port, secure: false, username: imap.username, password: imap.password, timeoutMs: 5000 },
      { uidValidity: null, lastUid: 0 },
      10,
    ),
  ).resolves.toMatchObject({ messages: [] });
});

test('a poison message (the model away) does not block the mailbox: kept unprocessed, the position moves on, the stop behind it is acted on, last_error says so; the next poll retries it (review A2)', async () => {
  const chat = await startChatServer('reply-model-1');
  try {
    const w = await world(imap.password);
    const withModel = () =>
      createReplyActivities({
        db,
        secrets,
        config: { IMAP_TIMEOUT_MS: 5000, LLM_BASE_URL: chat.baseUrl, LLM_MODEL: 'reply-model-1' },
        reader: new ImapInboxReader(),
      });
    await firstPoll(w);
    await imap.append(fixture('reply-quoted-en'));
    const stopUid = await imap.append(fixture('unsubscribe-en'));
    chat.reply({ status: 503 }, JSON.stringify({ intent: 'unsubscribe', confidence: 0.96, summary: 'Asks to be removed.', referral: null }));
    const first = await withModel().pollMailboxInbox({ organizationId: w.orgId, mailboxId: w.mailboxId });
    expect(first).toMatchObject({ read: 2, stored: 1, unprocessed: 1, error: null });
    expect(await state(w.mailboxId)).toMatchObject({ last_uid: stopUid });
    expect((await owner.query(`SELECT last_error FROM mailboxes WHERE id = $1`, [w.mailboxId])).rows[0].last_error).toMatch(/could not be processed.*HTTP 503/);
    expect((await owner.query(`SELECT count(*)::int AS n FROM suppressions WHERE organization_id = $1`, [w.orgId])).rows[0].n).toBe(1);

    chat.reply(JSON.stringify({ intent: 'interested', confidence: 0.9, summary: 'Wants to know more.', referral: null }));
    const second = await withModel().pollMailboxInbox({ organizationId: w.orgId, mailboxId: w.mailboxId });
    expect(second).toMatchObject({ read: 0, reprocessed: 1, error: null });
    expect((await owner.query(`SELECT last_error FROM mailboxes WHERE id = $1`, [w.mailboxId])).rows[0].last_error).toBeNull();
    expect(
      (await owner.query(`SELECT intent, processing_error FROM messages WHERE organization_id = $1 AND direction = 'inbound' ORDER BY intent`, [w.orgId])).rows,
    ).toEqual([
      { intent: 'interested', processing_error: null },
      { intent: 'unsubscribe', processing_error: null },
    ]);
  } finally {
    await chat.close();
  }
});

test('wrong IMAP credentials: the mailbox shows the error in last_error, the poll answers it (no exception, one attempt); fixed credentials clear it', async () => {
  const w = await world('wrong-password');
  const t0 = Date.now();
  const res = await worker().pollMailboxInbox({ organizationId: w.orgId, mailboxId: w.mailboxId });
  expect(res).toMatchObject({ read: 0, stored: 0, error: expect.stringContaining('IMAP login refused') });
  expect(Date.now() - t0).toBeLessThan(5000);
  expect((await owner.query(`SELECT last_error FROM mailboxes WHERE id = $1`, [w.mailboxId])).rows[0].last_error).toContain('IMAP login refused');
  expect(await state(w.mailboxId)).toBeUndefined();

  await owner.query(`UPDATE mailboxes SET secret_ciphertext = $2 WHERE id = $1`, [
    w.mailboxId,
    secrets.seal(imap.password, mailboxSecretContext(w.orgId, w.mailboxId)),
  ]);
  expect((await worker().pollMailboxInbox({ organizationId: w.orgId, mailboxId: w.mailboxId })).error).toBeNull();
  expect((await owner.query(`SELECT last_error FROM mailboxes WHERE id = $1`, [w.mailboxId])).rows[0].last_error).toBeNull();
});

test('a server that cannot be reached: last_error says so', async () => {
  const w = await world(imap.password, await freePort());
  const res = await worker().pollMailboxInbox({ organizationId: w.orgId, mailboxId: w.mailboxId });
  expect(res.error).toContain('could not be reached');
  expect((await owner.query(`SELECT last_error FROM mailboxes WHERE id = $1`, [w.mailboxId])).rows[0].last_error).toContain('could not be reached');
});
