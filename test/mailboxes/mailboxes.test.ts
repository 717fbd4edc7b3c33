import { DateTime } from 'luxon';
import { mailboxSecretContext, SecretBox } from '../../db/secrets';
import { addMember, expectProblem, newOrganization, startApi, TestApi } from '../helpers/api';
import { capturedLogger } from '../helpers/log-capture';
import { testEnv, TestUser } from '../helpers/tokens';
import { useStack } from '../helpers/stack';

const SECRET = 'smtp-pass-7c1f0a9e-do-not-leak';
let api: TestApi;
const { owners } = useStack({ owners: true });
let logLines: string[];
let owner: TestUser;
let orgId: string;

beforeAll(async () => {
  const captured = capturedLogger();
  logLines = captured.lines;
  api = await startApi({ logger: captured.logger });
  ({ owner, orgId } = await newOrganization(api, 'Mailboxes B.V.'));
});
afterAll(async () => {
  await api.close();
});

const smtp = { host: 'smtp.example.nl', port: 587, username: 'verkoop@acme.nl' };
const create = (body: Record<string, unknown>, token = owner.token) =>
  api.call('POST', '/mailboxes', { token, body: { organizationId: orgId, smtp, secret: SECRET, ...body } });

test('a mailbox with the contract defaults: the secret is write-only, sealed at rest and bound to its row, never logged', async () => {
  const res = await create({ address: 'Verkoop@Acme.nl', displayName: 'Verkoop Acme' });
  expect(res.status).toBe(201);
  expect(res.body).toEqual({
    id: expect.any(String),
    organization_id: orgId,
    address: 'verkoop@acme.nl',
    domain: 'acme.nl',
    display_name: 'Verkoop Acme',
    smtp: { host: 'smtp.example.nl', port: 587, secure: false, username: 'verkoop@acme.nl' },
    imap: null,
    timezone: 'Europe/Amsterdam',
    sending_window: { start: '09:00', end: '17:00' },
    sending_days: [1, 2, 3, 4, 5],
    holiday_country: 'NL',
    holiday_region: null,
    daily_cap: 30,
    min_gap_seconds: 120,
    dkim_selector: null,
    sent_today: 0,
    health: null,
    last_error: null,
    status: 'active',
    paused_reason: null,
    paused_at: null,
    protection: { maxBounceRate: 0.02, maxComplaintRate: 0.001, maxBlockRate: 0.05, minSample: 20 },
    ramp_up: null,
    cap_today: 30,
    gap_jitter_seconds: 0,
    auth: { type: 'password', provider: null },
    stats_7d: { sent: 0, hard_bounces: 0, complaints: 0, bounce_rate: 0, complaint_rate: 0, blocks: 0, block_rate: 0 },
    created_at: expect.any(String),
    updated_at: expect.any(String),
  });
  const id = res.body.id;
  const one = await api.call('GET', `/mailboxes/${id}`, { token: owner.token });
  expect(one.body).toEqual(res.body);
  const list = await api.call('GET', `/mailboxes?organizationId=${orgId}`, { token: owner.token });
  expect(list.body.map((m: { id: string }) => m.id)).toContain(id);

  const row = (await owners.query('SELECT secret_ciphertext FROM mailboxes WHERE id = $1', [id])).rows[0];
  expect(row.secret_ciphertext.toString('latin1')).not.toContain(SECRET);
  const box = new SecretBox(testEnv('INTEGRATION_SECRET_KEY'));
  expect(box.open(row.secret_ciphertext, mailboxSecretContext(orgId, id))).toBe(SECRET);
  expect(() => box.open(row.secret_ciphertext, mailboxSecretContext(orgId, '00000000-0000-4000-8000-000000000000'))).toThrow();
  for (const body of [res.body, one.body, list.body]) expect(JSON.stringify(body)).not.toContain(SECRET);
  expect(logLines.length).toBeGreaterThan(0);
  expect(logLines.join('\n')).not.toContain(SECRET);
});

test('every setting given; PATCH changes any of them (null clears), re-seals a new secret, and keeps the address', async () => {
  const res = await create({
    address: 'sales@bouw.example.co.uk',
    smtp: { host: 'smtp.bouw.co.uk', port: 465 },
    imap: { host: 'imap.bouw.co.uk', port: 993, username: 'sales' },
    timezone: 'america/new_york',
    sendingWindow: { start: '08:30', end: '24:00' },
    sendingDays: [1, 3, 5],
    holidayCountry: 'US',
    holidayRegion: 'CA',
    dailyCap: 500,
    minGapSeconds: 0,
    dkimSelector: 's2026',
  });
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({
    domain: 'bouw.example.co.uk',
    smtp: { host: 'smtp.bouw.co.uk', port: 465, secure: true, username: null },
    imap: { host: 'imap.bouw.co.uk', port: 993, secure: true, username: 'sales' },
    timezone: 'America/New_York',
    sending_window: { start: '08:30', end: '24:00' },
    sending_days: [1, 3, 5],
    holiday_country: 'US',
    holiday_region: 'CA',
    daily_cap: 500,
    min_gap_seconds: 0,
    dkim_selector: 's2026',
  });
  const id = res.body.id;
  const patched = await api.call('PATCH', `/mailboxes/${id}`, {
    token: owner.token,
    body: {
      imap: null,
      holidayCountry: 'DE',
      holidayRegion: 'BY',
      dailyCap: 1,
      minGapSeconds: 3600,
      displayName: 'Sales',
      dkimSelector: null,
      secret: 'new-pass',
      sendingWindow: { start: '00:00', end: '00:01' },
    },
  });
  expect(patched.status).toBe(200);
  expect(patched.body).toMatchObject({
    address: 'sales@bouw.example.co.uk',
    imap: null,
    holiday_country: 'DE',
    holiday_region: 'BY',
    daily_cap: 1,
    min_gap_seconds: 3600,
    display_name: 'Sales',
    dkim_selector: null,
    sending_window: { start: '00:00', end: '00:01' },
  });
  expect(new Date(patched.body.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(res.body.updated_at).getTime());
  const row = (await owners.query('SELECT secret_ciphertext FROM mailboxes WHERE id = $1', [id])).rows[0];
  expect(new SecretBox(testEnv('INTEGRATION_SECRET_KEY')).open(row.secret_ciphertext, mailboxSecretContext(orgId, id))).toBe('new-pass');
  // The address and the organization cannot be changed.
  expectProblem(await api.call('PATCH', `/mailboxes/${id}`, { token: owner.token, body: { address: 'other@bouw.co.uk' } }), 400, 'VALIDATION_FAILED');
  expectProblem(await api.call('PATCH', `/mailboxes/${id}`, { token: owner.token, body: { organizationId: orgId } }), 400, 'VALIDATION_FAILED');
  // A new country whose regions do not include the old region needs a region (or null) with it.
  const stale = await api.call('PATCH', `/mailboxes/${id}`, { token: owner.token, body: { holidayCountry: 'NL' } });
  expectProblem(stale, 400, 'VALIDATION_FAILED');
  expect(stale.body.errors[0].path).toBe('body.holidayRegion');
  expect((await api.call('PATCH', `/mailboxes/${id}`, { token: owner.token, body: { holidayCountry: 'NL', holidayRegion: null } })).body).toMatchObject({
    holiday_country: 'NL',
    holiday_region: null,
  });
});

test('the holiday country defaults to the organization’s compliance default country', async () => {
  const other = await newOrganization(api, 'Duits B.V.');
  await api.call('PATCH', '/compliance/settings', { token: other.owner.token, body: { organizationId: other.orgId, defaultCountry: 'DE' } });
  const res = await api.call('POST', '/mailboxes', {
    token: other.owner.token,
    body: { organizationId: other.orgId, address: 'vertrieb@firma.de', smtp, secret: 'x' },
  });
  expect(res.body.holiday_country).toBe('DE');
});

test('bad input is a 400 naming the field; a duplicate address in the organization is 409', async () => {
  const cases: Array<[Record<string, unknown>, string, RegExp?]> = [
    [{ timezone: 'Europe/Atlantis' }, 'body.timezone', /IANA/],
    [{ sendingWindow: { start: '17:00', end: '09:00' } }, 'body.sendingWindow.end', /after it starts/],
    [{ sendingWindow: { start: '09:00', end: '09:00' } }, 'body.sendingWindow.end'],
    [{ sendingWindow: { start: '24:00', end: '24:00' } }, 'body.sendingWindow.start'],
    [{ sendingWindow: { start: '9:00', end: '17:00' } }, 'body.sendingWindow.start', /HH:MM/],
    [{ sendingWindow: { start: '09:00', end: '24:30' } }, 'body.sendingWindow.end'],
    [{ sendingWindow: { start: '09:60', end: '17:00' } }, 'body.sendingWindow.start'],
    [{ dailyCap: 0 }, 'body.dailyCap', /1 and 500/],
    [{ dailyCap: 501 }, 'body.dailyCap'],
    [{ dailyCap: 2.5 }, 'body.dailyCap'],
    [{ minGapSeconds: -1 }, 'body.minGapSeconds'],
    [{ minGapSeconds: 3601 }, 'body.minGapSeconds'],
    [{ sendingDays: [0, 1] }, 'body.sendingDays.0'],
    [{ sendingDays: [1, 8] }, 'body.sendingDays.1'],
    [{ sendingDays: [1, 2, 1] }, 'body.sendingDays', /twice/],
    [{ sendingDays: [] }, 'body.sendingDays'],
    [{ address: 'not-an-address' }, 'body.address'],
    [{ address: 'info@localhost' }, 'body.address'],
    [{ address: 'info@bücker.de' }, 'body.address', /IDN/],
    [{ address: 'info@xn--bcker-gra.de' }, 'body.address', /IDN/],
    [{ holidayCountry: 'XX' }, 'body.holidayCountry'],
    [{ holidayCountry: 'nl' }, 'body.holidayCountry'],
    [{ holidayCountry: 'NL', holidayRegion: 'BY' }, 'body.holidayRegion', /not a region of NL/],
    [{ holidayRegion: 'ZZ' }, 'body.holidayRegion'],
    [{ smtp: { host: 'smtp.example.nl', port: 0 } }, 'body.smtp.port'],
    [{ smtp: { host: 'bad host!', port: 25 } }, 'body.smtp.host'],
    [{ smtp: { host: 'smtp.example.nl' } }, 'body.smtp.port'],
    [{ secret: '' }, 'body.secret'],
  ];
  const answers = [];
  for (const [change, path, message] of cases) {
    const res = await create({ address: 'valid@acme-validation.nl', ...change });
    answers.push({ change, status: res.status, paths: (res.body.errors ?? []).map((e: { path: string }) => e.path) });
    expectProblem(res, 400, 'VALIDATION_FAILED');
    if (message) expect(res.body.errors.find((e: { path: string }) => e.path === path)?.message).toMatch(message);
  }
  expect(answers.map((a) => a.paths)).toEqual(cases.map(([, path]) => [path]));

  const first = await create({ address: 'dup@acme.nl' });
  expect(first.status).toBe(201);
  const again = await create({ address: 'DUP@acme.nl' });
  expectProblem(again, 409, 'CONFLICT');
  expect(again.body.mailbox_id).toBe(first.body.id);
  // PATCH validates the same way.
  for (const body of [
    { timezone: 'Nowhere/Else' },
    { dailyCap: 0 },
    { sendingWindow: { start: '18:00', end: '08:00' } },
    { sendingDays: [7, 7] },
    { holidayCountry: 'QQ' },
  ]) {
    expectProblem(await api.call('PATCH', `/mailboxes/${first.body.id}`, { token: owner.token, body }), 400, 'VALIDATION_FAILED');
  }
});

test('roles: members and above write, viewers read; another tenant gets 404 for the mailbox and for the organization', async () => {
  const member = await addMember(api, owner, orgId, 'member');
  const viewer = await addMember(api, owner, orgId, 'viewer');
  const made = await create({ address: 'member@acme.nl' }, member.token);
  expect(made.status).toBe(201);
  expectProblem(await create({ address: 'viewer@acme.nl' }, viewer.token), 403, 'FORBIDDEN');
  expectProblem(await api.call('PATCH', `/mailboxes/${made.body.id}`, { token: viewer.token, body: { dailyCap: 5 } }), 403, 'FORBIDDEN');
  expect((await api.call('GET', `/mailboxes/${made.body.id}`, { token: viewer.token })).status).toBe(200);
  expect((await api.call('PATCH', `/mailboxes/${made.body.id}`, { token: member.token, body: { dailyCap: 5 } })).body.daily_cap).toBe(5);

  const other = await newOrganization(api, 'Andere Tenant B.V.');
  const t = other.owner.token;
  expectProblem(await api.call('GET', `/mailboxes/${made.body.id}`, { token: t }), 404, 'NOT_FOUND');
  expectProblem(await api.call('PATCH', `/mailboxes/${made.body.id}`, { token: t, body: { dailyCap: 7 } }), 404, 'NOT_FOUND');
  expectProblem(await api.call('GET', `/mailboxes?organizationId=${orgId}`, { token: t }), 404, 'NOT_FOUND');
  expectProblem(await api.call('POST', '/mailboxes', { token: t, body: { organizationId: orgId, address: 'x@acme.nl', smtp, secret: 'x' } }), 404, 'NOT_FOUND');
  expect((await api.call('GET', `/mailboxes?organizationId=${other.orgId}`, { token: t })).body).toEqual([]);
  expect((await api.call('GET', `/mailboxes/${made.body.id}`, { token: owner.token })).body.daily_cap).toBe(5);
  expectProblem(await api.call('GET', '/mailboxes/not-a-uuid', { token: owner.token }), 404, 'NOT_FOUND');
});

test('sent_today counts the messages sent since the start of the mailbox’s local day; health is the newest check', async () => {
  // UTC+14: its local day starts ten hours before UTC's.
  const zone = 'Pacific/Kiritimati';
  const res = await create({ address: 'kiritimati@acme.nl', timezone: zone });
  const id = res.body.id;
  const startOfDay = DateTime.now().setZone(zone).startOf('day');
  const sent = [startOfDay.plus({ seconds: 1 }), startOfDay, startOfDay.minus({ seconds: 1 }), startOfDay.minus({ hours: 20 })].map((d) => d.toJSDate());
  for (const at of sent) {
    await owners.query(`INSERT INTO messages (organization_id, mailbox_id, status, sent_at) VALUES ($1, $2, 'sent', $3)`, [orgId, id, at]);
  }
  await owners.query(`INSERT INTO messages (organization_id, mailbox_id, status) VALUES ($1, $2, 'scheduled')`, [orgId, id]);
  expect((await api.call('GET', `/mailboxes/${id}`, { token: owner.token })).body.sent_today).toBe(2);
  // The same instants, counted for a mailbox in UTC-10, where the day started twenty-four hours later.
  const hawaii = await create({ address: 'honolulu@acme.nl', timezone: 'Pacific/Honolulu' });
  const hstStart = DateTime.now().setZone('Pacific/Honolulu').startOf('day');
  for (const at of [hstStart.plus({ minutes: 1 }), hstStart.minus({ minutes: 1 })]) {
    await owners.query(`INSERT INTO messages (organization_id, mailbox_id, status, sent_at) VALUES ($1, $2, 'sent', $3)`, [
      orgId,
      hawaii.body.id,
      at.toJSDate(),
    ]);
  }
  expect((await api.call('GET', `/mailboxes/${hawaii.body.id}`, { token: owner.token })).body.sent_today).toBe(1);

  await owners.query(
    `INSERT INTO mailbox_health_checks (organization_id, mailbox_id, domain, spf, dkim, dmarc, mx, score, sendable, created_at)
     VALUES ($1, $2, 'acme.nl', '{}', '{}', '{}', '{}', 40, false, now() - interval '1 day'), ($1, $2, 'acme.nl', '{}', '{}', '{}', '{}', 92.5, true, now())`,
    [orgId, id],
  );
  const checked = await api.call('GET', `/mailboxes?organizationId=${orgId}`, { token: owner.token });
  expect(checked.body.find((m: { id: string }) => m.id === id).health).toEqual({ score: 92.5, sendable: true, checked_at: expect.any(String) });
});

test('without INTEGRATION_SECRET_KEY a mailbox cannot be added or given a new secret (503); other changes still work', async () => {
  const keyless = await startApi({ secrets: null });
  try {
    const made = await create({ address: 'keyless@acme.nl' });
    const call = (method: string, path: string, body: unknown) => keyless.call(method, path, { token: owner.token, body });
    expectProblem(await call('POST', '/mailboxes', { organizationId: orgId, address: 'other-keyless@acme.nl', smtp, secret: 'x' }), 503, 'SERVICE_UNAVAILABLE');
    expectProblem(await call('PATCH', `/mailboxes/${made.body.id}`, { secret: 'new' }), 503, 'SERVICE_UNAVAILABLE');
    expect((await call('PATCH', `/mailboxes/${made.body.id}`, { dailyCap: 12 })).body.daily_cap).toBe(12);
  } finally {
    await keyless.close();
  }
});

test('where the password goes (host, port, username, TLS) changes only with the secret again: 400 naming body.secret, nothing changed (review 2 C1)', async () => {
  const made = await create({ address: `moved-${Date.now()}@acme.nl`, imap: { host: 'imap.example.nl', port: 993, username: 'verkoop' } });
  expect(made.status).toBe(201);
  const id = made.body.id;
  const patch = (body: Record<string, unknown>) => api.call('PATCH', `/mailboxes/${id}`, { token: owner.token, body });
  for (const body of [
    { smtp: { ...smtp, host: 'smtp.evil.example' } },
    { smtp: { ...smtp, port: 465 } },
    { smtp: { ...smtp, username: 'someone-else' } },
    { smtp: { ...smtp, secure: true } },
    { imap: { host: 'imap.evil.example', port: 993, username: 'verkoop' } },
  ]) {
    const res = await patch(body);
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(['body.secret']);
  }
  const row = (await owners.query('SELECT smtp_config, imap_config FROM mailboxes WHERE id = $1', [id])).rows[0];
  expect(row.smtp_config).toMatchObject({ host: 'smtp.example.nl', port: 587, username: 'verkoop@acme.nl' });
  expect(row.imap_config).toMatchObject({ host: 'imap.example.nl' });
  // The same server settings again, or with the secret: fine.
  expect((await patch({ smtp })).status).toBe(200);
  expect((await patch({ smtp: { ...smtp, host: 'smtp2.example.nl' }, secret: 'the-password-again' })).body.smtp).toMatchObject({ host: 'smtp2.example.nl' });
  // Another tenant gets 404.
  const other = await newOrganization(api, 'Other Mailboxes B.V.');
  expect((await api.call('PATCH', `/mailboxes/${id}`, { token: other.owner.token, body: { smtp: { ...smtp, host: 'x.example' }, secret: 'x' } })).status).toBe(
    404,
  );
});
