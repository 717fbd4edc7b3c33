import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { DateTime } from 'luxon';
import { workflowIds } from '../../workflows/search-attributes';
import { expectProblem, newOrganization } from '../helpers/api';
import { outreachOrg, until, type OutreachOrg } from '../helpers/outreach';
import { testEnv } from '../helpers/tokens';
import { useStack } from '../helpers/stack';
import { explainingRun, resultWithin } from '../helpers/workflow-result';
import { startReacherServer } from '../helpers/reacher-server';

// A test here waits for several runs, each up to resultWithin's 30 s: room for the run that gets stuck to be described.
jest.setTimeout(120_000);

/**
 * The sequence loop on the real stack (the worker processes run sequenceWorkflow and
 * sendMessageWorkflow; the e-mail goes to a real SMTP server on loopback): accept enrolls and starts
 * the run, the draft waits in the approval inbox with its why, an approval with edits keeps
 * original_body and the e-mail arrives with its headers, notice and footer; reject with and without
 * a redraft; stop ends the run and skips drafts; the one-click POST suppresses and stops; a hard
 * bounce suppresses; a message outside the window is scheduled for the next opening; 409s and 404s.
 */
const { api, owners, smtp } = useStack({ api: true, owners: true, smtp: true });
let temporal: Client;

beforeAll(async () => {
  temporal = new Client({ connection: await Connection.connect({ address: testEnv('TEMPORAL_ADDRESS') }) });
});
afterAll(async () => {
  await temporal?.connection.close();
});

const steps = [
  { channel: 'email', delayDays: 0, instructions: 'Introduce us, cite the permit' },
  { channel: 'email', delayDays: 0, instructions: 'Follow up' },
];

/** A person's campaign for these contacts, accepted: answers the enrollments. */
async function enroll(o: OutreachOrg, contactIds: string[], over: Record<string, unknown> = {}) {
  const campaign = await o.ok('POST', '/campaigns', {
    organizationId: o.orgId,
    name: `Warmtepompen ${randomUUID().slice(0, 4)}`,
    mailboxId: o.mailboxId,
    contactIds,
    steps,
    ...over,
  });
  const accepted = await o.ok('POST', `/campaigns/${campaign.id}/accept`, {});
  return { campaign, enrolled: accepted.result.enrolled as Array<{ enrollmentId: string; contactId: string }> };
}

const inbox = (o: OutreachOrg, enrollmentId: string, status = 'pending_approval') =>
  until(`a ${status} message of ${enrollmentId}`, async () => {
    const list = await o.ok('GET', `/messages?organizationId=${o.orgId}&enrollmentId=${enrollmentId}&status=${status}`);
    return list[0];
  });

const enrollmentIs = (o: OutreachOrg, id: string, status: string) =>
  until(`enrollment ${id} ${status}`, async () => {
    const e = await o.ok('GET', `/enrollments/${id}`);
    return e.status === status ? e : undefined;
  });

test('accept -> draft in the inbox with its why -> approve with edits -> the e-mail arrives once, with headers, notice and footer', async () => {
  const o = await outreachOrg(api, newOrganization, smtp);
  const person = await o.contact({ fullName: 'Pieter Bakker' });
  const { campaign, enrolled } = await enroll(o, [person.id]);
  const enrollmentId = enrolled[0]!.enrollmentId;
  expect(enrolled).toHaveLength(1);

  // The run is there under its readable id, with its search attributes.
  const run = await temporal.workflow.getHandle(workflowIds.sequence(enrollmentId)).describe();
  expect(run.type).toBe('sequenceWorkflow');
  expect(run.searchAttributes).toMatchObject({ OrganizationId: [o.orgId], CampaignId: [campaign.id], EnrollmentId: [enrollmentId], MailboxId: [o.mailboxId] });

  const draft = await inbox(o, enrollmentId);
  expect(draft).toMatchObject({
    status: 'pending_approval',
    channel: 'email',
    direction: 'outbound',
    contact_id: person.id,
    contact_name: 'Pieter Bakker',
    campaign_name: campaign.name,
    campaign_id: campaign.id,
    step_position: 1,
    company_name: expect.stringMatching(/^Bouw /),
    to_address: person.email,
    model: 'template-writer@1.0.0',
    mailbox_id: o.mailboxId,
    thread_status: null,
    pause_reason: null,
  });
  expect(draft.why.compliance).toMatchObject({ country: 'NL', locale: 'nl-NL', requirements: expect.arrayContaining(['art14_notice']) });
  expect(draft.why.compliance.rule).toEqual(expect.any(String));
  expect(draft.why.reviewReasons).toContain('review_mode');
  expect(draft.subject).toEqual(expect.any(String));
  expect(draft.confidence).toEqual(expect.any(Number));
  const enrollment = await o.ok('GET', `/enrollments/${enrollmentId}`);
  expect(enrollment).toMatchObject({ status: 'active', current_step: 1, workflow_id: `enrollment/${enrollmentId}` });
  // Parked in four activities: the template draft is written and stored by prepareDraft (no providers
  // queue, no writeDraft/storeDraft), and the first step's wait used the state read at the start.
  const parked = await until('the run waits for the decision', async () => {
    const events = (await temporal.workflow.getHandle(workflowIds.sequence(enrollmentId)).fetchHistory()).events ?? [];
    const names = events.flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType!.name!] : []));
    return names.includes('stepMessageState') ? names : undefined;
  });
  expect(parked).toEqual(['sequenceState', 'planStep', 'prepareDraft', 'stepMessageState']);

  // The inbox of the organization lists it, newest first.
  const all = await o.ok('GET', `/messages?organizationId=${o.orgId}&status=pending_approval&campaignId=${campaign.id}`);
  expect(all.map((m: { id: string }) => m.id)).toEqual([draft.id]);

  const edited = 'Geachte heer Bakker,\n\nIk las over uw vergunning. Past een kort gesprek?\n\nMet vriendelijke groet,\nSanne';
  const approved = await o.ok('POST', `/messages/${draft.id}/approve`, { body: edited, subject: 'Uw vergunning' });
  expect(approved).toMatchObject({ status: 'approved', body: edited, subject: 'Uw vergunning', original_body: draft.body, approved_by: o.owner.id });
  expect(approved.approved_at).toEqual(expect.any(String));
  // The edit is an eval case of the writer that wrote the draft (analytics: agent quality).
  const quality = (await o.ok('GET', `/analytics/outreach?organizationId=${o.orgId}&window=7`)).agent_quality;
  expect(quality.prompt_evals).toEqual([expect.objectContaining({ prompt_key: 'sequence-draft', prompt_version: 'template-writer@1.0.0' })]);
  expect(quality.prompt_evals[0].score).toBeLessThan(1);
  // Approving it again: 409, and nothing changes.
  expectProblem(await o.call('POST', `/messages/${draft.id}/approve`, {}), 409, 'CONFLICT');

  const sent = await until('the message sent', async () => {
    const m = await o.ok('GET', `/messages/${draft.id}`);
    return m.status === 'sent' ? m : undefined;
  });
  const [mail, ...more] = await smtp.received(person.email);
  expect(more).toHaveLength(0);
  expect(mail!.subject).toBe('Uw vergunning');
  // The Message-ID is derived from the message id and the mailbox's domain, and stored.
  expect(sent.provider_message_id).toBe(`<${draft.id}@good-mail.nl>`);
  expect(mail!.messageId).toBe(sent.provider_message_id);
  const headers = Object.fromEntries(mail!.headerLines.map((h) => [h.key, h.line.slice(h.key.length + 1).trim()]));
  expect(headers['list-unsubscribe']).toMatch(/^<http:\/\/127\.0\.0\.1:\d+\/u\/[A-Za-z0-9_-]{64}>, <mailto:/);
  expect(headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
  expect(mail!.text).toContain('Ik las over uw vergunning');
  expect(mail!.text).toContain('Acme Installaties B.V., Stationsplein 1, 3511 ED Utrecht');
  expect(mail!.text).toContain('https://acme.example.nl/privacy'); // the Art. 14 notice on the first e-mail
  expect(mail!.text).toContain('Dit bericht is opgesteld met behulp van AI.'); // ai_disclosure footer
  expect(sent).toMatchObject({ thread_status: 'open', from_address: expect.stringMatching(/^verkoop-[0-9a-f]{8}@good-mail\.nl$/), needs_check: false });

  // Step 2 (a follow-up): reject with a redraft -> a new draft with the reason; reject that one without -> skipped, the run completes.
  const second = await until('the second draft', async () => {
    const list = await o.ok('GET', `/messages?organizationId=${o.orgId}&enrollmentId=${enrollmentId}&status=pending_approval`);
    return list.find((m: { step_position: number }) => m.step_position === 2);
  });
  const rejected = await o.ok('POST', `/messages/${second.id}/reject`, { reason: 'te opdringerig', redraft: true });
  expect(rejected).toMatchObject({ status: 'rejected', rejected_reason: 'te opdringerig' });
  const redraft = await until('the redraft', async () => {
    const list = await o.ok('GET', `/messages?organizationId=${o.orgId}&enrollmentId=${enrollmentId}&status=pending_approval`);
    return list.find((m: { redraft_of: string }) => m.redraft_of === second.id);
  });
  expect(redraft.step_position).toBe(2);
  expect(redraft.why.reviewReasons).toContain('redraft: te opdringerig');
  expect(redraft.why.compliance.requirements).not.toContain('art14_notice'); // not the first e-mail to this person
  await o.ok('POST', `/messages/${redraft.id}/reject`, { reason: 'laat maar' });
  await enrollmentIs(o, enrollmentId, 'completed');
  expect((await smtp.received(person.email)).length).toBe(1);
  const result = await temporal.workflow.getHandle(workflowIds.sequence(enrollmentId)).result();
  expect(result).toEqual({ ended: 'completed', position: 2 });
});

test('stop ends the run at once and skips its waiting draft; a rejected first step ends the enrollment', async () => {
  const o = await outreachOrg(api, newOrganization, smtp);
  const [a, b] = [await o.contact(), await o.contact({ fullName: 'Anna de Vries' })];
  const { enrolled } = await enroll(o, [a.id, b.id]);
  const [ea, eb] = [enrolled.find((e) => e.contactId === a.id)!.enrollmentId, enrolled.find((e) => e.contactId === b.id)!.enrollmentId];
  const draftA = await inbox(o, ea);
  const draftB = await inbox(o, eb);

  const stopped = await o.ok('POST', `/enrollments/${ea}/stop`, { reason: 'klant belde zelf' });
  expect(stopped).toMatchObject({ status: 'stopped', stopped_reason: 'klant belde zelf', next_action_at: null });
  expect((await o.ok('GET', `/messages/${draftA.id}`)).status).toBe('skipped');
  expect(await temporal.workflow.getHandle(workflowIds.sequence(ea)).result()).toMatchObject({ ended: 'stopped' });
  expectProblem(await o.call('POST', `/messages/${draftA.id}/approve`, {}), 409, 'CONFLICT');

  await o.ok('POST', `/messages/${draftB.id}/reject`, { reason: 'verkeerde persoon' });
  const ended = await enrollmentIs(o, eb, 'stopped');
  expect(ended.stopped_reason).toBe('the first message was rejected');
  expect(await smtp.received(a.email)).toHaveLength(0);
  expect(await smtp.received(b.email)).toHaveLength(0);
});

test('the one-click unsubscribe in the e-mail suppresses the address and stops the run', async () => {
  const o = await outreachOrg(api, newOrganization, smtp);
  const person = await o.contact();
  const { enrolled } = await enroll(o, [person.id]);
  const enrollmentId = enrolled[0]!.enrollmentId;
  await o.ok('POST', `/messages/${(await inbox(o, enrollmentId)).id}/approve`, {});
  await inbox(o, enrollmentId, 'sent');
  const next = await until(
    'the follow-up draft',
    async () => (await o.ok('GET', `/messages?organizationId=${o.orgId}&enrollmentId=${enrollmentId}&status=pending_approval`))[0],
  );

  const [mail] = await smtp.received(person.email);
  const header = mail!.headerLines.find((h) => h.key === 'list-unsubscribe')!.line;
  const link = new URL(/<(http[^>]+)>/.exec(header)![1]!);
  const res = await api.call('POST', link.pathname, {
    rawBody: 'List-Unsubscribe=One-Click',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(res.status).toBe(200);

  const e = await enrollmentIs(o, enrollmentId, 'stopped');
  expect(e.stopped_reason).toBe('unsubscribed');
  expect((await o.ok('GET', `/messages/${next.id}`)).status).toBe('skipped');
  const suppressions = await o.ok('GET', `/compliance/suppressions?organizationId=${o.orgId}`);
  expect(suppressions).toEqual([expect.objectContaining({ scope: 'email', value: person.email, reason: 'unsubscribe' })]);
  expect(await temporal.workflow.getHandle(workflowIds.sequence(enrollmentId)).result()).toMatchObject({ ended: 'stopped' });
});

test('a hard bounce (550 at RCPT TO) fails the message with the server text, suppresses the address and stops the sequence', async () => {
  const o = await outreachOrg(api, newOrganization, smtp);
  const person = await o.contact();
  smtp.refuse(person.email, 550, '5.1.1 <unknown> User unknown');
  const { enrolled } = await enroll(o, [person.id]);
  const enrollmentId = enrolled[0]!.enrollmentId;
  const draft = await inbox(o, enrollmentId);
  await o.ok('POST', `/messages/${draft.id}/approve`, {});
  const failed = await inbox(o, enrollmentId, 'failed');
  // The server's code, not its text (a tenant-chosen server's words never reach the answer).
  expect(failed.error).toMatch(/RCPT TO refused: 550 5\.1\.1/);
  expect(failed.needs_check).toBe(false);
  const e = await enrollmentIs(o, enrollmentId, 'stopped');
  expect(e.stopped_reason).toBe('bounced');
  const suppressions = await o.ok('GET', `/compliance/suppressions?organizationId=${o.orgId}`);
  expect(suppressions).toEqual([expect.objectContaining({ scope: 'email', value: person.email, reason: 'bounce' })]);
});

test('outside the sending window an approved e-mail is scheduled for the next opening, not sent', async () => {
  const zone = 'Europe/Amsterdam';
  const now = DateTime.now().setZone(zone);
  // A one-hour window that opens two hours from now (today or tomorrow), every day.
  const opens = now.plus({ hours: 2 }).startOf('hour');
  const window = {
    start: opens.toFormat('HH:mm'),
    end: opens.plus({ hours: 1 }).toFormat('HH:mm') === '00:00' ? '24:00' : opens.plus({ hours: 1 }).toFormat('HH:mm'),
  };
  const o = await outreachOrg(api, newOrganization, smtp, { sendingWindow: window, holidayCountry: 'NL' });
  const person = await o.contact();
  const { enrolled } = await enroll(o, [person.id]);
  const draft = await inbox(o, enrolled[0]!.enrollmentId);
  await o.ok('POST', `/messages/${draft.id}/approve`, {});
  const scheduled = await inbox(o, enrolled[0]!.enrollmentId, 'scheduled');
  const slot = DateTime.fromISO(scheduled.scheduled_for).setZone(zone);
  expect(slot.toFormat('HH:mm')).toBe(window.start);
  expect(slot > now).toBe(true);
  expect(slot.diff(now, 'hours').hours).toBeLessThan(24 * 5); // the next opening (a holiday or two at most in between)
  expect(await smtp.received(person.email)).toHaveLength(0);
  // A stop now skips the scheduled message and gives its slot back.
  await o.ok('POST', `/enrollments/${enrolled[0]!.enrollmentId}/stop`, {});
  expect((await o.ok('GET', `/messages/${draft.id}`)).status).toBe('skipped');
  const { rows } = await owners.query('SELECT count(*)::int AS n FROM send_slots WHERE message_id = $1', [draft.id]);
  expect(rows[0].n).toBe(0);
});

test("messages: another tenant's ids are 404 on every endpoint; bad bodies 400; a task completes once", async () => {
  const o = await outreachOrg(api, newOrganization, smtp);
  const other = await outreachOrg(api, newOrganization, smtp);
  const person = await o.contact();
  const { enrolled } = await enroll(o, [person.id], { steps: [{ channel: 'linkedin', delayDays: 0, instructions: 'Connect with a note' }] });
  const task = await inbox(o, enrolled[0]!.enrollmentId, 'task_open');
  expect(task).toMatchObject({ channel: 'linkedin', subject: null, to_address: null });
  expect(task.body).toContain('Connect with a note');

  for (const [method, path, body] of [
    ['GET', `/messages/${task.id}`, undefined],
    ['POST', `/messages/${task.id}/approve`, {}],
    ['POST', `/messages/${task.id}/reject`, {}],
    ['POST', `/messages/${task.id}/complete`, {}],
  ] as const) {
    expectProblem(await other.call(method, path, body), 404, 'NOT_FOUND');
  }
  expect(await other.ok('GET', `/messages?organizationId=${other.orgId}`)).toEqual([]);
  expectProblem(await other.call('GET', `/messages?organizationId=${o.orgId}`), 404, 'NOT_FOUND');
  expectProblem(await o.call('POST', `/messages/${task.id}/approve`, { body: '' }), 400, 'VALIDATION_FAILED');
  expectProblem(await o.call('POST', `/messages/${task.id}/reject`, { redraft: 'yes' }), 400, 'VALIDATION_FAILED');
  expectProblem(await o.call('GET', `/messages?organizationId=${o.orgId}&status=drafted`), 400, 'VALIDATION_FAILED');
  // A task is completed, not approved.
  expectProblem(await o.call('POST', `/messages/${task.id}/approve`, {}), 409, 'CONFLICT');
  const done = await o.ok('POST', `/messages/${task.id}/complete`, { note: 'verbonden' });
  expect(done).toMatchObject({ status: 'task_done', completed_note: 'verbonden' });
  expectProblem(await o.call('POST', `/messages/${task.id}/complete`, {}), 409, 'CONFLICT');
  await enrollmentIs(o, enrolled[0]!.enrollmentId, 'completed');
  // Accepting a campaign that is no longer proposed: 409.
  const campaigns = await o.ok('GET', `/campaigns?organizationId=${o.orgId}`);
  expectProblem(await o.call('POST', `/campaigns/${campaigns[0].id}/accept`, {}), 409, 'CONFLICT');
});

test('auto mode: drafts start approved and go out with nobody approving; the task of a later step waits to be completed', async () => {
  const o = await outreachOrg(api, newOrganization, smtp);
  const person = await o.contact();
  const { enrolled } = await enroll(o, [person.id], {
    mode: 'auto',
    steps: [
      { channel: 'email', delayDays: 0 },
      { channel: 'phone', delayDays: 0 },
    ],
  });
  const enrollmentId = enrolled[0]!.enrollmentId;
  const sent = await inbox(o, enrollmentId, 'sent');
  expect(sent.approved_by).toBeNull();
  expect(sent.why.reviewReasons).not.toContain('review_mode');
  expect(await smtp.received(person.email)).toHaveLength(1);
  // The contact has no phone number and the company none either: the phone step is skipped, the sequence completes.
  await enrollmentIs(o, enrollmentId, 'completed');
});

test("a mailbox's first send runs its deliverability check; a failing one holds the e-mail with the reason, a passing one releases it", async () => {
  // revoked-dkim.nl: the key at selector `mail` is revoked (empty p=), the one at `s1` is good.
  const slug = randomUUID().slice(0, 8);
  const o = await outreachOrg(api, newOrganization, smtp, { address: `verkoop-${slug}@revoked-dkim.nl`, dkimSelector: 'mail' });
  const person = await o.contact();
  const { enrolled } = await enroll(o, [person.id]);
  const draft = await inbox(o, enrolled[0]!.enrollmentId);
  await o.ok('POST', `/messages/${draft.id}/approve`, {});
  const held = await until('held with the reason', async () => {
    const m = await o.ok('GET', `/messages/${draft.id}`);
    return m.status === 'approved' && m.error ? m : undefined;
  });
  // A failing check pauses the mailbox (`health`, migration 0020): its e-mails wait with that reason.
  expect(held.error).toMatch(/paused \(health\)/);
  expect((await o.ok('GET', `/mailboxes/${o.mailboxId}`)).health).toMatchObject({ sendable: false });
  expect(await smtp.received(person.email)).toHaveLength(0);

  await o.ok('PATCH', `/mailboxes/${o.mailboxId}`, { dkimSelector: 's1' });
  const check = await o.ok('POST', `/mailboxes/${o.mailboxId}/health`, {});
  expect(check).toMatchObject({ sendable: true });
  await inbox(o, enrolled[0]!.enrollmentId, 'sent');
  expect(await smtp.received(person.email)).toHaveLength(1);
});

test('a run whose history grows continues as new between steps, where it was', async () => {
  const o = await outreachOrg(api, newOrganization, smtp);
  const person = await o.contact();
  const task = { channel: 'linkedin', delayDays: 0, instructions: 'Connect' };
  const campaign = await o.ok('POST', '/campaigns', {
    organizationId: o.orgId,
    name: 'Lang',
    mailboxId: o.mailboxId,
    contactIds: [person.id],
    steps: [task, task, task],
  });
  // Enrolled as the owner (no accept: the test starts the run itself, with a tiny history budget).
  const { rows } = await owners.query<{ id: string }>(
    `UPDATE campaigns SET status = 'active' WHERE id = $1 RETURNING (SELECT id FROM sequences WHERE campaign_id = $1)`,
    [campaign.id],
  );
  const enrollment = await owners.query<{ id: string }>(
    `INSERT INTO enrollments (organization_id, campaign_id, sequence_id, contact_id, status) VALUES ($1, $2, $3, $4, 'active') RETURNING id`,
    [o.orgId, campaign.id, rows[0]!.id, person.id],
  );
  const enrollmentId = enrollment.rows[0]!.id;
  const workflowId = workflowIds.sequence(enrollmentId);
  await temporal.workflow.start('sequenceWorkflow', {
    taskQueue: testEnv('TEMPORAL_TASK_QUEUE'),
    workflowId,
    args: [{ organizationId: o.orgId, enrollmentId, campaignId: campaign.id, mailboxId: o.mailboxId, maxHistoryEvents: 5, retryInitialIntervalMs: 100 }],
  });
  const run = temporal.workflow.getHandle(workflowId);
  for (const position of [1, 2, 3]) {
    const open = await explainingRun(run, () =>
      until(`task ${position}`, async () =>
        (await o.ok('GET', `/messages?organizationId=${o.orgId}&enrollmentId=${enrollmentId}&status=task_open`)).find(
          (m: { step_position: number }) => m.step_position === position,
        ),
      ),
    );
    await o.ok('POST', `/messages/${open.id}/complete`, {});
  }
  expect(await resultWithin(run)).toEqual({ ended: 'completed', position: 3 });
  const runs = [];
  for await (const w of temporal.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs.push(w.status.name);
  expect(runs.filter((s) => s === 'CONTINUED_AS_NEW')).toHaveLength(2);
  // Each step was acted on once across the runs.
  const tasks = await o.ok('GET', `/messages?organizationId=${o.orgId}&enrollmentId=${enrollmentId}`);
  expect(tasks.map((m: { step_position: number; status: string }) => `${m.step_position}:${m.status}`).sort()).toEqual([
    '1:task_done',
    '2:task_done',
    '3:task_done',
  ]);
});

test('an out-of-office pause holds the sequence until resume_at, then it continues by itself where it was', async () => {
  const o = await outreachOrg(api, newOrganization, smtp);
  const person = await o.contact();
  const campaign = await o.ok('POST', '/campaigns', {
    organizationId: o.orgId,
    name: 'Afwezig',
    mailboxId: o.mailboxId,
    contactIds: [person.id],
    steps: [{ channel: 'email', delayDays: 0 }],
  });
  const { rows } = await owners.query<{ id: string }>(
    `UPDATE campaigns SET status = 'active' WHERE id = $1 RETURNING (SELECT id FROM sequences WHERE campaign_id = $1)`,
    [campaign.id],
  );
  // Paused as an out-of-office reply leaves it: back in four seconds.
  const enrollment = await owners.query<{ id: string }>(
    `INSERT INTO enrollments (organization_id, campaign_id, sequence_id, contact_id, status, pause_reason, resume_at)
     VALUES ($1, $2, $3, $4, 'paused', 'out_of_office', now() + interval '4 seconds') RETURNING id`,
    [o.orgId, campaign.id, rows[0]!.id, person.id],
  );
  const enrollmentId = enrollment.rows[0]!.id;
  const run = await temporal.workflow.start('sequenceWorkflow', {
    taskQueue: testEnv('TEMPORAL_TASK_QUEUE'),
    workflowId: workflowIds.sequence(enrollmentId),
    args: [{ organizationId: o.orgId, enrollmentId, campaignId: campaign.id, mailboxId: o.mailboxId, retryInitialIntervalMs: 100 }],
  });
  await new Promise((r) => setTimeout(r, 2000));
  expect(await o.ok('GET', `/messages?organizationId=${o.orgId}&enrollmentId=${enrollmentId}`)).toEqual([]); // nothing while away
  const draft = await explainingRun(run, () => inbox(o, enrollmentId));
  expect(draft.step_position).toBe(1);
  expect(await o.ok('GET', `/enrollments/${enrollmentId}`)).toMatchObject({ status: 'active', pause_reason: null, resume_at: null, current_step: 1 });
});

test('a campaign over a list with an invalid and a catch-all address skips them with their reasons, sends to the rest, and the mailbox bounces nothing', async () => {
  // The relay plays the recipients' servers: refusing-server.nl knows only known@, as the Reacher stand-in's SMTP check says.
  const reacher = await startReacherServer();
  try {
    const checked = async (o: OutreachOrg) => {
      await o.ok('POST', '/integrations', {
        organizationId: o.orgId,
        providerKey: 'reacher',
        kind: 'verification',
        config: { baseUrl: reacher.url },
        secret: 'x',
      });
      const people = [];
      for (const email of ['known@refusing-server.nl', 'nobody@refusing-server.nl', 'anyone@accepts-all.nl']) {
        const p = await o.contact({ email });
        await resultWithin(temporal.workflow.getHandle(`contact/${p.id}/verify`));
        people.push(p);
      }
      return people as [{ id: string; email: string }, { id: string; email: string }, { id: string; email: string }];
    };
    smtp.refuse('nobody@refusing-server.nl', 550, '5.1.1 <nobody@refusing-server.nl> User unknown');
    const o = await outreachOrg(api, newOrganization, smtp);
    const [known, nobody, anyone] = await checked(o);
    expect((await o.ok('GET', `/contacts/${nobody.id}`)).email_status).toBe('invalid');
    expect((await o.ok('GET', `/contacts/${anyone.id}`)).email_status).toBe('risky');

    const campaign = await o.ok('POST', '/campaigns', {
      organizationId: o.orgId,
      name: 'Checked list',
      mailboxId: o.mailboxId,
      contactIds: [known.id, nobody.id, anyone.id],
      steps: [steps[0]],
    });
    const accepted = await o.ok('POST', `/campaigns/${campaign.id}/accept`, {});
    expect(accepted.result.skipped).toEqual([
      { contactId: nobody.id, reason: 'invalid_email' },
      { contactId: anyone.id, reason: 'risky_email' },
    ]);
    const enrollmentId = accepted.result.enrolled[0].enrollmentId;
    await o.ok('POST', `/messages/${(await inbox(o, enrollmentId)).id}/approve`, {});
    await inbox(o, enrollmentId, 'sent');
    expect(await smtp.received(known.email)).toHaveLength(1);
    expect((await o.ok('GET', `/mailboxes/${o.mailboxId}`)).stats_7d).toMatchObject({ sent: 1, hard_bounces: 0, bounce_rate: 0 });

    // The measure can fail: the same list with the refused address taken as valid (as if never checked right) bounces.
    const unchecked = await outreachOrg(api, newOrganization, smtp);
    const [, ghost] = await checked(unchecked);
    await owners.query(`UPDATE contacts SET email_status = 'valid' WHERE id = $1`, [ghost.id]);
    const control = await unchecked.ok('POST', '/campaigns', {
      organizationId: unchecked.orgId,
      name: 'Unchecked list',
      mailboxId: unchecked.mailboxId,
      contactIds: [ghost.id],
      steps: [steps[0]],
    });
    const taken = await unchecked.ok('POST', `/campaigns/${control.id}/accept`, {});
    const ghostEnrollment = taken.result.enrolled[0].enrollmentId;
    await unchecked.ok('POST', `/messages/${(await inbox(unchecked, ghostEnrollment)).id}/approve`, {});
    await inbox(unchecked, ghostEnrollment, 'failed');
    expect((await unchecked.ok('GET', `/mailboxes/${unchecked.mailboxId}`)).stats_7d).toMatchObject({ hard_bounces: 1, bounce_rate: 1 });
  } finally {
    smtp.accept('nobody@refusing-server.nl');
    await reacher.close();
  }
});
