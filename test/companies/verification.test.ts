import { emailStatus, type EmailCheck } from '../../domain/contacts/email-verification';
import { createReacherVerifier } from '../../activities/providers/verification/reacher';
import { VerifierUnavailableError } from '../../activities/providers/verification/types';
import { startReacherServer, type ReacherStandIn } from '../helpers/reacher-server';
import { randomUUID } from 'node:crypto';
import { addMember, newOrganization } from '../helpers/api';
import type { TestUser } from '../helpers/tokens';
import { useStack } from '../helpers/stack';
import { resultWithin } from '../helpers/workflow-result';
import { testEnv } from '../helpers/tokens';
import { until } from '../helpers/outreach';
import { createVerificationActivities } from '../../activities/verification';
import { createDnsResolver } from '../../activities/providers/dns/resolver';
import { createSmtpProbe } from '../../activities/providers/verification/smtp-probe';
import { startDnsServer } from '../helpers/dns-server';
import { startProbeSmtpServer } from '../helpers/probe-smtp-servers';

const { api, owners, workerDb } = useStack({ api: true, owners: true, workerDb: true });

/**
 * Address verification by a self-hosted Reacher: its answers, read from a stand-in that speaks its
 * shapes; and the checks started through the API, run by the worker, stored on the contacts.
 */
describe('Reacher, against its stand-in', () => {
  let reacher: ReacherStandIn;
  beforeAll(async () => {
    reacher = await startReacherServer({ secret: 'reacher-shared-secret' });
  });
  afterAll(() => reacher.close());

  test.each<[string, Partial<EmailCheck>, string]>([
    ['known@refusing-server.nl', { smtp: 'pass', catch_all: 'pass', mx: 'pass' }, 'valid'],
    ['nobody@refusing-server.nl', { smtp: 'fail' }, 'invalid'],
    ['anyone@accepts-all.nl', { smtp: 'pass', catch_all: 'fail' }, 'risky'],
    ['someone@greylisting.nl', { smtp: 'unknown', catch_all: null }, 'risky'],
    ['piet@nowhere-at-all.nl', { mx: 'fail' }, 'invalid'],
    ['info@accepts-all.nl', { role: 'fail' }, 'risky'],
    ['x@mailinator.com', { disposable: 'fail' }, 'invalid'],
  ])('%s', async (address, expected, status) => {
    const c = await createReacherVerifier({ baseUrl: reacher.url, secret: 'reacher-shared-secret' }).verify(address);
    expect(c).toMatchObject({ provider: 'reacher', ...expected });
    expect(emailStatus(c)).toBe(status);
    expect(reacher.asked.at(-1)).toBe(address);
  });

  test('greylisted: the checks alone read risky, and the answer says "not now": the status is unknown and the address is checked again later', async () => {
    const a = await createReacherVerifier({ baseUrl: reacher.url, secret: 'reacher-shared-secret' }).check('someone@greylisting.nl');
    expect(a).toMatchObject({ temporary: true, check: { smtp: 'unknown' } });
    expect(emailStatus(a.check, { temporary: a.temporary })).toBe('unknown');
    const known = await createReacherVerifier({ baseUrl: reacher.url, secret: 'reacher-shared-secret' }).check('known@refusing-server.nl');
    expect(known.temporary).toBe(false);
  });

  test('a refused secret is the verifier unavailable, not an answer about the address', async () => {
    const err = await createReacherVerifier({ baseUrl: reacher.url, secret: 'wrong' })
      .verify('known@refusing-server.nl')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VerifierUnavailableError);
    expect((err as VerifierUnavailableError).message).toMatch(/x-reacher-secret/);
    expect((err as VerifierUnavailableError).retryable).toBe(false);
  });
});

describe('POST /contacts/{contactId}/verify and POST /contacts/verify, through the worker', () => {
  let reacher: ReacherStandIn;
  let org: { owner: TestUser; orgId: string };
  let companyId: string;
  const contacts: Record<string, string> = {};
  beforeAll(async () => {
    reacher = await startReacherServer({ secret: 'reacher-org-secret' });
    org = await newOrganization(api, 'Verificatie B.V.');
    const integration = await api.call('POST', '/integrations', {
      token: org.owner.token,
      body: { organizationId: org.orgId, providerKey: 'reacher', kind: 'verification', config: { baseUrl: reacher.url }, secret: 'reacher-org-secret' },
    });
    expect(integration.status).toBe(201);
    const tested = await api.call('POST', `/integrations/${integration.body.id}/test`, { token: org.owner.token, body: {} });
    expect(tested.body).toMatchObject({ status: 'connected', last_error: null });
    const company = await api.call('POST', '/companies', { token: org.owner.token, body: { organizationId: org.orgId, name: 'Server Test B.V.' } });
    companyId = company.body.id;
    for (const email of ['known@refusing-server.nl', 'nobody@refusing-server.nl', 'anyone@accepts-all.nl', 'info@refusing-server.nl']) {
      const c = await api.call('POST', '/contacts', {
        token: org.owner.token,
        body: { organizationId: org.orgId, companyId, fullName: `Piet ${email}`, email },
      });
      expect(c.status).toBe(201);
      expect(c.body).toMatchObject({ email_status: 'unknown', email_checked_at: null, email_check: null });
      contacts[email] = c.body.id;
    }
    // Each created contact's address is checked in the background.
    for (const id of Object.values(contacts)) await resultWithin(api.temporal.workflow.getHandle(`contact/${id}/verify`));
  });
  afterAll(() => reacher.close());

  test('a created contact is checked in the background; POST verify checks it again: 202 with the contact, then its new check', async () => {
    const id = contacts['nobody@refusing-server.nl']!;
    const first = await api.call('GET', `/contacts/${id}`, { token: org.owner.token });
    expect(first.body).toMatchObject({ email_status: 'invalid', email_checked_at: expect.any(String), email_check: { provider: 'reacher', smtp: 'fail' } });
    const asked = reacher.asked.length;
    const started = await api.call('POST', `/contacts/${id}/verify`, { token: org.owner.token, body: {} });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ id, email_status: 'invalid', email_checked_at: first.body.email_checked_at });
    await resultWithin(api.temporal.workflow.getHandle(`contact/${id}/verify`));
    const after = await api.call('GET', `/contacts/${id}`, { token: org.owner.token });
    expect(after.body).toMatchObject({
      email_status: 'invalid',
      email_check: { provider: 'reacher', syntax: 'pass', mx: 'pass', smtp: 'fail' },
    });
    expect(Date.parse(after.body.email_checked_at)).toBeGreaterThan(Date.parse(first.body.email_checked_at));
    expect(reacher.asked.slice(asked)).toEqual(['nobody@refusing-server.nl']);
  });

  test('the organization’s contacts in one durable run, each with its status', async () => {
    const run = await api.call('POST', '/contacts/verify', { token: org.owner.token, body: { organizationId: org.orgId, companyId } });
    expect(run.status).toBe(202);
    expect(run.body).toMatchObject({ organization_id: org.orgId, company_id: companyId, status: null, workflow_id: expect.stringMatching(/^organization\//) });
    const counts = await resultWithin(api.temporal.workflow.getHandle(run.body.workflow_id));
    expect(counts).toEqual({ valid: 1, invalid: 2, risky: 1, unknown: 0, not_checked: 0 });
    const list = await api.call('GET', `/contacts?organizationId=${org.orgId}&companyId=${companyId}`, { token: org.owner.token });
    const byEmail = Object.fromEntries(list.body.map((c: { email: string; email_status: string }) => [c.email, c.email_status]));
    expect(byEmail).toEqual({
      'known@refusing-server.nl': 'valid',
      'nobody@refusing-server.nl': 'invalid',
      'anyone@accepts-all.nl': 'risky',
      'info@refusing-server.nl': 'invalid',
    });
  });

  test('another organization gets 404, a viewer 403, bad input 400, and nothing starts', async () => {
    const other = await newOrganization(api, 'Andere B.V.');
    const id = contacts['known@refusing-server.nl']!;
    const asked = reacher.asked.length;
    expect((await api.call('POST', `/contacts/${id}/verify`, { token: other.owner.token, body: {} })).status).toBe(404);
    expect((await api.call('POST', '/contacts/verify', { token: other.owner.token, body: { organizationId: org.orgId } })).status).toBe(404);
    expect((await api.call('POST', '/contacts/verify', { token: org.owner.token, body: { organizationId: org.orgId, companyId: randomUUID() } })).status).toBe(
      404,
    );
    const viewer = await addMember(api, org.owner, org.orgId, 'viewer');
    expect((await api.call('POST', `/contacts/${id}/verify`, { token: viewer.token, body: {} })).status).toBe(403);
    expect((await api.call('POST', '/contacts/verify', { token: viewer.token, body: { organizationId: org.orgId } })).status).toBe(403);
    const bad = await api.call('POST', '/contacts/verify', { token: org.owner.token, body: { organizationId: org.orgId, status: 'maybe' } });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect((await api.call('POST', `/contacts/${id}/verify`, { token: org.owner.token, body: { now: true } })).status).toBe(400);
    expect(reacher.asked.length).toBe(asked);
  });

  test('an erased contact, or one without an address, is a 409; erasure clears its checks', async () => {
    const noMail = await api.call('POST', '/contacts', { token: org.owner.token, body: { organizationId: org.orgId, companyId, fullName: 'Zonder Adres' } });
    expect((await api.call('POST', `/contacts/${noMail.body.id}/verify`, { token: org.owner.token, body: {} })).status).toBe(409);
    const id = contacts['known@refusing-server.nl']!;
    const erased = await api.call('DELETE', `/contacts/${id}`, { token: org.owner.token });
    expect(erased.body).toMatchObject({ email: null, email_status: 'unknown', email_checked_at: null, email_check: null });
    const again = await api.call('POST', `/contacts/${id}/verify`, { token: org.owner.token, body: {} });
    expect(again.status).toBe(409);
  });
});

describe('the built-in checks with the SMTP probe, through the activity', () => {
  test('a greylisted address is unknown and marked for a later check; the check past the window stores what the server said', async () => {
    const grey = await startProbeSmtpServer({ kind: 'greylisting', known: ['jan'], delayMs: 300 });
    const dns = await startDnsServer({ 'grijs-lijst.nl': [{ type: 'MX', exchange: 'mx.grijs-lijst.nl', priority: 10 }] });
    try {
      const activities = createVerificationActivities({
        db: workerDb,
        secrets: null,
        dns: createDnsResolver({ servers: [dns.address], timeoutMs: 1000, tries: 1 }),
        probe: createSmtpProbe({
          heloName: 'probe.test-sender.nl',
          sender: 'checks@test-sender.nl',
          perDomainIntervalMs: 0,
          connect: () => ({ host: grey.host, port: grey.port }),
        }),
      });
      const org = await newOrganization(api, 'Grijs B.V.');
      const company = await api.call('POST', '/companies', { token: org.owner.token, body: { organizationId: org.orgId, name: 'Grijs B.V.' } });
      // Inserted directly: the API would start the stack worker's own check of it.
      const { rows } = await owners.query<{ id: string }>(
        `INSERT INTO contacts (organization_id, company_id, full_name, email) VALUES ($1, $2, 'Jan Grijs', 'jan@grijs-lijst.nl') RETURNING id`,
        [org.orgId, company.body.id],
      );
      const ref = { organizationId: org.orgId, contactId: rows[0]!.id };
      const stored = async () =>
        (await owners.query(`SELECT email_status, email_checked_at, email_check->>'smtp' AS smtp FROM contacts WHERE id = $1`, [ref.contactId])).rows[0];
      // "Not now": unknown, with what the server said, and the run is told to check it again.
      expect(await activities.verifyContactEmail(ref)).toMatchObject({ status: 'unknown', deferred: true, provider: 'builtin' });
      expect(await stored()).toMatchObject({ email_status: 'unknown', email_checked_at: expect.any(Date), smtp: 'unknown' });
      await new Promise((r) => setTimeout(r, 350));
      expect(await activities.verifyContactEmail(ref)).toMatchObject({ status: 'valid', deferred: false, provider: 'builtin' });
      expect(await stored()).toMatchObject({ email_status: 'valid', smtp: 'pass' });
      expect(grey.dataSeen).toBe(false);
    } finally {
      await grey.close();
      await dns.close();
    }
  });
});

describe('the run checks again, after a durable wait, the addresses whose answer was "not now"', () => {
  test('a greylisted address: unknown at first, valid in the next round; the others are not held up', async () => {
    const grey = await startReacherServer({ greylistMs: 500 });
    try {
      const org = await newOrganization(api, 'Grijze Lijst B.V.');
      await api.call('POST', '/integrations', {
        token: org.owner.token,
        body: { organizationId: org.orgId, providerKey: 'reacher', kind: 'verification', config: { baseUrl: grey.url }, secret: 'x' },
      });
      const company = await api.call('POST', '/companies', { token: org.owner.token, body: { organizationId: org.orgId, name: 'Grijze Lijst B.V.' } });
      // Inserted directly: the API would start a check of its own for each.
      const ids: string[] = [];
      for (const email of ['piet@greylisting.nl', 'known@refusing-server.nl']) {
        const { rows } = await owners.query<{ id: string }>(
          `INSERT INTO contacts (organization_id, company_id, full_name, email) VALUES ($1, $2, 'Piet', $3) RETURNING id`,
          [org.orgId, company.body.id, email],
        );
        ids.push(rows[0]!.id);
      }
      const run = await api.temporal.workflow.start('verifyContactsWorkflow', {
        taskQueue: testEnv('TEMPORAL_TASK_QUEUE'),
        workflowId: `test-verify-deferred-${randomUUID()}`,
        args: [{ organizationId: org.orgId, contactIds: ids, deferredWaitMs: 800 }],
      });
      // The second address is stored before the first one's next round.
      await until(
        'the second address checked',
        async () => (await owners.query(`SELECT email_status FROM contacts WHERE id = $1`, [ids[1]])).rows[0].email_status === 'valid',
        10_000,
      );
      expect((await owners.query(`SELECT email_status FROM contacts WHERE id = $1`, [ids[0]])).rows[0].email_status).toBe('unknown');
      expect(await resultWithin(run)).toEqual({ valid: 2, invalid: 0, risky: 0, unknown: 0, not_checked: 0 });
      expect((await owners.query(`SELECT email_status FROM contacts WHERE id = $1`, [ids[0]])).rows[0].email_status).toBe('valid');
      expect(grey.asked.filter((a) => a === 'piet@greylisting.nl')).toHaveLength(2);
    } finally {
      await grey.close();
    }
  });
});
