import { createHmac, randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { createMeetingReminder } from '../../db/queries/meetings';
import { asUser } from '../../db/tenancy';
import { addMember, expectProblem, newOrganization } from '../helpers/api';
import { startHubSpotServer, HubSpotServer } from '../helpers/hubspot-server';
import { testEnv, TestUser } from '../helpers/tokens';
import { useStack } from '../helpers/stack';

/**
 * Meetings on the real stack: the API, the worker process (meetingWorkflow,
 * bookingWorkflow, the CRM sync on the providers queue) and a local HubSpot that speaks its shapes.
 */
const { api, owners } = useStack({ api: true, owners: true });
let hubspot: HubSpotServer;

beforeAll(async () => {
  hubspot = await startHubSpotServer();
});
afterAll(async () => {
  await hubspot?.close();
});

interface Tenant {
  owner: TestUser;
  org: string;
  company: string;
  contact: { id: string; email: string };
  opportunity: string;
  enrollment: string;
  draft: string;
}

async function as(t: { owner: TestUser }, method: string, path: string, body?: unknown) {
  return api.call(method, path, { token: t.owner.token, body });
}

async function must(t: { owner: TestUser }, method: string, path: string, body?: unknown) {
  const res = await as(t, method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** An organization with a contact enrolled in an accepted campaign (of an opportunity) and a draft waiting for approval. */
async function seed(name = `Meetings ${randomUUID().slice(0, 6)} B.V.`): Promise<Tenant> {
  const { owner, orgId: org } = await newOrganization(api, name);
  const t = { owner };
  const company = await must(t, 'POST', '/companies', { organizationId: org, name: 'Bouwbedrijf Jansen B.V.', countryCode: 'NL' });
  const email = `jan.${randomUUID().slice(0, 8)}@jansen-bouw.nl`;
  const contact = await must(t, 'POST', '/contacts', { organizationId: org, companyId: company.id, fullName: 'Jan Jansen', email });
  await must(t, 'PUT', `/contacts/${contact.id}/lawful-basis`, {
    organizationId: org,
    basis: 'legitimate_interest',
    recipient_kind: 'legal_person',
    country: 'NL',
    assessment: 'test',
  });
  const opportunity = await must(t, 'POST', '/opportunities', { organizationId: org, summary: 'Nieuwbouw 48 woningen' });
  const campaign = await must(t, 'POST', '/campaigns', {
    organizationId: org,
    name: 'Warmtepompen',
    opportunityId: opportunity.id,
    contactIds: [contact.id],
    steps: [{ channel: 'linkedin', delayDays: 0 }],
  });
  const enrolled = (await must(t, 'POST', `/campaigns/${campaign.id}/accept`, {})).result.enrolled[0];
  const draft = await owners.query<{ id: string }>(
    `INSERT INTO messages (organization_id, enrollment_id, contact_id, direction, channel, status, subject, body, to_address)
     VALUES ($1, $2, $3, 'outbound', 'email', 'pending_approval', 'Warmtepompen', 'Beste Jan', $4) RETURNING id`,
    [org, enrolled.enrollmentId, contact.id, email],
  );
  return {
    owner,
    org,
    company: company.id,
    contact: { id: contact.id, email },
    opportunity: opportunity.id,
    enrollment: enrolled.enrollmentId,
    draft: draft.rows[0]!.id,
  };
}

const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();
const HOUR = 3600_000;

/** Polls until check answers something other than undefined (the worker acts asynchronously). */
async function eventually<T>(check: () => Promise<T | undefined>, what: string, tries = 150): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await check();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const meetingOf = async (t: Tenant, id: string) => (await as(t, 'GET', `/meetings/${id}`)).body;
const reminded = (t: Tenant, id: string) =>
  eventually(async () => {
    const m = await meetingOf(t, id);
    return m.reminded_at ? m : undefined;
  }, `the reminder of meeting ${id}`);
const meetingRun = (id: string) => api.temporal.workflow.getHandle(`meeting/${id}`);

describe('recording a meeting', () => {
  test("stops the contact's sequences, skips their drafts, links the opportunity, and the reminder appears at once when its moment has passed", async () => {
    const t = await seed();
    const startsAt = inMs(2 * HOUR);
    const res = await as(t, 'POST', '/meetings', {
      organizationId: t.org,
      title: 'Kennismaking',
      startsAt,
      endsAt: inMs(2.5 * HOUR),
      contactId: t.contact.id,
      joinUrl: 'https://meet.example.nl/abc',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'proposed',
      booked_via: 'manual',
      provider: 'manual',
      contact_id: t.contact.id,
      enrollment_id: t.enrollment,
      opportunity_id: t.opportunity,
      attendee_email: t.contact.email,
      contact_name: 'Jan Jansen',
      company_name: 'Bouwbedrijf Jansen B.V.',
      created_by: t.owner.id,
    });
    // Default lead time: 24 hours before the start, long past: the reminder comes at once.
    expect(new Date(res.body.reminder_at).getTime()).toBe(new Date(startsAt).getTime() - 24 * HOUR);

    const enrollment = (await as(t, 'GET', `/enrollments/${t.enrollment}`)).body;
    expect(enrollment).toMatchObject({ status: 'stopped', stopped_reason: 'meeting_booked' });
    const draft = await owners.query(`SELECT status FROM messages WHERE id = $1`, [t.draft]);
    expect(draft.rows[0].status).toBe('skipped');

    const meeting = await reminded(t, res.body.id);
    const tasks = (await as(t, 'GET', `/tasks?organizationId=${t.org}&meetingId=${meeting.id}`)).body;
    expect(tasks).toEqual([
      expect.objectContaining({
        id: meeting.reminder_task_id,
        kind: 'meeting_reminder',
        status: 'open',
        assignee_user_id: t.owner.id,
        contact_id: t.contact.id,
        title: 'Prepare: Kennismaking with Jan Jansen, Bouwbedrijf Jansen B.V.',
      }),
    ]);
    const mail = await owners.query(`SELECT status, channel, direction, to_address, subject, body, enrollment_id, why FROM messages WHERE id = $1`, [
      meeting.reminder_message_id,
    ]);
    expect(mail.rows[0]).toMatchObject({
      status: 'pending_approval',
      channel: 'email',
      direction: 'outbound',
      to_address: t.contact.email,
      subject: 'Herinnering: Kennismaking',
      enrollment_id: t.enrollment,
    });
    expect(mail.rows[0].body).toContain('https://meet.example.nl/abc');
    expect(mail.rows[0].why.meeting_reminder.meeting_id).toBe(meeting.id);

    // The task is done once; another tenant cannot see it.
    const other = await seed();
    expectProblem(await as(other, 'POST', `/tasks/${meeting.reminder_task_id}/complete`, {}), 404, 'NOT_FOUND');
    expect((await as(t, 'POST', `/tasks/${meeting.reminder_task_id}/complete`, {})).body).toMatchObject({ id: meeting.reminder_task_id, status: 'done' });
    expectProblem(await as(t, 'POST', `/tasks/${meeting.reminder_task_id}/complete`, {}), 409, 'CONFLICT');
    await owners.query(`UPDATE tasks SET status = 'open' WHERE id = $1`, [meeting.reminder_task_id]);

    // Cancelling the meeting cancels the reminder: the task and the draft.
    const cancelled = await as(t, 'POST', `/meetings/${meeting.id}/status`, { status: 'cancelled' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', reminder_at: null });
    expect((await as(t, 'GET', `/tasks?organizationId=${t.org}&meetingId=${meeting.id}`)).body[0].status).toBe('cancelled');
    expect((await owners.query(`SELECT status FROM messages WHERE id = $1`, [meeting.reminder_message_id])).rows[0].status).toBe('skipped');
    // ... and does not restart the stopped sequence.
    expect((await as(t, 'GET', `/enrollments/${t.enrollment}`)).body.status).toBe('stopped');
    expect(await meetingRun(meeting.id).result()).toMatchObject({ status: 'cancelled' });
  });

  test('a repeat of (provider, externalId) changes nothing; moving the start moves the reminder (the timer waits for the lead time)', async () => {
    const t = await seed();
    const settings = await as(t, 'PATCH', '/settings/meetings', { organizationId: t.org, reminderLeadMinutes: 0 });
    expect(settings.body).toEqual({ organization_id: t.org, reminder_lead_minutes: 0 });
    const body = {
      organizationId: t.org,
      title: 'Demo',
      startsAt: inMs(HOUR),
      endsAt: inMs(1.5 * HOUR),
      contactId: t.contact.id,
      provider: 'google',
      externalId: `evt-${randomUUID()}`,
    };
    const first = await as(t, 'POST', '/meetings', body);
    expect(first.status).toBe(201);
    expect(first.body.reminder_at).toBe(new Date(body.startsAt).toISOString());
    const repeat = await as(t, 'POST', '/meetings', body);
    expect(repeat.status).toBe(200);
    expect(repeat.body).toEqual(first.body);

    // Moved to start in 3 seconds: the reminder (lead time 0) comes then, not in an hour.
    const startsAt = inMs(3000);
    const moved = await as(t, 'POST', '/meetings', { ...body, startsAt, endsAt: inMs(4000) });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ id: first.body.id, reminder_at: new Date(startsAt).toISOString(), reminded_at: null });
    const meeting = await reminded(t, first.body.id);
    expect(new Date(meeting.reminded_at).getTime()).toBeGreaterThanOrEqual(new Date(startsAt).getTime());
    expect((await as(t, 'GET', `/tasks?organizationId=${t.org}&meetingId=${meeting.id}&status=open`)).body).toHaveLength(1);
    // The meeting has ended by now: the run ends after it, having made one reminder.
    expect(await meetingRun(meeting.id).result()).toMatchObject({ status: 'proposed', remindersCreated: 1 });
  });

  test('cancelling before the reminder is due ends the run without one; completed and no_show are recorded', async () => {
    const t = await seed();
    await must(t, 'PATCH', '/settings/meetings', { organizationId: t.org, reminderLeadMinutes: 30 });
    const m = await must(t, 'POST', '/meetings', {
      organizationId: t.org,
      title: 'Later',
      startsAt: inMs(5 * HOUR),
      endsAt: inMs(6 * HOUR),
      contactId: t.contact.id,
    });
    expect((await must(t, 'POST', `/meetings/${m.id}/status`, { status: 'cancelled' })).reminder_at).toBeNull();
    expect(await meetingRun(m.id).result()).toMatchObject({ status: 'cancelled', remindersCreated: 0 });
    expect((await meetingOf(t, m.id)).reminded_at).toBeNull();
    expect((await as(t, 'GET', `/tasks?organizationId=${t.org}&meetingId=${m.id}`)).body).toEqual([]);

    const held = await must(t, 'POST', '/meetings', { organizationId: t.org, title: 'Held', startsAt: inMs(-2 * HOUR), endsAt: inMs(-HOUR) });
    expect((await must(t, 'POST', `/meetings/${held.id}/status`, { status: 'no_show' })).status).toBe('no_show');
    expect((await must(t, 'POST', `/meetings/${held.id}/status`, { status: 'completed' })).status).toBe('completed');
    const list = (await as(t, 'GET', `/meetings?organizationId=${t.org}&status=completed`)).body;
    expect(list.map((x: { id: string }) => x.id)).toEqual([held.id]);
  });
});

test('no reminder for a meeting that already started (recorded late): neither task nor e-mail', async () => {
  const t = await seed();
  const startsAt = new Date(Date.now() - HOUR).toISOString();
  const res = await as(t, 'POST', '/meetings', { organizationId: t.org, title: 'Al begonnen', startsAt, endsAt: inMs(3000), contactId: t.contact.id });
  expect(res.status).toBe(201);
  // What the meeting workflow's reminder step runs, as the organization's owner under row-level security.
  const made = await asUser(api.db, t.owner.id, (tx) => createMeetingReminder(tx, res.body.id, new Date(startsAt).toISOString()));
  expect(made).toEqual({ created: false });
  expect(await meetingOf(t, res.body.id)).toMatchObject({ reminder_at: null, reminded_at: null, reminder_task_id: null, reminder_message_id: null });
  // The meeting's own run made none either, and ends with the meeting.
  expect(await meetingRun(res.body.id).result()).toMatchObject({ status: 'proposed', remindersCreated: 0 });
  expect((await as(t, 'GET', `/tasks?organizationId=${t.org}&meetingId=${res.body.id}`)).body).toEqual([]);
});

describe('bad input', () => {
  test('end before start, an unknown status, another tenant’s contact or meeting, a viewer: clear 4xx problems that change nothing', async () => {
    const t = await seed();
    const other = await seed();
    const base = { organizationId: t.org, title: 'X', startsAt: inMs(HOUR), endsAt: inMs(2 * HOUR) };
    const backwards = await as(t, 'POST', '/meetings', { ...base, endsAt: inMs(HOUR - 60_000) });
    expectProblem(backwards, 400, 'VALIDATION_FAILED');
    expect(backwards.body.errors).toEqual([{ path: 'body.endsAt', message: 'must not be before startsAt' }]);
    expectProblem(await as(t, 'POST', '/meetings', { ...base, startsAt: 'tomorrow' }), 400, 'VALIDATION_FAILED');
    expectProblem(await as(t, 'POST', '/meetings', { ...base, contactId: other.contact.id }), 404, 'NOT_FOUND');
    expectProblem(await as(t, 'POST', '/meetings', { ...base, enrollmentId: other.enrollment }), 404, 'NOT_FOUND');
    expectProblem(await as(t, 'POST', '/meetings', { ...base, organizationId: other.org }), 404, 'NOT_FOUND');
    expect((await as(t, 'GET', `/meetings?organizationId=${t.org}`)).body).toEqual([]);
    // The other tenant's enrollment was not stopped.
    expect((await as(other, 'GET', `/enrollments/${other.enrollment}`)).body.status).toBe('active');

    const mine = await must(t, 'POST', '/meetings', base);
    expectProblem(await as(t, 'POST', `/meetings/${mine.id}/status`, { status: 'rescheduled' }), 400, 'VALIDATION_FAILED');
    expectProblem(await as(t, 'POST', `/meetings/${mine.id}/status`, { status: 'proposed' }), 400, 'VALIDATION_FAILED');
    expectProblem(await as(other, 'GET', `/meetings/${mine.id}`), 404, 'NOT_FOUND');
    expectProblem(await as(other, 'POST', `/meetings/${mine.id}/status`, { status: 'completed' }), 404, 'NOT_FOUND');
    expectProblem(await as(other, 'GET', `/tasks?organizationId=${t.org}`), 404, 'NOT_FOUND');
    expectProblem(await as(other, 'PATCH', '/settings/meetings', { organizationId: t.org, reminderLeadMinutes: 5 }), 404, 'NOT_FOUND');
    expectProblem(await as(t, 'PATCH', '/settings/meetings', { organizationId: t.org, reminderLeadMinutes: -1 }), 400, 'VALIDATION_FAILED');
    expect((await meetingOf(t, mine.id)).status).toBe('proposed');

    const viewer = await addMember(api, t.owner, t.org, 'viewer');
    expectProblem(await api.call('POST', '/meetings', { token: viewer.token, body: base }), 403, 'FORBIDDEN');
    expect((await api.call('GET', `/meetings/${mine.id}`, { token: viewer.token })).status).toBe(200);
  });
});

describe('CRM sync (HubSpot, config.autoSync)', () => {
  async function withHubSpot(autoSync: boolean): Promise<Tenant> {
    const t = await seed();
    await must(t, 'POST', '/integrations', {
      organizationId: t.org,
      providerKey: 'hubspot',
      kind: 'crm',
      config: { baseUrl: hubspot.url, autoSync },
      secret: 'hubspot-test-token',
    });
    return t;
  }
  const synced = (t: Tenant, id: string) =>
    eventually(async () => {
      const m = await meetingOf(t, id);
      return m.crm_external_id ? m : undefined;
    }, 'the CRM sync');

  test('the local HubSpot receives the create (properties, association to the contact) after an outage, then the outcome update', async () => {
    const t = await withHubSpot(true);
    hubspot.failMeetingCreates(2, 503);
    const startsAt = inMs(48 * HOUR);
    const endsAt = inMs(49 * HOUR);
    const res = await as(t, 'POST', '/meetings', { organizationId: t.org, title: 'HubSpot demo', startsAt, endsAt, contactId: t.contact.id });
    expect(res.status).toBe(201); // answered while HubSpot is down
    expect(res.body.crm_external_id).toBeNull();
    const meeting = await synced(t, res.body.id);
    expect(meeting).toMatchObject({ crm_error: null, crm_synced_at: expect.any(String) });
    expect(meeting.crm_external_id).toBe(hubspot.requests.filter((r) => r.path === '/crm/v3/objects/meetings' && r.answer?.id).at(-1)!.answer.id);

    const creates = hubspot.requests.filter(
      (r) => r.method === 'POST' && r.path === '/crm/v3/objects/meetings' && r.body.properties.hs_meeting_title === 'HubSpot demo',
    );
    expect(creates).toHaveLength(3); // two 503s, retried
    const contactCreate = hubspot.requests.find((r) => r.path === '/crm/v3/objects/contacts' && r.body.properties.email === t.contact.email)!;
    expect(contactCreate.body.properties).toEqual({ email: t.contact.email, firstname: 'Jan', lastname: 'Jansen' });
    const hubspotContactId = contactCreate.answer.id;
    expect(creates[2]!.authorization).toBe('Bearer hubspot-test-token');
    expect(creates[2]!.body).toEqual({
      properties: {
        hs_timestamp: new Date(startsAt).toISOString(),
        hs_meeting_title: 'HubSpot demo',
        hs_meeting_start_time: new Date(startsAt).toISOString(),
        hs_meeting_end_time: new Date(endsAt).toISOString(),
        hs_meeting_outcome: 'SCHEDULED',
        hs_internal_meeting_notes: `outreach-meeting:${res.body.id}`,
      },
      associations: [{ to: { id: hubspotContactId }, types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 200 }] }],
    });

    await must(t, 'POST', `/meetings/${meeting.id}/status`, { status: 'no_show' });
    const update = await eventually(
      async () =>
        hubspot.requests.find(
          (r) => r.method === 'PATCH' && r.path === `/crm/v3/objects/meetings/${meeting.crm_external_id}` && r.body.properties.hs_meeting_outcome === 'NO_SHOW',
        ),
      'the outcome update',
    );
    expect(update.body.properties).toMatchObject({ hs_meeting_title: 'HubSpot demo', hs_meeting_start_time: new Date(startsAt).toISOString() });
  });

  test('a create whose answer was lost is found by its key on the retry: one HubSpot meeting, not two', async () => {
    const t = await withHubSpot(true);
    hubspot.loseMeetingCreateAnswers(1);
    const res = await must(t, 'POST', '/meetings', {
      organizationId: t.org,
      title: 'Lost answer',
      startsAt: inMs(48 * HOUR),
      endsAt: inMs(49 * HOUR),
      contactId: t.contact.id,
    });
    const meeting = await synced(t, res.id);
    const key = `outreach-meeting:${res.id}`;
    const made = [...hubspot.meetings].filter(([, p]) => p.hs_internal_meeting_notes === key);
    expect(made).toHaveLength(1);
    expect(meeting.crm_external_id).toBe(made[0]![0]);
    // The retry searched by the key, found it and updated it instead of creating.
    expect(hubspot.requests.filter((r) => r.path === '/crm/v3/objects/meetings' && r.body?.properties?.hs_meeting_title === 'Lost answer')).toHaveLength(1);
    expect(hubspot.requests.some((r) => r.method === 'PATCH' && r.path === `/crm/v3/objects/meetings/${made[0]![0]}`)).toBe(true);
  });

  test('a 4xx from HubSpot is recorded on the meeting and not retried; without autoSync nothing is sent', async () => {
    const t = await withHubSpot(true);
    const res = await must(t, 'POST', '/meetings', {
      organizationId: t.org,
      title: 'Broken [reject]',
      startsAt: inMs(48 * HOUR),
      endsAt: inMs(49 * HOUR),
      contactId: t.contact.id,
    });
    const meeting = await eventually(async () => {
      const m = await meetingOf(t, res.id);
      return m.crm_error ? m : undefined;
    }, 'the CRM error');
    expect(meeting.crm_error).toContain('Property values were not valid');
    expect(meeting.crm_external_id).toBeNull();
    expect(hubspot.requests.filter((r) => r.body?.properties?.hs_meeting_title === 'Broken [reject]')).toHaveLength(1);

    const off = await withHubSpot(false);
    const quiet = await must(off, 'POST', '/meetings', { organizationId: off.org, title: 'Not synced', startsAt: inMs(-2 * HOUR), endsAt: inMs(-HOUR) });
    expect(await meetingRun(quiet.id).result()).toMatchObject({ crm: { synced: false, reason: 'auto_sync_off' } });
    expect(hubspot.requests.filter((r) => r.body?.properties?.hs_meeting_title === 'Not synced')).toEqual([]);
  });
});

describe('booking webhooks', () => {
  async function calendar(t: Tenant, providerKey: 'calcom' | 'calendly', secret: string): Promise<string> {
    return (await must(t, 'POST', '/integrations', { organizationId: t.org, providerKey, kind: 'calendar', secret })).id;
  }
  const post = (path: string, body: string, headers: Record<string, string>) =>
    api.call('POST', path, { rawBody: body, headers: { 'content-type': 'application/json', ...headers } });
  const calSign = (body: string, secret: string) => createHmac('sha256', secret).update(body).digest('hex');
  const calendlySign = (body: string, secret: string, t = Math.floor(Date.now() / 1000)) =>
    `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
  const bookingResult = async (workflowId: string) => api.temporal.workflow.getHandle(workflowId).result();

  test('Cal.com: a good signature books (attributed to the enrollment in the metadata), a repeat changes nothing, a reschedule moves, a cancellation cancels; bad signatures are 401', async () => {
    const t = await seed();
    const id = await calendar(t, 'calcom', 'cal-secret');
    const uid = `cal-${randomUUID()}`;
    const created = JSON.stringify({
      triggerEvent: 'BOOKING_CREATED',
      createdAt: new Date().toISOString(),
      payload: {
        uid,
        title: 'Kennismaking via Cal.com',
        startTime: inMs(30 * HOUR),
        endTime: inMs(30.5 * HOUR),
        attendees: [{ email: 'Someone.Else@Example.nl', name: 'Someone Else', timeZone: 'Europe/Amsterdam' }],
        metadata: { enrollmentId: t.enrollment, videoCallUrl: 'https://cal.example/video/1' },
      },
    });
    const path = `/webhooks/calcom/${id}`;

    expectProblem(await post(path, created, { 'X-Cal-Signature-256': calSign(created, 'wrong-secret') }), 401, 'UNAUTHENTICATED');
    expectProblem(await post(path, created, {}), 401, 'UNAUTHENTICATED');
    expectProblem(
      await post(path, created.replace('Kennismaking', 'Kennismakinh'), { 'X-Cal-Signature-256': calSign(created, 'cal-secret') }),
      401,
      'UNAUTHENTICATED',
    );
    expectProblem(await post(`/webhooks/calcom/${randomUUID()}`, created, { 'X-Cal-Signature-256': calSign(created, 'cal-secret') }), 404, 'NOT_FOUND');
    expectProblem(await post(`/webhooks/calendly/${id}`, created, { 'X-Cal-Signature-256': calSign(created, 'cal-secret') }), 404, 'NOT_FOUND');
    const notJson = '{"triggerEvent": BOOKING';
    expectProblem(await post(path, notJson, { 'X-Cal-Signature-256': calSign(notJson, 'cal-secret') }), 400, 'MALFORMED_JSON');
    const noTimes = JSON.stringify({ triggerEvent: 'BOOKING_CREATED', payload: { uid: 'x', title: 'x' } });
    expectProblem(await post(path, noTimes, { 'X-Cal-Signature-256': calSign(noTimes, 'cal-secret') }), 400, 'VALIDATION_FAILED');
    expect((await as(t, 'GET', `/meetings?organizationId=${t.org}`)).body).toEqual([]);

    const ok = await post(path, created, { 'X-Cal-Signature-256': calSign(created, 'cal-secret') });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ received: true, event: 'booked', duplicate: false });
    const outcome = await bookingResult(ok.body.workflow_id);
    expect(outcome).toMatchObject({ created: true, stoppedEnrollmentIds: [t.enrollment] });
    const meeting = await meetingOf(t, outcome.meetingId);
    expect(meeting).toMatchObject({
      provider: 'calcom',
      external_id: uid,
      booked_via: 'link',
      enrollment_id: t.enrollment,
      contact_id: t.contact.id,
      opportunity_id: t.opportunity,
      attendee_email: 'someone.else@example.nl',
      join_url: 'https://cal.example/video/1',
      created_by: null,
    });
    expect((await as(t, 'GET', `/enrollments/${t.enrollment}`)).body).toMatchObject({ status: 'stopped', stopped_reason: 'meeting_booked' });

    const again = await post(path, created, { 'X-Cal-Signature-256': calSign(created, 'cal-secret') });
    expect(again.body).toMatchObject({ received: true, duplicate: true });
    const before = await meetingOf(t, meeting.id);
    expect((await as(t, 'GET', `/meetings?organizationId=${t.org}`)).body).toHaveLength(1);

    const newUid = `cal-${randomUUID()}`;
    const rescheduled = JSON.stringify({
      triggerEvent: 'BOOKING_RESCHEDULED',
      payload: {
        uid: newUid,
        rescheduleUid: uid,
        title: 'Kennismaking via Cal.com',
        startTime: inMs(54 * HOUR),
        endTime: inMs(54.5 * HOUR),
        attendees: [{ email: 'someone.else@example.nl' }],
        metadata: {},
      },
    });
    const moved = await post(path, rescheduled, { 'X-Cal-Signature-256': calSign(rescheduled, 'cal-secret') });
    expect((await bookingResult(moved.body.workflow_id)).meetingId).toBe(meeting.id);
    const after = await meetingOf(t, meeting.id);
    expect(after.external_id).toBe(newUid);
    expect(new Date(after.starts_at).getTime()).toBeGreaterThan(new Date(before.starts_at).getTime());
    expect(new Date(after.reminder_at).getTime()).toBe(new Date(after.starts_at).getTime() - 24 * HOUR);

    const cancelled = JSON.stringify({
      triggerEvent: 'BOOKING_CANCELLED',
      payload: { uid: newUid, title: 'x', startTime: inMs(54 * HOUR), endTime: inMs(55 * HOUR) },
    });
    const c = await post(path, cancelled, { 'X-Cal-Signature-256': calSign(cancelled, 'cal-secret') });
    expect(c.body.event).toBe('cancelled');
    await bookingResult(c.body.workflow_id);
    expect(await meetingOf(t, meeting.id)).toMatchObject({ status: 'cancelled', reminder_at: null });
  });

  test('out of order: a cancellation processed before its booking wins (a tombstone), unless the booking is dated after it; another tenant is untouched', async () => {
    const t = await seed();
    const other = await seed();
    const id = await calendar(t, 'calcom', 'cal-secret');
    const path = `/webhooks/calcom/${id}`;
    const send = async (body: string) => {
      const res = await post(path, body, { 'X-Cal-Signature-256': calSign(body, 'cal-secret') });
      expect(res.status).toBe(200);
      return bookingResult(res.body.workflow_id);
    };
    const booking = (uid: string, createdAt: string) =>
      JSON.stringify({
        triggerEvent: 'BOOKING_CREATED',
        createdAt,
        payload: {
          uid,
          title: 'Kennismaking',
          startTime: inMs(30 * HOUR),
          endTime: inMs(30.5 * HOUR),
          attendees: [{ email: t.contact.email }],
          metadata: { enrollmentId: t.enrollment },
        },
      });
    const cancel = (uid: string, createdAt: string) => JSON.stringify({ triggerEvent: 'BOOKING_CANCELLED', createdAt, payload: { uid } });
    const earlier = new Date(Date.now() - 60_000).toISOString();
    const now = new Date().toISOString();

    // Made and cancelled within a minute; the cancellation arrives first, the creation after it.
    const uid = `cal-${randomUUID()}`;
    expect(await send(cancel(uid, now))).toMatchObject({ meetingId: null, reason: expect.stringContaining('the cancellation is kept') });
    expect(await send(booking(uid, earlier))).toMatchObject({
      meetingId: null,
      created: false,
      stoppedEnrollmentIds: [],
      reason: expect.stringContaining('cancelled before it was recorded'),
    });
    expect((await as(t, 'GET', `/meetings?organizationId=${t.org}`)).body).toEqual([]);
    expect((await as(t, 'GET', `/enrollments/${t.enrollment}`)).body.status).toBe('active');

    // The same booking dated after the cancellation (booked again under its uid) is recorded.
    const later = new Date(Date.now() + 60_000).toISOString();
    const rebooked = await send(booking(uid, later));
    expect(rebooked).toMatchObject({ created: true, stoppedEnrollmentIds: [t.enrollment] });
    expect(await meetingOf(t, rebooked.meetingId)).toMatchObject({ status: 'proposed', external_id: uid });

    // The tombstone is the organization's own: the other tenant's rows are none of it.
    const { rows } = await owners.query(`SELECT organization_id, kind FROM booking_events WHERE external_id = $1 ORDER BY created_at`, [uid]);
    expect(rows).toEqual([
      { organization_id: t.org, kind: 'cancelled' },
      { organization_id: t.org, kind: 'booked' },
      { organization_id: t.org, kind: 'booked' },
    ]);
    expect((await as(other, 'GET', `/meetings?organizationId=${other.org}`)).body).toEqual([]);
  });

  test('a Cal.com delivery replayed after its workflow is gone (Temporal retention) changes nothing: the digest is kept', async () => {
    const t = await seed();
    const id = await calendar(t, 'calcom', 'cal-secret');
    const path = `/webhooks/calcom/${id}`;
    const uid = `cal-${randomUUID()}`;
    const newUid = `cal-${randomUUID()}`;
    const created = JSON.stringify({
      triggerEvent: 'BOOKING_CREATED',
      payload: { uid, title: 'Kennismaking', startTime: inMs(30 * HOUR), endTime: inMs(30.5 * HOUR), attendees: [{ email: t.contact.email }], metadata: {} },
    });
    const rescheduled = JSON.stringify({
      triggerEvent: 'BOOKING_RESCHEDULED',
      payload: {
        uid: newUid,
        rescheduleUid: uid,
        title: 'Kennismaking',
        startTime: inMs(54 * HOUR),
        endTime: inMs(54.5 * HOUR),
        attendees: [{ email: t.contact.email }],
        metadata: {},
      },
    });
    const first = await post(path, created, { 'X-Cal-Signature-256': calSign(created, 'cal-secret') });
    const meetingId = (await bookingResult(first.body.workflow_id)).meetingId;
    const moved = await post(path, rescheduled, { 'X-Cal-Signature-256': calSign(rescheduled, 'cal-secret') });
    await bookingResult(moved.body.workflow_id);

    // The first delivery's workflow is deleted, as retention would; the captured body comes again.
    await api.temporal.workflowService.deleteWorkflowExecution({ namespace: 'default', workflowExecution: { workflowId: first.body.workflow_id } });
    await eventually(
      () =>
        api.temporal.workflow
          .getHandle(first.body.workflow_id)
          .describe()
          .then(
            () => undefined,
            () => true,
          ),
      'the deleted workflow to be gone',
      900,
    );
    const replay = await post(path, created, { 'X-Cal-Signature-256': calSign(created, 'cal-secret') });
    expect(replay.body).toMatchObject({ received: true, duplicate: false });
    expect(await bookingResult(replay.body.workflow_id)).toMatchObject({ meetingId: null, reason: 'this delivery was processed before' });
    // No phantom meeting under the old uid; the moved one stays where it was moved.
    const meetings = (await as(t, 'GET', `/meetings?organizationId=${t.org}`)).body;
    expect(meetings.map((m: { id: string; external_id: string }) => [m.id, m.external_id])).toEqual([[meetingId, newUid]]);
  }, 240_000);

  test('Calendly: a good signature books (utm_content names the enrollment), a stale or bad one is 401, a cancellation cancels', async () => {
    const t = await seed();
    const id = await calendar(t, 'calendly', 'calendly-secret');
    const path = `/webhooks/calendly/${id}`;
    const invitee = `https://api.calendly.com/scheduled_events/EV1/invitees/${randomUUID()}`;
    const created = JSON.stringify({
      event: 'invitee.created',
      created_at: new Date().toISOString(),
      payload: {
        email: t.contact.email,
        name: 'Jan Jansen',
        uri: invitee,
        old_invitee: null,
        rescheduled: false,
        scheduled_event: {
          uri: 'https://api.calendly.com/scheduled_events/EV1',
          name: 'Demo via Calendly',
          start_time: inMs(3 * HOUR),
          end_time: inMs(4 * HOUR),
          location: { type: 'zoom', join_url: 'https://zoom.example/j/1' },
        },
        tracking: { utm_source: 'outreach', utm_content: t.enrollment },
      },
    });
    const stale = calendlySign(created, 'calendly-secret', Math.floor(Date.now() / 1000) - 400);
    expectProblem(await post(path, created, { 'Calendly-Webhook-Signature': stale }), 401, 'UNAUTHENTICATED');
    expectProblem(await post(path, created, { 'Calendly-Webhook-Signature': calendlySign(created, 'other-secret') }), 401, 'UNAUTHENTICATED');
    expectProblem(await post(path, created, { 'Calendly-Webhook-Signature': 'v1=abc' }), 401, 'UNAUTHENTICATED');
    const notJson = 'payload=1';
    expectProblem(await post(path, notJson, { 'Calendly-Webhook-Signature': calendlySign(notJson, 'calendly-secret') }), 400, 'MALFORMED_JSON');

    const ok = await post(path, created, { 'Calendly-Webhook-Signature': calendlySign(created, 'calendly-secret') });
    expect(ok.status).toBe(200);
    const outcome = await bookingResult(ok.body.workflow_id);
    const meeting = await meetingOf(t, outcome.meetingId);
    expect(meeting).toMatchObject({
      provider: 'calendly',
      external_id: invitee,
      booked_via: 'link',
      enrollment_id: t.enrollment,
      contact_id: t.contact.id,
      join_url: 'https://zoom.example/j/1',
    });
    expect((await as(t, 'GET', `/enrollments/${t.enrollment}`)).body.status).toBe('stopped');
    expect((await owners.query(`SELECT status FROM messages WHERE id = $1`, [t.draft])).rows[0].status).toBe('skipped');

    const cancel = JSON.stringify({ event: 'invitee.canceled', payload: { email: t.contact.email, uri: invitee, rescheduled: false } });
    const c = await post(path, cancel, { 'Calendly-Webhook-Signature': calendlySign(cancel, 'calendly-secret') });
    await bookingResult(c.body.workflow_id);
    expect((await meetingOf(t, meeting.id)).status).toBe('cancelled');
  });
});

test('only the API role may call app.webhook_integration, and it answers a calendar integration of that provider only', async () => {
  const { rows } = await owners.query(`
    SELECT r.rolname AS role, has_function_privilege(r.rolname, 'app.webhook_integration(uuid, text)', 'EXECUTE') AS execute
      FROM pg_roles r WHERE r.rolname IN ('outreach_api', 'outreach_worker', 'outreach_app') ORDER BY 1`);
  expect(rows).toEqual([
    { role: 'outreach_api', execute: true },
    { role: 'outreach_app', execute: false },
    { role: 'outreach_worker', execute: false },
  ]);
  const t = await seed();
  const cal = await must(t, 'POST', '/integrations', { organizationId: t.org, providerKey: 'calcom', kind: 'calendar', secret: 's' });
  const crm = await must(t, 'POST', '/integrations', {
    organizationId: t.org,
    providerKey: 'hubspot',
    kind: 'crm',
    config: { baseUrl: hubspot.url },
    secret: 'hubspot-test-token',
  });
  const apiRole = new Pool({ connectionString: testEnv('TEST_APP_DB_URL'), max: 1 });
  const worker = new Pool({ connectionString: testEnv('TEST_WORKER_DB_URL'), max: 1 });
  try {
    const ask = (id: string, provider: string) => apiRole.query('SELECT organization_id FROM app.webhook_integration($1, $2)', [id, provider]);
    expect((await ask(cal.id, 'calcom')).rows).toEqual([{ organization_id: t.org }]);
    expect((await ask(cal.id, 'calendly')).rows).toEqual([]);
    expect((await ask(crm.id, 'hubspot')).rows).toEqual([]);
    // The API role still sees no tenant's rows without a user, organization context or not.
    const scoped = await apiRole.query(`SELECT set_config('app.organization_id', $1, false), (SELECT count(*)::int FROM meetings) AS n`, [t.org]);
    expect(scoped.rows[0].n).toBe(0);
    await expect(worker.query('SELECT * FROM app.webhook_integration($1, $2)', [cal.id, 'calcom'])).rejects.toThrow(/permission denied/);
  } finally {
    await apiRole.end();
    await worker.end();
  }
});

test("a new lead time moves the reminders still to come; erasing the contact redacts and withdraws the meeting's reminder", async () => {
  const t = await seed();
  await must(t, 'PATCH', '/settings/meetings', { organizationId: t.org, reminderLeadMinutes: 60 });
  const startsAt = inMs(10 * HOUR);
  const m = await must(t, 'POST', '/meetings', {
    organizationId: t.org,
    title: 'Offertebespreking',
    startsAt,
    endsAt: inMs(11 * HOUR),
    contactId: t.contact.id,
  });
  expect(new Date(m.reminder_at).getTime()).toBe(new Date(startsAt).getTime() - HOUR);
  expect((await as(t, 'GET', `/settings/meetings?organizationId=${t.org}`)).body.reminder_lead_minutes).toBe(60);
  // 24 hours before a start 10 hours away has passed: the woken run reminds at once.
  await must(t, 'PATCH', '/settings/meetings', { organizationId: t.org, reminderLeadMinutes: 1440 });
  const meeting = await reminded(t, m.id);
  expect(new Date(meeting.reminder_at).getTime()).toBe(new Date(startsAt).getTime() - 24 * HOUR);

  expect((await as(t, 'DELETE', `/contacts/${t.contact.id}`)).status).toBe(200);
  const tasks = (await as(t, 'GET', `/tasks?organizationId=${t.org}&meetingId=${m.id}`)).body;
  expect(tasks).toEqual([expect.objectContaining({ title: '[redacted]', body: null, status: 'cancelled' })]);
  expect(await meetingOf(t, m.id)).toMatchObject({ title: '[redacted]', attendee_email: null });
});
