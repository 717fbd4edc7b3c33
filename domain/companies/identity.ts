import { createHash } from 'node:crypto';
import { parsePhoneNumberFromString, CountryCode } from 'libphonenumber-js';
import { getDomain, parse as parseDomain } from 'tldts';

/**
 * How companies and people are identified: normalized names, KvK numbers, registrable domains,
 * e-mail addresses and phone numbers. One place, used by the API, enrichment and the compliance gate.
 */

// Legal forms and the recipient kind they make a company: domain/companies/legal-forms.ts.
export { parseLegalForm, recipientKindFor } from './legal-forms';
export type { RecipientKind } from './legal-forms';

// Suffixes and prefixes that name a legal form or a holding structure, not the company.
const LEGAL_AFFIXES = [
  'b v',
  'bv',
  'n v',
  'nv',
  'v o f',
  'vof',
  'c v',
  'cv',
  'holding',
  'holdings',
  'beheer',
  'stichting',
  'vereniging',
  'cooperatie',
  'cooperatieve',
  'u a',
  'ua',
  'eenmanszaak',
  'maatschap',
  'ltd',
  'limited',
  'gmbh',
  'sa',
  'sarl',
  'inc',
];

/** "Bouwbedrijf De Vries Holding B.V." -> "bouwbedrijf de vries". */
export function normalizeCompanyName(name: string): string {
  let s = ` ${name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' en ')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()} `;
  let changed = true;
  while (changed) {
    changed = false;
    for (const affix of LEGAL_AFFIXES) {
      for (const [re, rep] of [
        [new RegExp(` ${affix} $`), ' '],
        [new RegExp(`^ ${affix} `), ' '],
      ] as const) {
        const next = s.replace(re, rep);
        if (next !== s && next.trim()) {
          s = next;
          changed = true;
        }
      }
    }
  }
  return s.trim().replace(/\s+/g, ' ');
}

/** KvK numbers are eight digits; separators in input ("12 34 56 78", "KvK: 12345678") are dropped. */
export function normalizeKvk(value: string): string | null {
  const digits = value.replace(/\D/g, '');
  return /^\d{8}$/.test(digits) ? digits : null;
}

/** The registrable domain (public suffix list) of a website, an address or a host: "https://www.bouw.co.uk/x" -> "bouw.co.uk". */
export function registrableDomain(value: string): string | null {
  const input = value.includes('@') ? value.split('@').pop()! : value.trim();
  const domain = getDomain(input, { allowPrivateDomains: false });
  return domain ? domain.toLowerCase() : null;
}

const EMAIL = /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

export function normalizeEmail(value: string): string {
  return value.trim().toLowerCase();
}

/** Syntax, and a domain under a real public suffix (no "localhost", no made-up top-level domain). */
export function checkEmail(value: string): { ok: true; email: string; domain: string } | { ok: false; reason: string } {
  const email = normalizeEmail(value);
  if (email.length > 254 || !EMAIL.test(email)) return { ok: false, reason: 'is not a valid e-mail address' };
  const host = email.split('@')[1]!;
  const parsed = parseDomain(host);
  if (!parsed.isIcann || !parsed.domain) return { ok: false, reason: `has no valid domain (${host})` };
  return { ok: true, email, domain: parsed.domain };
}

/** E.164 ("+31301234567"), reading national numbers in the company's country. */
export function toE164(value: string, defaultCountry = 'NL'): string | null {
  const p = parsePhoneNumberFromString(value, defaultCountry as CountryCode);
  // Short codes pass isValid() in some countries; a reachable subscriber number has 8+ digits.
  return p && p.isValid() && p.nationalNumber.length >= 8 ? p.number : null;
}

/** Role addresses are the company's, not a person's. */
export function isGenericMailbox(email: string): boolean {
  return /^(info|contact|hallo|hello|office|kantoor|sales|verkoop|admin|administratie|support|service|mail|post|receptie|secretariaat|algemeen|inkoop|offerte)@/.test(
    email,
  );
}

/** Erased addresses are remembered only as this hash, so they are never contacted again. */
export function emailHash(email: string): string {
  return createHash('sha256').update(normalizeEmail(email)).digest('hex');
}
