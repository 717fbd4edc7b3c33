import { CHANNEL_POLICY, channelsFor, policyCountry } from '../../domain/compliance/channel-policy';

/** The rows of shared/compliance-rules.md section 1, as the policy answers them. */
const rule = (country: string, recipientKind: 'legal_person' | 'natural_person', opts: { published?: boolean } = {}) =>
  Object.fromEntries(
    channelsFor({ country, recipientKind, basis: 'legitimate_interest', publishedBusinessAddress: opts.published ?? true }).map((c) => [c.channel, c.rule]),
  );

test.each([
  ['NL', 'legal_person', { email_generic: 'allowed', email_personal: 'consent', phone: 'allowed', linkedin: 'allowed' }],
  ['NL', 'natural_person', { email_generic: 'consent', email_personal: 'consent', phone: 'consent', linkedin: 'allowed' }],
  ['DE', 'legal_person', { email_generic: 'consent', email_personal: 'consent', phone: 'consent', linkedin: 'allowed' }],
  ['DE', 'natural_person', { email_generic: 'consent', email_personal: 'consent', phone: 'consent', linkedin: 'allowed' }],
  ['FR', 'legal_person', { email_generic: 'allowed', email_personal: 'allowed', phone: 'allowed', linkedin: 'allowed' }],
  ['FR', 'natural_person', { email_generic: 'consent', email_personal: 'consent', phone: 'allowed', linkedin: 'allowed' }],
  ['BE', 'legal_person', { email_generic: 'allowed', email_personal: 'consent', phone: 'allowed', linkedin: 'allowed' }],
  ['BE', 'natural_person', { email_generic: 'consent', email_personal: 'consent', phone: 'allowed', linkedin: 'allowed' }],
  ['GB', 'legal_person', { email_generic: 'allowed', email_personal: 'allowed', phone: 'allowed', linkedin: 'allowed' }],
  ['GB', 'natural_person', { email_generic: 'consent', email_personal: 'consent', phone: 'allowed', linkedin: 'allowed' }],
  ['IT', 'legal_person', { email_generic: 'consent', email_personal: 'consent', phone: 'consent', linkedin: 'allowed' }],
  ['PL', 'natural_person', { email_generic: 'consent', email_personal: 'consent', phone: 'consent', linkedin: 'allowed' }],
] as const)('%s %s', (country, kind, expected) => {
  expect(rule(country, kind)).toEqual(expected);
});

test('every (country, recipient kind, channel) has exactly one row, with an id, a rule and a source', () => {
  const ids = new Set(CHANNEL_POLICY.map((r) => r.id));
  expect(ids.size).toBe(CHANNEL_POLICY.length);
  for (const country of ['NL', 'DE', 'FR', 'BE', 'GB', 'EU']) {
    for (const kind of ['legal_person', 'natural_person'] as const) {
      for (const channel of ['email_generic', 'email_personal', 'phone', 'linkedin'] as const) {
        const rows = CHANNEL_POLICY.filter((r) => r.country === country && r.channel === channel && (r.recipientKind === kind || r.recipientKind === 'any'));
        expect({ country, kind, channel, rows: rows.length }).toEqual({ country, kind, channel, rows: 1 });
        expect(rows[0]!.source).toBeTruthy();
      }
    }
  }
});

test('NL generic address: allowed only when the company published it for business contact', () => {
  const unpublished = channelsFor({ country: 'NL', recipientKind: 'legal_person', basis: 'legitimate_interest', publishedBusinessAddress: false });
  expect(unpublished.find((c) => c.channel === 'email_generic')).toMatchObject({ rule_id: 'NL-LP-EMAIL-GENERIC', rule: 'consent', allowed: false });
});

test('consent rules open with recorded consent; nothing opens without a lawful basis', () => {
  const consent = channelsFor({ country: 'DE', recipientKind: 'legal_person', basis: 'consent' });
  expect(consent.every((c) => c.allowed)).toBe(true);
  const none = channelsFor({ country: 'FR', recipientKind: 'legal_person', basis: null });
  expect(none.some((c) => c.allowed)).toBe(false);
  expect(none[0]!.reason).toBe('no lawful basis recorded');
});

test('allowed channels carry their requirements and rule ids', () => {
  const nl = channelsFor({ country: 'NL', recipientKind: 'legal_person', basis: 'legitimate_interest', publishedBusinessAddress: true });
  expect(nl.find((c) => c.channel === 'phone')).toMatchObject({
    allowed: true,
    rule_id: 'NL-LP-PHONE',
    requirements: ['identify_sender', 'offer_objection_in_every_call'],
  });
  expect(nl.find((c) => c.channel === 'linkedin')).toMatchObject({ allowed: true, requirements: ['manual_one_to_one'] });
  expect(nl.find((c) => c.channel === 'email_personal')).toMatchObject({ allowed: false, rule_id: 'NL-LP-EMAIL-PERSONAL' });
  expect(
    channelsFor({ country: 'GB', recipientKind: 'natural_person', basis: 'legitimate_interest' }).find((c) => c.channel === 'phone')!.requirements,
  ).toContain('tps_screening');
});

test('UK is GB; countries outside the table take the strict EU rows', () => {
  expect(policyCountry('UK')).toBe('GB');
  expect(policyCountry('nl')).toBe('NL');
  expect(policyCountry('US')).toBe('EU');
});
