import { randomUUID } from 'node:crypto';
import { recordPromptEval } from '../../db/queries/prompt-evals';
import { asUser } from '../../db/tenancy';
import { addMember, expectProblem, newOrganization } from '../helpers/api';
import type { TestUser } from '../helpers/tokens';
import { useStack } from '../helpers/stack';

/**
 * Outreach analytics and the learning loop on seeded organizations: every expected figure below is
 * counted by hand from the rows the test writes (inside and outside the window), then compared with
 * GET /analytics/outreach; the suggestions move with recorded outcomes and change nothing until an
 * admin applies one with PATCH /settings/scoring.
 */

const { api, owners } = useStack({ api: true, owners: true });
let owner: TestUser;
let orgId: string;
let other: { owner: TestUser; orgId: string };

beforeAll(async () => {
  ({ owner, orgId } = await newOrganization(api, 'Analyse Installaties B.V.'));
  other = await newOrganization(api, 'Andere Tenant B.V.');
});

const call = (method: string, path: string, body?: unknown, token = owner.token) => api.call(method, path, { token, body });

/** One INSERT as the owner (bypassing RLS: seeding only), answering the new row's id. */
async function insert(table: string, row: Record<string, unknown>): Promise<string> {
  const cols = Object.keys(row);
  const values = cols.map((c) => row[c]);
  const placeholders = cols.map((c, i) => (typeof row[c] === 'string' && /^now\(\)/.test(row[c] as string) ? `${row[c]}` : `$${i + 1}`));
  const used = values.filter((_, i) => placeholders[i]!.startsWith('$'));
  // Renumber the parameters that remain after inlining the now()-expressions.
  let n = 0;
  const sqlValues = placeholders.map((p) => (p.startsWith('$') ? `$${++n}` : p));
  const { rows } = await owners.query(`INSERT INTO ${table} (${cols.join(', ')}) VALUES (${sqlValues.join(', ')}) RETURNING id`, used);
  return rows[0].id;
}
const ago = (days: number) => `now() - interval '${days} days'`;

async function source(org: string, name: string, provider = 'rss') {
  return insert('sources', { organization_id: org, provider_key: provider, name });
}
async function signal(org: string, sourceId: string, daysAgo: number) {
  const key = randomUUID();
  return insert('signals', {
    organization_id: org,
    source_id: sourceId,
    external_id: key,
    dedupe_key: key,
    title: `Signaal ${key.slice(0, 6)}`,
    created_at: ago(daysAgo),
  });
}
async function opportunity(org: string, signalId: string, outcome: 'open' | 'won' | 'lost' = 'open', value: number | null = null) {
  return insert('opportunities', {
    organization_id: org,
    created_from_signal_id: signalId,
    outcome,
    outcome_value: value,
    status: outcome === 'open' ? 'ready' : 'closed',
  });
}
async function meeting(org: string, opportunityId: string, status: 'proposed' | 'completed' | 'no_show' | 'cancelled') {
  return insert('meetings', { organization_id: org, opportunity_id: opportunityId, title: 'Kennismaking', starts_at: ago(1), ends_at: ago(1), status });
}

describe('GET /analytics/outreach on a seeded organization', () => {
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    // Sources and signals: four of S1 and two of S2 in the window (2 days old), one of each outside (45 days).
    ids.s1 = await source(orgId, 'Bekendmakingen Utrecht', 'bekendmakingen');
    ids.s2 = await source(orgId, 'Bouwnieuws RSS');
    ids.s3 = await source(orgId, 'Lege bron');
    const [a1, a2, a3, a4, a5] = [
      await signal(orgId, ids.s1, 2),
      await signal(orgId, ids.s1, 2),
      await signal(orgId, ids.s1, 2),
      await signal(orgId, ids.s1, 2),
      await signal(orgId, ids.s1, 45),
    ];
    const [b1, b2, b3] = [await signal(orgId, ids.s2, 2), await signal(orgId, ids.s2, 2), await signal(orgId, ids.s2, 45)];
    void a4;
    void b3;
    // Opportunities, outcomes and meetings.
    const oa1 = await opportunity(orgId, a1!, 'won', 120_000);
    await meeting(orgId, oa1, 'completed');
    const oa2 = await opportunity(orgId, a2!, 'won', 30_000.5);
    const oa3 = await opportunity(orgId, a3!, 'lost');
    await meeting(orgId, oa3, 'no_show');
    const oa5 = await opportunity(orgId, a5!, 'won', 999_999);
    await meeting(orgId, oa5, 'completed');
    const ob1 = await opportunity(orgId, b1!);
    await meeting(orgId, ob1, 'proposed');
    const ob2 = await opportunity(orgId, b2!);
    await meeting(orgId, ob2, 'cancelled');

    // A meeting booked through a link: it names only the enrollment, whose campaign is on oa2.
    const company0 = await insert('companies', { organization_id: orgId, name: 'Link B.V.', normalized_name: 'link' });
    const contact0 = await insert('contacts', { organization_id: orgId, company_id: company0, full_name: 'Els Link' });
    const campaign = await insert('campaigns', { organization_id: orgId, name: 'Campagne', status: 'active', opportunity_id: oa2 });
    const sequence = await insert('sequences', { organization_id: orgId, campaign_id: campaign, name: 'Reeks' });
    const enrollment = await insert('enrollments', { organization_id: orgId, campaign_id: campaign, sequence_id: sequence, contact_id: contact0 });
    await insert('meetings', {
      organization_id: orgId,
      enrollment_id: enrollment,
      title: 'Via link',
      starts_at: ago(1),
      ends_at: ago(1),
      status: 'completed',
      booked_via: 'link',
    });

    // The other tenant: a source with signals and a won deal, never in this organization's answer.
    const os = await source(other.orgId, 'Andere bron');
    await opportunity(other.orgId, await signal(other.orgId, os, 1), 'won', 5);

    // Mailboxes and health checks (M1: an old failing check, then a passing one; M2: none).
    ids.m1 = await insert('mailboxes', { organization_id: orgId, address: 'a@acme.nl', domain: 'acme.nl', holiday_country: 'NL' });
    ids.m2 = await insert('mailboxes', { organization_id: orgId, address: 'b@acme.nl', domain: 'acme.nl', holiday_country: 'NL' });
    const check = { organization_id: orgId, mailbox_id: ids.m1, domain: 'acme.nl', spf: '{}', dkim: '{}', dmarc: '{}', mx: '{}' };
    await insert('mailbox_health_checks', { ...check, score: 40, sendable: false, created_at: ago(3) });
    await insert('mailbox_health_checks', { ...check, score: 92, sendable: true, created_at: `now() - interval '1 hour'` });

    // A contact and two threads for the replies.
    const company = await insert('companies', { organization_id: orgId, name: 'Bouw B.V.', normalized_name: 'bouw' });
    const contact = await insert('contacts', { organization_id: orgId, company_id: company, full_name: 'Jan Bouw' });
    const t1 = await insert('threads', { organization_id: orgId, contact_id: contact, mailbox_id: ids.m1 });
    const t2 = await insert('threads', { organization_id: orgId, contact_id: contact, mailbox_id: ids.m2 });

    // Model drafts written yesterday (d1..d10), one 40 days ago (d0), a phone task; e-mails no model wrote (rm1, rm2, bd*).
    const out = (over: Record<string, unknown>) =>
      insert('messages', {
        organization_id: orgId,
        direction: 'outbound',
        channel: 'email',
        created_at: ago(1),
        updated_at: ago(1),
        model: 'gpt-4o-mini',
        ...over,
      });
    const approved = { approved_at: ago(1) };
    ids.d1 = await out({
      mailbox_id: ids.m1,
      thread_id: t1,
      status: 'sent',
      sent_at: ago(1),
      prompt_version: 'v1',
      ...approved,
      original_body: 'Beste Jan, groet',
      body: 'Beste Jan, groeten',
    });
    ids.d2 = await out({ mailbox_id: ids.m1, status: 'sent', sent_at: ago(1), prompt_version: 'v1', ...approved, original_body: 'Zelfde', body: 'Zelfde' });
    ids.d3 = await out({ mailbox_id: ids.m1, status: 'sent', sent_at: ago(1), prompt_version: 'v2', ...approved, original_body: null, body: 'Met de hand' });
    ids.d4 = await out({
      mailbox_id: ids.m1,
      status: 'failed',
      sent_at: null,
      error: 'SMTP RCPT TO refused: 550 5.1.1 <jan@bouw.example>: no such user',
      prompt_version: 'v1',
      ...approved,
      original_body: 'abc',
      body: 'abd',
    });
    ids.d5 = await out({
      mailbox_id: ids.m2,
      thread_id: t2,
      status: 'sent',
      sent_at: ago(1),
      prompt_version: 'v2',
      ...approved,
      original_body: 'Goed',
      body: 'Goed',
    });
    ids.d6 = await out({
      mailbox_id: ids.m2,
      status: 'failed',
      sent_at: ago(2),
      error: 'bounced: 5.1.1 smtp; 550 5.1.1 user unknown',
      prompt_version: 'v2',
      ...approved,
      original_body: 'Hallo',
      body: 'Hallo!',
    });
    ids.d7 = await out({ status: 'rejected', prompt_version: 'v1', original_body: 'Nee', body: 'Nee' });
    ids.d8 = await out({ status: 'rejected', prompt_version: 'v2', original_body: 'Nee', body: 'Nee' });
    ids.d9 = await out({ status: 'pending_approval', prompt_version: 'v2', original_body: 'Later', body: 'Later' });
    ids.d10 = await out({ status: 'approved', prompt_version: 'v1', ...approved, original_body: 'x', body: 'y' });
    ids.d0 = await out({
      mailbox_id: ids.m1,
      status: 'sent',
      sent_at: ago(40),
      created_at: ago(40),
      updated_at: ago(40),
      prompt_version: 'v1',
      approved_at: ago(40),
      original_body: 'oud',
      body: 'ouder',
    });
    await out({ channel: 'phone', status: 'task_open', prompt_version: 'v1' });
    // Not drafts (no model): a meeting reminder that failed on the server's 535 (not a bounce), one that was
    // sent, and two sent around the 30-day edge: 29 days 23 hours ago (in) and 30 days 1 hour ago (out).
    await out({ model: null, mailbox_id: ids.m1, status: 'failed', error: 'SMTP AUTH refused: 535 5.7.8 authentication failed', ...approved });
    await out({ model: null, mailbox_id: ids.m2, status: 'sent', sent_at: ago(1), ...approved, body: 'Herinnering' });
    await out({ model: null, mailbox_id: ids.m2, status: 'sent', sent_at: `now() - interval '29 days 23 hours'`, created_at: ago(31), ...approved });
    await out({ model: null, mailbox_id: ids.m2, status: 'sent', sent_at: `now() - interval '30 days 1 hour'`, created_at: ago(31), ...approved });

    // Replies: r1, r2 (an out-of-office: a reply intent, not a reply) on thread T1 (after d1, v1), r4 on T2
    // (after d5, v2), r3 too old; around the edge, one received 29 days 23 hours ago (in) and one 30 days 1 hour
    // ago (out), stored now. Not replies: a delivery report and an automatic reply (no intent), a stranger's
    // mail (no contact), and history read on the first poll (stored now, received 400 days ago).
    const reply = (over: Record<string, unknown>) =>
      insert('messages', {
        organization_id: orgId,
        direction: 'inbound',
        status: 'received',
        contact_id: contact,
        created_at: `now() - interval '12 hours'`,
        internet_message_id: `<${randomUUID()}@mail.bouw.example>`,
        ...over,
      });
    await reply({ mailbox_id: ids.m1, thread_id: t1, intent: 'interested' });
    await reply({ thread_id: t1, intent: 'out_of_office' }); // no mailbox of its own: the thread's
    await reply({ mailbox_id: ids.m2, thread_id: t2, intent: 'meeting_request' });
    await reply({ mailbox_id: ids.m1, thread_id: t1, intent: 'interested', created_at: ago(40) });
    await reply({ mailbox_id: ids.m2, thread_id: t2, intent: 'interested', received_at: `now() - interval '29 days 23 hours'` });
    await reply({ mailbox_id: ids.m2, thread_id: t2, intent: 'not_interested', received_at: `now() - interval '30 days 1 hour'` });
    await reply({ mailbox_id: ids.m2, intent: null, from_address: 'MAILER-DAEMON@mx.bouw.example', subject: 'Undelivered Mail Returned to Sender' });
    await reply({ mailbox_id: ids.m1, thread_id: t1, intent: null, subject: 'Automatic reply: ontvangen' });
    await reply({ mailbox_id: ids.m2, contact_id: null, intent: 'interested', from_address: 'nieuwsbrief@leverancier.example' });
    await reply({ mailbox_id: ids.m1, thread_id: t1, intent: 'not_interested', received_at: ago(400) });

    // The other tenant, in every section: a mailbox with a sent e-mail, a bounce and replies, drafts and an eval.
    const om = await insert('mailboxes', { organization_id: other.orgId, address: 'x@ander.nl', domain: 'ander.nl', holiday_country: 'NL' });
    const oc = await insert('contacts', {
      organization_id: other.orgId,
      company_id: await insert('companies', { organization_id: other.orgId, name: 'Ander', normalized_name: 'ander' }),
      full_name: 'Ander',
    });
    const otherOut = (over: Record<string, unknown>) =>
      insert('messages', {
        organization_id: other.orgId,
        direction: 'outbound',
        channel: 'email',
        mailbox_id: om,
        model: 'gpt-4o-mini',
        prompt_version: 'v1',
        approved_at: ago(1),
        created_at: ago(1),
        ...over,
      });
    const od = await otherOut({ status: 'sent', sent_at: ago(1), original_body: 'a', body: 'b' });
    await otherOut({ status: 'failed', error: 'bounced: 5.1.1', original_body: 'a', body: 'a' });
    await otherOut({ status: 'rejected', approved_at: null, prompt_version: 'v2' });
    await insert('messages', {
      organization_id: other.orgId,
      direction: 'inbound',
      status: 'received',
      mailbox_id: om,
      contact_id: oc,
      intent: 'interested',
      internet_message_id: `<${randomUUID()}@x>`,
    });
    await insert('prompt_evals', { organization_id: other.orgId, message_id: od, prompt_key: 'draft_email', prompt_version: 'v1', score: 0.1, detail: '{}' });
  });

  test('window 30: the hand-counted figures', async () => {
    const res = await call('GET', `/analytics/outreach?organizationId=${orgId}&window=30`);
    expect(res.status).toBe(200);
    expect(res.body.window_days).toBe(30);
    // S1: four signals; three opportunities (a1 won 120 000 with a completed meeting, a2 won 30 000.50
    // with a meeting booked through its campaign's link, a3 lost after a no-show); two meetings (the
    // no-show does not count); won 2. a5 is 45 days old.
    // S2: two signals, two opportunities, one booked meeting (the other was cancelled). S3: nothing.
    expect(res.body.attribution).toEqual([
      { source_id: ids.s1, source_name: 'Bekendmakingen Utrecht', signals: 4, opportunities: 3, meetings: 2, won: 2, won_value: 150_000.5 },
      { source_id: ids.s2, source_name: 'Bouwnieuws RSS', signals: 2, opportunities: 2, meetings: 1, won: 0, won_value: 0 },
      { source_id: ids.s3, source_name: 'Lege bron', signals: 0, opportunities: 0, meetings: 0, won: 0, won_value: 0 },
    ]);
    // M1: d1, d2, d3 sent, d4 refused at RCPT TO (a bounce), the reminder refused on 535 (not a bounce; d0 is
    // 40 days old); reply r1 (r2 is an out-of-office; the delivery report, the automatic reply and the history are not replies).
    // M2: d5, the reminder and the one 29 days 23 hours ago sent, d6 bounced after sending; replies r4 and the one
    // received 29 days 23 hours ago (not the stranger's). No health check yet. The other tenant's mailbox is not listed.
    expect(res.body.deliverability).toEqual([
      {
        mailbox_id: ids.m1,
        address: 'a@acme.nl',
        sent: 5,
        bounced: 1,
        replied: 1,
        health_score: 92,
        sendable: true,
        checked_at: expect.any(String),
        complaints: 0,
        bounce_rate: 0.2,
        complaint_rate: 0,
        status: 'active',
      },
      {
        mailbox_id: ids.m2,
        address: 'b@acme.nl',
        sent: 4,
        bounced: 1,
        replied: 2,
        health_score: null,
        sendable: null,
        checked_at: null,
        complaints: 0,
        bounce_rate: 0.25,
        complaint_rate: 0,
        status: 'active',
      },
    ]);
    // Model drafts d1..d10 (not the reminders); approved d1 d2 d3 d4 d5 d6 d10; rejected d7 d8; edited d1 d4 d6 d10 (d3 has no original).
    const q = res.body.agent_quality;
    expect(q).toMatchObject({ drafts: 10, approved: 7, rejected: 2, approval_rate: 0.7778, edited: 4, edit_rate: 0.5714 });
    // r1 and the one 29 days 23 hours ago (interested), r2, r4; not the stranger's, the history or the unclassified.
    expect(q.reply_intents).toEqual({ interested: 2, out_of_office: 1, meeting_request: 1 });
    // The reply 29 days 23 hours ago came before T2's first e-mail: no prompt version.
    expect(q.by_prompt_version).toEqual([
      {
        prompt_version: 'v1',
        drafts: 5,
        approved: 4,
        rejected: 1,
        approval_rate: 0.8,
        edited: 3,
        edit_rate: 0.75,
        reply_intents: { interested: 1, out_of_office: 1 },
      },
      { prompt_version: 'v2', drafts: 5, approved: 3, rejected: 1, approval_rate: 0.75, edited: 1, edit_rate: 0.3333, reply_intents: { meeting_request: 1 } },
      { prompt_version: null, drafts: 0, approved: 0, rejected: 0, approval_rate: null, edited: 0, edit_rate: null, reply_intents: { interested: 1 } },
    ]);
    // Eval cases come from the approve route (next describe); the other tenant's is not listed.
    expect(q.prompt_evals).toEqual([]);
  });

  test('window 90 takes in the older rows; the default window is 30', async () => {
    const res = await call('GET', `/analytics/outreach?organizationId=${orgId}&window=90`);
    expect(res.status).toBe(200);
    // a5 (won 999 999, completed meeting) and b3 (no opportunity) join; d0 and r3 too.
    expect(res.body.attribution.slice(0, 2)).toEqual([
      { source_id: ids.s1, source_name: 'Bekendmakingen Utrecht', signals: 5, opportunities: 4, meetings: 3, won: 3, won_value: 1_149_999.5 },
      { source_id: ids.s2, source_name: 'Bouwnieuws RSS', signals: 3, opportunities: 2, meetings: 1, won: 0, won_value: 0 },
    ]);
    // M1: d0 and r3 join; M2: the e-mail and the reply from 30 days 1 hour ago. The history (400 days) never counts.
    expect(res.body.deliverability).toMatchObject([
      { sent: 6, bounced: 1, replied: 2 },
      { sent: 5, bounced: 1, replied: 3 },
    ]);
    expect(res.body.agent_quality).toMatchObject({
      drafts: 11,
      approved: 8,
      edited: 5,
      reply_intents: { interested: 3, out_of_office: 1, meeting_request: 1, not_interested: 1 },
    });
    const byDefault = await call('GET', `/analytics/outreach?organizationId=${orgId}`);
    expect(byDefault.body.window_days).toBe(30);
    expect(byDefault.body.attribution[0].signals).toBe(4);
  });

  test('any other window is 400 and changes nothing; another tenant is 404; a viewer reads', async () => {
    for (const w of ['14', '0', 'abc', '30.5', '-7']) {
      expectProblem(await call('GET', `/analytics/outreach?organizationId=${orgId}&window=${w}`), 400, 'VALIDATION_FAILED');
    }
    expectProblem(await call('GET', `/analytics/outreach?organizationId=${orgId}&window=30&extra=1`), 400, 'VALIDATION_FAILED');
    expectProblem(await call('GET', `/analytics/outreach?organizationId=${orgId}`, undefined, other.owner.token), 404, 'NOT_FOUND');
    expectProblem(await call('GET', `/analytics/outreach?organizationId=${randomUUID()}`), 404, 'NOT_FOUND');
    const viewer = await addMember(api, owner, orgId, 'viewer');
    expect((await call('GET', `/analytics/outreach?organizationId=${orgId}&window=7`, undefined, viewer.token)).status).toBe(200);
  });
});

describe('prompt evals through the real approve route', () => {
  let org: { owner: TestUser; orgId: string };
  const d: Record<string, string> = {};

  beforeAll(async () => {
    org = await newOrganization(api, 'Evaluatie B.V.');
    const o = org.orgId;
    const company = await insert('companies', { organization_id: o, name: 'Eval B.V.', normalized_name: 'eval' });
    const contact = await insert('contacts', { organization_id: o, company_id: company, full_name: 'Eva Eval' });
    const campaign = await insert('campaigns', { organization_id: o, name: 'Campagne', status: 'active' });
    const sequence = await insert('sequences', { organization_id: o, campaign_id: campaign, name: 'Reeks' });
    const enrollment = await insert('enrollments', { organization_id: o, campaign_id: campaign, sequence_id: sequence, contact_id: contact });
    // Each draft is a sequence step's, so approving it wakes its (absent) sequence run and starts no send.
    let position = 1;
    const draft = async (over: Record<string, unknown>) => {
      const step = await insert('sequence_steps', { organization_id: o, sequence_id: sequence, position: position++, channel: 'email' });
      return insert('messages', {
        organization_id: o,
        direction: 'outbound',
        channel: 'email',
        status: 'pending_approval',
        enrollment_id: enrollment,
        step_id: step,
        contact_id: contact,
        subject: 'Uw project',
        model: 'gpt-4o-mini',
        prompt_key: 'draft_email',
        prompt_version: 'v1',
        ...over,
      });
    };
    d.asWritten = await draft({ body: 'Beste Eva, groet' });
    d.sameBody = await draft({ body: 'Zelfde tekst' });
    d.edited = await draft({ body: 'Beste Jan, groet' });
    d.v2 = await draft({ body: 'Hallo', prompt_version: 'v2' });
    d.byHand = await draft({ body: 'Met de hand', model: null, prompt_key: null, prompt_version: null });
  });

  const approve = async (id: string, body: Record<string, unknown> = {}) => {
    const res = await call('POST', `/messages/${id}/approve`, body, org.owner.token);
    expect(res.status).toBe(200);
  };

  test('every approved model draft is a case: approved as written scores 1, an edit less; hand-written messages are none', async () => {
    await approve(d.asWritten!); // no body: as written
    await approve(d.sameBody!, { body: 'Zelfde tekst' }); // the same text sent back: as written
    await approve(d.edited!, { body: 'Beste Jan, groeten' });
    await approve(d.v2!, { body: 'Hallo!' });
    await approve(d.byHand!, { body: 'Met de hand geschreven' });
    const { rows } = await owners.query(
      `SELECT message_id, prompt_version, score::float8 AS score, detail FROM prompt_evals WHERE organization_id = $1 ORDER BY created_at, id`,
      [org.orgId],
    );
    expect(rows.map((r) => [r.message_id, r.prompt_version, r.detail.case.similarity, r.score])).toEqual([
      [d.asWritten, 'v1', 1, 1],
      [d.sameBody, 'v1', 1, 1],
      // 1 − 2/18 = 0.8889; the version's score: (1 + 1 + 0.8889) / 3 = 0.963.
      [d.edited, 'v1', 0.8889, 0.963],
      [d.v2, 'v2', 0.8333, 0.8333],
    ]);
    expect(rows[0].detail).toEqual({ cases: 1, case: { message_id: d.asWritten, distance: 0, similarity: 1, original_chars: 16, sent_chars: 16 } });
    const res = await call('GET', `/analytics/outreach?organizationId=${org.orgId}&window=30`, undefined, org.owner.token);
    expect(res.body.agent_quality.prompt_evals).toEqual([
      { prompt_key: 'draft_email', prompt_version: 'v2', score: 0.8333, cases: 1, created_at: expect.any(String) },
      { prompt_key: 'draft_email', prompt_version: 'v1', score: 0.963, cases: 3, created_at: expect.any(String) },
    ]);
    // The edited draft keeps what the model wrote; the hand-written one counts as no draft of a prompt.
    expect(res.body.agent_quality).toMatchObject({ drafts: 4, approved: 4, edited: 2 });
  });

  test('a repeat for the same message changes nothing; another tenant cannot approve (404)', async () => {
    const again = await asUser(api.db, org.owner.id, (tx) =>
      recordPromptEval(tx, { organizationId: org.orgId, messageId: d.edited!, promptKey: 'draft_email', promptVersion: 'v1', original: 'x', sent: 'y' }),
    );
    expect(again.created).toBe(false);
    expect((await owners.query(`SELECT count(*)::int AS n FROM prompt_evals WHERE organization_id = $1`, [org.orgId])).rows[0].n).toBe(4);
    expectProblem(await call('POST', `/messages/${d.asWritten}/approve`, {}, other.owner.token), 404, 'NOT_FOUND');
  });
});

describe('the learning loop: GET /settings/scoring/suggestions and PATCH /settings/scoring rules', () => {
  let admin: { owner: TestUser; orgId: string };
  const opp: string[] = [];

  beforeAll(async () => {
    admin = await newOrganization(api, 'Leerlus B.V.');
    const org = admin.orgId;
    const src = await source(org, 'Bron');
    const {
      rows: [config],
    } = await owners.query(`SELECT id FROM scoring_configs WHERE organization_id = $1 AND is_active`, [org]);
    // Six signals with a current score: the first three earned points on distance.bands, the last three did not;
    // all earned points on relevance.confidence (so that rule never has a group to compare with).
    for (let i = 0; i < 6; i++) {
      const sig = await signal(org, src, 10);
      const score = await insert('scores', {
        organization_id: org,
        signal_id: sig,
        scoring_config_id: config.id,
        version: 1,
        total: 60,
        decision: 'opportunity',
      });
      const component = (position: number, dimension: string, ruleKey: string, points: number) =>
        insert('score_components', {
          organization_id: org,
          score_id: score,
          position,
          dimension,
          rule_key: ruleKey,
          raw_value: points ? 1 : 0,
          weight: 15,
          points,
          reason: 'seed',
        });
      await component(0, 'commercial_relevance', 'relevance.confidence', 27);
      await component(1, 'distance', 'distance.bands', i < 3 ? 15 : 0);
      opp.push(await opportunity(org, sig));
    }
  });

  const suggestions = async () => {
    const res = await call('GET', `/settings/scoring/suggestions?organizationId=${admin.orgId}`, undefined, admin.owner.token);
    expect(res.status).toBe(200);
    return res.body;
  };
  const distance = (body: { suggestions: Array<{ rule_key: string }> }) => body.suggestions.find((s) => s.rule_key === 'distance.bands') as any;
  const settings = async () => (await call('GET', `/settings/scoring?organizationId=${admin.orgId}`, undefined, admin.owner.token)).body;
  const outcome = async (i: number, o: 'won' | 'lost') => {
    const res = await call('POST', `/opportunities/${opp[i]}/outcome`, o === 'won' ? { outcome: o, value: 1000 } : { outcome: o }, admin.owner.token);
    expect(res.status).toBe(200);
  };

  test('no outcomes yet: every weight stays; reading changes nothing', async () => {
    const before = await settings();
    const body = await suggestions();
    expect(body.based_on).toEqual({ opportunities: 6, won: 0, lost: 0, meetings_completed: 0, no_shows: 0 });
    expect(body.scoring_config_version).toBe(before.config.version);
    for (const s of body.suggestions) expect(s.suggested_weight).toBe(s.current_weight);
    expect(distance(body)).toMatchObject({ dimension: 'distance', current_weight: 15, evidence: { lift: null } });
    expect(await settings()).toEqual(before);
  });

  test('wins on signals that earned the rule raise its suggestion; wins on the others lower it; nothing changes until PATCH', async () => {
    const before = await settings();
    // Earned: won, won, lost; not earned: lost, lost, lost -> success 2/3 against 0, lift 0.6667, 15 × 1.6667 = 25.
    await outcome(0, 'won');
    await outcome(1, 'won');
    for (const i of [2, 3, 4, 5]) await outcome(i, 'lost');
    const up = await suggestions();
    expect(up.based_on).toEqual({ opportunities: 6, won: 2, lost: 4, meetings_completed: 0, no_shows: 0 });
    expect(distance(up)).toMatchObject({
      current_weight: 15,
      suggested_weight: 25,
      evidence: { earned: { signals: 3, won: 2, lost: 1, success_rate: 0.6667 }, not_earned: { signals: 3, won: 0, lost: 3, success_rate: 0 }, lift: 0.6667 },
    });
    // relevance.confidence: all six earned points, none to compare with.
    expect(up.suggestions.find((s: { rule_key: string }) => s.rule_key === 'relevance.confidence')).toMatchObject({ current_weight: 30, suggested_weight: 30 });

    // The opposite: the signals that earned nothing on the rule win, those that did lose.
    await outcome(0, 'lost');
    await outcome(1, 'lost');
    for (const i of [3, 4]) await outcome(i, 'won');
    await meeting(admin.orgId, opp[5]!, 'completed');
    const down = await suggestions();
    expect(down.based_on).toMatchObject({ won: 2, lost: 4, meetings_completed: 1 });
    // Earned 0 against (1 + 1 + 0.5) / 3 = 0.8333: lift −0.8333, 15 × 0.1667 = 2.5.
    expect(distance(down)).toMatchObject({ suggested_weight: 2.5, evidence: { lift: -0.8333, not_earned: { meetings: 1, success_rate: 0.8333 } } });
    expect(distance(down).suggested_weight).toBeLessThan(distance(up).suggested_weight);

    // Suggestions never changed the config.
    expect(await settings()).toEqual(before);
  });

  test('PATCH applies a suggestion as a new version; unknown rule keys, bad values and other tenants change nothing', async () => {
    const before = await settings();
    const token = admin.owner.token;
    const patch = (body: Record<string, unknown>, t = token) => call('PATCH', '/settings/scoring', { organizationId: admin.orgId, ...body }, t);

    const unknown = await patch({
      rules: [
        { ruleKey: 'distance.bands', weight: 3 },
        { ruleKey: 'no.such.rule', weight: 5 },
      ],
    });
    expectProblem(unknown, 400, 'VALIDATION_FAILED');
    expect(unknown.body.errors).toEqual([{ path: 'body.rules.1.ruleKey', message: 'is not a rule of the active scoring config: no.such.rule' }]);
    expectProblem(await patch({ rules: [{ ruleKey: 'distance.bands', weight: -1 }] }), 400, 'VALIDATION_FAILED');
    expectProblem(await patch({ rules: [{ ruleKey: 'distance.bands' }, { ruleKey: 'distance.bands' }] }), 400, 'VALIDATION_FAILED');
    expectProblem(await patch({ rules: [{ ruleKey: 'distance.bands', weight: 3, extra: 1 }] }), 400, 'VALIDATION_FAILED');
    expectProblem(await patch({ rules: [{ ruleKey: 'distance.bands', weight: 3 }] }, other.owner.token), 404, 'NOT_FOUND');
    const member = await addMember(api, admin.owner, admin.orgId, 'member');
    expectProblem(await patch({ rules: [{ ruleKey: 'distance.bands', weight: 3 }] }, member.token), 403, 'FORBIDDEN');
    expectProblem(await call('GET', `/settings/scoring/suggestions?organizationId=${admin.orgId}`, undefined, other.owner.token), 404, 'NOT_FOUND');
    expectProblem(await call('GET', `/settings/scoring/suggestions?organizationId=${admin.orgId}&window=0`, undefined, token), 400, 'VALIDATION_FAILED');
    expect(await settings()).toEqual(before);

    const applied = await patch({ rules: [{ ruleKey: 'distance.bands', weight: 2.5, maxPoints: 12 }] });
    expect(applied.status).toBe(200);
    expect(applied.body.config.version).toBe(before.config.version + 1);
    const rule = (s: { rules: Array<{ rule_key: string; weight: number; max_points: number }> }, key: string) => s.rules.find((r) => r.rule_key === key)!;
    expect(rule(applied.body, 'distance.bands')).toMatchObject({ weight: 2.5, max_points: 12 });
    for (const r of before.rules.filter((x: { rule_key: string }) => x.rule_key !== 'distance.bands')) {
      expect(rule(applied.body, r.rule_key)).toMatchObject({ weight: r.weight, max_points: r.max_points });
    }
    // The suggestion now starts from the applied weight; the audit log names the change.
    expect(distance(await suggestions())).toMatchObject({ current_weight: 2.5 });
    const { rows } = await owners.query(
      `SELECT field, before, after FROM compliance_audit_log WHERE organization_id = $1 AND entity = 'scoring_config' AND field LIKE 'rules.%' ORDER BY field DESC`,
      [admin.orgId],
    );
    expect(rows).toEqual([
      { field: 'rules.distance.bands.weight', before: 15, after: 2.5 },
      { field: 'rules.distance.bands.max_points', before: 15, after: 12 },
    ]);
    // The same values again: no new version.
    expect((await patch({ rules: [{ ruleKey: 'distance.bands', weight: 2.5 }] })).body.config.version).toBe(before.config.version + 1);
  });
});

describe("deliverability: complaints, the two rates and a paused mailbox's status", () => {
  test('a complained-about e-mail and a paused mailbox show in GET /analytics/outreach', async () => {
    const org = await newOrganization(api, 'Klacht Analyse B.V.');
    const paused = await insert('mailboxes', {
      organization_id: org.orgId,
      address: 'p@klacht.nl',
      domain: 'klacht.nl',
      holiday_country: 'NL',
      status: 'paused',
      paused_reason: 'complaint_rate',
      paused_at: 'now()',
    });
    const company = await insert('companies', { organization_id: org.orgId, name: 'Klant B.V.', normalized_name: 'klant' });
    const contact = await insert('contacts', { organization_id: org.orgId, company_id: company, full_name: 'Kees Klant' });
    const sent = (over: Record<string, unknown> = {}) =>
      insert('messages', {
        organization_id: org.orgId,
        direction: 'outbound',
        channel: 'email',
        status: 'sent',
        mailbox_id: paused,
        contact_id: contact,
        sent_at: ago(1),
        created_at: ago(1),
        updated_at: ago(1),
        ...over,
      });
    // Four attempts: three sent (one with a complaint), one bounced at RCPT TO.
    await sent();
    await sent();
    await sent({ complained_at: 'now()' });
    await sent({ status: 'failed', sent_at: null, error: 'SMTP RCPT TO refused: 550 5.1.1 no such user' });
    const res = await api.call('GET', `/analytics/outreach?organizationId=${org.orgId}&window=30`, { token: org.owner.token });
    expect(res.status).toBe(200);
    expect(res.body.deliverability).toEqual([
      {
        mailbox_id: paused,
        address: 'p@klacht.nl',
        sent: 4,
        bounced: 1,
        replied: 0,
        health_score: null,
        sendable: null,
        checked_at: null,
        complaints: 1,
        bounce_rate: 0.25,
        complaint_rate: 0.25,
        status: 'paused',
      },
    ]);
  });
});
