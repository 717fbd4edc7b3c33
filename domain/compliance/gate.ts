import { siteDomain } from '../companies/domains';
import { emailHash, type RecipientKind } from '../companies/identity';
import { CHANNEL_POLICY_VERSION, channelsFor, type ChannelDecision } from './channel-policy';
import { erasureMarkers } from './erasure';

/**
 * The compliance gate's decision, as a pure function of what it is given: the contact, its company,
 * the suppressions that match them, the current lawful basis and the organization's default
 * country. Every outbound path asks this one question (through db/queries/compliance/gate.ts),
 * and the answer explains itself: each block names its rule id, the reason and what matched.
 *
 * A suppression of the company (its domain, its KvK number, its generic address or that address's
 * domain) closes every channel to everyone at the company, whatever their own address; a
 * suppression of the contact's address (or its domain) and an erasure marker close every channel to
 * that contact.
 */

export const GATE_VERSION = '2026-11-21.1';

export type GateCode = 'erased' | 'suppressed' | 'no_lawful_basis' | 'no_allowed_channel';

/** What a suppression key was built from; each maps to one gate rule. */
export type MatchedOn =
  | 'contact_email'
  | 'contact_email_domain'
  | 'contact_erasure_marker'
  | 'company_domain'
  | 'company_kvk_number'
  | 'company_generic_email'
  | 'company_generic_email_domain';

export interface GateRule {
  id: string;
  code: GateCode;
  /** Whether the rule is about the whole company (everyone there) or this contact alone. */
  applies_to: 'contact' | 'company';
  reason: string;
}

/** The gate's own rules, as data (the channel rules are the channel policy's rows). */
export const GATE_RULES = {
  erased: { id: 'GATE-ERASED', code: 'erased', applies_to: 'contact', reason: 'the contact was erased (GDPR Art. 17)' },
  contact_erasure_marker: {
    id: 'GATE-ERASURE-MARKER',
    code: 'suppressed',
    applies_to: 'contact',
    reason: 'a person with this address, or this name at this company, was erased and may not be contacted again',
  },
  contact_email: { id: 'GATE-SUPPRESSED-EMAIL', code: 'suppressed', applies_to: 'contact', reason: "the contact's e-mail address is suppressed" },
  contact_email_domain: {
    id: 'GATE-SUPPRESSED-EMAIL-DOMAIN',
    code: 'suppressed',
    applies_to: 'contact',
    reason: "the domain of the contact's e-mail address is suppressed",
  },
  company_domain: {
    id: 'GATE-SUPPRESSED-COMPANY-DOMAIN',
    code: 'suppressed',
    applies_to: 'company',
    reason: "the company's domain is suppressed: no channel to anyone at the company",
  },
  company_kvk_number: {
    id: 'GATE-SUPPRESSED-COMPANY-KVK',
    code: 'suppressed',
    applies_to: 'company',
    reason: "the company's KvK number is suppressed: no channel to anyone at the company",
  },
  company_generic_email: {
    id: 'GATE-SUPPRESSED-COMPANY-ADDRESS',
    code: 'suppressed',
    applies_to: 'company',
    reason: "the company's generic address is suppressed: no channel to anyone at the company",
  },
  company_generic_email_domain: {
    id: 'GATE-SUPPRESSED-COMPANY-ADDRESS-DOMAIN',
    code: 'suppressed',
    applies_to: 'company',
    reason: "the domain of the company's generic address is suppressed: no channel to anyone at the company",
  },
  no_lawful_basis: { id: 'GATE-NO-LAWFUL-BASIS', code: 'no_lawful_basis', applies_to: 'contact', reason: 'no lawful basis recorded for the contact' },
  no_allowed_channel: {
    id: 'GATE-NO-ALLOWED-CHANNEL',
    code: 'no_allowed_channel',
    applies_to: 'contact',
    reason: 'the channel policy allows no channel under the recorded lawful basis',
  },
} as const satisfies Record<string, GateRule>;

export interface GateContact {
  id: string;
  companyId: string;
  fullName: string | null;
  email: string | null;
  erased: boolean;
}

export interface GateCompany {
  id: string;
  domain: string | null;
  website: string | null;
  kvkNumber: string | null;
  genericEmail: string | null;
  recipientKind: RecipientKind;
  countryCode: string | null;
}

export interface SuppressionKey {
  scope: string;
  value: string;
  on: MatchedOn;
}

export interface SuppressionRecord {
  id: string;
  scope: string;
  value: string;
  reason: string;
}

export interface LawfulBasisRecord {
  basis: 'legitimate_interest' | 'consent';
  recipient_kind: RecipientKind;
  country: string;
}

/** Every (scope, value) that, when suppressed, closes this contact: the loader fetches exactly these. */
export function suppressionKeys(contact: GateContact, company: GateCompany): SuppressionKey[] {
  const keys: SuppressionKey[] = [];
  const add = (scope: string, value: string | null | undefined, on: MatchedOn) => {
    if (value && !keys.some((k) => k.scope === scope && k.value === value)) keys.push({ scope, value, on });
  };
  // The company first: its suppressions explain the block for everyone there.
  add('domain', company.domain, 'company_domain');
  // A site on a hosting subdomain (foo.wixsite.com) is the company's own site, and suppressible as such.
  if (company.website) add('domain', siteDomain(company.website), 'company_domain');
  add('kvk_number', company.kvkNumber, 'company_kvk_number');
  if (company.genericEmail) {
    const generic = company.genericEmail.trim().toLowerCase();
    add('email', generic, 'company_generic_email');
    add('email_hash', emailHash(generic), 'company_generic_email');
    add('domain', siteDomain(generic), 'company_generic_email_domain');
  }
  if (contact.email) {
    const email = contact.email.trim().toLowerCase();
    add('email', email, 'contact_email');
    add('domain', siteDomain(email), 'contact_email_domain');
  }
  if (!contact.erased) {
    for (const m of erasureMarkers({ companyId: company.id, fullName: contact.fullName, email: contact.email }))
      add(m.scope, m.value, 'contact_erasure_marker');
  }
  return keys;
}

export interface GateBlock {
  rule_id: string;
  code: GateCode;
  applies_to: 'contact' | 'company';
  reason: string;
  /** The suppression that matched, and what of the contact or company it matched. */
  suppression?: { id: string; scope: string; reason: string; matched_on: MatchedOn };
}

export interface GateChannel extends ChannelDecision {
  /** Gate rule ids that close this channel whatever the policy says (empty when only the policy decides). */
  blocked_by: string[];
}

export interface GateDecision {
  contact_id: string;
  company_id: string;
  contactable: boolean;
  /** Codes, in a stable order: erased, suppressed, no_lawful_basis, no_allowed_channel. */
  reasons: GateCode[];
  blocks: GateBlock[];
  /** The first matching suppression (the company's before the contact's), or null. */
  suppression: { id: string; scope: string; reason: string } | null;
  lawful_basis: LawfulBasisRecord | null;
  gate_version: string;
  policy_version: string;
  country: string;
  recipient_kind: RecipientKind;
  channels: GateChannel[];
  requirements: string[];
}

export interface GateInput {
  contact: GateContact;
  company: GateCompany;
  /** Suppressions of the organization; only those matching suppressionKeys() count. */
  suppressions: SuppressionRecord[];
  lawfulBasis: LawfulBasisRecord | null;
  defaultCountry: string;
}

const rule = (r: GateRule): Omit<GateBlock, 'suppression'> => ({ rule_id: r.id, code: r.code, applies_to: r.applies_to, reason: r.reason });

export function decideGate(input: GateInput): GateDecision {
  const { contact, company, lawfulBasis } = input;
  const blocks: GateBlock[] = [];
  if (contact.erased) blocks.push(rule(GATE_RULES.erased));
  for (const key of suppressionKeys(contact, company)) {
    const s = input.suppressions.find((x) => x.scope === key.scope && x.value === key.value);
    if (!s || blocks.some((b) => b.suppression?.id === s.id)) continue;
    blocks.push({ ...rule(GATE_RULES[key.on]), suppression: { id: s.id, scope: s.scope, reason: s.reason, matched_on: key.on } });
  }
  if (!lawfulBasis) blocks.push(rule(GATE_RULES.no_lawful_basis));

  const country = lawfulBasis?.country ?? company.countryCode ?? input.defaultCountry;
  const recipientKind = lawfulBasis?.recipient_kind ?? company.recipientKind;
  const blocked = blocks.length > 0;
  const closing = blocks.map((b) => b.rule_id);
  const channels: GateChannel[] = channelsFor({
    country,
    recipientKind,
    basis: blocked ? null : lawfulBasis!.basis,
    publishedBusinessAddress: !!company.genericEmail,
  }).map((c) =>
    blocked ? { ...c, allowed: false, requirements: [], reason: blocks.map((b) => b.reason).join('; '), blocked_by: closing } : { ...c, blocked_by: [] },
  );
  if (!blocked && !channels.some((c) => c.allowed)) blocks.push(rule(GATE_RULES.no_allowed_channel));

  const order: GateCode[] = ['erased', 'suppressed', 'no_lawful_basis', 'no_allowed_channel'];
  const first = blocks.find((b) => b.suppression)?.suppression;
  return {
    contact_id: contact.id,
    company_id: company.id,
    contactable: blocks.length === 0,
    reasons: order.filter((code) => blocks.some((b) => b.code === code)),
    blocks,
    suppression: first ? { id: first.id, scope: first.scope, reason: first.reason } : null,
    lawful_basis: lawfulBasis,
    gate_version: GATE_VERSION,
    policy_version: CHANNEL_POLICY_VERSION,
    country,
    recipient_kind: recipientKind,
    channels,
    // Data not obtained from the person: the GDPR Art. 14 notice is due with the first message.
    requirements: blocked ? [] : ['art14_notice', 'sender_identification', 'free_opt_out'],
  };
}
