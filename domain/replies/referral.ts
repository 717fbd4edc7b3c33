import type { Referral } from './types';

/**
 * The person a reply refers to ("contact my colleague Pieter Smit, p.smit@bouw.nl", "neem contact op
 * met mijn collega Pieter Smit (p.smit@bouw.nl)", "wenden Sie sich an Frau Anna Weber"): an address
 * in the reply other than the sender's, and the name written just before it (two to four capitalised
 * words, Dutch particles such as "van der" allowed), else the name read from the address.
 */
const REFERRAL_CUE =
  /\b(?:colleague|contact|reach out to|get in touch with|speak (?:to|with)|talk to|responsible|in charge|handles|collega|contact op met|neem contact|contactpersoon|verantwoordelijk|gaat over|kunt u terecht|wenden sie sich|ansprechpartner|kollege|kollegin|zuständig|collègue|contacter|responsable|s'adresser)\b/i;
const LOCAL_CHAR = /[A-Za-z0-9._%+-]/;
const DOMAIN_CHAR = /[A-Za-z0-9.-]/;
/** A domain as an address ends: labels and a top-level domain of letters (checked on at most 253 characters). */
const DOMAIN = /^[A-Za-z0-9.-]+\.[A-Za-z]{2,}$/;
const PARTICLE = "(?:van|de|der|den|ter|ten|te|von|zu|du|le|la|d')";
const NAME = new RegExp(`((?:[A-ZÀ-Ý][\\p{Ll}'-]+|[A-Z]\\.)(?:\\s+(?:${PARTICLE}\\s+)*(?:[A-ZÀ-Ý][\\p{Ll}'-]+)){1,3})[\\s,:(<-]*$`, 'u');
const NOT_NAMES = new Set([
  'Met',
  'Vriendelijke',
  'Groet',
  'Groeten',
  'Best',
  'Regards',
  'Kind',
  'Dear',
  'Beste',
  'Hallo',
  'Hi',
  'Mit',
  'Freundlichen',
  'Cordialement',
  'Bonjour',
  'Contact',
  'Neem',
  'Please',
  'Mail',
  'Email',
  'E-mail',
  'Mijn',
  'My',
  'Collega',
  'Colleague',
]);

export function hasReferralCue(text: string): boolean {
  return REFERRAL_CUE.test(text);
}

function nameFromAddress(email: string): string {
  const local = email.split('@')[0]!.replace(/\d+/g, '');
  return local
    .split(/[._-]+/)
    .filter(Boolean)
    .map((p) => p[0]!.toUpperCase() + p.slice(1))
    .join(' ');
}

/**
 * The addresses in a text, in order, found in linear time: each "@" is expanded to the left over at
 * most 64 local-part characters and to the right over at most 253 domain characters (no regex that
 * scans the text from every position). At most `limit` addresses.
 */
export function findEmails(text: string, limit = 20): { email: string; index: number }[] {
  const out: { email: string; index: number }[] = [];
  let at = text.indexOf('@');
  let floor = 0;
  while (at !== -1 && out.length < limit) {
    let start = at;
    while (start > floor && at - start < 64 && LOCAL_CHAR.test(text[start - 1]!)) start--;
    let end = at + 1;
    while (end < text.length && end - at <= 253 && DOMAIN_CHAR.test(text[end]!)) end++;
    let domain = text.slice(at + 1, end);
    while (domain.endsWith('.') || domain.endsWith('-')) domain = domain.slice(0, -1);
    if (start < at && DOMAIN.test(domain)) {
      out.push({ email: `${text.slice(start, at)}@${domain}`, index: start });
      floor = at + 1 + domain.length;
    }
    at = text.indexOf('@', at + 1);
  }
  return out;
}

export function extractReferral(text: string, senderEmail: string | null): Referral | null {
  if (!hasReferralCue(text)) return null;
  const sender = senderEmail?.toLowerCase();
  for (const m of findEmails(text)) {
    const email = m.email.toLowerCase();
    if (email === sender) continue;
    const before = text
      .slice(Math.max(0, m.index - 80), m.index)
      .split('\n')
      .pop()!;
    const found = NAME.exec(before.replace(/\b(?:via|op|at|on|unter|à|:)\s*$/i, ''));
    let name = found?.[1]?.trim() ?? '';
    // Drop leading words that are not part of a name ("Collega Pieter Smit" -> "Pieter Smit").
    const words = name.split(/\s+/);
    while (words.length && NOT_NAMES.has(words[0]!)) words.shift();
    name = words.length >= 2 ? words.join(' ') : nameFromAddress(email);
    return { name, email };
  }
  return null;
}
