import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { createDb, type DB } from '../../db/pool';
import { asOrganization } from '../../db/tenancy';
import { ingestInbound, retryUnprocessed, type Transact } from '../../activities/inbound/ingest-message';
import { ParsePool } from '../../activities/inbound/parse-pool';
import { OpenAiCompatibleReplyClassifier } from '../../activities/providers/classification/reply-openai-compatible';
import { RulesReplyClassifier, type ReplyClassifier } from '../../domain/replies/classify';
import { startChatServer, type ChatServer } from '../helpers/chat-server';
import { OUTBOUND_MESSAGE_ID, seedReplyWorld, type ReplyWorld } from '../helpers/reply-world';
import { arfMail, dsnMail, replyMail } from '../helpers/hostile-mail';
import { testEnv } from '../helpers/tokens';
import { fixture } from '../helpers/reply-fixtures';

/**
 * Inbound mail on the real database, as the worker (row-level security as the organization): each
 * intent's effects in Dutch and English, the account-level stop, the out-of-office hold, bounces,
 * threading without In-Reply-To, unmatched mail, de-duplication, and a model behind an
 * OpenAI-compatible endpoint.
 */
let owner: Pool;
let db: DB;
beforeAll(() => {
  owner = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 2 });
  db = createDb(testEnv('TEST_WORKER_DB_URL'), 2);
});
afterAll(async () => {
  await db.destroy();
  await owner.end();
});

const JAN = 'jan.devries@bouwbedrijf-devries.nl';
const EMILY = 'emily.carter@harbourbuild.co.uk';
const MARK = 'mark@reynolds-construction.com';

async function ingest(w: ReplyWorld, name: string | Buffer, opts: { classifier?: ReplyClassifier; receivedAt?: Date } = {}) {
  const raw = typeof name === 'string' ? fixture(name) : name;
  const receivedAt = opts.receivedAt ?? new Date('2026-11-19T12:00:00Z');
  // The fixtures were written on 19 November 2026: "now" is when they arrived, whatever today's date.
  return ingestInbound((fn) => asOrganization(db, w.orgId, fn), opts.classifier ?? new RulesReplyClassifier(), {
    organizationId: w.orgId,
    mailboxId: w.mailboxId,
    raw,
    receivedAt,
    now: receivedAt,
  });
}
const row = async (sql: string, values: unknown[]) => (await owner.query(sql, values)).rows[0];
const enrollment = (id: string) => row(`SELECT status, pause_reason, resume_at, stopped_reason FROM enrollments WHERE id = $1`, [id]);
const message = (id: string) => row(`SELECT * FROM messages WHERE id = $1`, [id]);
const threadStatus = async (id: string) => (await row(`SELECT status FROM threads WHERE id = $1`, [id])).status;

function stored(outcome: Awaited<ReturnType<typeof ingest>>) {
  if (outcome.duplicate) throw new Error('expected a new message');
  return outcome;
}

describe('real replies stop the sequence and pause the account', () => {
  test.each([
    ['reply-quoted-en', EMILY, 'interested', 'replied'],
    ['interested-nl', JAN, 'interested', 'replied'],
    ['not-interested-nl', JAN, 'not_interested', 'closed'],
    ['not-interested-en', EMILY, 'not_interested', 'closed'],
  ])('%s from %s (%s): the contact stopped (replied), drafts skipped, colleagues paused (account_replied), thread %s', async (name, email, intent, status) => {
    const w = await seedReplyWorld(owner, { replierEmail: email });
    const out = stored(await ingest(w, name));
    expect(out).toMatchObject({ threadId: w.threadId, contactId: w.replier.contactId });
    expect(out.changedEnrollmentIds.sort()).toEqual([w.replier.enrollmentId, w.colleague.enrollmentId].sort());
    expect(await enrollment(w.replier.enrollmentId)).toMatchObject({ status: 'stopped', stopped_reason: 'replied' });
    expect((await message(w.replier.draftId)).status).toBe('skipped');
    // Account-level stop: the colleague waits for a person, her draft waits too.
    expect(await enrollment(w.colleague.enrollmentId)).toMatchObject({ status: 'paused', pause_reason: 'account_replied', resume_at: null });
    expect((await message(w.colleague.draftId)).status).toBe('pending_approval');
    expect(await threadStatus(w.threadId)).toBe(status === 'closed' ? 'closed' : 'replied');
    const m = await message(out.messageId);
    expect(m).toMatchObject({
      direction: 'inbound',
      status: 'received',
      intent,
      model: 'rules',
      thread_id: w.threadId,
      contact_id: w.replier.contactId,
      enrollment_id: w.replier.enrollmentId,
    });
    expect(Number(m.confidence)).toBeGreaterThan(0.5);
    expect(m.why.reply).toEqual({ inboundMessageId: out.messageId, intent, summary: expect.any(String) });
    expect(m.why.triage.summary).toContain('1 other enrollment(s) at the same company paused');
  });

  test('the same message again is a duplicate and changes nothing', async () => {
    const w = await seedReplyWorld(owner, { replierEmail: EMILY });
    const first = stored(await ingest(w, 'reply-quoted-en'));
    expect(await ingest(w, 'reply-quoted-en')).toEqual({ duplicate: true, messageId: first.messageId });
    expect((await row(`SELECT count(*)::int AS n FROM messages WHERE organization_id = $1 AND direction = 'inbound'`, [w.orgId])).n).toBe(1);
  });
});

describe('unsubscribe, referral, meeting requests', () => {
  test.each([
    ['unsubscribe-nl', JAN],
    ['unsubscribe-en', EMILY],
  ])('%s: the address is suppressed at once with the reply as evidence', async (name, email) => {
    const w = await seedReplyWorld(owner, { replierEmail: email });
    const out = stored(await ingest(w, name));
    const s = await row(`SELECT scope, value, reason, note FROM suppressions WHERE organization_id = $1`, [w.orgId]);
    expect(s).toMatchObject({ scope: 'email', value: email, reason: 'unsubscribe' });
    expect(s.note).toContain(out.messageId);
    expect(await enrollment(w.replier.enrollmentId)).toMatchObject({ status: 'stopped', stopped_reason: 'replied' });
    expect((await message(out.messageId)).intent).toBe('unsubscribe');
  });

  test.each([
    ['referral-nl', JAN, { name: 'Pieter Smit', email: 'p.smit@bouwbedrijf-devries.nl' }],
    ['referral-en', EMILY, { name: 'Tom Hughes', email: 'tom.hughes@harbourbuild.co.uk' }],
  ])('%s: the named person becomes a contact of the same company (referral), not enrolled', async (name, email, referral) => {
    const w = await seedReplyWorld(owner, { replierEmail: email });
    const out = stored(await ingest(w, name));
    const m = await message(out.messageId);
    expect(m.intent).toBe('referral');
    expect(m.why.triage.referral).toEqual(referral);
    expect(m.why.triage.summary).toContain('not contacted until a lawful basis is recorded');
    const c = await row(`SELECT id, company_id, full_name, data_source FROM contacts WHERE organization_id = $1 AND email = $2`, [w.orgId, referral.email]);
    expect(c).toMatchObject({ company_id: w.companyId, full_name: referral.name, data_source: 'referral' });
    expect((await row(`SELECT count(*)::int AS n FROM enrollments WHERE contact_id = $1`, [c.id])).n).toBe(0);
    expect((await row(`SELECT count(*)::int AS n FROM lawful_basis_records WHERE contact_id = $1`, [c.id])).n).toBe(0);
  });

  test('meeting request (en, New York): slots in UTC; the draft accepts the first one inside the mailbox window', async () => {
    const w = await seedReplyWorld(owner, { replierEmail: MARK, replierName: 'Mark Reynolds' });
    const out = stored(await ingest(w, 'meeting-en'));
    const m = await message(out.messageId);
    expect(m.intent).toBe('meeting_request');
    expect(m.why.offeredSlots).toEqual([
      { start: '2026-11-24T19:00:00.000Z', end: '2026-11-24T19:30:00.000Z' }, // 20:00 in Amsterdam: after the window
      { start: '2026-11-25T15:30:00.000Z', end: '2026-11-25T16:00:00.000Z' }, // 16:30-17:00 in Amsterdam: inside
    ]);
    const draft = await row(`SELECT * FROM messages WHERE organization_id = $1 AND direction = 'outbound' AND status = 'pending_approval' AND thread_id = $2`, [
      w.orgId,
      w.threadId,
    ]);
    expect(draft).toMatchObject({
      contact_id: w.replier.contactId,
      to_address: MARK,
      subject: 'Re: Scaffolding for the Elm Street project',
      enrollment_id: null,
    });
    expect(draft.body).toContain('Wednesday 25 November at 16:30');
    expect(draft.why).toEqual({
      reply: { inboundMessageId: out.messageId, intent: 'meeting_request', summary: expect.any(String) },
      offeredSlots: [m.why.offeredSlots[1]],
    });
  });

  test('meeting request (nl): the first slot fits, the draft is in Dutch', async () => {
    const w = await seedReplyWorld(owner, { replierEmail: JAN });
    const out = stored(await ingest(w, 'meeting-nl'));
    const m = await message(out.messageId);
    expect(m.why.offeredSlots[0]).toEqual({ start: '2026-11-24T13:00:00.000Z', end: '2026-11-24T13:30:00.000Z' });
    const draft = await row(
      `SELECT body FROM messages WHERE organization_id = $1 AND direction = 'outbound' AND status = 'pending_approval' AND thread_id = $2`,
      [w.orgId, w.threadId],
    );
    expect(draft.body).toContain('dinsdag 24 november om 14:00');
    expect(await enrollment(w.replier.enrollmentId)).toMatchObject({ status: 'stopped' });
  });
});

describe('out of office: a hold, for that contact only', () => {
  test.each([
    // Back Monday 30 November: held until the next business day after it, Tuesday 1 December, 09:00 in Amsterdam.
    ['outlook-ooo-nl', JAN, '2026-12-01T08:00:00.000Z'],
    // Until Wednesday 2 December: Thursday 3 December, 09:00 in Amsterdam.
    ['gmail-ooo-en', EMILY, '2026-12-03T08:00:00.000Z'],
  ])('%s from %s: paused (out_of_office) until %s; the colleague is not paused, the thread stays open', async (name, email, resumeAt) => {
    const w = await seedReplyWorld(owner, { replierEmail: email });
    const out = stored(await ingest(w, name));
    expect(out.changedEnrollmentIds).toEqual([w.replier.enrollmentId]);
    const e = await enrollment(w.replier.enrollmentId);
    expect(e).toMatchObject({ status: 'paused', pause_reason: 'out_of_office' });
    expect(e.resume_at.toISOString()).toBe(resumeAt);
    expect(await enrollment(w.colleague.enrollmentId)).toMatchObject({ status: 'active', pause_reason: null });
    expect((await message(w.replier.draftId)).status).toBe('pending_approval');
    expect(await threadStatus(w.threadId)).toBe('open');
    expect((await message(out.messageId)).intent).toBe('out_of_office');
  });

  test('without a return date: held for the default business days (Thursday 19 November + 5 = Thursday 26 November)', async () => {
    const w = await seedReplyWorld(owner, { replierEmail: JAN });
    const raw = Buffer.from(
      fixture('outlook-ooo-nl')
        .toString('latin1')
        .replace(/ tot en met vrijdag 27 november/g, '')
        .replace(/Vanaf maandag 30 november ben =\r?\nik weer bereikbaar\./, ''),
      'latin1',
    );
    stored(await ingest(w, raw));
    expect((await enrollment(w.replier.enrollmentId)).resume_at.toISOString()).toBe('2026-11-26T08:00:00.000Z');
  });

  test('an auto-reply that is not an out-of-office notice is recorded and changes nothing', async () => {
    const w = await seedReplyWorld(owner, { replierEmail: JAN });
    const raw = Buffer.from(
      fixture('interested-nl').toString('utf8').replace('Subject: Antw:', 'Auto-Submitted: auto-replied\r\nSubject: Ticket ontvangen, antw:'),
    );
    const out = stored(await ingest(w, raw));
    expect(out.changedEnrollmentIds).toEqual([]);
    const m = await message(out.messageId);
    expect(m.intent).toBeNull();
    expect(m.why.triage.summary).toContain('An automatic reply (Auto-Submitted: auto-replied)');
    expect(await enrollment(w.replier.enrollmentId)).toMatchObject({ status: 'active' });
  });
});

describe('delivery reports', () => {
  test('a hard bounce fails the message it names, suppresses the address (bounce), stops the contact', async () => {
    const w = await seedReplyWorld(owner, { replierEmail: 'p.jansen@bouwbedrijf-devries.nl' });
    const out = stored(await ingest(w, 'dsn-hard-bounce'));
    expect(out).toMatchObject({ threadId: w.threadId, contactId: w.replier.contactId });
    expect(await message(w.outboundId)).toMatchObject({ status: 'failed', error: expect.stringContaining('5.1.1') });
    expect(await row(`SELECT scope, value, reason FROM suppressions WHERE organization_id = $1`, [w.orgId])).toEqual({
      scope: 'email',
      value: 'p.jansen@bouwbedrijf-devries.nl',
      reason: 'bounce',
    });
    expect(await enrollment(w.replier.enrollmentId)).toMatchObject({ status: 'stopped', stopped_reason: 'bounced' });
    expect(await enrollment(w.colleague.enrollmentId)).toMatchObject({ status: 'active' });
    expect((await message(out.messageId)).intent).toBeNull();
    expect((await message(w.outboundId)).bounced_at).toBeInstanceOf(Date);
  });

  const count = async (sql: string, values: unknown[]) => (await row(sql, values)).n as number;
  const suppressionsOf = (orgId: string) =>
    owner.query(`SELECT scope, value, reason FROM suppressions WHERE organization_id = $1 ORDER BY value`, [orgId]).then((r) => r.rows);

  test('a forwarded address bounced: the address we wrote to is suppressed, not the Final-Recipient (review A3)', async () => {
    const w = await seedReplyWorld(owner, { replierEmail: JAN });
    stored(await ingest(w, dsnMail({ originalMessageId: OUTBOUND_MESSAGE_ID, finalRecipient: 'jan.forward@gmail.example' })));
    expect(await suppressionsOf(w.orgId)).toEqual([{ scope: 'email', value: JAN, reason: 'bounce' }]);
    expect(await message(w.outboundId)).toMatchObject({ status: 'failed', bounced_at: expect.any(Date) });
    expect(await enrollment(w.replier.enrollmentId)).toMatchObject({ status: 'stopped', stopped_reason: 'bounced' });
  });

  test.each([
    ['an unknown original', '<not-ours-123@elsewhere.example>'],
    ['no original at all', null],
  ])('a forged DSN naming a contact with %s changes nothing: recorded only (review A3)', async (_what, original) => {
    const w = await seedReplyWorld(owner, { replierEmail: JAN });
    const out = stored(await ingest(w, dsnMail({ from: 'postmaster@competitor.example', originalMessageId: original, finalRecipient: JAN })));
    expect(out).toMatchObject({ contactId: null, threadId: null, changedEnrollmentIds: [] });
    expect(await suppressionsOf(w.orgId)).toEqual([]);
    expect(await enrollment(w.replier.enrollmentId)).toMatchObject({ status: 'active' });
    expect(await message(w.outboundId)).toMatchObject({ status: 'sent', bounced_at: null });
    expect((await message(out.messageId)).why.triage.summary).toContain('names no message we sent: recorded only');
  });

  test('an ARF abuse report on our message: never a reply; the address we wrote to is suppressed (complaint), the contact stopped, the message marked (review A3)', async () => {
    const w = await seedReplyWorld(owner, { replierEmail: JAN });
    const out = stored(await ingest(w, arfMail({ originalMessageId: OUTBOUND_MESSAGE_ID })));
    expect(out).toMatchObject({ contactId: w.replier.contactId, changedEnrollmentIds: [w.replier.enrollmentId] });
    expect(await suppressionsOf(w.orgId)).toEqual([{ scope: 'email', value: JAN, reason: 'complaint' }]);
    expect(await enrollment(w.replier.enrollmentId)).toMatchObject({ status: 'stopped', stopped_reason: 'complaint' });
    // Not a reply: the colleague is not paused, the thread is not replied, no intent.
    expect(await enrollment(w.colleague.enrollmentId)).toMatchObject({ status: 'active' });
    expect(await threadStatus(w.threadId)).toBe('open');
    expect(await message(out.messageId)).toMatchObject({ intent: null });
    expect(await message(w.outboundId)).toMatchObject({ status: 'sent', complained_at: expect.any(Date), bounced_at: null });
  });

  test('a matched ARF complaint counts against the mailbox that sent it: over its complaint limit it pauses (complaint_rate)', async () => {
    const w = await seedReplyWorld(owner, { replierEmail: JAN });
    // One send in the last seven days, and a sample of one: a single complaint is over the limit.
    await owner.query(`UPDATE messages SET sent_at = now() - interval '1 hour' WHERE id = $1`, [w.outboundId]);
    await owner.query(`UPDATE mailboxes SET min_sample = 1 WHERE id = $1`, [w.mailboxId]);
    stored(
      await ingest(
        w,
        arfMail({
          originalMessageId: OUTBOUND_MESSAGE_ID,
          authenticationResults: 'mx.example-sender.nl; dkim=pass header.d=yahoo.com header.s=s2048; spf=pass',
        }),
      ),
    );
    expect(await row(`SELECT status, paused_reason FROM mailboxes WHERE id = $1`, [w.mailboxId])).toEqual({
      status: 'paused',
      paused_reason: 'complaint_rate',
    });
  });

  test('a report any recipient could forge (no DKIM that passed for a known loop) suppresses the address but never pauses the mailbox', async () => {
    const w = await seedReplyWorld(owner, { replierEmail: JAN });
    await owner.query(`UPDATE messages SET sent_at = now() - interval '1 hour' WHERE id = $1`, [w.outboundId]);
    await owner.query(`UPDATE mailboxes SET min_sample = 1 WHERE id = $1`, [w.mailboxId]);
    stored(await ingest(w, arfMail({ originalMessageId: OUTBOUND_MESSAGE_ID, authenticationResults: 'mx.example-sender.nl; dkim=fail header.d=yahoo.com' })));
    expect(await suppressionsOf(w.orgId)).toEqual([{ scope: 'email', value: JAN, reason: 'complaint' }]);
    expect(await row(`SELECT status, paused_reason FROM mailboxes WHERE id = $1`, [w.mailboxId])).toEqual({ status: 'active', paused_reason: null });
  });

  test.each([
    ['not configured: suppressed, the mailbox stays active', [], 'active'],
    ["configured by the organization ('@domain'): it counts and pauses", ['@fbl.isp-regional.example'], 'paused'],
  ])("a structured complaint from a regional ISP's own feedback loop, DKIM-signed by it, %s", async (_what, senders, status) => {
    const w = await seedReplyWorld(owner, { replierEmail: JAN });
    await owner.query(`UPDATE messages SET sent_at = now() - interval '1 hour' WHERE id = $1`, [w.outboundId]);
    await owner.query(`UPDATE mailboxes SET min_sample = 1 WHERE id = $1`, [w.mailboxId]);
    await owner.query(
      `INSERT INTO compliance_settings (organization_id, feedback_loop_senders) VALUES ($1, $2) ON CONFLICT (organization_id) DO UPDATE SET feedback_loop_senders = EXCLUDED.feedback_loop_senders`,
      [w.orgId, senders],
    );
    const report = arfMail({
      originalMessageId: OUTBOUND_MESSAGE_ID,
      from: 'ISP Feedback Loop <fbl-reports@fbl.isp-regional.example>',
      authenticationResults: 'mx.example-sender.nl; dkim=pass header.d=fbl.isp-regional.example header.s=k1; spf=pass',
    });
    stored(await ingest(w, report));
    expect(await suppressionsOf(w.orgId)).toEqual([{ scope: 'email', value: JAN, reason: 'complaint' }]);
    expect(await row(`SELECT status FROM mailboxes WHERE id = $1`, [w.mailboxId])).toEqual({ status });
  });

  test('an ARF report naming no message we sent changes nothing (its footer "unsubscribe" is no request)', async () => {
    const w = await seedReplyWorld(owner, { replierEmail: JAN });
    const out = stored(await ingest(w, arfMail({ originalMessageId: '<other@elsewhere.example>', originalRcptTo: JAN })));
    expect(out.changedEnrollmentIds).toEqual([]);
    expect(await count(`SELECT count(*)::int AS n FROM suppressions WHERE organization_id = $1`, [w.orgId])).toBe(0);
    expect(await message(w.outboundId)).toMatchObject({ complained_at: null });
  });

  test('a delay warning is recorded: nothing failed, nothing suppressed', async () => {
    const w = await seedReplyWorld(owner, { replierEmail: 'p.jansen@bouwbedrijf-devries.nl' });
    const out = stored(await ingest(w, 'dsn-soft-bounce'));
    expect(out.changedEnrollmentIds).toEqual([]);
    expect((await message(w.outboundId)).status).toBe('sent');
    expect((await row(`SELECT count(*)::int AS n FROM suppressions WHERE organization_id = $1`, [w.orgId])).n).toBe(0);
    expect((await message(out.messageId)).why.triage.summary).toContain('Soft bounce (mailbox_full, 4.2.2)');
  });

  test('three soft bounces of one address within 30 days suppress it (bounce); two do not', async () => {
    const w = await seedReplyWorld(owner, { replierEmail: JAN });
    const ids = [OUTBOUND_MESSAGE_ID];
    for (const n of [2, 3]) {
      const id = `<soft-${n}-${randomUUID()}@example-sender.nl>`;
      await owner.query(
        `INSERT INTO messages (organization_id, mailbox_id, contact_id, enrollment_id, direction, channel, status, subject, body, to_address, provider_message_id, sent_at)
         SELECT organization_id, mailbox_id, contact_id, enrollment_id, direction, channel, 'sent', subject, body, to_address, $2, now() FROM messages WHERE id = $1`,
        [w.outboundId, id],
      );
      ids.push(id);
    }
    const full = (id: string) =>
      dsnMail({
        from: 'MAILER-DAEMON@mx.bouwbedrijf-devries.nl',
        originalMessageId: id,
        finalRecipient: JAN,
        status: '5.2.2',
        diagnostic: 'smtp; 552 5.2.2 Mailbox full',
      });
    stored(await ingest(w, full(ids[0]!)));
    stored(await ingest(w, full(ids[1]!)));
    expect(await suppressionsOf(w.orgId)).toEqual([]);
    stored(await ingest(w, full(ids[2]!)));
    expect(await suppressionsOf(w.orgId)).toEqual([{ scope: 'email', value: JAN, reason: 'bounce' }]);
  });

  test('a soft bounce that refuses the sender counts as a block: over the block rate the mailbox pauses (block_rate)', async () => {
    const w = await seedReplyWorld(owner, { replierEmail: JAN });
    await owner.query(`UPDATE messages SET sent_at = now() - interval '1 hour' WHERE id = $1`, [w.outboundId]);
    await owner.query(`UPDATE mailboxes SET min_sample = 1 WHERE id = $1`, [w.mailboxId]);
    stored(
      await ingest(
        w,
        dsnMail({
          from: 'MAILER-DAEMON@mx.bouwbedrijf-devries.nl',
          originalMessageId: OUTBOUND_MESSAGE_ID,
          finalRecipient: JAN,
          status: '5.7.1',
          diagnostic: 'smtp; 550 5.7.1 Client host blocked using a block list',
        }),
      ),
    );
    expect(await row(`SELECT status, paused_reason FROM mailboxes WHERE id = $1`, [w.mailboxId])).toEqual({ status: 'paused', paused_reason: 'block_rate' });
    expect(await suppressionsOf(w.orgId)).toEqual([]);
  });

  test('a soft bounce fails the message with its reason; the address stays usable and the contact is not stopped', async () => {
    const w = await seedReplyWorld(owner, { replierEmail: JAN });
    const out = stored(
      await ingest(
        w,
        dsnMail({
          from: 'MAILER-DAEMON@mx.bouwbedrijf-devries.nl',
          originalMessageId: OUTBOUND_MESSAGE_ID,
          finalRecipient: JAN,
          status: '5.2.2',
          diagnostic: 'smtp; 552 5.2.2 Mailbox full',
        }),
      ),
    );
    expect(out.changedEnrollmentIds).toEqual([]);
    expect(await message(w.outboundId)).toMatchObject({ status: 'failed', bounced_at: null, error: expect.stringContaining('soft bounce (mailbox_full)') });
    expect(await suppressionsOf(w.orgId)).toEqual([]);
    expect(await enrollment(w.replier.enrollmentId)).toMatchObject({ status: 'active' });
  });
});

describe('unsubscribe covers the address we wrote to (review A4) and the account pause covers out-of-office colleagues (review m2)', () => {
  test('a reply from another address: the sender, the address we wrote to and the contact are suppressed', async () => {
    const w = await seedReplyWorld(owner, { replierEmail: 'info@bouwbedrijf-devries.nl' });
    await owner.query(`UPDATE contacts SET email = 'j.devries@bouwbedrijf-devries.nl' WHERE id = $1`, [w.replier.contactId]);
    stored(await ingest(w, replyMail({ from: 'Jan <jan@bouwbedrijf-devries.nl>', inReplyTo: OUTBOUND_MESSAGE_ID, body: 'Haal ons van de lijst a.u.b.' })));
    const rows = (await owner.query(`SELECT value, reason FROM suppressions WHERE organization_id = $1 ORDER BY value`, [w.orgId])).rows;
    expect(rows).toEqual([
      { value: 'info@bouwbedrijf-devries.nl', reason: 'unsubscribe' },
      { value: 'j.devries@bouwbedrijf-devries.nl', reason: 'unsubscribe' },
      { value: 'jan@bouwbedrijf-devries.nl', reason: 'unsubscribe' },
    ]);
  });

  test('the advertised List-Unsubscribe mailto: subject "unsubscribe", empty body, Auto-Submitted: an unsubscribe', async () => {
    const w = await seedReplyWorld(owner, { replierEmail: JAN });
    const out = stored(await ingest(w, replyMail({ from: JAN, subject: 'unsubscribe', body: '', headers: ['Auto-Submitted: auto-generated'] })));
    expect(await message(out.messageId)).toMatchObject({ intent: 'unsubscribe' });
    expect(await row(`SELECT value, reason FROM suppressions WHERE organization_id = $1`, [w.orgId])).toEqual({ value: JAN, reason: 'unsubscribe' });
    expect(await enrollment(w.replier.enrollmentId)).toMatchObject({ status: 'stopped' });
  });

  test('a colleague paused out_of_office now waits for a person (account_replied, no resume_at)', async () => {
    const w = await seedReplyWorld(owner, { replierEmail: EMILY });
    await owner.query(`UPDATE enrollments SET status = 'paused', pause_reason = 'out_of_office', resume_at = now() + interval '3 days' WHERE id = $1`, [
      w.colleague.enrollmentId,
    ]);
    const out = stored(await ingest(w, 'reply-quoted-en'));
    expect(out.changedEnrollmentIds).toContain(w.colleague.enrollmentId);
    expect(await enrollment(w.colleague.enrollmentId)).toMatchObject({ status: 'paused', pause_reason: 'account_replied', resume_at: null });
  });
});

describe('the parse thread and its time budget (review A1, A2)', () => {
  test('a message over the budget is kept unprocessed with its error; the thread starts again and the next message is processed', async () => {
    const w = await seedReplyWorld(owner, { replierEmail: JAN });
    const tight = new ParsePool(1); // 1 ms: no message is parsed in time
    try {
      const run: Transact = (fn) => asOrganization(db, w.orgId, fn);
      const out = await ingestInbound(
        run,
        new RulesReplyClassifier(),
        { organizationId: w.orgId, mailboxId: w.mailboxId, raw: fixture('unsubscribe-nl') },
        { pool: tight },
      );
      expect(out).toMatchObject({ unprocessed: true, error: expect.stringContaining('took longer than 1 ms') });
      expect(await message(out.messageId)).toMatchObject({ processing_error: expect.stringContaining('took longer than 1 ms'), intent: null });
      expect(await enrollment(w.replier.enrollmentId)).toMatchObject({ status: 'active' });
      // A pool with room: the retry processes it (the "stop" is honoured).
      const retried = await retryUnprocessed(
        run,
        new RulesReplyClassifier(),
        { organizationId: w.orgId, mailboxId: w.mailboxId, limit: 3 },
        { pool: new ParsePool(30_000) },
      );
      expect(retried).toMatchObject({ tried: 1, processed: 1 });
      expect(await enrollment(w.replier.enrollmentId)).toMatchObject({ status: 'stopped', stopped_reason: 'replied' });
      expect(await row(`SELECT reason FROM suppressions WHERE organization_id = $1 AND value = $2`, [w.orgId, JAN])).toEqual({ reason: 'unsubscribe' });
    } finally {
      await tight.close();
    }
  });
});

describe('threading', () => {
  test('without In-Reply-To: by the contact address and the normalized subject', async () => {
    const w = await seedReplyWorld(owner, { replierEmail: JAN });
    const out = stored(await ingest(w, 'no-in-reply-to-nl'));
    expect(out).toMatchObject({ threadId: w.threadId, contactId: w.replier.contactId });
    expect((await message(out.messageId)).in_reply_to).toBeNull();
    expect(await threadStatus(w.threadId)).toBe('replied');
  });

  test('a known address with another subject: kept with its contact, no thread; an unknown address: kept unmatched', async () => {
    const w = await seedReplyWorld(owner, { replierEmail: JAN });
    const other = Buffer.from(fixture('no-in-reply-to-nl').toString('utf8').replace('Subject: Re: Uw aanvraag', 'Subject: Iets anders dan uw aanvraag'));
    expect(stored(await ingest(w, other))).toMatchObject({ threadId: null, contactId: w.replier.contactId });
    const stranger = Buffer.from(
      fixture('interested-nl')
        .toString('utf8')
        .replace(/jan\.devries@bouwbedrijf-devries\.nl/g, 'iemand@elders.nl')
        .replace(/^In-Reply-To:.*\r?\nReferences:.*\r?\n/m, ''),
    );
    const out = stored(await ingest(w, stranger));
    expect(out).toMatchObject({ threadId: null, contactId: null, changedEnrollmentIds: [] });
    expect(await message(out.messageId)).toMatchObject({ direction: 'inbound', from_address: 'iemand@elders.nl', intent: 'interested' });
  });
});

describe('a model behind an OpenAI-compatible endpoint', () => {
  let chat: ChatServer;
  beforeAll(async () => (chat = await startChatServer('reply-model-1')));
  afterAll(() => chat.close());

  test('its intent (zod-validated) with the prompt key/version; the rules still read the times', async () => {
    const w = await seedReplyWorld(owner, { replierEmail: MARK, replierName: 'Mark Reynolds' });
    chat.reply(JSON.stringify({ intent: 'meeting_request', confidence: 0.93, summary: 'Wants a call on Tuesday or Wednesday.', referral: null }));
    const out = stored(await ingest(w, 'meeting-en', { classifier: new OpenAiCompatibleReplyClassifier({ baseUrl: chat.baseUrl, model: 'reply-model-1' }) }));
    const m = await message(out.messageId);
    expect(m).toMatchObject({ intent: 'meeting_request', model: 'reply-model-1', prompt_version: 'reply-intent@1' });
    expect(Number(m.confidence)).toBe(0.93);
    expect(m.why.reply.summary).toBe('Wants a call on Tuesday or Wednesday.');
    expect(m.why.offeredSlots).toHaveLength(2);
    expect(chat.requests.at(-1)!.body.messages[1].content).toContain('Could we schedule a call');
    expect(chat.requests.at(-1)!.body.messages[1].content).not.toContain('would a short call next week be useful');
  });

  test.each([
    ['output that is not the schema', JSON.stringify({ intent: 'maybe', confidence: 2 }), /does not match the schema/],
    ['a 4xx (a content filter)', { status: 400, body: { error: { message: 'content filter' } } }, /HTTP 400/],
  ])('%s: the rules classify the reply and it is acted on (review A2)', async (_what, answer, why) => {
    const w = await seedReplyWorld(owner, { replierEmail: JAN });
    chat.reply(answer);
    const out = stored(
      await ingest(w, 'unsubscribe-nl', { classifier: new OpenAiCompatibleReplyClassifier({ baseUrl: chat.baseUrl, model: 'reply-model-1' }) }),
    );
    const m = await message(out.messageId);
    expect(m).toMatchObject({ intent: 'unsubscribe', model: 'rules', processing_error: null });
    expect(m.why.triage.summary).toMatch(why);
    expect(await row(`SELECT reason FROM suppressions WHERE organization_id = $1 AND value = $2`, [w.orgId, JAN])).toEqual({ reason: 'unsubscribe' });
    expect(await enrollment(w.replier.enrollmentId)).toMatchObject({ status: 'stopped', stopped_reason: 'replied' });
  });

  test('a model that is away (5xx): the message is kept unprocessed with its error and processed by a retry', async () => {
    const w = await seedReplyWorld(owner, { replierEmail: JAN });
    const classifier = new OpenAiCompatibleReplyClassifier({ baseUrl: chat.baseUrl, model: 'reply-model-1' });
    chat.reply({ status: 503 });
    const out = await ingest(w, 'unsubscribe-nl', { classifier });
    expect(out).toMatchObject({ duplicate: false, unprocessed: true, error: expect.stringContaining('HTTP 503') });
    const kept = await message(out.messageId);
    expect(kept).toMatchObject({ direction: 'inbound', status: 'received', processing_error: expect.stringContaining('HTTP 503'), intent: null });
    expect(kept.inbound_source).toEqual(fixture('unsubscribe-nl'));
    expect(await enrollment(w.replier.enrollmentId)).toMatchObject({ status: 'active' });
    // The same message again while unprocessed: stored once.
    expect(await ingest(w, 'unsubscribe-nl', { classifier })).toEqual({ duplicate: true, messageId: out.messageId });

    chat.reply(JSON.stringify({ intent: 'unsubscribe', confidence: 0.97, summary: 'Asks to be removed.', referral: null }));
    const retried = await retryUnprocessed((fn) => asOrganization(db, w.orgId, fn), classifier, { organizationId: w.orgId, mailboxId: w.mailboxId, limit: 3 });
    expect(retried).toMatchObject({ tried: 1, processed: 1 });
    expect(await message(out.messageId)).toBeUndefined();
    const rows = (
      await owner.query(`SELECT intent, processing_error, inbound_source FROM messages WHERE organization_id = $1 AND direction = 'inbound'`, [w.orgId])
    ).rows;
    expect(rows).toEqual([{ intent: 'unsubscribe', processing_error: null, inbound_source: null }]);
    expect(await enrollment(w.replier.enrollmentId)).toMatchObject({ status: 'stopped', stopped_reason: 'replied' });
  });
});

describe('events out: reply.received only for a person in one of our threads', () => {
  test('a bounce raises message.failed, a complaint suppression.created; an auto-reply, a report and mail of no thread raise nothing; a reply in the thread raises reply.received', async () => {
    const w = await seedReplyWorld(owner, { replierEmail: JAN });
    await owner.query(
      `INSERT INTO webhook_endpoints (organization_id, url, events, secret_ciphertext, created_by, enabled) VALUES ($1, 'http://127.0.0.1:9/x', '{*}', '\\x00', gen_random_uuid(), true)`,
      [w.orgId],
    );
    const types = async () =>
      (await owner.query(`SELECT type FROM webhook_events WHERE organization_id = $1`, [w.orgId])).rows.map((r: { type: string }) => r.type).sort();
    stored(await ingest(w, dsnMail({ originalMessageId: OUTBOUND_MESSAGE_ID, finalRecipient: JAN })));
    stored(await ingest(w, arfMail({ originalMessageId: OUTBOUND_MESSAGE_ID })));
    stored(
      await ingest(
        w,
        replyMail({
          from: `Jan <${JAN}>`,
          inReplyTo: OUTBOUND_MESSAGE_ID,
          subject: 'Ontvangstbevestiging: Uw aanvraag',
          headers: ['Auto-Submitted: auto-replied'],
          body: 'We hebben uw bericht ontvangen en nemen binnen twee werkdagen contact op.',
        }),
      ),
    );
    stored(
      await ingest(
        w,
        replyMail({ from: 'Iemand <iemand@elders.example>', inReplyTo: null, subject: 'Vraag over uw diensten', body: 'Wat kost een warmtepomp?' }),
      ),
    );
    expect(await types()).not.toContain('reply.received');
    expect(await types()).toEqual(expect.arrayContaining(['message.failed', 'suppression.created']));
    stored(await ingest(w, replyMail({ from: `Jan <${JAN}>`, inReplyTo: OUTBOUND_MESSAGE_ID, body: 'Interessant, bel me volgende week maar.' })));
    expect((await types()).filter((t) => t === 'reply.received')).toHaveLength(1);
  });
});
