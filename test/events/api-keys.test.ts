import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { jsonBodyFingerprint } from '../../apps/api/idempotency';
import { createLogger } from '../../apps/shared/logger';
import { expectProblem, newOrganization } from '../helpers/api';
import { useStack } from '../helpers/stack';

/**
 * API keys and idempotent POSTs through the real API and PostgreSQL: a key acts as its
 * membership (its role, its organization only), is refused the moment it is deleted, and is never
 * logged or answered after creation; the same POST with the same Idempotency-Key runs once.
 */
const lines: string[] = [];
const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
// The production logger (its redaction) at the most verbose level, writing to this sink.
const { api, owners } = useStack({ api: { logger: createLogger('trace', 'api', sink) }, owners: true });

async function tenant() {
  const { owner, orgId } = await newOrganization(api, `Keys ${randomUUID().slice(0, 6)} B.V.`);
  const ok = async (method: string, path: string, body?: unknown, token = owner.token) => {
    const res = await api.call(method, path, { token, body });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  return { owner, orgId, ok };
}

test('a viewer key reads but may not write (403), sees no other organization (404), is refused (401) once deleted, and is never logged or answered again', async () => {
  const a = await tenant();
  const b = await tenant();
  const created = await a.ok('POST', '/api-keys', { organizationId: a.orgId, name: 'CRM sync', role: 'viewer' });
  expect(created).toMatchObject({ organization_id: a.orgId, name: 'CRM sync', role: 'viewer', created_by: a.owner.id, last_used_at: null });
  const key: string = created.key;
  expect(key).toMatch(/^osk_[A-Za-z0-9_-]{43}$/);
  expect(created.prefix).toBe(key.slice(0, 12));

  // Reads in its organization.
  const company = await a.ok('POST', '/companies', { organizationId: a.orgId, name: 'Bouwbedrijf Jansen B.V.', countryCode: 'NL' });
  expect((await a.ok('GET', `/companies/${company.id}`, undefined, key)).id).toBe(company.id);
  expect((await a.ok('GET', '/organizations', undefined, key)).map((o: { id: string }) => o.id)).toEqual([a.orgId]);
  // Writes are 403 for its role.
  expectProblem(
    await api.call('POST', '/companies', { token: key, body: { organizationId: a.orgId, name: 'Nieuw B.V.', countryCode: 'NL' } }),
    403,
    'FORBIDDEN',
  );
  // Another organization does not exist for it.
  const theirs = await b.ok('POST', '/companies', { organizationId: b.orgId, name: 'Anders B.V.', countryCode: 'NL' });
  expectProblem(await api.call('GET', `/companies/${theirs.id}`, { token: key }), 404, 'NOT_FOUND');
  expectProblem(await api.call('GET', `/companies?organizationId=${b.orgId}`, { token: key }), 404, 'NOT_FOUND');

  // last_used_at is kept; the list never answers the key.
  const listed = await a.ok('GET', `/api-keys?organizationId=${a.orgId}`);
  expect(listed).toEqual([expect.objectContaining({ id: created.id, prefix: created.prefix, last_used_at: expect.any(String) })]);
  expect(JSON.stringify(listed)).not.toContain(key);
  const { rows } = await owners.query('SELECT key_hash FROM api_keys WHERE id = $1', [created.id]);
  expect(rows[0].key_hash.toString('hex')).not.toContain(Buffer.from(key).toString('hex'));

  // Deleted: refused at once.
  const removed = await api.call('DELETE', `/api-keys/${created.id}`, { token: a.owner.token });
  expect(removed.status).toBe(204);
  expectProblem(await api.call('GET', `/companies/${company.id}`, { token: key }), 401, 'UNAUTHENTICATED');
  expect(await a.ok('GET', `/api-keys?organizationId=${a.orgId}`)).toEqual([]);
  expectProblem(await api.call('GET', '/organizations', { token: 'osk_' + 'x'.repeat(43) }), 401, 'UNAUTHENTICATED');

  expect(lines.length).toBeGreaterThan(5);
  expect(lines.filter((l) => l.includes(key) || l.includes(key.slice(4)))).toEqual([]);
});

test('an admin key writes but cannot create organizations, members or keys; another tenant cannot see or delete keys', async () => {
  const a = await tenant();
  const b = await tenant();
  const { key, id } = await a.ok('POST', '/api-keys', { organizationId: a.orgId, name: 'automation', role: 'admin' });
  expect((await api.call('POST', '/companies', { token: key, body: { organizationId: a.orgId, name: 'Via sleutel B.V.', countryCode: 'NL' } })).status).toBe(
    201,
  );
  expectProblem(await api.call('POST', '/organizations', { token: key, body: { name: 'Mine' } }), 403, 'FORBIDDEN');
  expectProblem(await api.call('POST', `/organizations/${a.orgId}/members`, { token: key, body: { userId: randomUUID(), role: 'viewer' } }), 403, 'FORBIDDEN');
  expectProblem(await api.call('POST', '/api-keys', { token: key, body: { organizationId: a.orgId, name: 'more', role: 'viewer' } }), 403, 'FORBIDDEN');
  expectProblem(await api.call('GET', `/api-keys?organizationId=${a.orgId}`, { token: b.owner.token }), 404, 'NOT_FOUND');
  expectProblem(await api.call('DELETE', `/api-keys/${id}`, { token: b.owner.token }), 404, 'NOT_FOUND');
  expectProblem(await api.call('POST', '/api-keys', { token: b.owner.token, body: { organizationId: a.orgId, name: 'x', role: 'viewer' } }), 404, 'NOT_FOUND');
  const bad = await api.call('POST', '/api-keys', { token: a.owner.token, body: { organizationId: a.orgId, name: 'x', role: 'owner' } });
  expectProblem(bad, 400, 'VALIDATION_FAILED');
  expect(bad.body.errors[0].path).toBe('body.role');
});

test('the key guard is the route matched: every spelling the router accepts (case, trailing slash) is 403 for a key, and nothing is created', async () => {
  const a = await tenant();
  const { key, id } = await a.ok('POST', '/api-keys', { organizationId: a.orgId, name: 'leaked', role: 'admin' });
  const userId = randomUUID();
  const attempts: Array<[string, string, unknown]> = [
    ['POST', '/API-KEYS', { organizationId: a.orgId, name: 'minted', role: 'admin' }],
    ['POST', '/Api-Keys/', { organizationId: a.orgId, name: 'minted', role: 'admin' }],
    ['POST', '/api-keys/', { organizationId: a.orgId, name: 'minted', role: 'admin' }],
    ['POST', `/organizations/${a.orgId}/Members`, { userId, role: 'admin' }],
    ['POST', `/ORGANIZATIONS/${a.orgId}/members/`, { userId, role: 'admin' }],
    ['POST', '/organizations/', { name: 'Mine' }],
    ['POST', '/Organizations', { name: 'Mine' }],
    ['DELETE', `/API-KEYS/${id}`, undefined],
    ['DELETE', `/api-keys/${id}/`, undefined],
  ];
  // Spellings the OpenAPI document does not list (it names each path once): sent with fetch, and each
  // answer checked to be the problem document of a 403.
  const raw = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await fetch(api.url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return {
      status: res.status,
      type: res.headers.get('content-type'),
      body: (await res.json().catch(() => null)) as { code?: string; status?: number } | null,
    };
  };
  const answers: string[] = [];
  for (const [method, path, body] of attempts) {
    const res = await raw(method, path, key, body);
    expect(res.type).toMatch(/^application\/problem\+json/);
    answers.push(`${method} ${path} ${res.status} ${res.body?.code}`);
  }
  expect(answers).toEqual(attempts.map(([method, path]) => `${method} ${path} 403 FORBIDDEN`));
  const { rows } = await owners.query(
    `SELECT (SELECT count(*)::int FROM api_keys WHERE organization_id = $1 AND revoked_at IS NULL) AS keys,
            (SELECT count(*)::int FROM memberships WHERE user_id = $2) AS members,
            (SELECT count(*)::int FROM memberships WHERE user_id = $3) AS key_orgs`,
    [a.orgId, userId, id],
  );
  expect(rows[0]).toEqual({ keys: 1, members: 0, key_orgs: 1 });
  // The same spellings still reach the route for a person.
  expect((await raw('POST', '/API-KEYS/', a.owner.token, { organizationId: a.orgId, name: 'by a person', role: 'viewer' })).status).toBe(201);
});

test("a key's id cannot be made a member with another role, nor assigned a thread: its role stays the key's", async () => {
  const a = await tenant();
  const { key, id } = await a.ok('POST', '/api-keys', { organizationId: a.orgId, name: 'crm', role: 'viewer' });
  const raised = await api.call('POST', `/organizations/${a.orgId}/members`, { token: a.owner.token, body: { userId: id, role: 'owner' } });
  expectProblem(raised, 409, 'CONFLICT');
  expectProblem(
    await api.call('POST', '/companies', { token: key, body: { organizationId: a.orgId, name: 'Nog steeds viewer B.V.', countryCode: 'NL' } }),
    403,
    'FORBIDDEN',
  );
  const { rows } = await owners.query('SELECT role FROM memberships WHERE user_id = $1', [id]);
  expect(rows).toEqual([{ role: 'viewer' }]);
});

test('the same POST /campaigns with the same Idempotency-Key twice creates one campaign and answers the same body, the second replayed', async () => {
  const a = await tenant();
  const body = { organizationId: a.orgId, name: 'Warmtepompen Utrecht', steps: [{ channel: 'email', delayDays: 0 }] };
  const key = `retry-${randomUUID()}`;
  const first = await api.call('POST', '/campaigns', { token: a.owner.token, body, headers: { 'Idempotency-Key': key } });
  expect(first.status).toBe(201);
  expect(first.headers.get('idempotent-replayed')).toBeNull();
  const second = await api.call('POST', '/campaigns', { token: a.owner.token, body, headers: { 'Idempotency-Key': key } });
  expect(second.status).toBe(201);
  expect(second.headers.get('idempotent-replayed')).toBe('true');
  expect(second.body).toEqual(first.body);
  const { rows } = await owners.query('SELECT count(*)::int AS n FROM campaigns WHERE organization_id = $1', [a.orgId]);
  expect(rows[0].n).toBe(1);

  // Another body under the same key: 422; a key that is too long: 400 naming it.
  expectProblem(
    await api.call('POST', '/campaigns', { token: a.owner.token, body: { ...body, name: 'Anders' }, headers: { 'Idempotency-Key': key } }),
    422,
    'IDEMPOTENCY_KEY_REUSED',
  );
  const long = await api.call('POST', '/campaigns', { token: a.owner.token, body, headers: { 'Idempotency-Key': 'k'.repeat(256) } });
  expectProblem(long, 400, 'VALIDATION_FAILED');
  expect(long.body.errors[0].path).toBe('headers.Idempotency-Key');
  // Keys are per caller: another user's same key is a new request.
  const b = await tenant();
  const theirs = await api.call('POST', '/campaigns', {
    token: b.owner.token,
    body: { ...body, organizationId: b.orgId },
    headers: { 'Idempotency-Key': key },
  });
  expect(theirs.status).toBe(201);
  expect(theirs.body.id).not.toBe(first.body.id);
});

test('a repeat while the first request still runs is 409 IDEMPOTENCY_IN_PROGRESS', async () => {
  const a = await tenant();
  const key = `slow-${randomUUID()}`;
  const body = { organizationId: a.orgId, name: 'Parallel', steps: [{ channel: 'email', delayDays: 0 }] };
  // The claim of a first request that has not answered yet (as another API process would hold it).
  await owners.query(`INSERT INTO idempotency_keys (user_id, key, method, path, body_hash) VALUES ($1, $2, 'POST', '/campaigns', $3)`, [
    a.owner.id,
    key,
    jsonBodyFingerprint(api.db, body),
  ]);
  expectProblem(await api.call('POST', '/campaigns', { token: a.owner.token, body, headers: { 'Idempotency-Key': key } }), 409, 'IDEMPOTENCY_IN_PROGRESS');
  const { rows } = await owners.query('SELECT count(*)::int AS n FROM campaigns WHERE organization_id = $1', [a.orgId]);
  expect(rows[0].n).toBe(0);
});

test('POST /imports (a text/csv body) honours Idempotency-Key on the raw bytes: one import, the same answer replayed; another file is 422', async () => {
  const a = await tenant();
  const key = `import-${randomUUID()}`;
  const path = `/imports?organizationId=${a.orgId}&sourceDescription=${encodeURIComponent('Beurs 2026')}`;
  const csv = 'full_name,email,company\nJan Jansen,jan@bouw-idem.nl,Bouw B.V.\n';
  const send = (body: string, k = key) =>
    api.call('POST', path, { token: a.owner.token, rawBody: body, headers: { 'content-type': 'text/csv', 'Idempotency-Key': k } });
  const first = await send(csv);
  expect(first.status).toBe(202);
  expect(first.headers.get('idempotent-replayed')).toBeNull();
  const second = await send(csv);
  expect(second.status).toBe(202);
  expect(second.headers.get('idempotent-replayed')).toBe('true');
  expect(second.body).toEqual(first.body);
  const count = async () => (await owners.query('SELECT count(*)::int AS n FROM imports WHERE organization_id = $1', [a.orgId])).rows[0].n;
  expect(await count()).toBe(1);
  // The same key with another file (one byte differs): 422, nothing imported.
  expectProblem(await send(csv.replace('Jan', 'Jon')), 422, 'IDEMPOTENCY_KEY_REUSED');
  expect(await count()).toBe(1);
  // Without a key the import still streams: a second one is made.
  expect((await api.call('POST', path, { token: a.owner.token, rawBody: csv, headers: { 'content-type': 'text/csv' } })).status).toBe(202);
  expect(await count()).toBe(2);
});
