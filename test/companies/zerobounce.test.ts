import { emailStatus, type EmailCheck } from '../../domain/contacts/email-verification';
import { createZeroBounceVerifier } from '../../activities/providers/verification/zerobounce';
import { VerifierUnavailableError } from '../../activities/providers/verification/types';
import { startZeroBounceServer, type ZeroBounceStandIn } from '../helpers/zerobounce-server';
import { newOrganization } from '../helpers/api';
import type { TestUser } from '../helpers/tokens';
import { useStack } from '../helpers/stack';
import { resultWithin } from '../helpers/workflow-result';

const { api } = useStack({ api: true });

const KEY = 'zb-test-key-0123456789';

/**
 * Address verification by ZeroBounce (API v2): each status and sub_status it answers, read from a
 * stand-in that speaks its shapes, as the service's checks and the status they give; its refusals;
 * and the integration chosen per organization, checked through the API and used by the worker.
 */
describe('ZeroBounce, against its stand-in', () => {
  let zb: ZeroBounceStandIn;
  beforeAll(async () => {
    zb = await startZeroBounceServer({ apiKey: KEY });
  });
  afterAll(() => zb.close());

  test.each<[string, Partial<EmailCheck>, string]>([
    // valid
    ['known@refusing-server.nl', { syntax: 'pass', mx: 'pass', smtp: 'pass', catch_all: 'pass', role: 'pass', disposable: 'pass' }, 'valid'],
    ['leading_period_removed@example.com', { smtp: 'pass' }, 'valid'],
    ['accept_all@example.com', { smtp: 'pass', catch_all: 'fail' }, 'risky'],
    // invalid
    ['nobody@refusing-server.nl', { mx: 'pass', smtp: 'fail' }, 'invalid'],
    ['piet@nowhere-at-all.nl', { syntax: 'pass', mx: 'fail', smtp: null }, 'invalid'],
    ['not-an-address', { syntax: 'fail', mx: null }, 'invalid'],
    ['does_not_accept_mail@example.com', { mx: 'fail' }, 'invalid'],
    ['unroutable_ip_address@example.com', { mx: 'fail' }, 'invalid'],
    ['possible_typo@example.com', { smtp: 'fail', detail: 'ZeroBounce: invalid / possible_typo (did you mean possible_typo@gmail.com?)' }, 'invalid'],
    ['mailbox_quota_exceeded@example.com', { mx: 'pass', smtp: 'unknown' }, 'risky'],
    // catch-all
    ['anyone@accepts-all.nl', { smtp: 'pass', catch_all: 'fail', role: 'pass' }, 'risky'],
    // unknown: the server could not be asked
    ['someone@greylisting.nl', { mx: 'pass', smtp: 'unknown', catch_all: null }, 'risky'],
    ['antispam_system@example.com', { smtp: 'unknown' }, 'risky'],
    ['timeout_exceeded@example.com', { smtp: 'unknown' }, 'risky'],
    ['mail_server_temporary_error@example.com', { smtp: 'unknown' }, 'risky'],
    ['failed_smtp_connection@example.com', { smtp: 'unknown' }, 'risky'],
    // never mailed
    ['spamtrap@example.com', { smtp: 'fail', detail: 'ZeroBounce: spamtrap' }, 'invalid'],
    ['abuse@example.com', { smtp: 'fail' }, 'invalid'],
    // do_not_mail
    ['x@mailinator.com', { disposable: 'fail' }, 'invalid'],
    ['toxic@example.com', { smtp: 'fail' }, 'invalid'],
    ['global_suppression@example.com', { smtp: 'fail' }, 'invalid'],
    ['possible_trap@example.com', { smtp: 'fail' }, 'invalid'],
    ['role_based@example.com', { role: 'fail', smtp: 'pass', catch_all: 'pass' }, 'risky'],
    ['info@accepts-all.nl', { role: 'fail', catch_all: 'fail' }, 'risky'],
    ['mx_forward@example.com', { smtp: 'unknown' }, 'risky'],
  ])('%s', async (address, expected, status) => {
    const c = await createZeroBounceVerifier({ apiKey: KEY, baseUrl: zb.url }).verify(address);
    expect(c).toMatchObject({ provider: 'zerobounce', ...expected });
    expect(emailStatus(c)).toBe(status);
    expect(zb.asked.at(-1)).toBe(address);
  });

  test('a key ZeroBounce does not know is the verifier unavailable, not an answer about the address', async () => {
    const asked = zb.asked.length;
    const requests = zb.requests;
    const err = await createZeroBounceVerifier({ apiKey: 'wrong', baseUrl: zb.url })
      .verify('known@refusing-server.nl')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VerifierUnavailableError);
    expect((err as VerifierUnavailableError).message).toMatch(/Invalid API Key or your account ran out of credits/);
    expect((err as VerifierUnavailableError).retryable).toBe(false);
    expect(zb.asked.length).toBe(asked);
    expect(zb.requests).toBe(requests + 1);
  });

  test('the credit balance; -1 for a key it does not know', async () => {
    expect(await createZeroBounceVerifier({ apiKey: KEY, baseUrl: zb.url }).credits()).toBe(zb.credits);
    expect(await createZeroBounceVerifier({ apiKey: 'wrong', baseUrl: zb.url }).credits()).toBe(-1);
  });

  test('a service that is down or rate-limits is unavailable for now (retryable)', async () => {
    const closed = await startZeroBounceServer({ apiKey: KEY });
    await closed.close();
    const down = await createZeroBounceVerifier({ apiKey: KEY, baseUrl: closed.url })
      .verify('known@refusing-server.nl')
      .catch((e: unknown) => e);
    expect(down).toBeInstanceOf(VerifierUnavailableError);
    expect((down as VerifierUnavailableError).retryable).toBe(true);

    zb.failWith = 429;
    try {
      const limited = await createZeroBounceVerifier({ apiKey: KEY, baseUrl: zb.url })
        .verify('known@refusing-server.nl')
        .catch((e: unknown) => e);
      expect(limited).toBeInstanceOf(VerifierUnavailableError);
      expect((limited as VerifierUnavailableError).message).toBe('ZeroBounce 429: Too Many Requests');
      expect((limited as VerifierUnavailableError).retryable).toBe(true);
    } finally {
      zb.failWith = null;
    }
  });
});

describe('a ZeroBounce integration, checked through the API and used by the worker', () => {
  let zb: ZeroBounceStandIn;
  let org: { owner: TestUser; orgId: string };
  beforeAll(async () => {
    zb = await startZeroBounceServer({ apiKey: KEY, credits: 40 });
    org = await newOrganization(api, 'ZeroBounce Klant B.V.');
  });
  afterAll(() => zb.close());

  const create = (secret: string, baseUrl = zb.url) =>
    api.call('POST', '/integrations', {
      token: org.owner.token,
      body: { organizationId: org.orgId, providerKey: 'zerobounce', kind: 'verification', config: { baseUrl }, secret },
    });

  test('a wrong key: the test answers error with ZeroBounce’s word for it', async () => {
    const created = await create('not-the-key');
    expect(created.status).toBe(201);
    const tested = await api.call('POST', `/integrations/${created.body.id}/test`, { token: org.owner.token, body: {} });
    expect(tested.body).toMatchObject({ status: 'error', last_error: 'ZeroBounce does not know this API key' });
  });

  test('the right key: connected, and the worker checks a contact with it', async () => {
    const created = await create(KEY);
    expect(created.status).toBe(201);
    const tested = await api.call('POST', `/integrations/${created.body.id}/test`, { token: org.owner.token, body: {} });
    expect(tested.body).toMatchObject({ status: 'connected', last_error: null });

    const company = await api.call('POST', '/companies', { token: org.owner.token, body: { organizationId: org.orgId, name: 'Server Test B.V.' } });
    const contact = await api.call('POST', '/contacts', {
      token: org.owner.token,
      body: { organizationId: org.orgId, companyId: company.body.id, fullName: 'Piet Niemand', email: 'nobody@refusing-server.nl' },
    });
    expect(contact.status).toBe(201);
    const id = contact.body.id as string;
    const started = await api.call('POST', `/contacts/${id}/verify`, { token: org.owner.token, body: {} });
    expect(started.status).toBe(202);
    await resultWithin(api.temporal.workflow.getHandle(`contact/${id}/verify`));
    const after = await api.call('GET', `/contacts/${id}`, { token: org.owner.token });
    expect(after.body).toMatchObject({
      email_status: 'invalid',
      email_checked_at: expect.any(String),
      email_check: { provider: 'zerobounce', syntax: 'pass', mx: 'pass', smtp: 'fail', detail: 'ZeroBounce: invalid / mailbox_not_found' },
    });
    expect(zb.asked).toContain('nobody@refusing-server.nl');
  });
});
