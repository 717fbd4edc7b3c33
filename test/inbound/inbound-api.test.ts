import { addMember, expectProblem, newOrganization, startApi, type TestApi } from '../helpers/api';
import { fixture } from '../helpers/reply-fixtures';
import { replyMail } from '../helpers/hostile-mail';
import { seedReplyWorld, type ReplyWorld } from '../helpers/reply-world';
import type { TestUser } from '../helpers/tokens';
import { useStack } from '../helpers/stack';

/**
 * POST /mailboxes/{mailboxId}/inbound: a pushed raw message takes the path of mail read over IMAP
 * (202 with the message, 200 duplicate), and bad input is a clear 4xx that changes nothing.
 */
const { api, owners } = useStack({ api: true, owners: true });
let small: TestApi;
let owner: TestUser;
let orgId: string;
let world: ReplyWorld;
let other: { owner: TestUser; orgId: string };
let otherWorld: ReplyWorld;

beforeAll(async () => {
  small = await startApi({ inbound: { maxBytes: 2048 } });
  ({ owner, orgId } = await newOrganization(api, 'Inbound Installaties B.V.'));
  world = await seedReplyWorld(owners, { orgId, replierEmail: 'emily.carter@harbourbuild.co.uk' });
  other = await newOrganization(api, 'Andere Inbound B.V.');
  otherWorld = await seedReplyWorld(owners, { orgId: other.orgId, replierEmail: 'emily.carter@harbourbuild.co.uk' });
});
afterAll(async () => {
  await small.close();
});

const post = (mailboxId: string, raw: string, opts: { token?: string; contentType?: string; to?: TestApi } = {}) =>
  (opts.to ?? api).call('POST', `/mailboxes/${mailboxId}/inbound`, {
    token: opts.token ?? owner.token,
    rawBody: raw,
    headers: { 'content-type': opts.contentType ?? 'message/rfc822' },
  });
const inboundCount = async (org: string) =>
  (await owners.query(`SELECT count(*)::int AS n FROM messages WHERE organization_id = $1 AND direction = 'inbound'`, [org])).rows[0].n;

test('a reply pushed as message/rfc822: 202 with the message, triaged and acted on; the same again: 200 duplicate', async () => {
  const raw = fixture('reply-quoted-en').toString('utf8');
  const res = await post(world.mailboxId, raw);
  expect(res.status).toBe(202);
  const id = res.body.message_id;
  const m = (await owners.query(`SELECT intent, thread_id, contact_id, why FROM messages WHERE id = $1`, [id])).rows[0];
  expect(m).toMatchObject({ intent: 'interested', thread_id: world.threadId, contact_id: world.replier.contactId });
  expect(m.why.reply).toMatchObject({ inboundMessageId: id, intent: 'interested' });
  expect((await owners.query(`SELECT status, stopped_reason FROM enrollments WHERE id = $1`, [world.replier.enrollmentId])).rows[0]).toEqual({
    status: 'stopped',
    stopped_reason: 'replied',
  });
  expect((await owners.query(`SELECT status, pause_reason FROM enrollments WHERE id = $1`, [world.colleague.enrollmentId])).rows[0]).toEqual({
    status: 'paused',
    pause_reason: 'account_replied',
  });

  const again = await post(world.mailboxId, raw);
  expect(again.status).toBe(200);
  expect(again.body).toEqual({ duplicate: true });
  expect(await inboundCount(orgId)).toBe(1);
});

test('bad input: over the size limit 413, not RFC 822 400, another type 415, empty 400; nothing stored', async () => {
  const before = await inboundCount(orgId);
  const big = `From: a@b.nl\r\nSubject: groot\r\nMessage-ID: <big@b.nl>\r\n\r\n${'x'.repeat(4096)}`;
  expectProblem(await post(world.mailboxId, big, { to: small }), 413, 'PAYLOAD_TOO_LARGE');
  const notMail = await post(world.mailboxId, 'this is just some text, not an e-mail at all');
  expectProblem(notMail, 400, 'VALIDATION_FAILED');
  expect(notMail.body.errors[0].path).toBe('body');
  expectProblem(await post(world.mailboxId, 'Subject: no sender\r\n\r\nbody'), 400, 'VALIDATION_FAILED');
  expectProblem(await post(world.mailboxId, '{"raw": "x"}', { contentType: 'application/json' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  expectProblem(await post(world.mailboxId, fixture('unsubscribe-en').toString('utf8'), { contentType: 'text/plain' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  expectProblem(await post(world.mailboxId, ''), 400, 'VALIDATION_FAILED');
  expect(await inboundCount(orgId)).toBe(before);
});

test("another tenant's mailbox is 404, a viewer 403, an unknown id 404; nothing stored", async () => {
  const raw = fixture('unsubscribe-en').toString('utf8');
  expectProblem(await post(otherWorld.mailboxId, raw), 404, 'NOT_FOUND');
  expectProblem(await post('00000000-0000-4000-8000-000000000000', raw), 404, 'NOT_FOUND');
  expectProblem(await post('not-a-uuid', raw), 404, 'NOT_FOUND');
  const viewer = await addMember(api, owner, orgId, 'viewer');
  expectProblem(await post(world.mailboxId, raw, { token: viewer.token }), 403, 'FORBIDDEN');
  expect(await inboundCount(other.orgId)).toBe(0);
  expect((await owners.query(`SELECT count(*)::int AS n FROM suppressions WHERE organization_id = ANY($1)`, [[orgId, other.orgId]])).rows[0].n).toBe(0);
});

test("a spoofed In-Reply-To naming another organization's message stays unmatched: nothing of theirs changes (review: tests that cannot fail)", async () => {
  // A Message-ID only tenant B has: if threading looked across organizations it would find B's contact.
  const foreignId = `<only-b-${Date.now()}@example-sender.nl>`;
  await owners.query(`UPDATE messages SET provider_message_id = $2 WHERE id = $1`, [otherWorld.outboundId, foreignId]);
  const raw = replyMail({
    from: 'emily.carter@harbourbuild.co.uk',
    inReplyTo: foreignId,
    subject: 'Re: iets anders',
    body: 'Please remove me from your list.',
  }).toString('utf8');
  const res = await post(world.mailboxId, raw);
  expect(res.status).toBe(202);
  const m = (await owners.query(`SELECT organization_id, thread_id, enrollment_id FROM messages WHERE id = $1`, [res.body.message_id])).rows[0];
  expect(m).toMatchObject({ organization_id: orgId, enrollment_id: null });
  expect(m.thread_id).not.toBe(otherWorld.threadId);
  const theirs = (
    await owners.query(`SELECT status FROM enrollments WHERE id = ANY($1) ORDER BY id`, [[otherWorld.replier.enrollmentId, otherWorld.colleague.enrollmentId]])
  ).rows;
  expect(theirs).toEqual([{ status: 'active' }, { status: 'active' }]);
  expect((await owners.query(`SELECT count(*)::int AS n FROM suppressions WHERE organization_id = $1`, [other.orgId])).rows[0].n).toBe(0);
  expect((await owners.query(`SELECT status FROM threads WHERE id = $1`, [otherWorld.threadId])).rows[0].status).toBe('open');
});

test("another tenant's mailbox is refused before its body is read: 404, not 413", async () => {
  const big = `From: a@b.nl\r\nSubject: groot\r\nMessage-ID: <big2@b.nl>\r\n\r\n${'x'.repeat(4096)}`;
  expectProblem(await post(otherWorld.mailboxId, big, { to: small }), 404, 'NOT_FOUND');
  expectProblem(await post(world.mailboxId, big, { to: small }), 413, 'PAYLOAD_TOO_LARGE');
});

test('the mailbox answers last_error (null while its inbox is readable)', async () => {
  const res = await api.call('GET', `/mailboxes/${world.mailboxId}`, { token: owner.token });
  expect(res.status).toBe(200);
  expect(res.body.last_error).toBeNull();
});

test('Idempotency-Key compares the raw message: the same bytes again replay the first answer (202, Idempotent-Replayed), other bytes are 422', async () => {
  const raw = `From: iemand@elders.nl\r\nTo: sales@acme.nl\r\nSubject: Vraag\r\nMessage-ID: <idem-${Date.now()}@elders.nl>\r\n\r\nHallo, een vraag.\r\n`;
  const send = (body: string) =>
    api.call('POST', `/mailboxes/${world.mailboxId}/inbound`, {
      token: owner.token,
      rawBody: body,
      headers: { 'content-type': 'message/rfc822', 'Idempotency-Key': `inbound-${world.mailboxId}` },
    });
  const before = await inboundCount(orgId);
  const first = await send(raw);
  expect(first.status).toBe(202);
  const again = await send(raw);
  expect(again.status).toBe(202); // not 200 {duplicate}: the first answer, replayed
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(again.body).toEqual(first.body);
  expectProblem(await send(raw.replace('een vraag', 'twee vragen')), 422, 'IDEMPOTENCY_KEY_REUSED');
  expect(await inboundCount(orgId)).toBe(before + 1);
});
