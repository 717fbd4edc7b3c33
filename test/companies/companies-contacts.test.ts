import { newOrganization, addMember, expectProblem } from '../helpers/api';
import type { FieldError, Schema } from '../helpers/client';
import type { TestUser } from '../helpers/tokens';
import { useStack } from '../helpers/stack';

const { api } = useStack({ api: true });
let owner: TestUser;
let orgId: string;
beforeAll(async () => {
  ({ owner, orgId } = await newOrganization(api, 'Companies B.V.'));
});
afterAll(() => api.close());

const post = (path: string, body: unknown, token = owner.token) => api.call('POST', path, { token, body });

test('a company’s derived fields: normalized name, domain by the public suffix list, recipient kind from the legal form', async () => {
  const res = await post('/companies', {
    organizationId: orgId,
    name: 'Installatiebedrijf Van Dam Holding B.V.',
    website: 'https://www.vandam-installatie.co.uk/over-ons',
    kvkNumber: '23456789',
    legalForm: 'bv',
    countryCode: 'NL',
    locale: 'nl-NL',
    sbiCodes: ['4322'],
    phone: '020 123 4567',
  });
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({
    name: 'Installatiebedrijf Van Dam Holding B.V.',
    normalized_name: 'installatiebedrijf van dam',
    domain: 'vandam-installatie.co.uk',
    kvk_number: '23456789',
    recipient_kind: 'legal_person',
    legal_form: 'bv',
    enrichment_status: 'idle',
    phone: '+31201234567',
    sbi_codes: ['4322'],
  });
  const soleTrader = await post('/companies', { organizationId: orgId, name: 'Klusbedrijf Piet', legalForm: 'eenmanszaak' });
  expect(soleTrader.body.recipient_kind).toBe('natural_person');
  expectProblem(await post('/companies', { organizationId: orgId, name: 'Dup', kvkNumber: '23456789' }), 409, 'CONFLICT');
  const byName = await api.call('GET', `/companies?organizationId=${orgId}&q=van%20dam%20bv`, { token: owner.token });
  expect(byName.body.map((c: Schema<'Company'>) => c.id)).toEqual([res.body.id]);
});

test('legalForm is read as people write it and stored as its canonical key, with its recipient kind', async () => {
  const cases: Array<[string, string, string]> = [
    ['B.V.', 'bv', 'legal_person'],
    ['b.v.', 'bv', 'legal_person'],
    ['BV', 'bv', 'legal_person'],
    ['N.V.', 'nv', 'legal_person'],
    ['V.O.F.', 'vof', 'natural_person'],
    ['GmbH', 'gmbh', 'legal_person'],
    ['UG (haftungsbeschränkt)', 'ug', 'legal_person'],
    ['SARL', 'sarl', 'legal_person'],
    ['BVBA', 'bvba', 'legal_person'],
    ['Ltd.', 'ltd', 'legal_person'],
    ['sole trader', 'sole_trader', 'natural_person'],
    ['Einzelunternehmen', 'einzelunternehmen', 'natural_person'],
    ['entreprise individuelle', 'entreprise_individuelle', 'natural_person'],
  ];
  for (const [written, key, kind] of cases) {
    const res = await post('/companies', { organizationId: orgId, name: `Vorm ${written}`, legalForm: written });
    expect({ written, status: res.status, legal_form: res.body.legal_form, recipient_kind: res.body.recipient_kind }).toEqual({
      written,
      status: 201,
      legal_form: key,
      recipient_kind: kind,
    });
  }
  const bad = await post('/companies', { organizationId: orgId, name: 'Vorm X', legalForm: 'Kft.' });
  expectProblem(bad, 400, 'VALIDATION_FAILED');
  expect(bad.body.errors).toEqual([{ path: 'body.legalForm', message: expect.stringMatching(/not a known legal form/) }]);
});

test('company validation names every bad field', async () => {
  const res = await post('/companies', {
    organizationId: orgId,
    name: 'X',
    kvkNumber: '1234',
    locale: 'dutch',
    legalForm: 'B.V.B.V.',
    genericEmail: 'info@localhost',
    sbiCodes: ['A1'],
  });
  expectProblem(res, 400, 'VALIDATION_FAILED');
  expect(res.body.errors.map((e: FieldError) => e.path).sort()).toEqual([
    'body.genericEmail',
    'body.kvkNumber',
    'body.legalForm',
    'body.locale',
    'body.sbiCodes.0',
  ]);
});

test('contacts: e-mail syntax and domain checked, phone in E.164, one contact per address', async () => {
  const company = (await post('/companies', { organizationId: orgId, name: 'Contacten B.V.', countryCode: 'BE' })).body as Schema<'Company'>;
  const res = await post('/contacts', {
    organizationId: orgId,
    companyId: company.id,
    fullName: 'Els Peeters',
    title: 'Aankoper',
    email: 'Els.Peeters@Contacten.be',
    phone: '02 555 12 12',
    linkedinUrl: 'https://www.linkedin.com/in/els-peeters',
    sourceDescription: 'Trade fair 2026, business card',
  });
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({ email: 'els.peeters@contacten.be', phone: '+3225551212', data_source: 'manual', company_id: company.id });
  expectProblem(
    await post('/contacts', { organizationId: orgId, companyId: company.id, fullName: 'Els P.', email: 'els.peeters@contacten.be' }),
    409,
    'CONFLICT',
  );
  // An underscore is a character, not a wildcard.
  const similar = await post('/contacts', { organizationId: orgId, companyId: company.id, fullName: 'Els Q.', email: 'els_peeters@contacten.be' });
  expect(similar.status).toBe(201);
  const bad = await post('/contacts', {
    organizationId: orgId,
    companyId: company.id,
    fullName: 'X',
    email: 'x@example.invalidtld',
    phone: '12',
    linkedinUrl: 'https://example.com/x',
  });
  expectProblem(bad, 400, 'VALIDATION_FAILED');
  expect(bad.body.errors.map((e: FieldError) => e.path).sort()).toEqual(['body.email', 'body.linkedinUrl']);
  const badPhone = await post('/contacts', { organizationId: orgId, companyId: company.id, fullName: 'X', phone: '12' });
  expect(badPhone.body.errors).toEqual([{ path: 'body.phone', message: 'is not a valid phone number' }]);
  const list = await api.call('GET', `/contacts?organizationId=${orgId}&companyId=${company.id}`, { token: owner.token });
  expect(list.body.map((c: Schema<'Contact'>) => c.full_name).sort()).toEqual(['Els Peeters', 'Els Q.']);
  const one = await api.call('GET', `/contacts/${res.body.id}`, { token: owner.token });
  expect(one.body).toMatchObject({ id: res.body.id, lawful_basis: null });
});

test('another tenant gets 404 on every company, contact and compliance endpoint; a viewer cannot write', async () => {
  const company = (await post('/companies', { organizationId: orgId, name: 'Geheim B.V.', kvkNumber: '34567890' })).body as Schema<'Company'>;
  const contact = (await post('/contacts', { organizationId: orgId, companyId: company.id, fullName: 'Gerda Geheim', email: 'gerda@geheim.nl' }))
    .body as Schema<'Contact'>;
  const suppression = (await post('/compliance/suppressions', { organizationId: orgId, scope: 'email', value: 'x@geheim.nl' })).body as Schema<'Suppression'>;
  const other = await newOrganization(api, 'Other B.V.');
  const calls: Array<[string, string, unknown?]> = [
    ['GET', `/companies/${company.id}`],
    ['GET', `/companies?organizationId=${orgId}`],
    ['POST', '/companies', { organizationId: orgId, name: 'x' }],
    ['POST', `/companies/${company.id}/enrich`, {}],
    ['GET', `/contacts/${contact.id}`],
    ['GET', `/contacts?organizationId=${orgId}`],
    ['GET', `/contacts/${contact.id}/channels`],
    ['POST', '/contacts', { organizationId: orgId, companyId: company.id, fullName: 'x' }],
    ['POST', '/contacts', { organizationId: other.orgId, companyId: company.id, fullName: 'x' }],
    [
      'PUT',
      `/contacts/${contact.id}/lawful-basis`,
      { organizationId: orgId, basis: 'consent', recipient_kind: 'legal_person', country: 'NL', consent_evidence: 'x' },
    ],
    [
      'PUT',
      `/contacts/${contact.id}/lawful-basis`,
      { organizationId: other.orgId, basis: 'consent', recipient_kind: 'legal_person', country: 'NL', consent_evidence: 'x' },
    ],
    ['DELETE', `/contacts/${contact.id}`],
    ['POST', '/compliance/suppressions', { organizationId: orgId, scope: 'email', value: 'y@geheim.nl' }],
    ['GET', `/compliance/suppressions?organizationId=${orgId}`],
    ['DELETE', `/compliance/suppressions/${suppression.id}`],
    ['GET', `/compliance/settings?organizationId=${orgId}`],
    ['PATCH', '/compliance/settings', { organizationId: orgId, retentionMonths: 6 }],
    ['GET', `/compliance/audit?organizationId=${orgId}`],
  ];
  for (const [method, path, body] of calls) {
    const res = await api.call(method, path, { token: other.owner.token, body });
    expect({ method, path, status: res.status, code: res.body?.code }).toEqual({ method, path, status: 404, code: 'NOT_FOUND' });
  }
  expect((await api.call('GET', `/contacts/${contact.id}`, { token: owner.token })).body.full_name).toBe('Gerda Geheim');

  const viewer = await addMember(api, owner, orgId, 'viewer');
  for (const [method, path, body] of calls.filter(
    ([m, , b]) => m !== 'GET' && !(b as { organizationId?: string } | undefined)?.organizationId?.startsWith(other.orgId),
  )) {
    const res = await api.call(method, path, { token: viewer.token, body });
    expect({ method, path, status: res.status }).toEqual({ method, path, status: 403 });
  }
});
