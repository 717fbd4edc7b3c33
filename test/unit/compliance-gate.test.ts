import { emailHash } from '../../domain/companies/identity';
import { personHash } from '../../domain/compliance/erasure';
import {
  decideGate,
  GATE_RULES,
  suppressionKeys,
  type GateCompany,
  type GateContact,
  type GateInput,
  type SuppressionRecord,
} from '../../domain/compliance/gate';

/** The gate's decision as a pure function: inputs in, an answer that explains itself out. */
const company: GateCompany = {
  id: '00000000-0000-4000-8000-00000000c0c0',
  domain: 'dakdekker.nl',
  website: 'https://www.dakdekker.nl',
  kvkNumber: '12345678',
  genericEmail: 'info@dakdekker.nl',
  recipientKind: 'legal_person',
  countryCode: 'NL',
};
const noAddress: GateContact = { id: '00000000-0000-4000-8000-0000000000a1', companyId: company.id, fullName: 'Bas Bellen', email: null, erased: false };
const li = { basis: 'legitimate_interest', recipient_kind: 'legal_person', country: 'NL' } as const;
let n = 0;
const suppression = (scope: string, value: string, reason = 'objection'): SuppressionRecord => ({
  id: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
  scope,
  value,
  reason,
});
const gate = (over: Partial<GateInput> = {}) => decideGate({ contact: noAddress, company, suppressions: [], lawfulBasis: li, defaultCountry: 'NL', ...over });

test('open: a lawful basis and no suppression lets the policy decide, channel by channel', () => {
  const g = gate();
  expect(g).toMatchObject({ contactable: true, reasons: [], blocks: [], suppression: null, country: 'NL', recipient_kind: 'legal_person' });
  expect(Object.fromEntries(g.channels.map((c) => [c.channel, [c.allowed, c.rule_id, c.blocked_by]]))).toEqual({
    email_generic: [true, 'NL-LP-EMAIL-GENERIC', []],
    email_personal: [false, 'NL-LP-EMAIL-PERSONAL', []],
    phone: [true, 'NL-LP-PHONE', []],
    linkedin: [true, 'NL-LP-LINKEDIN', []],
  });
  expect(g.requirements).toEqual(['art14_notice', 'sender_identification', 'free_opt_out']);
});

test.each([
  ['domain', 'dakdekker.nl', 'GATE-SUPPRESSED-COMPANY-DOMAIN', 'company_domain'],
  ['kvk_number', '12345678', 'GATE-SUPPRESSED-COMPANY-KVK', 'company_kvk_number'],
  ['email', 'info@dakdekker.nl', 'GATE-SUPPRESSED-COMPANY-ADDRESS', 'company_generic_email'],
] as const)('a %s suppression of the company closes every channel to a contact without an address', (scope, value, ruleId, matchedOn) => {
  const s = suppression(scope, value);
  const g = gate({ suppressions: [s] });
  expect(g).toMatchObject({ contactable: false, reasons: ['suppressed'], suppression: { id: s.id, scope, reason: 'objection' }, requirements: [] });
  expect(g.blocks).toEqual([
    {
      rule_id: ruleId,
      code: 'suppressed',
      applies_to: 'company',
      reason: expect.stringContaining('no channel to anyone at the company'),
      suppression: { id: s.id, scope, reason: 'objection', matched_on: matchedOn },
    },
  ]);
  for (const c of g.channels)
    expect(c).toMatchObject({ allowed: false, blocked_by: [ruleId], requirements: [], reason: expect.stringContaining('suppressed') });
  // …and to a colleague with a free-mail address.
  expect(gate({ suppressions: [s], contact: { ...noAddress, email: 'bas.dak@gmail.com' } }).contactable).toBe(false);
});

test('the company domain is also read from its website and from the domain of its generic address', () => {
  const bare = { ...company, domain: null, genericEmail: null };
  expect(gate({ company: bare, suppressions: [suppression('domain', 'dakdekker.nl')] }).blocks[0]).toMatchObject({ rule_id: 'GATE-SUPPRESSED-COMPANY-DOMAIN' });
  // A site on a hosting subdomain is the company's own: suppressible as itself.
  const hosted = { ...company, domain: null, website: 'https://dakdekker.wixsite.com/home', genericEmail: null };
  expect(gate({ company: hosted, suppressions: [suppression('domain', 'dakdekker.wixsite.com')] }).blocks[0]).toMatchObject({
    rule_id: 'GATE-SUPPRESSED-COMPANY-DOMAIN',
  });
  expect(gate({ company: hosted, suppressions: [suppression('domain', 'wixsite.com')] }).contactable).toBe(true);
  const viaGeneric = { ...company, domain: null, website: null, genericEmail: 'post@dakdekker-post.nl' };
  expect(gate({ company: viaGeneric, suppressions: [suppression('domain', 'dakdekker-post.nl')] }).blocks[0]).toMatchObject({
    rule_id: 'GATE-SUPPRESSED-COMPANY-ADDRESS-DOMAIN',
    applies_to: 'company',
  });
});

test("a suppression of the contact's own address, or its domain, closes that contact", () => {
  const bas = { ...noAddress, email: 'Bas@Dakdekker.nl' };
  expect(gate({ contact: bas, suppressions: [suppression('email', 'bas@dakdekker.nl', 'unsubscribe')] }).blocks).toEqual([
    expect.objectContaining({ rule_id: 'GATE-SUPPRESSED-EMAIL', applies_to: 'contact', suppression: expect.objectContaining({ matched_on: 'contact_email' }) }),
  ]);
  const other = { ...noAddress, email: 'bas@bellen-prive.nl' };
  expect(gate({ contact: other, suppressions: [suppression('domain', 'bellen-prive.nl')] }).blocks[0]).toMatchObject({
    rule_id: 'GATE-SUPPRESSED-EMAIL-DOMAIN',
  });
});

test('erasure markers: by address hash, and by name within the company (however the name is written)', () => {
  const byName = suppression('person_hash', personHash(company.id, 'Bas Bellen'), 'erasure');
  expect(gate({ contact: { ...noAddress, fullName: '  bas   BELLEN ' }, suppressions: [byName] }).blocks).toEqual([
    expect.objectContaining({
      rule_id: 'GATE-ERASURE-MARKER',
      code: 'suppressed',
      suppression: expect.objectContaining({ scope: 'person_hash', matched_on: 'contact_erasure_marker' }),
    }),
  ]);
  // The same name at another company is another person.
  expect(
    gate({
      company: { ...company, id: '00000000-0000-4000-8000-00000000d0d0' },
      contact: { ...noAddress, companyId: '00000000-0000-4000-8000-00000000d0d0' },
      suppressions: [byName],
    }).contactable,
  ).toBe(true);
  const byEmail = suppression('email_hash', emailHash('bas@dakdekker.nl'), 'erasure');
  expect(gate({ contact: { ...noAddress, fullName: 'B. Bellen', email: 'bas@dakdekker.nl' }, suppressions: [byEmail] }).blocks[0]).toMatchObject({
    rule_id: 'GATE-ERASURE-MARKER',
  });
});

test('an erased contact and a missing lawful basis each say so, in a stable order; the policy closes channels by its own rule ids', () => {
  const erased = gate({ contact: { ...noAddress, erased: true, fullName: 'erased' }, lawfulBasis: null });
  expect(erased.reasons).toEqual(['erased', 'no_lawful_basis']);
  expect(erased.blocks.map((b) => b.rule_id)).toEqual([GATE_RULES.erased.id, GATE_RULES.no_lawful_basis.id]);
  expect(erased.channels.every((c) => !c.allowed && c.blocked_by.length === 2)).toBe(true);
  // Under legitimate interest in DE only LinkedIn (manual) is open: contactable, and each closed channel names its policy row.
  const g = gate({ company: { ...company, countryCode: 'DE', genericEmail: null }, lawfulBasis: { ...li, country: 'DE' } });
  expect(g.channels.filter((c) => c.allowed).map((c) => c.channel)).toEqual(['linkedin']);
  expect(g).toMatchObject({ contactable: true, reasons: [] });
});

test('suppressionKeys: exactly what the loader fetches; unrelated suppressions never count', () => {
  const keys = suppressionKeys({ ...noAddress, email: 'bas@dakdekker.nl' }, company).map((k) => `${k.scope}:${k.on}`);
  expect(keys).toEqual([
    'domain:company_domain',
    'kvk_number:company_kvk_number',
    'email:company_generic_email',
    'email_hash:company_generic_email',
    'email:contact_email',
    'email_hash:contact_erasure_marker',
    'person_hash:contact_erasure_marker',
  ]);
  expect(gate({ suppressions: [suppression('domain', 'elders.nl'), suppression('kvk_number', '87654321')] }).contactable).toBe(true);
});
