import type { RecipientKind } from '../companies/identity';

/**
 * The default channel policy of shared/compliance-rules.md section 1, as data: one row per
 * (country, recipient kind, channel) with an id, the rule and its public source. Where the law is
 * unsettled the row takes the stricter reading and says so. Change a row here, bump the version.
 */
export const CHANNEL_POLICY_VERSION = '2026-11-21.1';

export const CHANNELS = ['email_generic', 'email_personal', 'phone', 'linkedin'] as const;
export type Channel = (typeof CHANNELS)[number];
export type Rule = 'allowed' | 'consent' | 'no';

export interface PolicyRow {
  id: string;
  country: string; // ISO 3166-1 alpha-2, or 'EU' for the other EU member states
  recipientKind: RecipientKind | 'any';
  channel: Channel;
  rule: Rule;
  /** Conditions that must hold for `allowed`; when one fails the rule falls back to consent. */
  conditions?: Array<'published_business_address'>;
  requirements: string[];
  note: string;
  source: string;
}

const NL = 'Telecommunicatiewet 11.7; dmcc.nl (wetswijziging opt-in telemarketing), ddma.nl (B2B telemarketing), meldpunt-telemarketing.nl';
const DE = 'UWG § 7; uwg-onlinekommentar.de (7 UWG)';
const FR = 'CPCE L34-5; CNIL guidance as summarised by village-justice.com';
const BE = 'Royal Decree of 4 April 2003; actualitesdroitbelge.be';
const UK = 'PECR; ico.org.uk (business-to-business marketing)';
const EU = 'ePrivacy Directive 2002/58/EC art. 13';
const OPT_OUT = ['identify_sender', 'opt_out_in_every_message'];
const MANUAL = ['manual_one_to_one'];

const row = (
  id: string,
  country: string,
  recipientKind: PolicyRow['recipientKind'],
  channel: Channel,
  rule: Rule,
  note: string,
  source: string,
  extra: Partial<PolicyRow> = {},
): PolicyRow => ({
  id,
  country,
  recipientKind,
  channel,
  rule,
  note,
  source,
  requirements: rule === 'allowed' ? (channel === 'linkedin' ? MANUAL : OPT_OUT) : [],
  ...extra,
});

export const CHANNEL_POLICY: PolicyRow[] = [
  row(
    'NL-LP-EMAIL-GENERIC',
    'NL',
    'legal_person',
    'email_generic',
    'allowed',
    'when the company published the address for business contact, else consent',
    NL,
    { conditions: ['published_business_address'] },
  ),
  row('NL-LP-EMAIL-PERSONAL', 'NL', 'legal_person', 'email_personal', 'consent', 'named person at a legal person', NL),
  row('NL-LP-PHONE', 'NL', 'legal_person', 'phone', 'allowed', 'opt-out; objection offered in every call', NL, {
    requirements: ['identify_sender', 'offer_objection_in_every_call'],
  }),
  row('NL-LP-LINKEDIN', 'NL', 'legal_person', 'linkedin', 'allowed', 'stricter reading: manual one-to-one only', NL),
  row(
    'NL-NP-EMAIL-GENERIC',
    'NL',
    'natural_person',
    'email_generic',
    'consent',
    'except an address published for offers; not tracked, so the stricter reading applies',
    NL,
  ),
  row('NL-NP-EMAIL-PERSONAL', 'NL', 'natural_person', 'email_personal', 'consent', 'sole trader, partnership', NL),
  row('NL-NP-PHONE', 'NL', 'natural_person', 'phone', 'consent', 'opt-in since 1 July 2021', NL),
  row('NL-NP-LINKEDIN', 'NL', 'natural_person', 'linkedin', 'allowed', 'manual one-to-one only', NL),
  row('DE-ANY-EMAIL-GENERIC', 'DE', 'any', 'email_generic', 'consent', 'prior express consent', DE),
  row('DE-ANY-EMAIL-PERSONAL', 'DE', 'any', 'email_personal', 'consent', 'prior express consent', DE),
  row('DE-LP-PHONE', 'DE', 'legal_person', 'phone', 'consent', 'presumed consent only; stricter reading: treated as consent', DE),
  row('DE-NP-PHONE', 'DE', 'natural_person', 'phone', 'consent', 'prior express consent', DE),
  row('DE-ANY-LINKEDIN', 'DE', 'any', 'linkedin', 'allowed', 'manual only', DE),
  row('FR-LP-EMAIL-GENERIC', 'FR', 'legal_person', 'email_generic', 'allowed', 'B2B e-mail with opt-out', FR),
  row('FR-LP-EMAIL-PERSONAL', 'FR', 'legal_person', 'email_personal', 'allowed', 'when the message relates to the person’s job', FR, {
    requirements: [...OPT_OUT, 'relates_to_recipient_job'],
  }),
  row('FR-LP-PHONE', 'FR', 'legal_person', 'phone', 'allowed', 'B2B calls allowed', FR),
  row('FR-LP-LINKEDIN', 'FR', 'legal_person', 'linkedin', 'allowed', '', FR),
  row('FR-NP-EMAIL-GENERIC', 'FR', 'natural_person', 'email_generic', 'consent', '', FR),
  row('FR-NP-EMAIL-PERSONAL', 'FR', 'natural_person', 'email_personal', 'consent', '', FR),
  row('FR-NP-PHONE', 'FR', 'natural_person', 'phone', 'allowed', 'Bloctel covers consumers', FR, { requirements: ['identify_sender', 'bloctel_screening'] }),
  row('FR-NP-LINKEDIN', 'FR', 'natural_person', 'linkedin', 'allowed', '', FR),
  row('BE-LP-EMAIL-GENERIC', 'BE', 'legal_person', 'email_generic', 'allowed', 'impersonal addresses only', BE),
  row('BE-LP-EMAIL-PERSONAL', 'BE', 'legal_person', 'email_personal', 'consent', '', BE),
  row('BE-LP-PHONE', 'BE', 'legal_person', 'phone', 'allowed', '', BE),
  row('BE-LP-LINKEDIN', 'BE', 'legal_person', 'linkedin', 'allowed', '', BE),
  row('BE-NP-EMAIL-GENERIC', 'BE', 'natural_person', 'email_generic', 'consent', '', BE),
  row('BE-NP-EMAIL-PERSONAL', 'BE', 'natural_person', 'email_personal', 'consent', '', BE),
  row('BE-NP-PHONE', 'BE', 'natural_person', 'phone', 'allowed', 'after checking the national do-not-call list', BE, {
    requirements: ['identify_sender', 'do_not_call_list_check'],
  }),
  row('BE-NP-LINKEDIN', 'BE', 'natural_person', 'linkedin', 'allowed', '', BE),
  row('GB-LP-EMAIL-GENERIC', 'GB', 'legal_person', 'email_generic', 'allowed', 'corporate subscriber; sender identified', UK),
  row('GB-LP-EMAIL-PERSONAL', 'GB', 'legal_person', 'email_personal', 'allowed', 'the person can object', UK),
  row('GB-LP-PHONE', 'GB', 'legal_person', 'phone', 'allowed', 'after TPS/CTPS screening', UK, { requirements: ['identify_sender', 'tps_ctps_screening'] }),
  row('GB-LP-LINKEDIN', 'GB', 'legal_person', 'linkedin', 'allowed', '', UK),
  row('GB-NP-EMAIL-GENERIC', 'GB', 'natural_person', 'email_generic', 'consent', 'sole trader', UK),
  row('GB-NP-EMAIL-PERSONAL', 'GB', 'natural_person', 'email_personal', 'consent', 'sole trader', UK),
  row('GB-NP-PHONE', 'GB', 'natural_person', 'phone', 'allowed', 'after TPS screening', UK, { requirements: ['identify_sender', 'tps_screening'] }),
  row('GB-NP-LINKEDIN', 'GB', 'natural_person', 'linkedin', 'allowed', '', UK),
  row('EU-ANY-EMAIL-GENERIC', 'EU', 'any', 'email_generic', 'consent', 'other EU member states', EU),
  row('EU-ANY-EMAIL-PERSONAL', 'EU', 'any', 'email_personal', 'consent', 'other EU member states', EU),
  row('EU-ANY-PHONE', 'EU', 'any', 'phone', 'consent', 'other EU member states', EU),
  row('EU-ANY-LINKEDIN', 'EU', 'any', 'linkedin', 'allowed', 'manual only', EU),
];

const COVERED = new Set(['NL', 'DE', 'FR', 'BE', 'GB']);

/** The policy's country for an ISO code: UK is GB; any other country takes the strict EU rows. */
export function policyCountry(country: string): string {
  const c = country.toUpperCase() === 'UK' ? 'GB' : country.toUpperCase();
  return COVERED.has(c) ? c : 'EU';
}

export interface ChannelDecision {
  channel: Channel;
  allowed: boolean;
  rule_id: string;
  rule: Rule;
  requirements: string[];
  reason: string;
}

/**
 * Which channels may be used for a recipient, and by which rule. `consent` rules allow a channel
 * only with a recorded lawful basis of consent; `allowed` rules only under a recorded lawful basis.
 */
export function channelsFor(r: {
  country: string;
  recipientKind: RecipientKind;
  basis: 'legitimate_interest' | 'consent' | null;
  publishedBusinessAddress?: boolean;
}): ChannelDecision[] {
  const country = policyCountry(r.country);
  return CHANNELS.map((channel) => {
    const row = CHANNEL_POLICY.find(
      (p) => p.country === country && p.channel === channel && (p.recipientKind === r.recipientKind || p.recipientKind === 'any'),
    )!;
    let rule = row.rule;
    let reason = row.note;
    if (rule === 'allowed' && row.conditions?.includes('published_business_address') && !r.publishedBusinessAddress) {
      rule = 'consent';
      reason = 'the address was not published by the company for business contact: consent needed';
    }
    const allowed = r.basis !== null && (rule === 'allowed' || (rule === 'consent' && r.basis === 'consent'));
    if (r.basis === null) reason = 'no lawful basis recorded';
    else if (rule === 'consent' && r.basis !== 'consent') reason = `consent needed (${row.note || row.id})`;
    else if (rule === 'no') reason = 'never on this channel';
    return { channel, allowed, rule_id: row.id, rule, requirements: allowed ? (row.requirements.length ? row.requirements : OPT_OUT) : [], reason };
  });
}
