import { createDnsResolver } from '../../activities/providers/dns/resolver';
import { addMember, expectProblem, newOrganization, startApi, TestApi } from '../helpers/api';
import { startDnsServer, TestDnsServer, Zones } from '../helpers/dns-server';
import { TestUser } from '../helpers/tokens';
import { useStack } from '../helpers/stack';

/**
 * Who may connect which mailbox: the domains an organization proves with a DNS TXT record, looked up
 * through the service's resolver at a real DNS server (dns2) whose zones the test changes as a
 * domain's owner would.
 */
let api: TestApi;
let dnsServer: TestDnsServer;
const zones: Zones = {};
const { owners } = useStack({ owners: true });
let owner: TestUser;
let orgId: string;
let stranger: TestUser;
let strangerOrg: string;

beforeAll(async () => {
  dnsServer = await startDnsServer(zones);
  api = await startApi({ dns: createDnsResolver({ servers: [dnsServer.address], timeoutMs: 500, tries: 1 }) });
  ({ owner, orgId } = await newOrganization(api, 'Domein B.V.'));
  ({ owner: stranger, orgId: strangerOrg } = await newOrganization(api, 'Ander B.V.'));
});
afterAll(async () => {
  await api?.close();
  await dnsServer?.close();
});

const call = (method: string, path: string, token = owner.token, body?: unknown) => api.call(method, path, { token, body });

test('add a domain (pending, with the TXT record to publish), verify it once the record is there, list and delete it', async () => {
  const added = await call('POST', '/domains', owner.token, { organizationId: orgId, domain: 'Acme-Bouw.NL.' });
  expect(added.status).toBe(201);
  expect(added.body).toMatchObject({
    organization_id: orgId,
    domain: 'acme-bouw.nl',
    status: 'pending',
    verification: {
      type: 'dns_txt',
      name: '_outreach-verification.acme-bouw.nl',
      value: expect.stringMatching(/^outreach-domain-verification=[A-Za-z0-9_-]{32}$/),
    },
    verified_at: null,
  });
  const { id, verification } = added.body;

  // Nothing published yet: 409 saying so, and nothing changes.
  const none = await call('POST', `/domains/${id}/verify`, owner.token, {});
  expectProblem(none, 409, 'CONFLICT');
  expect(none.body).toMatchObject({ name: verification.name, expected: verification.value, found: [] });
  expect(none.body.detail).toMatch(/found no TXT record/);
  // Someone else's value (or an old one) at the name: 409 naming what was found.
  zones[verification.name] = [
    { type: 'TXT', data: 'outreach-domain-verification=someone-elses-token' },
    { type: 'TXT', data: 'v=spf1 -all' },
  ];
  const other = await call('POST', `/domains/${id}/verify`, owner.token, {});
  expectProblem(other, 409, 'CONFLICT');
  expect(other.body.found).toEqual(expect.arrayContaining(['outreach-domain-verification=someone-elses-token', 'v=spf1 -all']));
  expect((await call('GET', `/domains?organizationId=${orgId}`)).body[0]).toMatchObject({ id, status: 'pending', verified_at: null });

  zones[verification.name] = [
    { type: 'TXT', data: 'v=spf1 -all' },
    { type: 'TXT', data: verification.value },
  ];
  const verified = await call('POST', `/domains/${id}/verify`, owner.token, {});
  expect(verified.status).toBe(200);
  expect(verified.body).toMatchObject({ id, status: 'verified', verified_at: expect.any(String) });
  expect(dnsServer.queries.filter((q) => q.name === verification.name && q.type === 'TXT').length).toBeGreaterThanOrEqual(3);

  const listed = await call('GET', `/domains?organizationId=${orgId}`);
  expect(listed.body).toEqual([verified.body]);
  const again = await call('POST', '/domains', owner.token, { organizationId: orgId, domain: 'acme-bouw.nl' });
  expectProblem(again, 409, 'CONFLICT');
  expect(again.body.domain_id).toBe(id);

  expect((await call('DELETE', `/domains/${id}`)).status).toBe(204);
  expect((await call('GET', `/domains?organizationId=${orgId}`)).body).toEqual([]);
  expectProblem(await call('DELETE', `/domains/${id}`), 404, 'NOT_FOUND');
});

test('a DNS server failing is a 409 naming the failure, and the domain stays pending', async () => {
  const added = await call('POST', '/domains', owner.token, { organizationId: orgId, domain: 'kapot-dns.nl' });
  zones['kapot-dns.nl'] = 'servfail';
  const failed = await call('POST', `/domains/${added.body.id}/verify`, owner.token, {});
  expectProblem(failed, 409, 'CONFLICT');
  expect(failed.body.lookup_error).toMatch(/SERVFAIL/);
  expect((await owners.query('SELECT status FROM domains WHERE id = $1', [added.body.id])).rows[0].status).toBe('pending');
});

test('bad input names the field and changes nothing', async () => {
  const before = (await owners.query('SELECT count(*)::int AS n FROM domains WHERE organization_id = $1', [orgId])).rows[0].n;
  for (const [domain, why] of [
    ['not a domain', /not a valid domain/],
    ['localhost', /not a valid domain/],
    ['xn--bcher-kva.nl', /internationalized/],
    ['co.uk', /public suffix/],
    ['', /empty/],
  ] as const) {
    const res = await call('POST', '/domains', owner.token, { organizationId: orgId, domain });
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(res.body.errors[0]).toMatchObject({ path: 'body.domain', message: expect.stringMatching(why) });
  }
  expectProblem(await call('POST', '/domains', owner.token, { organizationId: orgId, domain: 'a.nl', extra: 1 }), 400, 'VALIDATION_FAILED');
  expectProblem(await call('GET', `/domains?organizationId=${orgId}&limit=0`), 400, 'VALIDATION_FAILED');
  expectProblem(await call('POST', '/domains/not-a-uuid/verify', owner.token, {}), 404, 'NOT_FOUND');
  expect((await owners.query('SELECT count(*)::int AS n FROM domains WHERE organization_id = $1', [orgId])).rows[0].n).toBe(before);
});

test('only owners and admins add, verify and delete; members read; another tenant gets 404 for all of it', async () => {
  const added = await call('POST', '/domains', owner.token, { organizationId: orgId, domain: 'rollen-bv.nl' });
  const id = added.body.id as string;
  const member = await addMember(api, owner, orgId, 'member');
  const admin = await addMember(api, owner, orgId, 'admin');
  expectProblem(await call('POST', '/domains', member.token, { organizationId: orgId, domain: 'lid-bv.nl' }), 403, 'FORBIDDEN');
  expectProblem(await call('POST', `/domains/${id}/verify`, member.token, {}), 403, 'FORBIDDEN');
  expectProblem(await call('DELETE', `/domains/${id}`, member.token), 403, 'FORBIDDEN');
  expect((await call('GET', `/domains?organizationId=${orgId}`, member.token)).body.map((d: { id: string }) => d.id)).toContain(id);
  expect((await call('POST', '/domains', admin.token, { organizationId: orgId, domain: 'admin-bv.nl' })).status).toBe(201);

  expectProblem(await call('POST', '/domains', stranger.token, { organizationId: orgId, domain: 'vreemd-bv.nl' }), 404, 'NOT_FOUND');
  expectProblem(await call('GET', `/domains?organizationId=${orgId}`, stranger.token), 404, 'NOT_FOUND');
  expectProblem(await call('POST', `/domains/${id}/verify`, stranger.token, {}), 404, 'NOT_FOUND');
  expectProblem(await call('DELETE', `/domains/${id}`, stranger.token), 404, 'NOT_FOUND');
  expect((await owners.query('SELECT count(*)::int AS n FROM domains WHERE id = $1', [id])).rows[0].n).toBe(1);
  // The same domain in another organization is that organization's own record (each proves it for itself).
  const theirs = await call('POST', '/domains', stranger.token, { organizationId: strangerOrg, domain: 'rollen-bv.nl' });
  expect(theirs.status).toBe(201);
  expect(theirs.body.verification.value).not.toBe(added.body.verification.value);
  expect((await call('GET', `/domains?organizationId=${strangerOrg}`, stranger.token)).body.map((d: { id: string }) => d.id)).toEqual([theirs.body.id]);
});

test('the same domain added six times at once: one 201, the others 409 naming it', async () => {
  const replies = await Promise.all(
    Array.from({ length: 6 }, () => call('POST', '/domains', owner.token, { organizationId: orgId, domain: 'tegelijk-bv.nl' })),
  );
  expect(replies.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
  const id = replies.find((r) => r.status === 201)!.body.id;
  for (const r of replies.filter((x) => x.status === 409)) expect(r.body.domain_id).toBe(id);
});
