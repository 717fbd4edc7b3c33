import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { emailHash } from '../../domain/companies/identity';
import { personHash } from '../../domain/compliance/erasure';
import { newOrganization, addMember, expectProblem } from '../helpers/api';
import type { FieldError, Schema } from '../helpers/client';
import { testEnv, type TestUser } from '../helpers/tokens';
import { useStack } from '../helpers/stack';

const { api, owners } = useStack({ api: true, owners: true });
let owner: TestUser;
let orgId: string;
let companyId: string;

beforeAll(async () => {
  ({ owner, orgId } = await newOrganization(api, 'Compliance B.V.'));
  const c = await api.call('POST', '/companies', {
    token: owner.token,
    body: {
      organizationId: orgId,
      name: 'Klant Installaties B.V.',
      kvkNumber: '87654321',
      website: 'https://www.klant-installaties.nl',
      legalForm: 'bv',
      countryCode: 'NL',
    },
  });
  companyId = (c.body as Schema<'Company'>).id;
});

const post = (path: string, body: unknown, token = owner.token) => api.call('POST', path, { token, body });
async function contact(email: string, fullName = 'Anna de Wit') {
  const res = await post('/contacts', { organizationId: orgId, companyId, fullName, email, phone: '030 765 4321', title: 'Facilitair manager' });
  expect(res.status).toBe(201);
  return res.body as Schema<'Contact'>;
}
const lawfulBasis = (contactId: string, body: Record<string, unknown>) =>
  api.call('PUT', `/contacts/${contactId}/lawful-basis`, { token: owner.token, body: { organizationId: orgId, ...body } });
const channels = async (contactId: string) =>
  (await api.call('GET', `/contacts/${contactId}/channels`, { token: owner.token })).body as Schema<'ComplianceGate'>;

describe('suppressions', () => {
  test('posted twice exists once (201 then 200), with the value normalized', async () => {
    const first = await post('/compliance/suppressions', { organizationId: orgId, scope: 'email', value: ' Stop.Mailing@Example.NL ', reason: 'unsubscribe' });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ scope: 'email', value: 'stop.mailing@example.nl', reason: 'unsubscribe', created_by: owner.id });
    const second = await post('/compliance/suppressions', { organizationId: orgId, scope: 'email', value: 'stop.mailing@example.nl' });
    expect(second.status).toBe(200);
    expect(second.body.id).toBe(first.body.id);
    const domain = await post('/compliance/suppressions', {
      organizationId: orgId,
      scope: 'domain',
      value: 'https://www.Geblokkeerd.nl/contact',
      reason: 'objection',
    });
    expect(domain.body.value).toBe('geblokkeerd.nl');
    const kvk = await post('/compliance/suppressions', { organizationId: orgId, scope: 'kvk_number', value: '1122 3344' });
    expect(kvk.body).toMatchObject({ value: '11223344', reason: 'manual' });
    expectProblem(await post('/compliance/suppressions', { organizationId: orgId, scope: 'kvk_number', value: '123' }), 400, 'VALIDATION_FAILED');
    expectProblem(await post('/compliance/suppressions', { organizationId: orgId, scope: 'phone', value: '+31' }), 400, 'VALIDATION_FAILED');
    const list = await api.call('GET', `/compliance/suppressions?organizationId=${orgId}`, { token: owner.token });
    expect(list.body.filter((s: Schema<'Suppression'>) => s.value === 'stop.mailing@example.nl')).toHaveLength(1);
  });

  test('a suppression blocks its e-mail, its domain or its KvK number', async () => {
    const byEmail = await contact('stop.mailing@example.nl', 'Stop Mailing');
    await lawfulBasis(byEmail.id, { basis: 'legitimate_interest', recipient_kind: 'legal_person', country: 'NL', assessment: 'B2B relevance' });
    expect(await channels(byEmail.id)).toMatchObject({ contactable: false, suppression: { scope: 'email', reason: 'unsubscribe' } });

    const byDomain = await contact('piet@mail.geblokkeerd.nl', 'Piet Blok');
    await lawfulBasis(byDomain.id, { basis: 'legitimate_interest', recipient_kind: 'legal_person', country: 'NL', assessment: 'B2B relevance' });
    const gate = await channels(byDomain.id);
    expect(gate).toMatchObject({ contactable: false, suppression: { scope: 'domain' } });
    expect(gate.channels.every((c) => !c.allowed)).toBe(true);

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
    expect(audit.body[0]).toMatchObject({
      actor_id: admin.id,
      entity: 'suppression',
      entity_id: s.body.id,
      action: 'delete',
      field: 'email',
      before: { reason: 'manual', value_sha256: emailHash('remove.me@example.nl') },
      after: null,
    });
    // The append-only log holds the hash, never the address (in any row, in any column).
    const rows = await owners.query(`SELECT * FROM compliance_audit_log WHERE organization_id = $1`, [orgId]);
    expect(rows.rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows.rows)).not.toMatch(/remove\.me/i);
  });

  test('an erasure marker cannot be removed', async () => {
    const c = await contact('marker.weg@klant-installaties.nl', 'Marker Weg');
    expect((await api.call('DELETE', `/contacts/${c.id}`, { token: owner.token })).status).toBe(200);
    const markers = (await api.call('GET', `/compliance/suppressions?organizationId=${orgId}&scope=person_hash`, { token: owner.token })).body;
    const marker = markers.find((m: Schema<'Suppression'>) => m.value === personHash(companyId, 'Marker Weg'));
    expect(marker).toMatchObject({ scope: 'person_hash', reason: 'erasure' });
    expectProblem(await api.call('DELETE', `/compliance/suppressions/${marker.id}`, { token: owner.token }), 400, 'VALIDATION_FAILED');
  });
});

describe('the gate closes every channel to everyone at a suppressed company', () => {
  const li = { basis: 'legitimate_interest', recipient_kind: 'legal_person', country: 'NL', assessment: 'B2B relevance' };
  /** A company and a contact of it without an e-mail address (phone only), with a lawful basis: open until something is suppressed. */
  async function companyWithContact(body: Record<string, unknown>, person: Record<string, unknown> = {}) {
    const co = await post('/companies', { organizationId: orgId, legalForm: 'bv', countryCode: 'NL', ...body });
    expect(co.status).toBe(201);
    const ct = await post('/contacts', { organizationId: orgId, companyId: co.body.id, fullName: 'Bas Bellen', phone: '030 111 2233', ...person });
    expect(ct.status).toBe(201);
    expect((await lawfulBasis(ct.body.id, li)).status).toBe(200);
    expect(await channels(ct.body.id)).toMatchObject({ contactable: true, reasons: [], blocks: [] });
    return { company: co.body as Schema<'Company'>, contact: ct.body as Schema<'Contact'> };
  }
  const closedFor = async (contactId: string, ruleId: string, matchedOn: string) => {
    const gate = await channels(contactId);
    expect(gate).toMatchObject({ contactable: false, reasons: ['suppressed'] });
    expect(gate.blocks).toEqual([
      expect.objectContaining({ rule_id: ruleId, code: 'suppressed', applies_to: 'company', suppression: expect.objectContaining({ matched_on: matchedOn }) }),
    ]);
    expect(gate.channels.map((c) => c.channel).sort()).toEqual(['email_generic', 'email_personal', 'linkedin', 'phone']);
    for (const c of gate.channels) expect(c).toMatchObject({ allowed: false, blocked_by: [ruleId], requirements: [] });
    return gate;
  };

  test('a domain suppression closes phone and linkedin to a contact without an address, and to one with a free-mail address', async () => {
    const { company, contact } = await companyWithContact({ name: 'Dakwerken Domein B.V.', website: 'https://www.dakwerken-domein.nl' });
    const gmail = await post('/contacts', { organizationId: orgId, companyId: company.id, fullName: 'Gijs Gmail', email: 'gijs.dakwerk@gmail.com' });
    await lawfulBasis(gmail.body.id, li);
    const s = await post('/compliance/suppressions', { organizationId: orgId, scope: 'domain', value: 'dakwerken-domein.nl', reason: 'objection' });
    const gate = await closedFor(contact.id, 'GATE-SUPPRESSED-COMPANY-DOMAIN', 'company_domain');
    expect(gate.suppression).toEqual({ id: s.body.id, scope: 'domain', reason: 'objection' });
    await closedFor(gmail.body.id, 'GATE-SUPPRESSED-COMPANY-DOMAIN', 'company_domain');
  });

  test('a KvK number suppression closes every channel to a contact without an address', async () => {
    const { contact } = await companyWithContact({ name: 'Kvk Dicht B.V.', kvkNumber: '55667788' });
    await post('/compliance/suppressions', { organizationId: orgId, scope: 'kvk_number', value: '55667788', reason: 'objection' });
    await closedFor(contact.id, 'GATE-SUPPRESSED-COMPANY-KVK', 'company_kvk_number');
  });

  test("a suppression of the company's generic address (or of its domain) closes every channel to everyone there", async () => {
    const { contact } = await companyWithContact({ name: 'Generiek Dicht B.V.', genericEmail: 'info@generiek-dicht.nl' }, { email: 'bas@bellen-prive.nl' });
    await post('/compliance/suppressions', { organizationId: orgId, scope: 'email', value: 'info@generiek-dicht.nl', reason: 'unsubscribe' });
    await closedFor(contact.id, 'GATE-SUPPRESSED-COMPANY-ADDRESS', 'company_generic_email');

    // A company whose website is on a hosting subdomain: its domain is its generic address's.
    const hosted = await companyWithContact({
      name: 'Gehost Dicht B.V.',
      website: 'https://gehost-dicht.wixsite.com/home',
      genericEmail: 'hallo@gehost-dicht.nl',
    });
    expect(hosted.company.domain).toBe('gehost-dicht.nl');
    await post('/compliance/suppressions', { organizationId: orgId, scope: 'domain', value: 'gehost-dicht.nl', reason: 'objection' });
    await closedFor(hosted.contact.id, 'GATE-SUPPRESSED-COMPANY-DOMAIN', 'company_domain');
    // Its hosting subdomain is suppressed as itself, never as the whole host.
    const site = await companyWithContact({ name: 'Alleen Site B.V.', website: 'https://alleen-site.wixsite.com/home' });
    expect(site.company.domain).toBeNull();
    const s = await post('/compliance/suppressions', {
      organizationId: orgId,
      scope: 'domain',
      value: 'https://alleen-site.wixsite.com/contact',
      reason: 'objection',
    });
    expect(s.body.value).toBe('alleen-site.wixsite.com');
    expectProblem(await post('/compliance/suppressions', { organizationId: orgId, scope: 'domain', value: 'wixsite.com' }), 400, 'VALIDATION_FAILED');
    await closedFor(site.contact.id, 'GATE-SUPPRESSED-COMPANY-DOMAIN', 'company_domain');
  });

  test("a suppression of the contact's own address closes that contact only", async () => {
    const { company, contact } = await companyWithContact({ name: 'Eigen Adres B.V.', domain: 'eigen-adres.nl' }, { email: 'bas@eigen-adres.nl' });
    const colleague = await post('/contacts', { organizationId: orgId, companyId: company.id, fullName: 'Cor Collega', phone: '030 111 4455' });
    await lawfulBasis(colleague.body.id, li);
    await post('/compliance/suppressions', { organizationId: orgId, scope: 'email', value: 'bas@eigen-adres.nl', reason: 'unsubscribe' });
    const gate = await channels(contact.id);
    expect(gate).toMatchObject({
      contactable: false,
      reasons: ['suppressed'],
      blocks: [expect.objectContaining({ rule_id: 'GATE-SUPPRESSED-EMAIL', applies_to: 'contact' })],
    });
    expect(await channels(colleague.body.id)).toMatchObject({ contactable: true, blocks: [] });
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
    expect((await lawfulBasis(c.id, { basis: 'legitimate_interest', recipient_kind: 'legal_person', country: 'NL' })).body.errors[0].path).toBe(
      'body.assessment',
    );
    expect((await lawfulBasis(c.id, { basis: 'contract', recipient_kind: 'legal_person', country: 'NL', assessment: 'x' })).status).toBe(400);
    expect(
      (await lawfulBasis(c.id, { basis: 'legitimate_interest', recipient_kind: 'legal_person', country: 'XX', assessment: 'x' })).body.errors[0].path,
    ).toBe('body.country');
    expect((await lawfulBasis(c.id, { basis: 'legitimate_interest', recipientKind: 'legal_person', country: 'NL', assessment: 'x' })).status).toBe(400);

    const li = await lawfulBasis(c.id, {
      basis: 'legitimate_interest',
      recipient_kind: 'legal_person',
      country: 'NL',
      source_description: 'company website, team page',
      assessment: 'Facility managers buy installation work; low impact, opt-out in every message',
    });
    expect(li.status).toBe(200);
    expect(li.body).toMatchObject({
      contact_id: c.id,
      basis: 'legitimate_interest',
      recipient_kind: 'legal_person',
      country: 'NL',
      recorded_by: owner.id,
      source_description: 'company website, team page',
    });

    const gate = await channels(c.id);
    expect(gate).toMatchObject({ contactable: true, lawful_basis: { basis: 'legitimate_interest' }, requirements: expect.arrayContaining(['art14_notice']) });
    const byChannel = Object.fromEntries(gate.channels.map((ch) => [ch.channel, ch]));
    expect(byChannel.email_personal).toMatchObject({ allowed: false, rule_id: 'NL-LP-EMAIL-PERSONAL' });
    expect(byChannel.phone).toMatchObject({ allowed: true, rule_id: 'NL-LP-PHONE' });
    expect(byChannel.linkedin).toMatchObject({ allowed: true, rule_id: 'NL-LP-LINKEDIN' });
    expect(byChannel.email_generic).toMatchObject({ allowed: false, rule: 'consent' }); // no published generic address

    const consent = await lawfulBasis(c.id, {
      basis: 'consent',
      recipient_kind: 'legal_person',
      country: 'NL',
      consent_evidence: 'Signed up at trade fair, form 2026-11-03',
    });
    expect(consent.status).toBe(200);
    const records = await owners.query('SELECT basis, is_current FROM lawful_basis_records WHERE contact_id = $1 ORDER BY created_at', [c.id]);
    expect(records.rows).toEqual([
      { basis: 'legitimate_interest', is_current: false },
      { basis: 'consent', is_current: true },
    ]);
    expect((await channels(c.id)).channels.find((ch) => ch.channel === 'email_personal')).toMatchObject({ allowed: true });
  });
});

describe('compliance settings', () => {
  test('a member cannot change them; an admin’s change shows in the audit with before and after', async () => {
    const member = await addMember(api, owner, orgId, 'member');
    expectProblem(
      await api.call('PATCH', '/compliance/settings', { token: member.token, body: { organizationId: orgId, retentionMonths: 12 } }),
      403,
      'FORBIDDEN',
    );
    const before = await api.call('GET', `/compliance/settings?organizationId=${orgId}`, { token: member.token });
    expect(before.body).toMatchObject({
      retention_months: 24,
      default_formality: 'formal',
      ai_disclosure: 'footer',
      default_country: 'NL',
      default_locale: 'nl-NL',
    });

    const admin = await addMember(api, owner, orgId, 'admin');
    const res = await api.call('PATCH', '/compliance/settings', {
      token: admin.token,
      body: {
        organizationId: orgId,
        retentionMonths: 12,
        senderLegalName: 'Compliance B.V.',
        privacyUrl: 'https://compliance.example.nl/privacy',
        unsubscribeMailto: 'mailto:afmelden@compliance.example.nl',
        defaultLocale: 'nl-BE',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ retention_months: 12, sender_legal_name: 'Compliance B.V.', default_locale: 'nl-BE' });
    const audit = await api.call('GET', `/compliance/audit?organizationId=${orgId}&entity=compliance_settings`, { token: member.token });
    const byField = Object.fromEntries(audit.body.map((a: Schema<'AuditEntry'>) => [a.field, a]));
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
    expect(res.body.errors.map((e: FieldError) => e.path).sort()).toEqual([
      'body.defaultLocale',
      'body.privacyUrl',
      'body.retentionMonths',
      'body.unsubscribeMailto',
    ]);
    const settings = await api.call('GET', `/compliance/settings?organizationId=${orgId}`, { token: owner.token });
    expect(settings.body.retention_months).toBe(12); // unchanged
  });
});

describe("the organization's own feedback loops", () => {
  test('an admin sets them (lower-cased, deduplicated, audited); a whole free-mail domain, a bad value or more than 20 are refused and change nothing', async () => {
    const res = await api.call('PATCH', '/compliance/settings', {
      token: owner.token,
      body: { organizationId: orgId, feedbackLoopSenders: ['@FBL.isp-regional.example', 'complaints@isp-other.example', '@fbl.isp-regional.example'] },
    });
    expect(res.status).toBe(200);
    expect(res.body.feedback_loop_senders).toEqual(['@fbl.isp-regional.example', 'complaints@isp-other.example']);
    const audit = await api.call('GET', `/compliance/audit?organizationId=${orgId}&entity=compliance_settings`, { token: owner.token });
    expect(audit.body.find((a: Schema<'AuditEntry'>) => a.field === 'feedback_loop_senders')).toMatchObject({
      before: [],
      after: ['@fbl.isp-regional.example', 'complaints@isp-other.example'],
    });

    for (const [senders, path] of [
      [['@gmail.com'], 'body.feedbackLoopSenders.0'],
      [['fbl.isp.example'], 'body.feedbackLoopSenders.0'],
      [['@'], 'body.feedbackLoopSenders.0'],
      [['@co.uk'], 'body.feedbackLoopSenders.0'],
      [Array.from({ length: 21 }, (_, i) => `@fbl${i}.isp.example`), 'body.feedbackLoopSenders'],
    ] as const) {
      const bad = await api.call('PATCH', '/compliance/settings', { token: owner.token, body: { organizationId: orgId, feedbackLoopSenders: senders } });
      expectProblem(bad, 400, 'VALIDATION_FAILED');
      expect(bad.body.errors.map((e: FieldError) => e.path)).toEqual([path]);
    }
    const settings = await api.call('GET', `/compliance/settings?organizationId=${orgId}`, { token: owner.token });
    expect(settings.body.feedback_loop_senders).toEqual(['@fbl.isp-regional.example', 'complaints@isp-other.example']);
  });
});

describe('erasure and retention', () => {
  test('erasure on request leaves no personal data but keeps the contact from being contacted again', async () => {
    const c = await contact('wim.weg@klant-installaties.nl', 'Wim Weg');
    await lawfulBasis(c.id, {
      basis: 'legitimate_interest',
      recipient_kind: 'legal_person',
      country: 'NL',
      assessment: 'B2B',
      source_description: 'LinkedIn profile of Wim Weg',
    });
    await owners.query(
      `INSERT INTO messages (organization_id, contact_id, status, subject, body, to_address, why) VALUES ($1, $2, 'sent', 'Offerte Wim', 'Beste Wim, ...', 'wim.weg@klant-installaties.nl', '{"signal":{"title":"x"}}')`,
      [orgId, c.id],
    );
    const res = await api.call('DELETE', `/contacts/${c.id}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      full_name: 'erased',
      email: null,
      phone: null,
      title: null,
      linkedin_url: null,
      source_description: null,
      erased_at: expect.any(String),
    });

    const everything = JSON.stringify(
      (
        await owners.query(
          `SELECT c.*, m.subject, m.body, m.to_address, m.why, l.source_description AS l_source FROM contacts c LEFT JOIN messages m ON m.contact_id = c.id LEFT JOIN lawful_basis_records l ON l.contact_id = c.id WHERE c.id = $1`,
          [c.id],
        )
      ).rows,
    );
    expect(everything).not.toMatch(/wim|weg@|765 ?4321/i);

    const hash = await owners.query(`SELECT scope, reason FROM suppressions WHERE organization_id = $1 AND value = $2`, [
      orgId,
      emailHash('wim.weg@klant-installaties.nl'),
    ]);
    expect(hash.rows).toEqual([{ scope: 'email_hash', reason: 'erasure' }]);

    // The same person added again is never contactable.
    const again = await contact('Wim.Weg@klant-installaties.nl', 'W. Weg');
    await lawfulBasis(again.id, { basis: 'consent', recipient_kind: 'legal_person', country: 'NL', consent_evidence: 'x' });
    expect(await channels(again.id)).toMatchObject({ contactable: false, suppression: { scope: 'email_hash', reason: 'erasure' } });
    expect(await channels(c.id)).toMatchObject({ contactable: false, reasons: ['erased'], blocks: [expect.objectContaining({ rule_id: 'GATE-ERASED' })] });
    // Erasing is idempotent; an erased contact refuses a lawful basis.
    expect((await api.call('DELETE', `/contacts/${c.id}`, { token: owner.token })).status).toBe(200);
    expectProblem(await lawfulBasis(c.id, { basis: 'consent', recipient_kind: 'legal_person', country: 'NL', consent_evidence: 'x' }), 409, 'CONFLICT');
  });

  test('a person erased without an e-mail address is remembered by a hash of their name within the company, never the name', async () => {
    const res = await post('/contacts', { organizationId: orgId, companyId, fullName: 'Zonder Adres', phone: '030 765 9999', title: 'Monteur' });
    expect((await api.call('DELETE', `/contacts/${res.body.id}`, { token: owner.token })).status).toBe(200);
    const markers = await owners.query(`SELECT scope, value, reason FROM suppressions WHERE organization_id = $1 AND scope = 'person_hash'`, [orgId]);
    expect(markers.rows).toContainEqual({ scope: 'person_hash', value: personHash(companyId, 'Zonder Adres'), reason: 'erasure' });
    expect(JSON.stringify((await owners.query(`SELECT * FROM suppressions WHERE organization_id = $1`, [orgId])).rows)).not.toMatch(/zonder/i);
    // The same name at the same company (written differently) is the same person: never contactable.
    const again = await post('/contacts', { organizationId: orgId, companyId, fullName: '  zonder ADRES ', phone: '030 765 9999' });
    await lawfulBasis(again.body.id, { basis: 'legitimate_interest', recipient_kind: 'legal_person', country: 'NL', assessment: 'B2B' });
    const gate = await channels(again.body.id);
    expect(gate).toMatchObject({ contactable: false, reasons: ['suppressed'], suppression: { scope: 'person_hash', reason: 'erasure' } });
    expect(gate.blocks[0]).toMatchObject({ rule_id: 'GATE-ERASURE-MARKER', suppression: { matched_on: 'contact_erasure_marker' } });
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
  expect(res.body.rules.map((r: Schema<'ChannelPolicyRule'>) => r.id)).toEqual([
    'NL-NP-EMAIL-GENERIC',
    'NL-NP-EMAIL-PERSONAL',
    'NL-NP-PHONE',
    'NL-NP-LINKEDIN',
  ]);
  expect(res.body.rules[0]).toMatchObject({ country: 'NL', recipient_kind: 'natural_person', channel: 'email_generic' });
  expect(res.body.rules[0]).not.toHaveProperty('recipientKind');
});

test('a lawful basis recorded while an erasure of the contact commits is refused, not left on the erased contact', async () => {
  const anna = await contact(`anna.${randomUUID().slice(0, 8)}@klant-installaties.nl`);
  // An erasure held open on the contact's row (as eraseContact takes it), committed once the PUT waits for it.
  const eraser = await owners.connect();
  try {
    await eraser.query('BEGIN');
    await eraser.query(`UPDATE contacts SET full_name = 'erased', email = NULL, phone = NULL, title = NULL, erased_at = now() WHERE id = $1`, [anna.id]);
    const put = lawfulBasis(anna.id, {
      basis: 'legitimate_interest',
      recipient_kind: 'legal_person',
      country: 'NL',
      assessment: 'B2B relevance',
      source_description: 'Company website',
    });
    const deadline = Date.now() + 30_000;
    const waiting = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 1 });
    try {
      for (;;) {
        const n = await waiting.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
        if (n.rows[0].n > 0) break;
        if (Date.now() > deadline) throw new Error('the lawful-basis PUT never waited for the erasure');
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await waiting.end();
    }
    await eraser.query('COMMIT');
    expectProblem(await put, 409, 'CONFLICT');
  } finally {
    eraser.release();
  }
  const records = await owners.query('SELECT count(*)::int AS n FROM lawful_basis_records WHERE contact_id = $1', [anna.id]);
  expect(records.rows[0].n).toBe(0);
});
