import { randomUUID } from 'node:crypto';
import { createDnsResolver } from '../../activities/providers/dns/resolver';
import { NodemailerSmtpSender } from '../../activities/providers/mail/smtp';
import { createSendActivities } from '../../activities/send';
import { asOrganization } from '../../db/tenancy';
import { recordHealthCheck } from '../../db/queries/mailbox-health';
import { recordSent } from '../../db/queries/sending';
import { SecretBox } from '../../db/secrets';
import type { HealthResult } from '../../domain/deliverability/score';
import { utcDay } from '../../domain/sending/bulk-senders';
import { expectProblem, newOrganization, testUnsubscribeTokens } from '../helpers/api';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server';
import { outreachOrg, passingHealth, type OutreachOrg } from '../helpers/outreach';
import { testEnv } from '../helpers/tokens';
import { useStack } from '../helpers/stack';

/**
 * The bulk-sender thresholds on the real stack: the send activities against real PostgreSQL (as the
 * worker role), a real SMTP server and a DNS server of our own (recipient domains whose MX names their
 * provider). Counts per organizational sending domain, receiving provider and UTC day; the warning
 * above 4,000; the hold at 5,000 for a domain that does not pass SPF, DKIM and DMARC.
 */
const { api, owners, smtp, workerDb } = useStack({ api: true, owners: true, smtp: true, workerDb: true });
let dnsServer: TestDnsServer;
let send: ReturnType<typeof createSendActivities>;

beforeAll(async () => {
  dnsServer = await startDnsServer({
    'workspace-bulk.nl': [{ type: 'MX', exchange: 'aspmx.l.google.com', priority: 1 }],
    'business365-bulk.nl': [{ type: 'MX', exchange: 'business365-bulk-nl.mail.protection.outlook.com', priority: 0 }],
  });
  send = createSendActivities({
    db: workerDb,
    sender: new NodemailerSmtpSender({ connectionMs: 2000, greetingMs: 2000, socketMs: 5000 }),
    secrets: new SecretBox(testEnv('INTEGRATION_SECRET_KEY')),
    tokens: testUnsubscribeTokens(),
    publicBaseUrl: 'http://127.0.0.1:3000',
    graceSeconds: 300,
    dns: createDnsResolver({ servers: [dnsServer.address], timeoutMs: 1000, tries: 1 }),
  });
});
afterAll(async () => {
  await dnsServer?.close();
});

/** Books one approved e-mail from the mailbox to a new consenting contact at this address (a slot now: the mailbox is always open). */
async function bookTo(o: OutreachOrg, mailboxId: string, email: string) {
  const c = await o.contact({ email });
  const { rows } = await owners.query<{ id: string }>(
    `INSERT INTO messages (organization_id, contact_id, mailbox_id, direction, channel, status, subject, body, to_address, approved_at)
     VALUES ($1, $2, $3, 'outbound', 'email', 'approved', 'Uw project', 'Geachte heer Bakker,', $4, now()) RETURNING id`,
    [o.orgId, c.id, mailboxId, email],
  );
  const ref = { organizationId: o.orgId, messageId: rows[0]!.id };
  expect(await send.scheduleSend(ref)).toMatchObject({ state: 'scheduled' });
  return ref;
}

/** Books and sends one e-mail now; answers the send's outcome. */
async function sendTo(o: OutreachOrg, mailboxId: string, email: string) {
  const ref = await bookTo(o, mailboxId, email);
  return { id: ref.messageId, outcome: await send.sendMessage(ref) };
}

/** A mailbox of the organization at this address whose stored health is this. */
async function mailbox(o: OutreachOrg, address: string, health: HealthResult): Promise<string> {
  const box = await o.ok('POST', '/mailboxes', {
    organizationId: o.orgId,
    address,
    smtp: { host: smtp.host, port: smtp.port, secure: false },
    secret: 'catcher-needs-no-password',
    timezone: 'Europe/Amsterdam',
    sendingWindow: { start: '00:00', end: '24:00' },
    sendingDays: [1, 2, 3, 4, 5, 6, 7],
    minGapSeconds: 0,
    dailyCap: 500,
  });
  await asOrganization(workerDb, o.orgId, (tx) => recordHealthCheck(tx, { id: randomUUID(), organizationId: o.orgId, mailboxId: box.id, result: health }));
  return box.id;
}

/**
 * A stored check without a DMARC record, yet recorded sendable: the checks of today never store that
 * (a fail is never sendable), so it stands for a check the send check would let through while the
 * bulk-sender rules do not: the hold asks for itself.
 */
function unalignedHealth(domain: string): HealthResult {
  const h = passingHealth(domain);
  return { ...h, dmarc: { status: 'fail', record: '', detail: 'test' }, score: 60 };
}

/** Google Workspace's own setup: SPF ~all, a 1024-bit key, DMARC p=none: each a warn, all that the bulk-sender rules ask. */
function workspaceHealth(domain: string): HealthResult {
  const h = passingHealth(domain);
  const warn = (record: string) => ({ status: 'warn' as const, record, detail: 'test' });
  return { ...h, spf: warn('v=spf1 include:_spf.google.com ~all'), dkim: warn('v=DKIM1; k=rsa; p=...'), dmarc: warn('v=DMARC1; p=none'), score: 70 };
}

const today = () => utcDay(new Date());
const seed = (orgId: string, orgDomain: string, provider: string, sent: number, day = today()) =>
  owners.query(
    `INSERT INTO bulk_sender_volume (organization_id, org_domain, provider, day, sent) VALUES ($1, $2, $3, $4::date, $5)
     ON CONFLICT (organization_id, org_domain, provider, day) DO UPDATE SET sent = EXCLUDED.sent`,
    [orgId, orgDomain, provider, day, sent],
  );
const counted = async (orgId: string, orgDomain: string, provider: string) =>
  (
    await owners.query<{ sent: number }>(
      `SELECT sent FROM bulk_sender_volume WHERE organization_id = $1 AND org_domain = $2 AND provider = $3 AND day = $4::date`,
      [orgId, orgDomain, provider, today()],
    )
  ).rows[0]?.sent ?? 0;

test('GET /domains/{id}/volume: real sends counted per UTC day and provider (by name and by MX); a subdomain adds to its organizational domain; bad days 400; another tenant 404', async () => {
  const o = await outreachOrg(api, newOrganization, smtp);
  const apex = await mailbox(o, `info-${randomUUID().slice(0, 6)}@bulk-acme.nl`, passingHealth('bulk-acme.nl'));
  const sub = await mailbox(o, `news-${randomUUID().slice(0, 6)}@mail.bulk-acme.nl`, passingHealth('mail.bulk-acme.nl'));
  const tag = () => randomUUID().slice(0, 8);
  const outcomes = [
    await sendTo(o, apex, `a.${tag()}@gmail.com`),
    await sendTo(o, apex, `b.${tag()}@workspace-bulk.nl`), // Google by its MX
    await sendTo(o, apex, `c.${tag()}@business365-bulk.nl`), // Microsoft 365 business: other
    await sendTo(o, apex, `d.${tag()}@hotmail.com`),
    await sendTo(o, sub, `e.${tag()}@yahoo.co.uk`),
    await sendTo(o, sub, `f.${tag()}@gmail.com`),
  ];
  expect(outcomes.map((x) => x.outcome.status)).toEqual(Array(6).fill('sent'));
  // An earlier day, and another organizational domain of the same organization, seeded.
  const earlier = utcDay(new Date(Date.now() - 3 * 86_400_000));
  await seed(o.orgId, 'bulk-acme.nl', 'google', 10, earlier);
  await seed(o.orgId, 'other-acme.nl', 'google', 99);

  const sub1 = await o.ok('POST', '/domains', { organizationId: o.orgId, domain: 'mail.bulk-acme.nl' });
  const volume = await o.call('GET', `/domains/${sub1.id}/volume`);
  expect(volume.status).toBe(200);
  expect(volume.body).toEqual({
    domain_id: sub1.id,
    domain: 'bulk-acme.nl',
    days: [
      { day: today(), provider: 'google', sent: 3 },
      { day: today(), provider: 'microsoft', sent: 1 },
      { day: today(), provider: 'other', sent: 1 },
      { day: today(), provider: 'yahoo', sent: 1 },
      { day: earlier, provider: 'google', sent: 10 },
    ],
    thresholds: { near: 4000, hold: 5000 },
  });
  expect((await o.ok('GET', `/domains/${sub1.id}/volume?days=2`)).days).toHaveLength(4);

  for (const bad of ['0', '91', 'abc', '1.5']) expectProblem(await o.call('GET', `/domains/${sub1.id}/volume?days=${bad}`), 400, 'VALIDATION_FAILED');
  expectProblem(await o.call('GET', `/domains/${sub1.id}/volume?limit=3`), 400, 'VALIDATION_FAILED');
  const other = await outreachOrg(api, newOrganization, smtp);
  expectProblem(await other.call('GET', `/domains/${sub1.id}/volume`), 404, 'NOT_FOUND');
  expectProblem(await o.call('GET', `/domains/${randomUUID()}/volume`), 404, 'NOT_FOUND');
});

test('domain.bulk_threshold_near: written once, when the day’s count to one provider goes above 4,000', async () => {
  const o = await outreachOrg(api, newOrganization, smtp);
  await owners.query(
    `INSERT INTO webhook_endpoints (organization_id, url, events, secret_ciphertext, created_by, enabled) VALUES ($1, 'http://127.0.0.1:9/x', '{domain.bulk_threshold_near}', '\\x00', gen_random_uuid(), true)`,
    [o.orgId],
  );
  const box = await mailbox(o, `info@near-acme.nl`, passingHealth('near-acme.nl'));
  await seed(o.orgId, 'near-acme.nl', 'google', 3999);
  const events = async () =>
    (
      await owners.query<{ payload: { data: unknown } }>(
        `SELECT payload FROM webhook_events WHERE organization_id = $1 AND type = 'domain.bulk_threshold_near'`,
        [o.orgId],
      )
    ).rows;
  expect((await sendTo(o, box, `a.${randomUUID().slice(0, 8)}@gmail.com`)).outcome.status).toBe('sent'); // 4,000: not above
  expect(await events()).toHaveLength(0);
  expect((await sendTo(o, box, `b.${randomUUID().slice(0, 8)}@gmail.com`)).outcome.status).toBe('sent'); // 4,001
  expect((await sendTo(o, box, `c.${randomUUID().slice(0, 8)}@gmail.com`)).outcome.status).toBe('sent'); // 4,002
  expect((await sendTo(o, box, `d.${randomUUID().slice(0, 8)}@hotmail.com`)).outcome.status).toBe('sent'); // another provider, far below
  const written = await events();
  expect(written).toHaveLength(1);
  expect(written[0]!.payload.data).toEqual({
    organization_id: o.orgId,
    domain: 'near-acme.nl',
    provider: 'google',
    day: today(),
    sent: 4001,
    thresholds: { near: 4000, hold: 5000 },
  });
  expect(await counted(o.orgId, 'near-acme.nl', 'google')).toBe(4002);
});

test('at 5,000 a day to one provider an unaligned domain’s e-mail waits (held at the send, and at the next booking; not sent); other providers still go; an aligned domain is not held', async () => {
  const o = await outreachOrg(api, newOrganization, smtp);
  const weak = await mailbox(o, `info@weak-bulk.nl`, unalignedHealth('weak-bulk.nl'));
  const strong = await mailbox(o, `info@strong-bulk.nl`, workspaceHealth('strong-bulk.nl'));
  await seed(o.orgId, 'weak-bulk.nl', 'google', 4999);
  await seed(o.orgId, 'strong-bulk.nl', 'google', 5000);

  // Booked at 4,999; the 5,000th went out before its slot: the send itself checks again.
  const to = `held.${randomUUID().slice(0, 8)}@gmail.com`;
  const ref = await bookTo(o, weak, to);
  await seed(o.orgId, 'weak-bulk.nl', 'google', 5000);
  const held = { id: ref.messageId, outcome: await send.sendMessage(ref) };
  expect(held.outcome).toMatchObject({
    status: 'approved',
    requeue: true,
    hold: true,
    reason: expect.stringContaining('weak-bulk.nl sent 5000 e-mails to google today (UTC)'),
  });
  const row = (await owners.query('SELECT status, sent_at, send_attempted_at, error FROM messages WHERE id = $1', [held.id])).rows[0];
  expect(row).toMatchObject({ status: 'approved', sent_at: null, send_attempted_at: null, error: expect.stringContaining('bulk-sender limit of 5000') });
  expect(await smtp.received(to)).toHaveLength(0);
  expect(await counted(o.orgId, 'weak-bulk.nl', 'google')).toBe(5000);
  // The workflow's hold books it again later the same day: the booking holds it too, and books no slot.
  expect(await send.scheduleSend(ref)).toEqual({ state: 'held', reason: expect.stringContaining('weak-bulk.nl sent 5000 e-mails to google today (UTC)') });
  expect((await owners.query('SELECT status, scheduled_for FROM messages WHERE id = $1', [ref.messageId])).rows[0]).toEqual({
    status: 'approved',
    scheduled_for: null,
  });

  // The same domain to a provider below its threshold, and an aligned domain at 5,000, send.
  expect((await sendTo(o, weak, `x.${randomUUID().slice(0, 8)}@yahoo.com`)).outcome.status).toBe('sent');
  const strongTo = `ok.${randomUUID().slice(0, 8)}@gmail.com`;
  expect((await sendTo(o, strong, strongTo)).outcome.status).toBe('sent');
  expect(await smtp.received(strongTo)).toHaveLength(1);
  expect(await counted(o.orgId, 'strong-bulk.nl', 'google')).toBe(5001);
});

test('a retried send counts once: the activity run again, and the record repeated, add nothing', async () => {
  const o = await outreachOrg(api, newOrganization, smtp);
  const box = await mailbox(o, `info@retry-bulk.nl`, passingHealth('retry-bulk.nl'));
  const to = `r.${randomUUID().slice(0, 8)}@gmail.com`;
  const first = await sendTo(o, box, to);
  expect(first.outcome.status).toBe('sent');
  expect(await counted(o.orgId, 'retry-bulk.nl', 'google')).toBe(1);
  // The activity retried after its result was lost: the claim finds the message sent.
  expect(await send.sendMessage({ organizationId: o.orgId, messageId: first.id })).toMatchObject({ status: 'sent' });
  // The record retried after a commit whose answer was lost (recordDelivered's loop): the message is sent already.
  const again = await asOrganization(workerDb, o.orgId, (tx) =>
    recordSent(tx, {
      messageId: first.id,
      providerMessageId: '<again@test>',
      fromAddress: 'info@retry-bulk.nl',
      toAddress: to,
      volume: { orgDomain: 'retry-bulk.nl', provider: 'google', day: today() },
    }),
  );
  expect(again).toBeNull();
  expect(await counted(o.orgId, 'retry-bulk.nl', 'google')).toBe(1);
  expect(await smtp.received(to)).toHaveLength(1);
});
