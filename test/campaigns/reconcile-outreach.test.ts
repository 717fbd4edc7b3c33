import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { DateTime } from 'luxon';
import { WorkflowStarter } from '../../apps/shared/temporal';
import { workflowIds } from '../../workflows/search-attributes';
import { newOrganization, startApi, unreachableTemporal } from '../helpers/api';
import { outreachOrg, until, type OutreachOrg } from '../helpers/outreach';
import { testEnv } from '../helpers/tokens';
import { useStack } from '../helpers/stack';

/**
 * Nothing is stranded, on the real stack (worker processes, Temporal, PostgreSQL,
 * SMTP on loopback): reconcile/outreach starts the runs an accept could not start and restarts a run
 * that died where it stood (the stored draft, not the next step), and sends an approved reply that has
 * no send run; an activity that fails for good fails the enrollment with the reason; an out-of-office
 * pause ends by itself while the step's draft waits or is approved; a stop while the model writes
 * leaves no draft in the inbox; erasure stops the contact's outreach.
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
  { channel: 'email', delayDays: 0, instructions: 'Introduce us' },
  { channel: 'email', delayDays: 0, instructions: 'Follow up' },
];

async function campaignFor(o: OutreachOrg, contactIds: string[], over: Record<string, unknown> = {}) {
  return o.ok('POST', '/campaigns', {
    organizationId: o.orgId,
    name: `Reconcile ${randomUUID().slice(0, 4)}`,
    mailboxId: o.mailboxId,
    contactIds,
    steps,
    ...over,
  });
}

async function enroll(o: OutreachOrg, contactIds: string[], over: Record<string, unknown> = {}) {
  const campaign = await campaignFor(o, contactIds, over);
  const accepted = await o.ok('POST', `/campaigns/${campaign.id}/accept`, {});
  return { campaign, enrolled: accepted.result.enrolled as Array<{ enrollmentId: string; contactId: string }> };
}

const messagesOf = (o: OutreachOrg, enrollmentId: string) =>
  o.ok<Array<Record<string, any>>>('GET', `/messages?organizationId=${o.orgId}&enrollmentId=${enrollmentId}`);

const messageIs = (o: OutreachOrg, enrollmentId: string, status: string) =>
  until(`a ${status} message of ${enrollmentId}`, async () => (await messagesOf(o, enrollmentId)).find((m) => m.status === status), 60_000);

const enrollmentIs = (o: OutreachOrg, id: string, status: string) =>
  until(
    `enrollment ${id} ${status}`,
    async () => {
      const e = await o.ok('GET', `/enrollments/${id}`);
      return e.status === status ? e : undefined;
    },
    60_000,
  );

/** One pass of reconcile/outreach, by hand, over this organization only (the stack's schedule also runs it, every 10 minutes). */
function reconcile(organizationId: string) {
  return temporal.workflow.execute('reconcileOutreachWorkflow', {
    taskQueue: testEnv('TEMPORAL_TASK_QUEUE'),
    workflowId: `reconcile/outreach-test-${randomUUID()}`,
    args: [{ olderThanSeconds: 0, organizationId, retryInitialIntervalMs: 100 }],
  }) as Promise<{ restarted: string[]; sends: string[]; running: number }>;
}

async function runStatus(workflowId: string): Promise<string | null> {
  try {
    return (await temporal.workflow.getHandle(workflowId).describe()).status.name;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
  }
}

/** An OpenAI-compatible model endpoint whose answers the test controls: a status, or a draft held until released. */
async function startModel() {
  let mode: { status: number } | { hold: true } = { status: 401 };
  let release: () => void = () => undefined;
  let released = new Promise<void>((r) => (release = r));
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', async () => {
      requests.push(req.url ?? '');
      if ('status' in mode) {
        res.writeHead(mode.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'invalid api key' } }));
        return;
      }
      await released;
      const content = JSON.stringify({ subject: 'Uw vergunning', body: 'Geachte heer Bakker, ...', confidence: 0.9, risks: [] });
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'c1',
          object: 'chat.completion',
          created: 1,
          model: 'held-model',
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`,
    requests,
    hold() {
      mode = { hold: true };
      released = new Promise<void>((r) => (release = r));
    },
    release: () => release(),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

test('an accept whose sequence starts fail (Temporal unreachable) answers 200 and reconcile/outreach starts the runs; a second pass leaves them alone', async () => {
  // The API's starter talks to a Temporal address where nothing listens.
  const unreachable = unreachableTemporal();
  const offline = await startApi({
    workflows: new WorkflowStarter(unreachable, { TEMPORAL_TASK_QUEUE: testEnv('TEMPORAL_TASK_QUEUE'), INGEST_RETRY_INITIAL_INTERVAL_MS: 100 }),
  });
  try {
    const o = await outreachOrg(api, newOrganization, smtp);
    const through = async (path: string, body: unknown) => {
      const res = await offline.call('POST', path, { token: o.owner.token, body });
      expect(res.status).toBe(200);
      return res.body;
    };
    const person = await o.contact();
    const accepted = await through(`/campaigns/${(await campaignFor(o, [person.id])).id}/accept`, {});
    const enrollmentId = accepted.result.enrolled[0]!.enrollmentId as string;
    expect(await o.ok('GET', `/enrollments/${enrollmentId}`)).toMatchObject({ status: 'active', workflow_id: `enrollment/${enrollmentId}` });
    expect(await runStatus(workflowIds.sequence(enrollmentId))).toBeNull();
    // A stop committed while Temporal is unreachable is answered 200 too (the signal is logged, not thrown).
    const other = await o.contact({ fullName: 'Anna de Vries' });
    const second = (await through(`/campaigns/${(await campaignFor(o, [other.id])).id}/accept`, {})).result.enrolled[0]!.enrollmentId as string;
    await through(`/enrollments/${second}/stop`, {});
    expect(await o.ok('GET', `/enrollments/${second}`)).toMatchObject({ status: 'stopped' });

    const pass = await reconcile(o.orgId);
    expect(pass.restarted).toEqual([enrollmentId]);
    const draft = await messageIs(o, enrollmentId, 'pending_approval');
    expect(draft.step_position).toBe(1);
    expect(await runStatus(workflowIds.sequence(enrollmentId))).toBe('RUNNING');
    // The run is there now: a second pass starts nothing.
    expect(await reconcile(o.orgId)).toMatchObject({ restarted: [], running: 1 });
  } finally {
    await offline.close();
    await unreachable.connection.close().catch(() => undefined);
  }
}, 180_000);

test('a run that died is restarted where it stood: it waits on the stored draft of its step (no second draft, not the next step), which then goes out', async () => {
  const o = await outreachOrg(api, newOrganization, smtp);
  const person = await o.contact();
  const { enrolled } = await enroll(o, [person.id]);
  const enrollmentId = enrolled[0]!.enrollmentId;
  const draft = await messageIs(o, enrollmentId, 'pending_approval');
  await temporal.workflow.getHandle(workflowIds.sequence(enrollmentId)).terminate('test: the run is lost');
  expect(await o.ok('GET', `/enrollments/${enrollmentId}`)).toMatchObject({ status: 'active', current_step: 1 });

  const pass = await reconcile(o.orgId);
  expect(pass.restarted).toEqual([enrollmentId]);
  const run = await temporal.workflow.getHandle(workflowIds.sequence(enrollmentId)).describe();
  expect(run.status.name).toBe('RUNNING');
  await o.ok('POST', `/messages/${draft.id}/approve`, {});
  await until('the stored draft sent', async () => (await o.ok('GET', `/messages/${draft.id}`)).status === 'sent', 60_000);
  // Then step 2, once: the restarted run went on from step 1's draft.
  const next = await until(
    'the follow-up draft',
    async () => (await messagesOf(o, enrollmentId)).find((m) => m.step_position === 2 && m.status === 'pending_approval'),
    60_000,
  );
  expect((await messagesOf(o, enrollmentId)).map((m) => `${m.step_position}:${m.status}`).sort()).toEqual(['1:sent', '2:pending_approval']);
  expect(await smtp.received(person.email)).toHaveLength(1);
  await o.ok('POST', `/enrollments/${enrollmentId}/stop`, {});
  expect((await o.ok('GET', `/messages/${next.id}`)).status).toBe('skipped');
});

test('an approved reply draft outside a sequence whose send run is gone is sent by reconcile/outreach', async () => {
  const o = await outreachOrg(api, newOrganization, smtp);
  const person = await o.contact();
  const { rows } = await owners.query<{ id: string }>(
    `INSERT INTO messages (organization_id, contact_id, mailbox_id, direction, channel, status, subject, body, to_address, from_address, approved_at, updated_at)
     SELECT $1, $2, $3, 'outbound', 'email', 'approved', 'Re: uw vraag', 'Graag, dinsdag past.', $4, address, now(), now() - interval '1 hour'
       FROM mailboxes WHERE id = $3 RETURNING id`,
    [o.orgId, person.id, o.mailboxId, person.email],
  );
  const messageId = rows[0]!.id;
  const pass = await reconcile(o.orgId);
  expect(pass.sends).toEqual([messageId]);
  await until('the reply sent', async () => (await o.ok('GET', `/messages/${messageId}`)).status === 'sent', 60_000);
  expect(await smtp.received(person.email)).toHaveLength(1);
});

test("an activity that fails for good (the organization's model key is revoked: 401) fails the enrollment with the reason at once; reconcile leaves it alone", async () => {
  const model = await startModel();
  try {
    const o = await outreachOrg(api, newOrganization, smtp);
    await o.ok('POST', '/integrations', {
      organizationId: o.orgId,
      providerKey: 'openai_compatible',
      kind: 'llm',
      config: { baseUrl: model.baseUrl, model: 'm' },
      secret: 'sk-revoked',
    });
    const person = await o.contact();
    const { enrolled } = await enroll(o, [person.id]);
    const enrollmentId = enrolled[0]!.enrollmentId;
    const failed = await enrollmentIs(o, enrollmentId, 'failed');
    expect(failed.stopped_reason).toMatch(/writeDraft failed: .*401/);
    expect(failed.next_action_at).toBeNull();
    // Non-retryable: asked once, not for hours.
    expect(model.requests).toHaveLength(1);
    expect(await temporal.workflow.getHandle(workflowIds.sequence(enrollmentId)).result()).toMatchObject({ ended: 'failed' });
    expect(await reconcile(o.orgId)).toMatchObject({ restarted: [] });
    expect(await messagesOf(o, enrollmentId)).toEqual([]);
  } finally {
    await model.close();
  }
});

test('a stop while the model writes leaves no draft in the inbox and no next action', async () => {
  const model = await startModel();
  try {
    model.hold();
    const o = await outreachOrg(api, newOrganization, smtp);
    await o.ok('POST', '/integrations', {
      organizationId: o.orgId,
      providerKey: 'openai_compatible',
      kind: 'llm',
      config: { baseUrl: model.baseUrl, model: 'm' },
      secret: 'sk-good',
    });
    const person = await o.contact();
    const { enrolled } = await enroll(o, [person.id]);
    const enrollmentId = enrolled[0]!.enrollmentId;
    await until('the model asked', async () => model.requests.length > 0);
    await o.ok('POST', `/enrollments/${enrollmentId}/stop`, { reason: 'klant belde' });
    model.release();
    expect(await temporal.workflow.getHandle(workflowIds.sequence(enrollmentId)).result()).toMatchObject({ ended: 'stopped' });
    const stored = await messagesOf(o, enrollmentId);
    expect(stored.map((m) => m.status)).toEqual(['skipped']);
    expect(await o.ok('GET', `/messages?organizationId=${o.orgId}&status=pending_approval`)).toEqual([]);
    expect(await o.ok('GET', `/enrollments/${enrollmentId}`)).toMatchObject({ status: 'stopped', next_action_at: null, current_step: 0 });
  } finally {
    model.release();
    await model.close();
  }
});

test('an out-of-office pause ends by itself at resume_at while the draft waits for approval, and while it is approved', async () => {
  const o = await outreachOrg(api, newOrganization, smtp);
  const [a, b] = [await o.contact(), await o.contact({ fullName: 'Anna de Vries' })];
  const { enrolled } = await enroll(o, [a.id, b.id]);
  const [ea, eb] = [enrolled.find((e) => e.contactId === a.id)!.enrollmentId, enrolled.find((e) => e.contactId === b.id)!.enrollmentId];
  const [draftA, draftB] = [await messageIs(o, ea, 'pending_approval'), await messageIs(o, eb, 'pending_approval')];
  // Both are away for a few seconds (as the inbound triage pauses them; no signal: the runs must find out by themselves).
  await owners.query(
    `UPDATE enrollments SET status = 'paused', pause_reason = 'out_of_office', resume_at = now() + interval '5 seconds', next_action_at = now() + interval '5 seconds' WHERE id = ANY($1)`,
    [[ea, eb]],
  );
  // Their runs are woken, as the inbound triage does after pausing; nothing wakes them when resume_at passes.
  for (const id of [ea, eb]) await temporal.workflow.getHandle(workflowIds.sequence(id)).signal('enrollmentChanged');
  // B's draft is approved while B is away: nothing goes out until B is back.
  await o.ok('POST', `/messages/${draftB.id}/approve`, {});
  // A waits with its draft pending; both resume by themselves.
  await enrollmentIs(o, ea, 'active');
  expect((await o.ok('GET', `/messages/${draftA.id}`)).status).toBe('pending_approval');
  await enrollmentIs(o, eb, 'active');
  await until('B sent after the pause', async () => (await o.ok('GET', `/messages/${draftB.id}`)).status === 'sent', 60_000);
  expect(await smtp.received(b.email)).toHaveLength(1);
  expect(await smtp.received(a.email)).toHaveLength(0);
}, 120_000);

test('erasure stops the contact’s enrollments, skips the drafts waiting in the inbox and ends the run', async () => {
  const o = await outreachOrg(api, newOrganization, smtp);
  const person = await o.contact();
  const { enrolled } = await enroll(o, [person.id]);
  const enrollmentId = enrolled[0]!.enrollmentId;
  const draft = await messageIs(o, enrollmentId, 'pending_approval');
  await o.ok('DELETE', `/contacts/${person.id}`);
  expect(await o.ok('GET', `/enrollments/${enrollmentId}`)).toMatchObject({ status: 'stopped', stopped_reason: 'erased', next_action_at: null });
  expect(await o.ok('GET', `/messages/${draft.id}`)).toMatchObject({ status: 'skipped', to_address: null });
  expect(await temporal.workflow.getHandle(workflowIds.sequence(enrollmentId)).result()).toMatchObject({ ended: 'stopped' });
  expect(await smtp.received(person.email)).toHaveLength(0);
});

test('the Art. 14 notice: a first e-mail refused for good does not count as emailed; a sent one does', async () => {
  const o = await outreachOrg(api, newOrganization, smtp);
  const [refused, reached] = [await o.contact(), await o.contact({ fullName: 'Anna de Vries' })];
  // Earlier e-mails to both: one refused at DATA for good (attempted, failed, no bounce), one sent.
  for (const [p, status] of [
    [refused, 'failed'],
    [reached, 'sent'],
  ] as const) {
    await owners.query(
      `INSERT INTO messages (organization_id, contact_id, mailbox_id, direction, channel, status, subject, body, to_address, send_attempted_at, sent_at)
       VALUES ($1, $2, $3, 'outbound', 'email', $4, 'Eerder', 'Eerder bericht', $5, now(), CASE WHEN $4 = 'sent' THEN now() END)`,
      [o.orgId, p.id, o.mailboxId, status, p.email.toUpperCase()],
    );
  }
  const { enrolled } = await enroll(o, [refused.id, reached.id]);
  const draftOf = async (contactId: string) => messageIs(o, enrolled.find((e) => e.contactId === contactId)!.enrollmentId, 'pending_approval');
  expect((await draftOf(refused.id)).why.compliance.requirements).toContain('art14_notice');
  expect((await draftOf(reached.id)).why.compliance.requirements).not.toContain('art14_notice');
});

test('an out-of-office pause ends by itself at resume_at while the step is scheduled for a later slot', async () => {
  // A one-hour window that opens in two hours (today or tomorrow), every day, no holidays around.
  const opens = DateTime.now().setZone('Europe/Amsterdam').plus({ hours: 2 }).startOf('hour');
  const end = opens.plus({ hours: 1 }).toFormat('HH:mm');
  const o = await outreachOrg(api, newOrganization, smtp, { sendingWindow: { start: opens.toFormat('HH:mm'), end: end === '00:00' ? '24:00' : end } });
  const person = await o.contact();
  const { enrolled } = await enroll(o, [person.id]);
  const enrollmentId = enrolled[0]!.enrollmentId;
  const draft = await messageIs(o, enrollmentId, 'pending_approval');
  await o.ok('POST', `/messages/${draft.id}/approve`, {});
  await messageIs(o, enrollmentId, 'scheduled');
  await owners.query(`UPDATE enrollments SET status = 'paused', pause_reason = 'out_of_office', resume_at = now() + interval '4 seconds' WHERE id = $1`, [
    enrollmentId,
  ]);
  await temporal.workflow.getHandle(workflowIds.sequence(enrollmentId)).signal('enrollmentChanged');
  await enrollmentIs(o, enrollmentId, 'active');
  expect(['scheduled', 'approved']).toContain((await o.ok('GET', `/messages/${draft.id}`)).status);
  expect(await smtp.received(person.email)).toHaveLength(0);
  await o.ok('POST', `/enrollments/${enrollmentId}/stop`, {});
}, 120_000);
