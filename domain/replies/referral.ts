import type { Referral } from './types';

/**
 * The person a reply refers to ("contact my colleague Pieter Smit, p.smit@bouw.nl", "neem contact op
 * met mijn collega Pieter Smit (p.smit@bouw.nl)", "wenden Sie sich an Frau Anna Weber"): an address
 * in the reply other than the sender's, and the name written just before it (two to four capitalised
 * words, Dutch particles such as "van der" allowed), else the name read from the address.
 */
const REFERRAL_CUE =
  /\b(?:colleague|contact|reach out to|get in touch with|speak (?:to|with)|talk to|responsible|in charge|handles|collega|contact op met|neem contact|contactpersoon|verantwoordelijk|gaat over|kunt u terecht|wenden sie sich|ansprechpartner|kollege|kollegin|zuständig|collègue|contacter|responsable|s'adresser)\b/i;
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
const PARTICLE = '(?:van|de|der|den|ter|ten|te|von|zu|du|le|la|d\')';
const NAME = new RegExp(`((?:[A-ZÀ-Ý][\\p{Ll}'-]+|[A-Z]\\.)(?:\\s+(?:${PARTICLE}\\s+)*(?:[A-ZÀ-Ý][\\p{Ll}'-]+)){1,3})[\\s,:(<-]*$`, 'u');
const NOT_NAMES = new Set(['Met', 'Vriendelijke', 'Groet', 'Groeten', 'Best', 'Regards', 'Kind', 'Dear', 'Beste', 'Hallo', 'Hi', 'Mit', 'Freundlichen', 'Cordialement', 'Bonjour', 'Contact', 'Neem', 'Please', 'Mail', 'Email', 'E-mail', 'Mijn', 'My', 'Collega', 'Colleague']);

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

export function extractReferral(text: string, senderEmail: string | null): Referral | null {
  if (!hasReferralCue(text)) return null;
  const sender = senderEmail?.toLowerCase();
  for (const m of text.matchAll(EMAIL)) {
    const email = m[0].replace(/\.$/, '').toLowerCase();
    if (email === sender) continue;
    const before = text.slice(Math.max(0, m.index! - 80), m.index!).split('\n').pop()!;
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
