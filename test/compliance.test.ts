import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { emailHash } from '../domain/companies/identity';
import { startApi, newOrganization, addMember, expectProblem, TestApi } from './helpers/api';
import { testEnv, type TestUser } from './helpers/tokens';

let api: TestApi;
let owners: Pool;
let owner: TestUser;
let orgId: string;
let companyId: string;

beforeAll(async () => {
  api = await startApi();
  owners = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 1 });
  ({ owner, orgId } = await newOrganization(api, 'Compliance B.V.'));
  const c = await api.call('POST', '/companies', {
    token: owner.token,
    body: { organizationId: orgId, name: 'Klant Installaties B.V.', kvkNumber: '87654321', website: 'https://www.klant-installaties.nl', legalForm: 'bv', countryCode: 'NL' },
  });
  companyId = c.body.id;
});
afterAll(async () => {
  await owners.end();
  await api.close();
});

const post = (path: string, body: unknown, token = owner.token) => api.call('POST', path, { token, body });
async function contact(email: string, fullName = 'Anna de Wit') {
  const res = await post('/contacts', { organizationId: orgId, companyId, fullName, email, phone: '030 765 4321', title: 'Facilitair manager' });
  expect(res.status).toBe(201);
  return res.body;
}
const lawfulBasis = (contactId: string, body: Record<string, unknown>) => api.call('PUT', `/contacts/${contactId}/lawful-basis`, { token: owner.token, body: { organizationId: orgId, ...body } });
const channels = async (contactId: string) => (await api.call('GET', `/contacts/${contactId}/channels`, { token: owner.token })).body;

describe('suppressions', () => {
  test('posted twice exists once (201 then 200), with the value normalized', async () => {
    const first = await post('/compliance/suppressions', { organizationId: orgId, scope: 'email', value: ' Stop.Mailing@Example.NL ', reason: 'unsubscribe' });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ scope: 'email', value: 'stop.mailing@example.nl', reason: 'unsubscribe', created_by: owner.id });
    const second = await post('/compliance/suppressions', { organizationId: orgId, scope: 'email', value: 'stop.mailing@example.nl' });
    expect(second.status).toBe(200);
    expect(second.body.id).toBe(first.body.id);
    const domain = await post('/compliance/suppressions', { organizationId: orgId, scope: 'domain', value: 'https://www.Geblokkeerd.nl/contact', reason: 'objection' });
    expect(domain.body.value).toBe('geblokkeerd.nl');
    const kvk = await post('/compliance/suppressions', { organizationId: orgId, scope: 'kvk_number', value: '1122 3344' });
    expect(kvk.body).toMatchObject({ value: '11223344', reason: 'manual' });
    expectProblem(await post('/compliance/suppressions', { organizationId: orgId, scope: 'kvk_number', value: '123' }), 400, 'VALIDATION_FAILED');
    expectProblem(await post('/compliance/suppressions', { organizationId: orgId, scope: 'phone', value: '+31' }), 400, 'VALIDATION_FAILED');
    const list = await api.call('GET', `/compliance/suppressions?organizationId=${orgId}`, { token: owner.token });
    expect(list.body.filter((s: { value: string }) => s.value === 'stop.mailing@example.nl')).toHaveLength(1);
  });

  test('a suppression blocks its e-mail, its domain or its KvK number', async () => {
    const byEmail = await contact('stop.mailing@example.nl', 'Stop Mailing');
    await lawfulBasis(byEmail.id, { basis: 'legitimate_interest', recipient_kind: 'legal_person', country: 'NL', assessment: 'B2B relevance' });
    expect(await channels(byEmail.id)).toMatchObject({ contactable: false, suppression: { scope: 'email', reason: 'unsubscribe' } });

    const byDomain = await contact('piet@mail.geblokkeerd.nl', 'Piet Blok');
    await lawfulBasis(byDomain.id, { basis: 'legitimate_interest', recipient_kind: 'legal_person', country: 'NL', assessment: 'B2B relevance' });
    const gate = await channels(byDomain.id);
    expect(gate).toMatchObject({ contactable: false, suppression: { scope: 'domain' } });
    expect(gate.channels.every((c: { allowed: boolean }) => !c.allowed)).toBe(true);

    const kvkCompany = await post('/companies', { organizationId: orgId, name: 'Geweigerd B.V.', kvkNumber: '11223344' });
    const byKvk = await post('/contacts', { organizationId: orgId, companyId: kvkCompany.body.id, fullName: 'Karel Kvk', email: 'karel@geweigerd-bv.nl' });
    await lawfulBasis(byKvk.body.id, { basis: 'legitimate_interest', recipient_kind: 'legal_person', country: 'NL', assessment: 'B2B relevance' });
    expect(await channels(byKvk.body.id)).toMatchObject({ contactable: false, suppression: { scope: 'kvk_number' } });
  });

  test('removal only by owner or admin, and audited', async () => {
    const s = await post('/compliance/suppressions', { organizationId: orgId, scope: 'email', value: 'remove.me@example.nl' });
    const member = await addMember(api, owner, orgId, 'member');
    expectProblem(await api.call('DELETE', `/compliance/suppressions/${s.body.id}`, { token: member.token }), 403, 'FORBIDDEN');
    const admin = await addMember(api, owner, orgId, 'admin');
    const removed = await api.call('DELETE', `/compliance/suppressions/${s.body.id}`, { token: admin.token });
    expect(removed.status).toBe(200);
    const audit = await api.call('GET', `/compliance/audit?organizationId=${orgId}&entity=suppression`, { token: owner.token });
    expect(audit.body[0]).toMatchObject({ actor_id: admin.id, entity: 'suppression', entity_id: s.body.id, action: 'delete', field: 'email', before: 'remove.me@example.nl', after: null });
  });
});

describe('lawful basis and the compliance gate', () => {
  test('outreach refuses a contact without a lawful basis', async () => {
    const c = await contact('anna.dewit@klant-installaties.nl');
    expect(await channels(c.id)).toMatchObject({ contactable: false, reasons: ['no_lawful_basis'], lawful_basis: null });
  });

  test('PUT validates exactly the spec’s request and keeps one current record', async () => {
    const c = await contact('bram@klant-installaties.nl', 'Bram Klein');
    const missing = await lawfulBasis(c.id, { basis: 'consent', recipient_kind: 'legal_person', country: 'NL' });
    expectProblem(missing, 400, 'VALIDATION_FAILED');
    expect(missing.body.errors).toEqual([{ path: 'body.consent_evidence', message: 'consent needs consent_evidence' }]);
    expect((await lawfulBasis(c.id, { basis: 'legitimate_interest', recipient_kind: 'legal_person', country: 'NL' })).body.errors[0].path).toBe('body.assessment');
    expect((await lawfulBasis(c.id, { basis: 'contract', recipient_kind: 'legal_person', country: 'NL', assessment: 'x' })).status).toBe(400);
    expect((await lawfulBasis(c.id, { basis: 'legitimate_interest', recipient_kind: 'legal_person', country: 'XX', assessment: 'x' })).body.errors[0].path).toBe('body.country');
    expect((await lawfulBasis(c.id, { basis: 'legitimate_interest', recipientKind: 'legal_person', country: 'NL', assessment: 'x' })).status).toBe(400);

    const li = await lawfulBasis(c.id, {
      basis: 'legitimate_interest', recipient_kind: 'legal_person', country: 'NL',
      source_description: 'company website, team page', assessment: 'Facility managers buy installation work; low impact, opt-out in every message',
    });
    expect(li.status).toBe(200);
    expect(li.body).toMatchObject({ contact_id: c.id, basis: 'legitimate_interest', recipient_kind: 'legal_person', country: 'NL', recorded_by: owner.id, source_description: 'company website, team page' });

    const gate = await channels(c.id);
    expect(gate).toMatchObject({ contactable: true, lawful_basis: { basis: 'legitimate_interest' }, requirements: expect.arrayContaining(['art14_notice']) });
    const byChannel = Object.fromEntries(gate.channels.map((ch: { channel: string }) => [ch.channel, ch]));
    expect(byChannel.email_personal).toMatchObject({ allowed: false, rule_id: 'NL-LP-EMAIL-PERSONAL' });
    expect(byChannel.phone).toMatchObject({ allowed: true, rule_id: 'NL-LP-PHONE' });
    expect(byChannel.linkedin).toMatchObject({ allowed: true, rule_id: 'NL-LP-LINKEDIN' });
    expect(byChannel.email_generic).toMatchObject({ allowed: false, rule: 'consent' }); // no published generic address

    const consent = await lawfulBasis(c.id, { basis: 'consent', recipient_kind: 'legal_person', country: 'NL', consent_evidence: 'Signed up at trade fair, form 2026-11-03' });
    expect(consent.status).toBe(200);
    const records = await owners.query('SELECT basis, is_current FROM lawful_basis_records WHERE contact_id = $1 ORDER BY created_at', [c.id]);
    expect(records.rows).toEqual([{ basis: 'legitimate_interest', is_current: false }, { basis: 'consent', is_current: true }]);
    expect((await channels(c.id)).channels.find((ch: { channel: string }) => ch.channel === 'email_personal')).toMatchObject({ allowed: true });
  });
});

describe('compliance settings', () => {
  test('a member cannot change them; an admin’s change shows in the audit with before and after', async () => {
    const member = await addMember(api, owner, orgId, 'member');
    expectProblem(await api.call('PATCH', '/compliance/settings', { token: member.token, body: { organizationId: orgId, retentionMonths: 12 } }), 403, 'FORBIDDEN');
    const before = await api.call('GET', `/compliance/settings?organizationId=${orgId}`, { token: member.token });
    expect(before.body).toMatchObject({ retention_months: 24, default_formality: 'formal', ai_disclosure: 'footer', default_country: 'NL', default_locale: 'nl-NL' });

    const admin = await addMember(api, owner, orgId, 'admin');
    const res = await api.call('PATCH', '/compliance/settings', {
      token: admin.token,
      body: { organizationId: orgId, retentionMonths: 12, senderLegalName: 'Compliance B.V.', privacyUrl: 'https://compliance.example.nl/privacy', unsubscribeMailto: 'mailto:afmelden@compliance.example.nl', defaultLocale: 'nl-BE' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ retention_months: 12, sender_legal_name: 'Compliance B.V.', default_locale: 'nl-BE' });
    const audit = await api.call('GET', `/compliance/audit?organizationId=${orgId}&entity=compliance_settings`, { token: member.token });
    const byField = Object.fromEntries(audit.body.map((a: { field: string }) => [a.field, a]));
    expect(byField.retention_months).toMatchObject({ actor_id: admin.id, before: 24, after: 12, created_at: expect.any(String) });
    expect(byField.default_locale).toMatchObject({ before: 'nl-NL', after: 'nl-BE' });
    expect(byField.sender_legal_name).toMatchObject({ before: null, after: 'Compliance B.V.' });
  });

  test('validation: BCP 47 locale, https privacy URL, mailto URI, retention 1 to 120 months', async () => {
    const res = await api.call('PATCH', '/compliance/settings', {
      token: owner.token,
      body: { organizationId: orgId, defaultLocale: 'dutch', privacyUrl: 'http://x.nl/privacy', unsubscribeMailto: 'afmelden@x.nl', retentionMonths: 121 },
    });
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['body.defaultLocale', 'body.privacyUrl', 'body.retentionMonths', 'body.unsubscribeMailto']);
    const settings = await api.call('GET', `/compliance/settings?organizationId=${orgId}`, { token: owner.token });
    expect(settings.body.retention_months).toBe(12); // unchanged
  });
});

describe('erasure and retention', () => {
  test('erasure on request leaves no personal data but keeps the contact from being contacted again', async () => {
    const c = await contact('wim.weg@klant-installaties.nl', 'Wim Weg');
    await lawfulBasis(c.id, { basis: 'legitimate_interest', recipient_kind: 'legal_person', country: 'NL', assessment: 'B2B', source_description: 'LinkedIn profile of Wim Weg' });
    await owners.query(
      `INSERT INTO messages (organization_id, contact_id, status, subject, body, to_address, why) VALUES ($1, $2, 'sent', 'Offerte Wim', 'Beste Wim, ...', 'wim.weg@klant-installaties.nl', '{"signal":{"title":"x"}}')`,
      [orgId, c.id],
    );
    const res = await api.call('DELETE', `/contacts/${c.id}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ full_name: 'erased', email: null, phone: null, title: null, linkedin_url: null, source_description: null, erased_at: expect.any(String) });

    const everything = JSON.stringify(
      (await owners.query(
        `SELECT c.*, m.subject, m.body, m.to_address, m.why, l.source_description AS l_source FROM contacts c LEFT JOIN messages m ON m.contact_id = c.id LEFT JOIN lawful_basis_records l ON l.contact_id = c.id WHERE c.id = $1`,
        [c.id],
      )).rows,
    );
    expect(everything).not.toMatch(/wim|weg@|765 ?4321/i);

    const hash = await owners.query(`SELECT scope, reason FROM suppressions WHERE organization_id = $1 AND value = $2`, [orgId, emailHash('wim.weg@klant-installaties.nl')]);
    expect(hash.rows).toEqual([{ scope: 'email_hash', reason: 'erasure' }]);

    // The same person added again is never contactable.
    const again = await contact('Wim.Weg@klant-installaties.nl', 'W. Weg');
    await lawfulBasis(again.id, { basis: 'consent', recipient_kind: 'legal_person', country: 'NL', consent_evidence: 'x' });
    expect(await channels(again.id)).toMatchObject({ contactable: false, suppression: { scope: 'email_hash', reason: 'erasure' } });
    // Erasing is idempotent; an erased contact refuses a lawful basis.
    expect((await api.call('DELETE', `/contacts/${c.id}`, { token: owner.token })).status).toBe(200);
    expectProblem(await lawfulBasis(c.id, { basis: 'consent', recipient_kind: 'legal_person', country: 'NL', consent_evidence: 'x' }), 409, 'CONFLICT');
  });

  test('the daily retention schedule exists per organization and its sweep erases contacts not engaged within retention_months', async () => {
    const schedule = await api.temporal.schedule.getHandle(`retention/${orgId}`).describe();
    expect(schedule.action).toMatchObject({ type: 'startWorkflow', workflowType: 'retentionSweepWorkflow' });
    expect(schedule.spec.calendars?.length ?? 0).toBeGreaterThan(0);

    const stale = await contact('oud.contact@klant-installaties.nl', 'Oud Contact');
    const fresh = await contact('nieuw.contact@klant-installaties.nl', 'Nieuw Contact');
    await owners.query(`UPDATE contacts SET created_at = now() - interval '13 months' WHERE id = $1`, [stale.id]); // retention is 12 months now
    const result = await api.temporal.workflow.execute('retentionSweepWorkflow', {
      taskQueue: testEnv('TEMPORAL_TASK_QUEUE'),
      workflowId: `retention-test/${randomUUID()}`,
      args: [{ organizationId: orgId }],
    });
    expect(result).toEqual({ erased: 1 });
    expect((await api.call('GET', `/contacts/${stale.id}`, { token: owner.token })).body).toMatchObject({ full_name: 'erased', email: null });
    expect((await api.call('GET', `/contacts/${fresh.id}`, { token: owner.token })).body).toMatchObject({ full_name: 'Nieuw Contact' });
  });
});

test('the channel policy table is served with its version', async () => {
  const res = await api.call('GET', '/compliance/channel-policy?country=NL&recipientKind=natural_person', { token: owner.token });
  expect(res.body.version).toMatch(/^\d{4}-\d{2}-\d{2}\.\d+$/);
  expect(res.body.rules.map((r: { id: string }) => r.id)).toEqual(['NL-NP-EMAIL-GENERIC', 'NL-NP-EMAIL-PERSONAL', 'NL-NP-PHONE', 'NL-NP-LINKEDIN']);
});
