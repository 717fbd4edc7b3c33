import { randomUUID } from 'node:crypto';
import { newOrganization, expectProblem } from '../helpers/api';
import type { TestUser } from '../helpers/tokens';
import { useStack } from '../helpers/stack';

/**
 * Campaign pools through the API:
 * mailboxIds on create and accept (mailboxId alone a pool of one), mailbox_ids in the answers,
 * PATCH /campaigns/{id}, POST /campaigns/{id}/contacts, mailbox_id on enrollments, bad input and
 * another tenant.
 */
const { api, owners } = useStack({ api: true, owners: true });
let owner: TestUser;
let orgId: string;
let other: { owner: TestUser; orgId: string };

beforeAll(async () => {
  ({ owner, orgId } = await newOrganization(api, 'Pool Installaties B.V.'));
  other = await newOrganization(api, 'Andere Pool B.V.');
});

const call = (method: string, path: string, body?: unknown, token = owner.token) => api.call(method, path, { token, body });
const ok = async <T = any>(method: string, path: string, body: unknown, token = owner.token): Promise<T> => {
  const res = await call(method, path, body, token);
  if (res.status !== 201 && res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};
async function contact(org = orgId, token = owner.token) {
  const co = await ok('POST', '/companies', { organizationId: org, name: `Bouw ${randomUUID().slice(0, 6)} B.V.`, countryCode: 'NL', legalForm: 'bv' }, token);
  const c = await ok(
    'POST',
    '/contacts',
    { organizationId: org, companyId: co.id, fullName: `Piet ${randomUUID().slice(0, 4)}`, email: `p.${randomUUID().slice(0, 8)}@example.nl` },
    token,
  );
  await ok(
    'PUT',
    `/contacts/${c.id}/lawful-basis`,
    { organizationId: org, basis: 'consent', recipient_kind: 'legal_person', country: 'NL', consent_evidence: 'signed form' },
    token,
  );
  return c.id as string;
}
async function mailbox(org = orgId) {
  const { rows } = await owners.query<{ id: string }>(
    `INSERT INTO mailboxes (organization_id, address, domain, holiday_country) VALUES ($1, $2, 'example.nl', 'NL') RETURNING id`,
    [org, `sales.${randomUUID().slice(0, 8)}@example.nl`],
  );
  return rows[0]!.id;
}
const steps = [
  { channel: 'email', delayDays: 0 },
  { channel: 'email', delayDays: 2 },
];
const pool = async (campaignId: string) =>
  (await owners.query<{ mailbox_id: string }>('SELECT mailbox_id FROM campaign_mailboxes WHERE campaign_id = $1 ORDER BY position', [campaignId])).rows.map(
    (r) => r.mailbox_id,
  );

test('mailboxIds on create and accept is the pool (mailbox_id its first); mailboxId alone is a pool of one; enrollments answer mailbox_id', async () => {
  const [m1, m2, m3] = [await mailbox(), await mailbox(), await mailbox()];
  const c = await ok('POST', '/campaigns', { organizationId: orgId, name: 'Pooled', mailboxIds: [m2, m1], steps });
  expect(c).toMatchObject({ mailbox_id: m2, mailbox_ids: [m2, m1] });
  expect(await pool(c.id)).toEqual([m2, m1]);

  const single = await ok('POST', '/campaigns', { organizationId: orgId, name: 'Single', mailboxId: m3, steps });
  expect(single).toMatchObject({ mailbox_id: m3, mailbox_ids: [m3] });
  // No mailbox at all: an empty pool until accept picks the organization's first sendable one.
  const none = await ok('POST', '/campaigns', { organizationId: orgId, name: 'None', steps });
  expect(none).toMatchObject({ mailbox_id: null, mailbox_ids: [] });

  // Accept with a new pool replaces it.
  const p = await contact();
  const accepted = await ok('POST', `/campaigns/${c.id}/accept`, { contactIds: [p], mailboxIds: [m3, m1, m2] });
  expect(accepted.campaign).toMatchObject({ status: 'active', mailbox_id: m3, mailbox_ids: [m3, m1, m2] });
  const enrollment = await ok('GET', `/enrollments/${accepted.result.enrolled[0].enrollmentId}`, undefined);
  // Null until its first e-mail is booked.
  expect(enrollment).toMatchObject({ campaign_id: c.id, mailbox_id: null });

  // Accept without a pool on a campaign without one: the organization's first sendable mailbox, as a pool of one.
  const acceptedNone = await ok('POST', `/campaigns/${none.id}/accept`, { contactIds: [] });
  expect(acceptedNone.campaign.mailbox_ids).toEqual([acceptedNone.campaign.mailbox_id]);
  expect(acceptedNone.campaign.mailbox_id).not.toBeNull();
  // Accept with mailboxId alone: a pool of one.
  const acceptedSingle = await ok('POST', `/campaigns/${single.id}/accept`, { contactIds: [], mailboxId: m1 });
  expect(acceptedSingle.campaign).toMatchObject({ mailbox_id: m1, mailbox_ids: [m1] });
});

test('bad pools: 400 naming the field, another tenant’s mailbox 404; nothing changes', async () => {
  const m1 = await mailbox();
  const base = { organizationId: orgId, name: 'Bad', steps };
  const field = (res: { body: any }) => res.body.errors.map((e: { path: string }) => e.path);
  let res = await call('POST', '/campaigns', { ...base, mailboxIds: [] });
  expectProblem(res, 400, 'VALIDATION_FAILED');
  expect(field(res)).toEqual(['body.mailboxIds']);
  res = await call('POST', '/campaigns', { ...base, mailboxIds: [m1, m1] });
  expectProblem(res, 400, 'VALIDATION_FAILED');
  expect(field(res)).toEqual(['body.mailboxIds']);
  res = await call('POST', '/campaigns', { ...base, mailboxIds: Array.from({ length: 51 }, () => randomUUID()) });
  expectProblem(res, 400, 'VALIDATION_FAILED');
  expect(field(res)).toEqual(['body.mailboxIds']);
  res = await call('POST', '/campaigns', { ...base, mailboxIds: ['nope'] });
  expectProblem(res, 400, 'VALIDATION_FAILED');
  expect(field(res)).toEqual(['body.mailboxIds.0']);
  res = await call('POST', '/campaigns', { ...base, mailboxId: randomUUID(), mailboxIds: [m1] });
  expectProblem(res, 400, 'VALIDATION_FAILED');
  expect(field(res)).toEqual(['body.mailboxId']);
  // Another tenant's mailbox in the pool (or none at all): 404.
  expectProblem(await call('POST', '/campaigns', { ...base, mailboxIds: [m1, await mailbox(other.orgId)] }), 404, 'NOT_FOUND');
  expectProblem(await call('POST', '/campaigns', { ...base, mailboxIds: [m1, randomUUID()] }), 404, 'NOT_FOUND');
  expect((await owners.query(`SELECT 1 FROM campaigns WHERE organization_id = $1 AND name = 'Bad'`, [orgId])).rowCount).toBe(0);

  const c = await ok('POST', '/campaigns', { ...base, name: 'Patch me', mailboxIds: [m1] });
  res = await call('PATCH', `/campaigns/${c.id}`, {});
  expectProblem(res, 400, 'VALIDATION_FAILED');
  res = await call('PATCH', `/campaigns/${c.id}`, { mailboxIds: [] });
  expect(field(res)).toEqual(['body.mailboxIds']);
  res = await call('PATCH', `/campaigns/${c.id}`, { mode: 'sometimes' });
  expect(field(res)).toEqual(['body.mode']);
  expectProblem(await call('PATCH', `/campaigns/${c.id}`, { mailboxIds: [await mailbox(other.orgId)] }), 404, 'NOT_FOUND');
  res = await call('POST', `/campaigns/${c.id}/contacts`, { contactIds: [] });
  expect(field(res)).toEqual(['body.contactIds']);
  res = await call('POST', `/campaigns/${c.id}/contacts`, { contactIds: Array.from({ length: 1001 }, () => randomUUID()) });
  expect(field(res)).toEqual(['body.contactIds']);
  expect(await pool(c.id)).toEqual([m1]);
  expect((await ok('GET', `/campaigns/${c.id}`, undefined)).suggested_contact_ids).toEqual([]);
});

test('PATCH changes name, mode and the pool while the campaign runs; 409 once archived', async () => {
  const [m1, m2, m3] = [await mailbox(), await mailbox(), await mailbox()];
  const c = await ok('POST', '/campaigns', { organizationId: orgId, name: 'Grow', mailboxIds: [m1], steps });
  await ok('POST', `/campaigns/${c.id}/accept`, { contactIds: [] });
  const grown = await ok('PATCH', `/campaigns/${c.id}`, { mailboxIds: [m1, m2, m3], name: 'Grown', mode: 'auto' });
  expect(grown).toMatchObject({ status: 'active', name: 'Grown', mode: 'auto', mailbox_id: m1, mailbox_ids: [m1, m2, m3] });
  const shrunk = await ok('PATCH', `/campaigns/${c.id}`, { mailboxIds: [m3] });
  expect(shrunk).toMatchObject({ name: 'Grown', mode: 'auto', mailbox_id: m3, mailbox_ids: [m3] });
  expect(await pool(c.id)).toEqual([m3]);

  const d = await ok('POST', '/campaigns', { organizationId: orgId, name: 'Archived', steps });
  await ok('POST', `/campaigns/${d.id}/dismiss`, {});
  expectProblem(await call('PATCH', `/campaigns/${d.id}`, { name: 'Again' }), 409, 'CONFLICT');
});

test('POST contacts: a proposal suggests them, an active campaign enrolls them at once; {enrolled, skipped} as accept', async () => {
  const m1 = await mailbox();
  const [a, b, c] = [await contact(), await contact(), await contact()];
  const proposal = await ok('POST', '/campaigns', { organizationId: orgId, name: 'Grow contacts', mailboxIds: [m1], contactIds: [a], steps });
  const added = await ok('POST', `/campaigns/${proposal.id}/contacts`, { contactIds: [b, a, c] });
  expect(added.result).toEqual({ enrolled: [], skipped: [] });
  expect(added.campaign.suggested_contact_ids).toEqual([a, b, c]);
  expect((await owners.query('SELECT count(*)::int AS n FROM enrollments WHERE campaign_id = $1', [proposal.id])).rows[0].n).toBe(0);

  const accepted = await ok('POST', `/campaigns/${proposal.id}/accept`, { contactIds: [a] });
  expect(accepted.result.enrolled.map((e: { contactId: string }) => e.contactId)).toEqual([a]);
  const more = await ok('POST', `/campaigns/${proposal.id}/contacts`, { contactIds: [b, a] });
  expect(more.result.enrolled.map((e: { contactId: string }) => e.contactId)).toEqual([b]);
  expect(more.result.skipped).toEqual([{ contactId: a, reason: 'already_enrolled' }]);
  expect(more.campaign.enrollment_counts).toEqual({ active: 2 });
  // Another tenant's contact: 404, nothing enrolled.
  const theirs = await contact(other.orgId, other.owner.token);
  expectProblem(await call('POST', `/campaigns/${proposal.id}/contacts`, { contactIds: [c, theirs] }), 404, 'NOT_FOUND');
  expect((await owners.query('SELECT count(*)::int AS n FROM enrollments WHERE campaign_id = $1', [proposal.id])).rows[0].n).toBe(2);

  const d = await ok('POST', '/campaigns', { organizationId: orgId, name: 'Dismissed', steps });
  await ok('POST', `/campaigns/${d.id}/dismiss`, {});
  expectProblem(await call('POST', `/campaigns/${d.id}/contacts`, { contactIds: [c] }), 409, 'CONFLICT');
});

test('another tenant gets 404 on PATCH and POST contacts; nothing changes', async () => {
  const m1 = await mailbox();
  const p = await contact();
  const c = await ok('POST', '/campaigns', { organizationId: orgId, name: 'Private pool', mailboxIds: [m1], steps });
  const theirMailbox = await mailbox(other.orgId);
  const theirContact = await contact(other.orgId, other.owner.token);
  const them = other.owner.token;
  for (const [method, path, body] of [
    ['PATCH', `/campaigns/${c.id}`, { name: 'Theirs now' }],
    ['PATCH', `/campaigns/${c.id}`, { mailboxIds: [theirMailbox] }],
    ['POST', `/campaigns/${c.id}/contacts`, { contactIds: [p] }],
    ['POST', `/campaigns/${c.id}/contacts`, { contactIds: [theirContact] }],
  ] as Array<[string, string, unknown]>) {
    expectProblem(await call(method, path, body, them), 404, 'NOT_FOUND');
  }
  const after = await ok('GET', `/campaigns/${c.id}`, undefined);
  expect(after).toMatchObject({ name: 'Private pool', mailbox_ids: [m1], suggested_contact_ids: [] });
});

test('accept without a pool takes the first active sendable mailbox: a paused one is passed over', async () => {
  const { owner: o, orgId: org } = await newOrganization(api, 'Gepauzeerd B.V.');
  const paused = await mailbox(org);
  const active = await mailbox(org);
  expect((await ok('POST', `/mailboxes/${paused}/pause`, { reason: 'verhuizing' }, o.token)).status).toBe('paused');
  const c = await ok('POST', '/campaigns', { organizationId: org, name: 'Zonder pool', contactIds: [await contact(org, o.token)], steps }, o.token);
  const accepted = await ok('POST', `/campaigns/${c.id}/accept`, {}, o.token);
  expect(accepted.campaign).toMatchObject({ mailbox_id: active, mailbox_ids: [active] });
  for (const e of accepted.result.enrolled) await ok('POST', `/enrollments/${e.enrollmentId}/stop`, {}, o.token);
});
