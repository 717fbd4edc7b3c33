import { checkEmail, isGenericMailbox } from './identity';

/**
 * People a company publishes about itself: who they are, their role and how to reach them. The
 * duplicate rule of every enrichment source lives here (mergePerson), and so does reading people
 * from the text of a page (a contact line "Jan de Vries — Projectleider — j.devries@example.nl", a
 * team list, a card of name, role and address) for pages without schema.org data.
 */

/** "  Jan de Vriës " -> "jan de vries": case, accents, punctuation and spacing do not make another person. */
export function normalizePersonName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** A person an enrichment source found, with where the data came from (GDPR Art. 14: the source). */
export interface PersonCandidate {
  fullName: string;
  title?: string | null;
  email?: string | null;
  phone?: string | null;
  linkedinUrl?: string | null;
  source: string;
}

/**
 * The same person found twice (on two pages, once with an address and once without) is one
 * candidate: matched by e-mail, else by name. What was found first wins; later finds fill its gaps.
 */
export function mergePerson(people: Map<string, PersonCandidate>, p: PersonCandidate): void {
  const name = p.fullName.trim();
  if (!name) return;
  const email = p.email ? p.email.toLowerCase() : null;
  const sameName = normalizePersonName(name);
  const prevKey = [...people.entries()].find(([k, v]) => (email && k === email) || normalizePersonName(v.fullName) === sameName)?.[0];
  const prev = prevKey ? people.get(prevKey) : undefined;
  if (prevKey) people.delete(prevKey);
  people.set(email ?? prev?.email ?? sameName, {
    fullName: prev?.fullName ?? name,
    title: prev?.title ?? p.title ?? null,
    email: prev?.email ?? email,
    phone: prev?.phone ?? p.phone ?? null,
    linkedinUrl: prev?.linkedinUrl ?? p.linkedinUrl ?? null,
    source: prev?.source ?? p.source,
  });
}

const PARTICLES = new Set([
  'van',
  'de',
  'der',
  'den',
  'het',
  'ter',
  'ten',
  'te',
  'von',
  'zu',
  'le',
  'la',
  'du',
  'des',
  'da',
  'di',
  'del',
  'el',
  'al',
  'bin',
  'ben',
  "'t",
  '’t',
  'in',
  'op',
]);
// Capitalized words on contact pages that are not names ("Algemene Vragen", "Ons Team").
const NOT_NAMES = new Set(
  (
    'algemeen algemene vragen vraag team ons onze contact neem kantoor afdeling service klantenservice verkoop sales support planning ' +
    'administratie receptie openingstijden bezoekadres postadres adres bel mail email e-mail offerte offertes info home over nieuws ' +
    'vacatures projecten diensten werkplaats showroom hoofdkantoor vestiging privacy directie management bedrijf bv b.v. holding ' +
    'telefoon tel mobiel fax website linkedin facebook route maandag dinsdag woensdag donderdag vrijdag zaterdag zondag monteur ' +
    'projectleider directeur werkvoorbereider calculator manager eigenaar uitvoerder'
  ).split(' '),
);
const NAME_WORD = /^(?:[A-ZÀ-ÖØ-Þ][\p{Ll}'’]+(?:-[A-ZÀ-ÖØ-Þ]?[\p{Ll}'’]+)*|(?:[A-Z]\.){1,3})$/u;

/** "Jan de Vries", "Fatima el Amrani", "Jan-Willem van der Berg", "J. de Vries": two to five words, capitalized (or initials) but for particles. */
export function looksLikePersonName(text: string): boolean {
  const words = text.trim().split(/\s+/);
  if (words.length < 2 || words.length > 5 || text.length > 60) return false;
  if (!NAME_WORD.test(words[0]!) || !NAME_WORD.test(words.at(-1)!) || words.at(-1)!.endsWith('.')) return false;
  let capitalized = 0;
  for (const w of words) {
    if (PARTICLES.has(w.toLowerCase()) && w === w.toLowerCase()) continue;
    if (!NAME_WORD.test(w) || NOT_NAMES.has(w.toLowerCase())) return false;
    capitalized++;
  }
  return capitalized >= 2;
}

/** Whether an address plausibly is this person's: its local part holds their first or last name. */
export function emailFitsName(email: string, name: string): boolean {
  const local = normalizePersonName(email.split('@')[0]!).replace(/\s+/g, '');
  const words = normalizePersonName(name)
    .split(' ')
    .filter((w) => !PARTICLES.has(w));
  return words.some((w) => w.length >= 3 && local.includes(w));
}

/** One line of a page's text: what it says, and the addresses of the mailto:/tel: links in it. */
export interface PageLine {
  text: string;
  emails?: string[];
  phones?: string[];
  /** Lines of one block (a card, a table row) share a group: a name, then its role and address. */
  group?: number;
}

const SEPARATOR = /\s+[—–-]\s+|\s*[|•·;\u2022]\s*|,\s+|\t+|:\s+|\s{3,}/;
const EMAIL_IN_TEXT = /[a-z0-9._%+'-]+@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+/gi;
const PHONE_IN_TEXT = /(?:\+|00)?\d[\d ()./-]{7,16}\d/g;
const LABEL = /^(?:tel(?:efoon)?\.?|t\.?|m\.?|e\.?|mob(?:iel)?\.?|phone|e-?mail|mail|fax|linkedin|website|functie|naam|contact(?:persoon)?|adres)$/i;
const NOT_A_ROLE = /^(?:mail|e-?mail|stuur|bel|tel|telefoon|contact|linkedin|website|www|fax|bezoek|post)\b|@|\d/i;
const ROLE = /^[\p{L}][\p{L}\s/&'’.()-]{1,60}$/u;

interface Parsed {
  names: string[];
  roles: string[];
  emails: string[];
  phones: string[];
}

function parseLine(line: PageLine): Parsed {
  const emails = [...(line.emails ?? [])];
  const phones = [...(line.phones ?? [])];
  const names: string[] = [];
  const roles: string[] = [];
  for (const raw of line.text.split(SEPARATOR)) {
    let segment = raw.trim();
    if (!segment) continue;
    const inText = segment.match(EMAIL_IN_TEXT);
    if (inText) {
      emails.push(...inText);
      segment = segment.replace(EMAIL_IN_TEXT, '').trim();
    }
    const phone = segment.match(PHONE_IN_TEXT)?.find((p) => p.replace(/\D/g, '').length >= 9 && p.replace(/\D/g, '').length <= 15);
    if (phone) {
      phones.push(phone.trim());
      continue;
    }
    if (!segment || LABEL.test(segment)) continue;
    if (looksLikePersonName(segment)) names.push(segment);
    else if (ROLE.test(segment) && !NOT_A_ROLE.test(segment) && segment.split(/\s+/).length <= 6) roles.push(segment);
  }
  const personal = [...new Set(emails.map((e) => e.toLowerCase()))].filter((e) => checkEmail(e).ok && !isGenericMailbox(e));
  return { names: [...new Set(names)], roles, emails: personal, phones: [...new Set(phones)] };
}

/**
 * People in a page's text: a name with an address of theirs (or with a role and a phone number)
 * on the same line, or in the next lines of the same block. An address counts only when it
 * plausibly is that person's (their name in it); a line naming two people gives neither a phone.
 */
export function peopleFromLines(lines: PageLine[]): Array<Omit<PersonCandidate, 'source'>> {
  const parsed = lines.map(parseLine);
  const found: Array<Omit<PersonCandidate, 'source'>> = [];
  const claimed = new Set<string>();
  for (let i = 0; i < parsed.length; i++) {
    const here = parsed[i]!;
    if (!here.names.length) continue;
    const roles = [...here.roles];
    const emails = [...here.emails];
    const phones = [...here.phones];
    // A card: the name stands alone; its role and address follow in the same block.
    for (let j = i + 1; j < Math.min(parsed.length, i + 4); j++) {
      const next = parsed[j]!;
      if (next.names.length || lines[j]!.group === undefined || lines[j]!.group !== lines[i]!.group) break;
      roles.push(...next.roles);
      emails.push(...next.emails);
      phones.push(...next.phones);
    }
    const withEmail = here.names.flatMap((name) => emails.filter((e) => !claimed.has(e) && emailFitsName(e, name)).map((email) => ({ name, email })))[0];
    if (withEmail) {
      claimed.add(withEmail.email);
      found.push({ fullName: withEmail.name, title: roles[0] ?? null, email: withEmail.email, phone: here.names.length === 1 ? (phones[0] ?? null) : null });
    } else if (here.names.length === 1 && roles.length && phones.length) {
      found.push({ fullName: here.names[0]!, title: roles[0]!, email: null, phone: phones[0]! });
    }
  }
  return found;
}

/** Every valid address a page's lines publish, in their links and in their text, lower-cased. */
export function addressesIn(lines: PageLine[]): string[] {
  const found = new Set<string>();
  for (const line of lines) {
    for (const e of [...(line.emails ?? []), ...(line.text.match(EMAIL_IN_TEXT) ?? [])]) found.add(e.toLowerCase());
  }
  return [...found].filter((e) => checkEmail(e).ok);
}
