import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createMailboxHealthActivities } from '../../activities/mailbox-health';
import { checkDomainHealth } from '../../activities/providers/dns/health-facts';
import { createDnsResolver, type DnsResolver } from '../../activities/providers/dns/resolver';
import { enrollmentsWaitingOnMailbox, mailboxSendability } from '../../db/queries/mailbox-health';
import { asOrganization } from '../../db/tenancy';
import { addMember, expectProblem, newOrganization, startApi, TestApi } from '../helpers/api';
import { startDnsServer, TestDnsServer } from '../helpers/dns-server';
import { deliverabilityZones } from '../helpers/dns-zones';
import { startDemoDns } from '../../scripts/lib/demo-dns';
import { TestUser } from '../helpers/tokens';
import { useStack } from '../helpers/stack';

/**
 * Mailbox deliverability on the real stack: a real DNS server on 127.0.0.1 (UDP and TCP) serving
 * test/helpers/dns-zones.ts, the API in-process, and the real worker (whose DNS_SERVERS is the run's
 * DNS server of the same zones) for the daily Schedule.
 */
let dnsServer: TestDnsServer;
let dns: DnsResolver;
let api: TestApi;
const { owners, workerDb } = useStack({ owners: true, workerDb: true });
let owner: TestUser;
let orgId: string;

beforeAll(async () => {
  dnsServer = await startDnsServer(deliverabilityZones());
  // A second per query: timeout.nl's silence is still found quickly, and a loaded machine's slow answer is still an answer.
  dns = createDnsResolver({ servers: [dnsServer.address], timeoutMs: 1000, tries: 1 });
  api = await startApi({ dns });
  ({ owner, orgId } = await newOrganization(api, 'Deliverability B.V.'));
});
afterAll(async () => {
  await api.close();
  await dnsServer.close();
});

const createMailbox = async (address: string, extra: Record<string, unknown> = {}, org = orgId, token = owner.token) => {
  const res = await api.call('POST', '/mailboxes', {
    token,
    body: { organizationId: org, address, smtp: { host: '127.0.0.1', port: 2525 }, secret: 'pw', ...extra },
  });
  if (res.status !== 201) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string };
};
const checkHealth = (mailboxId: string, token = owner.token, body: unknown = {}) => api.call('POST', `/mailboxes/${mailboxId}/health`, { token, body });

type Status = 'pass' | 'warn' | 'fail';
const CASES: Array<[string, string | null, { spf: Status; dkim: Status; dmarc: Status; mx: Status; score: number; sendable: boolean }]> = [
  ['good-mail.nl', null, { spf: 'pass', dkim: 'pass', dmarc: 'pass', mx: 'pass', score: 100, sendable: true }],
  ['sales.good-mail.nl', null, { spf: 'pass', dkim: 'pass', dmarc: 'pass', mx: 'pass', score: 100, sendable: true }],
  ['no-dmarc.nl', null, { spf: 'pass', dkim: 'pass', dmarc: 'fail', mx: 'pass', score: 60, sendable: false }],
  ['plus-all.nl', null, { spf: 'fail', dkim: 'pass', dmarc: 'pass', mx: 'pass', score: 65, sendable: false }],
  ['two-spf.nl', null, { spf: 'fail', dkim: 'pass', dmarc: 'pass', mx: 'pass', score: 65, sendable: false }],
  ['spf-loop.nl', null, { spf: 'fail', dkim: 'pass', dmarc: 'pass', mx: 'pass', score: 65, sendable: false }],
  ['spf-void.nl', null, { spf: 'fail', dkim: 'pass', dmarc: 'pass', mx: 'pass', score: 65, sendable: false }],
  ['weak-mail.nl', null, { spf: 'warn', dkim: 'warn', dmarc: 'warn', mx: 'pass', score: 75, sendable: true }],
  ['null-mx.nl', null, { spf: 'pass', dkim: 'pass', dmarc: 'pass', mx: 'fail', score: 80, sendable: false }],
  ['revoked-dkim.nl', 'mail', { spf: 'pass', dkim: 'fail', dmarc: 'pass', mx: 'pass', score: 65, sendable: false }],
  ['good-mail.nl', 'nope', { spf: 'pass', dkim: 'fail', dmarc: 'pass', mx: 'pass', score: 65, sendable: false }],
  ['nx-domain.nl', null, { spf: 'fail', dkim: 'fail', dmarc: 'fail', mx: 'fail', score: 0, sendable: false }],
  ['servfail.nl', null, { spf: 'fail', dkim: 'fail', dmarc: 'fail', mx: 'fail', score: 0, sendable: false }],
  ['timeout.nl', null, { spf: 'fail', dkim: 'fail', dmarc: 'fail', mx: 'fail', score: 0, sendable: false }],
];

test.each(CASES)('%s (selector %s): statuses, score and sendable', async (domain, selector, expected) => {
  const r = await checkDomainHealth(dns, domain, selector);
  expect({ spf: r.spf.status, dkim: r.dkim.status, dmarc: r.dmarc.status, mx: r.mx.status, score: r.score, sendable: r.sendable }).toEqual(expected);
});

test('the details say why: the SPF errors mailauth found, the org-domain DMARC, the DNS failures', async () => {
  const details = async (domain: string, selector: string | null = null) => {
    const r = await checkDomainHealth(dns, domain, selector);
    return { spf: r.spf.detail, dkim: r.dkim.detail, dmarc: r.dmarc.detail, mx: r.mx.detail };
  };
  expect((await details('plus-all.nl')).spf).toBe('+all lets any host send as this domain');
  expect((await details('two-spf.nl')).spf).toMatch(/permerror: multiple SPF records/);
  expect((await details('spf-loop.nl')).spf).toMatch(/permerror: Too many DNS requests/);
  expect((await details('spf-void.nl')).spf).toMatch(/permerror: Too many void DNS results/);
  expect((await details('good-mail.nl')).spf).toBe('-all; 1 of 10 DNS lookups, 0 void');
  expect((await details('sales.good-mail.nl')).dmarc).toMatch(/from the organisational domain \(good-mail\.nl\)/);
  expect((await details('sales.good-mail.nl')).dkim).toBe('selector google: 2048-bit RSA key');
  expect((await details('null-mx.nl')).mx).toMatch(/RFC 7505/);
  expect((await details('revoked-dkim.nl', 'mail')).dkim).toBe('selector mail: the key is revoked (empty p=)');
  expect(await details('servfail.nl')).toEqual({
    spf: expect.stringMatching(/^the SPF lookup failed/),
    dkim: 'the DKIM lookup failed at google._domainkey: the server answered SERVFAIL',
    dmarc: 'the DMARC lookup failed: the server answered SERVFAIL',
    mx: 'the MX lookup failed (servfail): the server answered SERVFAIL',
  });
  expect((await details('timeout.nl')).mx).toBe('the MX lookup failed (timeout): no answer in time');
  expect((await details('nx-domain.nl')).mx).toBe('the domain does not exist (NXDOMAIN)');
});

test('a 4096-bit DKIM key does not fit a UDP answer: the resolver asks again over TCP', async () => {
  const before = dnsServer.queries.length;
  const r = await checkDomainHealth(dns, 'good-mail.nl', 'big');
  expect(r.dkim).toMatchObject({ status: 'pass', detail: 'selector big: 4096-bit RSA key' });
  const asked = dnsServer.queries.slice(before).filter((q) => q.name === 'big._domainkey.good-mail.nl');
  expect(asked.map((q) => q.transport)).toEqual(['udp', 'tcp']);
});

test("npm run dev's demo zone passes every check for the demo mailbox's domain", async () => {
  const demo = await startDemoDns('example.com');
  try {
    const r = await checkDomainHealth(createDnsResolver({ servers: [demo.address], timeoutMs: 300 }), 'example.com', null);
    expect({ score: r.score, sendable: r.sendable, statuses: [r.spf.status, r.dkim.status, r.dmarc.status, r.mx.status] }).toEqual({
      score: 100,
      sendable: true,
      statuses: ['pass', 'pass', 'pass', 'pass'],
    });
    expect(r.dkim.detail).toBe('selector s1: 2048-bit RSA key');
  } finally {
    await demo.close();
  }
});

test('POST /mailboxes/{id}/health answers and stores the result; GET shows it as health', async () => {
  const mailbox = await createMailbox('verkoop@good-mail.nl');
  expect((await api.call('GET', `/mailboxes/${mailbox.id}`, { token: owner.token })).body.health).toBeNull();
  const res = await checkHealth(mailbox.id);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    domain: 'good-mail.nl',
    score: 100,
    sendable: true,
    spf: { status: 'pass', record: 'v=spf1 include:_spf.mailhost.nl -all' },
  });
  const got = await api.call('GET', `/mailboxes/${mailbox.id}`, { token: owner.token });
  expect(got.body.health).toEqual({ score: 100, sendable: true, checked_at: expect.any(String) });
  const { rows } = await owners.query(
    'SELECT m.health_score, m.sendable, h.spf FROM mailboxes m JOIN mailbox_health_checks h ON h.mailbox_id = m.id WHERE m.id = $1',
    [mailbox.id],
  );
  expect(rows).toEqual([{ health_score: 100, sendable: true, spf: res.body.spf }]);
});

test('DNS failures are results, never a 5xx', async () => {
  for (const domain of ['servfail.nl', 'timeout.nl', 'nx-domain.nl']) {
    const mailbox = await createMailbox(`info@${domain}`);
    const res = await checkHealth(mailbox.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ score: 0, sendable: false, mx: { status: 'fail' } });
  }
});

test('an IDN or invalid mailbox domain is a 400 problem and stores nothing', async () => {
  for (const domain of ['bücher.de', 'xn--bcher-kva.de', 'not_a-domain']) {
    const mailbox = await createMailbox(`info-${randomUUID().slice(0, 6)}@good-mail.nl`);
    // The API refuses such addresses; a row from before (or another path) still must not break the check.
    await owners.query('UPDATE mailboxes SET domain = $2 WHERE id = $1', [mailbox.id, domain]);
    const res = await checkHealth(mailbox.id);
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(JSON.stringify(res.body)).toMatch(domain.startsWith('not') ? /not a valid domain/ : /internationalized/);
    expect((await owners.query('SELECT 1 FROM mailbox_health_checks WHERE mailbox_id = $1', [mailbox.id])).rowCount).toBe(0);
  }
});

test('a body other than {}, a viewer, another tenant: 400, 403, 404', async () => {
  const mailbox = await createMailbox('team@good-mail.nl');
  expectProblem(await checkHealth(mailbox.id, owner.token, { force: true }), 400, 'VALIDATION_FAILED');
  const viewer = await addMember(api, owner, orgId, 'viewer');
  expectProblem(await checkHealth(mailbox.id, viewer.token), 403, 'FORBIDDEN');
  const other = await newOrganization(api, 'Other Tenant B.V.');
  expectProblem(await checkHealth(mailbox.id, other.owner.token), 404, 'NOT_FOUND');
  expectProblem(await checkHealth(randomUUID()), 404, 'NOT_FOUND');
  expect((await owners.query('SELECT 1 FROM mailbox_health_checks WHERE mailbox_id = $1', [mailbox.id])).rowCount).toBe(0);
});

/** An enrollment of a new campaign for a new contact, made directly (the sequence workflow is not part of this). */
async function enrollment(mailboxId: string, messageStatus: string): Promise<string> {
  const company = await api.call('POST', '/companies', {
    token: owner.token,
    body: { organizationId: orgId, name: `Bouw ${randomUUID().slice(0, 6)} B.V.`, countryCode: 'NL' },
  });
  const contact = await api.call('POST', '/contacts', {
    token: owner.token,
    body: { organizationId: orgId, companyId: company.body.id, fullName: 'Jan Jansen', email: `jan-${randomUUID().slice(0, 6)}@bouw.nl` },
  });
  const q = async (text: string, values: unknown[]) => (await owners.query<{ id: string }>(text, values)).rows[0]!.id;
  const campaign = await q(`INSERT INTO campaigns (organization_id, name, mailbox_id) VALUES ($1, 'Held', $2) RETURNING id`, [orgId, mailboxId]);
  const sequence = await q(`INSERT INTO sequences (organization_id, campaign_id, name) VALUES ($1, $2, 'Held') RETURNING id`, [orgId, campaign]);
  const id = await q(`INSERT INTO enrollments (organization_id, campaign_id, sequence_id, contact_id) VALUES ($1, $2, $3, $4) RETURNING id`, [
    orgId,
    campaign,
    sequence,
    contact.body.id,
  ]);
  await owners.query(
    `INSERT INTO messages (organization_id, enrollment_id, contact_id, mailbox_id, status, subject, body) VALUES ($1, $2, $3, $4, $5, 's', 'b'), ($1, $2, $3, $4, $5, 's2', 'b2')`,
    [orgId, id, contact.body.id, mailboxId, messageStatus],
  );
  return id;
}

test('checkMailboxHealth: stores once per check id, sets the mailbox health, and names the enrollments a sendable mailbox held', async () => {
  const good = await createMailbox('sales@good-mail.nl');
  const bad = await createMailbox('sales@no-dmarc.nl');
  const held = await enrollment(good.id, 'approved');
  await enrollment(good.id, 'sent');
  const heldByBad = await enrollment(bad.id, 'approved');
  await asOrganization(workerDb, orgId, async (tx) => {
    expect(await enrollmentsWaitingOnMailbox(tx, good.id)).toEqual([held]);
    expect(await enrollmentsWaitingOnMailbox(tx, bad.id)).toEqual([heldByBad]);
  });

  const { checkMailboxHealth } = createMailboxHealthActivities({ db: workerDb, dns });
  const env = new MockActivityEnvironment();
  const checkId = randomUUID();
  const first = await env.run(checkMailboxHealth, { organizationId: orgId, mailboxId: good.id, checkId });
  expect(first).toMatchObject({ result: { score: 100, sendable: true }, waitingEnrollmentIds: [held] });
  await env.run(checkMailboxHealth, { organizationId: orgId, mailboxId: good.id, checkId });
  expect((await owners.query('SELECT 1 FROM mailbox_health_checks WHERE mailbox_id = $1', [good.id])).rowCount).toBe(1);

  const notSendable = await env.run(checkMailboxHealth, { organizationId: orgId, mailboxId: bad.id });
  expect(notSendable).toEqual({ result: expect.objectContaining({ score: 60, sendable: false }), waitingEnrollmentIds: [] });
  const { rows } = await owners.query('SELECT health_score, sendable FROM mailboxes WHERE id = $1', [bad.id]);
  expect(rows).toEqual([{ health_score: 60, sendable: false }]);

  // What the sending step reads: never checked (run the check first), sendable, or held with the reason.
  const unchecked = await createMailbox('nieuw@good-mail.nl');
  await asOrganization(workerDb, orgId, async (tx) => {
    expect(await mailboxSendability(tx, unchecked.id)).toEqual({ checked: false });
    expect(await mailboxSendability(tx, good.id)).toEqual({ checked: true, sendable: true, reason: null });
    expect(await mailboxSendability(tx, bad.id)).toEqual({
      checked: true,
      sendable: false,
      reason: 'mailbox not sendable (deliverability 60/100): DMARC: no DMARC record (_dmarc TXT v=DMARC1), at the domain nor its organisational domain',
    });
  });
});

test('each mailbox gets a daily Schedule mailbox/<id>/health; a fire runs the check in the worker', async () => {
  const mailbox = await createMailbox('planning@good-mail.nl');
  const handle = api.temporal.schedule.getHandle(`mailbox/${mailbox.id}/health`);
  const d = await handle.describe();
  expect(d.action).toMatchObject({ type: 'startWorkflow', workflowType: 'mailboxHealthWorkflow', args: [{ organizationId: orgId, mailboxId: mailbox.id }] });
  expect(d.policies.overlap).toBe('SKIP');
  expect(d.info.nextActionTimes[0]!.getTime() - Date.now()).toBeLessThanOrEqual(24 * 3600 * 1000);
  expect(d.typedSearchAttributes.get({ name: 'MailboxId', type: 'KEYWORD' } as never)).toBe(mailbox.id);
  expect(d.typedSearchAttributes.get({ name: 'OrganizationId', type: 'KEYWORD' } as never)).toBe(orgId);

  await handle.trigger();
  const deadline = Date.now() + 60000;
  let health: unknown = null;
  while (!health && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 300));
    health = (await api.call('GET', `/mailboxes/${mailbox.id}`, { token: owner.token })).body.health;
  }
  expect(health).toEqual({ score: 100, sendable: true, checked_at: expect.any(String) });
  await handle.delete();
});
