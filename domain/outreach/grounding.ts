/**
 * The grounding check of a model-written draft (interface contract "Drafts that do not invent"):
 * every number, amount, date and name (person, company, project) in the draft must appear in a
 * cited fact, in the source text a fact points at, or among the words the writer may use without a
 * fact (`known`: the recipient's name and company, the sender, the step's own words). What is not
 * found is answered as `unsupported`, in the draft's own spelling.
 *
 * The draft is untrusted text (a model wrote it from a publication anyone can write), so it is read by
 * one left-to-right pass into tokens and claims are taken from the tokens with a bounded look-ahead:
 * no regular expression runs over the text as a whole, and the input is cut at MAX_CHARS. Pure.
 */

import type { DraftInput } from './draft';

/** How much of a draft (subject and body) and of the evidence is read at most. */
export const MAX_CHARS = 25_000;

export interface GroundingDraft {
  subject: string | null;
  body: string;
}

export interface GroundingEvidence {
  facts: Array<{ claim: string }>;
  /** The source texts the facts point at (the publication), when the caller has them. */
  sources?: string[];
  /** What the writer may use without a fact: the recipient, the company, the sender, the step's words. */
  known?: string[];
}

export type ClaimKind = 'number' | 'date' | 'name';

export interface Claim {
  kind: ClaimKind;
  /** The claim as the draft spells it. */
  text: string;
}

// ---------------------------------------------------------------------------------------------------
// The rule's data, in one place.
// ---------------------------------------------------------------------------------------------------

/** Words that scale the number before them ("14,5 mln", "€ 2.3 million"); also as a suffix ("2.3m", "10k"). */
const SCALES: Record<string, number> = {
  k: 1e3,
  duizend: 1e3,
  thousand: 1e3,
  dzd: 1e3,
  m: 1e6,
  mln: 1e6,
  mio: 1e6,
  miljoen: 1e6,
  miljoenen: 1e6,
  million: 1e6,
  millions: 1e6,
  mn: 1e6,
  mld: 1e9,
  mrd: 1e9,
  miljard: 1e9,
  billion: 1e9,
  bn: 1e9,
};
/** Currency words before an amount ("EUR 14.5 mln"). */
const CURRENCY_WORDS = new Set(['eur', 'euro', 'usd', 'gbp', 'chf']);
/** Suffixes that scale only glued to an amount's digits ("€2.3m"): otherwise they are units ("5 m", "500m" are metres). */
const GLUED_ONLY_SCALES = new Set(['k', 'm']);

/**
 * Numbers before these words are how the writer proposes a call ("a 20-minute call"), not claims about
 * the project: a meeting's length is the writer's own offer.
 */
const CONVERSATIONAL_UNITS = new Set(['minute', 'minutes', 'minuten', 'minuutjes', 'min', 'minuut']);

/**
 * Words that hedge the number after them ("ruim 19,5 mln" for 19,580,000): the number may be off by one
 * unit of its last digit instead of half of one (a rounding).
 */
const HEDGES = new Set([
  'ruim',
  'circa',
  'ca',
  'ongeveer',
  'zo',
  'bijna',
  'rond',
  'rondom',
  'zon',
  'meer',
  'dan',
  'over',
  'about',
  'around',
  'some',
  'roughly',
  'approximately',
  'approx',
  'nearly',
  'almost',
  'than',
  'upwards',
  'under',
  'onder',
  'minder',
  'less',
  'ruwweg',
  'grofweg',
]);

/** Month names and abbreviations, Dutch and English (German and French share most). */
const MONTHS: Record<string, number> = {};
for (const [n, names] of [
  [1, 'january jan januari janvier januar'],
  [2, 'february feb februari fevrier februar'],
  [3, 'march mar maart mrt mars marz'],
  [4, 'april apr avril'],
  [5, 'may mei mai'],
  [6, 'june jun juni juin'],
  [7, 'july jul juli juillet'],
  [8, 'august aug augustus aout'],
  [9, 'september sep sept septembre'],
  [10, 'october oct oktober okt octobre'],
  [11, 'november nov novembre'],
  [12, 'december dec decembre dezember'],
] as const) {
  for (const name of names.split(' ')) MONTHS[name] = n;
}
/** Month words that are ordinary words too ("may", "march", "mars"): a month only when capitalised or next to a day. */
const AMBIGUOUS_MONTHS = new Set(['may', 'mar', 'march', 'jan', 'mars', 'dec', 'sept', 'aug', 'jun', 'jul', 'oct', 'nov', 'feb', 'apr', 'sep']);

/** Name particles that join a name's parts ("Marieke van den Berg", "Bergen op Zoom", "Bouw & Co"). */
const PARTICLES = new Set([
  'van',
  'der',
  'den',
  'de',
  'het',
  "'t",
  'ter',
  'ten',
  'te',
  'von',
  'zu',
  'du',
  'la',
  'le',
  'di',
  'da',
  'del',
  'op',
  'aan',
  '&',
  'of',
  'and',
  'en',
]);
/** Particles that may end nothing: a name never ends in "van" or "&". */
const INNER_ONLY = PARTICLES;

/** Company suffixes, also spelled with dots: part of a company's name, never a sentence's end. */
const DOTTED = [
  'B.V.',
  'N.V.',
  'V.O.F.',
  'C.V.',
  'Mr.',
  'Mrs.',
  'Ms.',
  'Dr.',
  'Dhr.',
  'Mevr.',
  'Ir.',
  'Ing.',
  'Drs.',
  'Prof.',
  'St.',
  'e.g.',
  'i.e.',
  'o.a.',
  'bijv.',
  't.a.v.',
  'z.g.a.n.',
  'a.s.',
  'etc.',
  'p.s.',
  'P.S.',
];

/**
 * Capitalised words that are not names: pronouns, greetings, closings, titles, weekdays, languages and
 * the abbreviations of units and currencies. A sequence of these alone is no claim; one at a
 * sequence's edge is left off it ("Dear Pieter" claims "Pieter").
 */
const NOT_NAMES = new Set(
  (
    'i me my we our us you your he she they it its this that these those the a an and or but if so as at in on of for to by with from ' +
    'ik wij we ons onze uw u jij je jullie hij zij ze het dit dat deze die een en of maar als bij in op van voor met aan naar om ' +
    'dear hi hello hey beste geachte hallo goedemorgen goedemiddag beste regards kind best met vriendelijke groet groeten cheers thanks thank bedankt dank ' +
    'mr mrs ms dr dhr mevr ir ing drs prof heer mevrouw sir madam re fwd fw ps p.s. ' +
    'monday tuesday wednesday thursday friday saturday sunday maandag dinsdag woensdag donderdag vrijdag zaterdag zondag ' +
    'dutch english german french nederlands engels duits frans european europese ' +
    'eur usd gbp chf euro euros ok btw avg gdpr kpi roi ceo cfo cto coo vat bv nv m2 m3 km ha q1 q2 q3 q4 ' +
    'subject onderwerp step stap ' +
    // Holidays: when to meet, not a fact about the project.
    'kerst kerstmis christmas xmas pasen easter pinksteren whitsun nieuwjaar koningsdag ' +
    // Where to meet: the tools everyone names.
    'teams zoom meet google outlook linkedin whatsapp webex skype ' +
    // The words of job titles (a signature's "Account Manager", "Sales Director").
    'manager account sales director directeur adviseur consultant engineer specialist projectleider founder oprichter ' +
    'owner eigenaar partner lead hoofd head officer coordinator coördinator team'
  ).split(' '),
);

/** A capitalised word that is no name: in NOT_NAMES, or a compound whose first part is ("Teams-gesprek"). */
function notName(text: string): boolean {
  if (NOT_NAMES.has(normaliseWord(text))) return true;
  const dash = text.indexOf('-');
  return dash > 0 && NOT_NAMES.has(normaliseWord(text.slice(0, dash)));
}

/** Numbers that are phrases, not figures ("24/7 support"). */
const FIXED_NUMBER_PHRASES = new Set(['24/7', '24x7', '7/24']);
/** Company suffixes: they belong to the name before them. */
const COMPANY_SUFFIXES = new Set([
  'b.v.',
  'n.v.',
  'v.o.f.',
  'c.v.',
  'bv',
  'nv',
  'gmbh',
  'ag',
  'ltd',
  'inc',
  'llc',
  'plc',
  'sa',
  'sarl',
  'bvba',
  'holding',
  'group',
  'groep',
]);

// ---------------------------------------------------------------------------------------------------
// One pass into tokens.
// ---------------------------------------------------------------------------------------------------

interface Token {
  kind: 'word' | 'number' | 'currency' | 'percent';
  text: string;
  /** The first token of a sentence (after . ! ? : ; a newline or the text's start). */
  start: boolean;
  /** A word's first letter is a capital. */
  cap: boolean;
  /** For numbers: letters glued to the digits ("m" of "2.3m", "th" of "12th"). */
  suffix?: string;
}

const isDigit = (c: string) => c >= '0' && c <= '9';
const LETTER = /\p{L}/u;
const UPPER = /\p{Lu}/u;
// One character at a time: these regular expressions never see more than one code unit.
const isLetter = (c: string) => c.length > 0 && (LETTER.test(c) || c === '\u00b4');
const isUpper = (c: string) => UPPER.test(c);

/** A capital after the first letter: "VolkerWessels", "BAM" (never an ordinary word starting a sentence). */
function innerCapital(word: string): boolean {
  for (let i = 1; i < word.length; i++) if (isUpper(word[i]!)) return true;
  return false;
}

function tokenize(text: string): Token[] {
  const s = text.slice(0, MAX_CHARS);
  const tokens: Token[] = [];
  let start = true;
  let i = 0;
  const n = s.length;
  while (i < n) {
    const c = s[i]!;
    if (c === '\n' || c === '.' || c === '!' || c === '?' || c === ':' || c === ';') {
      start = true;
      i++;
      continue;
    }
    if (isDigit(c)) {
      let j = i + 1;
      // Digits with inner separators: "14,5", "2.300.000", "2027-03-12", "12/03/2027".
      while (j < n && (isDigit(s[j]!) || ((s[j] === '.' || s[j] === ',' || s[j] === '-' || s[j] === '/') && j + 1 < n && isDigit(s[j + 1]!)))) j++;
      let k = j;
      while (k < n && k - j < 12 && isLetter(s[k]!)) k++;
      const suffix = k > j && !(k < n && (isLetter(s[k]!) || isDigit(s[k]!))) ? s.slice(j, k) : undefined;
      tokens.push({ kind: 'number', text: s.slice(i, j), start, cap: false, ...(suffix ? { suffix } : {}) });
      start = false;
      i = suffix ? k : j;
      // A word glued to digits that is no suffix ("2e8xyz"): read on as a word, never as a sentence start.
      continue;
    }
    if (c === '€' || c === '$' || c === '£') {
      tokens.push({ kind: 'currency', text: c, start, cap: false });
      start = false;
      i++;
      continue;
    }
    if (c === '%') {
      tokens.push({ kind: 'percent', text: c, start: false, cap: false });
      i++;
      continue;
    }
    if (c === '&') {
      tokens.push({ kind: 'word', text: '&', start, cap: false });
      start = false;
      i++;
      continue;
    }
    if (isLetter(c)) {
      const dotted = DOTTED.find((d) => s.startsWith(d, i) && !(i + d.length < n && isLetter(s[i + d.length]!)));
      if (dotted) {
        tokens.push({ kind: 'word', text: dotted, start, cap: isUpper(c) });
        start = false;
        i += dotted.length;
        continue;
      }
      let j = i + 1;
      // Letters, digits and inner hyphens or apostrophes: "Noord-Holland", "O'Brien", "A12", "Jansen's".
      while (j < n && (isLetter(s[j]!) || isDigit(s[j]!) || ((s[j] === '-' || s[j] === "'" || s[j] === '’') && j + 1 < n && isLetter(s[j + 1]!)))) j++;
      let word = s.slice(i, j);
      if (word.endsWith("'s") || word.endsWith('’s')) word = word.slice(0, -2);
      tokens.push({ kind: 'word', text: word, start, cap: isUpper(c) });
      start = false;
      i = j;
      continue;
    }
    // Spaces, commas, quotes, brackets, dashes: nothing, and no sentence boundary.
    i++;
  }
  return tokens;
}

// ---------------------------------------------------------------------------------------------------
// Normalising.
// ---------------------------------------------------------------------------------------------------

/** Lower case, no accents, no dots or apostrophes: "Café B.V." and "cafe bv" are the same. */
export function normaliseWord(w: string): string {
  return w
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[.'’´]/g, '');
}

/** A number's possible values: "14,5" is 14.5; "14,500" is 14500 or 14.5; "2.300.000" is 2300000. Each with its precision. */
function numberValues(raw: string): Array<{ value: number; step: number }> {
  const seps = [...raw].filter((c) => c === '.' || c === ',');
  if (seps.length === 0) return [{ value: Number(raw), step: 1 }];
  const groups = raw.split(/[.,]/); // the raw text is digits and separators only (from the tokenizer)
  const last = groups[groups.length - 1]!;
  const digits = groups.join('');
  const asThousands = groups.slice(1).every((g) => g.length === 3) && groups[0]!.length <= 3 && groups[0]!.length > 0;
  const out: Array<{ value: number; step: number }> = [];
  const distinct = new Set(seps);
  if (distinct.size === 1 && seps.length === 1) {
    // One separator: a decimal mark, or a thousands mark when three digits follow.
    out.push({ value: Number(`${groups[0]}.${last}`), step: 10 ** -last.length });
    if (asThousands) out.push({ value: Number(digits), step: 1 });
  } else if (distinct.size === 1) {
    if (asThousands) out.push({ value: Number(digits), step: 1 });
  } else {
    // Both marks: the last is the decimal one ("14.500,25", "14,500.25").
    const int = groups.slice(0, -1).join('');
    out.push({ value: Number(`${int}.${last}`), step: 10 ** -last.length });
  }
  if (out.length === 0) out.push({ value: Number(digits), step: 1 });
  return out.filter((v) => Number.isFinite(v.value));
}

interface DateKey {
  y?: number;
  m?: number;
  d?: number;
}

/** "2027-03-12", "12-03-2027", "12/03/2027" (and 03/12/2027 read either way). */
function numericDate(raw: string): DateKey[] | null {
  const parts = raw.split(/[-/]/);
  if (parts.length !== 3 || parts.some((p) => p.length === 0 || p.length > 4)) return null;
  const [a, b, c] = parts.map(Number) as [number, number, number];
  const valid = (k: DateKey) => k.m! >= 1 && k.m! <= 12 && k.d! >= 1 && k.d! <= 31;
  const keys: DateKey[] =
    parts[0]!.length === 4
      ? [{ y: a, m: b, d: c }]
      : [
          { y: c, m: b, d: a },
          { y: c, m: a, d: b },
        ];
  const ok = keys.filter(valid);
  return ok.length ? ok : null;
}

const monthOf = (t: Token | undefined): number | null => {
  if (!t || t.kind !== 'word') return null;
  const m = MONTHS[normaliseWord(t.text)];
  return m ?? null;
};
const dayOf = (t: Token | undefined): number | null => {
  if (!t || t.kind !== 'number' || !/^\d{1,2}$/.test(t.text)) return null;
  if (t.suffix && !['st', 'nd', 'rd', 'th', 'e', 'ste', 'de'].includes(t.suffix.toLowerCase())) return null;
  const d = Number(t.text);
  return d >= 1 && d <= 31 ? d : null;
};
const yearOf = (t: Token | undefined): number | null => {
  if (!t || t.kind !== 'number' || t.suffix || !/^\d{4}$/.test(t.text)) return null;
  const y = Number(t.text);
  return y >= 1900 && y <= 2199 ? y : null;
};

// ---------------------------------------------------------------------------------------------------
// Claims.
// ---------------------------------------------------------------------------------------------------

interface NumberClaim {
  text: string;
  values: Array<{ value: number; step: number }>;
  /** Preceded by a hedge ("ruim", "about"). */
  hedged?: boolean;
}
interface DateClaim {
  text: string;
  keys: DateKey[];
}

interface Extracted {
  numbers: NumberClaim[];
  dates: DateClaim[];
  names: Array<{ words: string[]; start: boolean }>;
  nameTexts: string[];
}

function extract(text: string): Extracted {
  const tokens = tokenize(text);
  const numbers: NumberClaim[] = [];
  const dates: DateClaim[] = [];
  const used = new Uint8Array(tokens.length);

  // Dates and numbers: a bounded look-ahead of three tokens at each token.
  for (let i = 0; i < tokens.length; i++) {
    if (used[i]) continue;
    const t = tokens[i]!;
    const next = tokens[i + 1];
    if (t.kind === 'number') {
      if (FIXED_NUMBER_PHRASES.has(t.text.toLowerCase())) {
        used[i] = 1;
        continue;
      }
      if (t.text.includes('-') || t.text.includes('/')) {
        const keys = numericDate(t.text);
        used[i] = 1;
        if (keys) dates.push({ text: t.text, keys });
        else for (const part of t.text.split(/[-/]/)) numbers.push({ text: part, values: numberValues(part) });
        continue;
      }
      const day = dayOf(t);
      const month = monthOf(next);
      if (day !== null && month !== null) {
        // "12 maart 2027", "12th of March" is not read; "12 March".
        const year = yearOf(tokens[i + 2]);
        used[i] = used[i + 1] = 1;
        if (year !== null) used[i + 2] = 1;
        dates.push({ text: [t.text, next!.text, year ?? ''].join(' ').trim(), keys: [{ m: month, d: day, ...(year !== null ? { y: year } : {}) }] });
        continue;
      }
      used[i] = 1;
      if (next && next.kind === 'word' && CONVERSATIONAL_UNITS.has(normaliseWord(next.text))) continue;
      if (t.suffix && CONVERSATIONAL_UNITS.has(normaliseWord(t.suffix))) continue;
      let scale = 1;
      let claimText = t.text + (t.suffix ?? '');
      const glued = t.suffix ? normaliseWord(t.suffix) : null;
      const prev = tokens[i - 1];
      const afterCurrency = !!prev && !t.start && (prev.kind === 'currency' || (prev.kind === 'word' && CURRENCY_WORDS.has(normaliseWord(prev.text))));
      // "€2.3m" is millions; "500m" and "3200m²" are metres.
      if (glued && SCALES[glued] && (afterCurrency || !GLUED_ONLY_SCALES.has(glued))) scale = SCALES[glued]!;
      else if (next && next.kind === 'word' && SCALES[normaliseWord(next.text)] && !GLUED_ONLY_SCALES.has(normaliseWord(next.text))) {
        scale = SCALES[normaliseWord(next.text)]!;
        claimText = `${t.text} ${next.text}`;
        used[i + 1] = 1;
      }
      if (afterCurrency) claimText = `${prev.text} ${claimText}`;
      if (next && next.kind === 'percent') claimText += '%';
      const before = afterCurrency ? tokens[i - 2] : prev;
      const hedged = !!before && before.kind === 'word' && HEDGES.has(normaliseWord(before.text));
      numbers.push({ text: claimText, values: numberValues(t.text).map((v) => ({ value: v.value * scale, step: v.step * scale })), hedged });
      continue;
    }
    const month = monthOf(t);
    if (month !== null && (t.cap || !AMBIGUOUS_MONTHS.has(normaliseWord(t.text)))) {
      const day = dayOf(next);
      if (day !== null) {
        // "March 12", "March 12, 2027".
        const year = yearOf(tokens[i + 2]);
        used[i] = used[i + 1] = 1;
        if (year !== null) used[i + 2] = 1;
        dates.push({ text: [t.text, next!.text, year ?? ''].join(' ').trim(), keys: [{ m: month, d: day, ...(year !== null ? { y: year } : {}) }] });
        continue;
      }
      const year = yearOf(next);
      if (year !== null) {
        // "maart 2027".
        used[i] = used[i + 1] = 1;
        dates.push({ text: `${t.text} ${next!.text}`, keys: [{ m: month, y: year }] });
        continue;
      }
      // A month alone ("in March"): no claim, and no name.
      used[i] = 1;
    }
  }

  // Names: runs of capitalised words joined by particles, not counting a single word that starts a sentence.
  const names: Extracted['names'] = [];
  const nameTexts: string[] = [];
  let run: Token[] = [];
  const flush = () => {
    const all = run;
    run = [];
    // Leave off what is no name at the edges: particles at the end, greetings and pronouns at either end
    // (by index, then one slice: a long run of such words costs its length, not its square).
    const edge = (w: Token) => (INNER_ONLY.has(w.text.toLowerCase()) || notName(w.text) || !w.cap) && !COMPANY_SUFFIXES.has(normaliseWord(w.text));
    let lo = 0;
    let hi = all.length;
    while (lo < hi && edge(all[lo]!)) lo++;
    while (hi > lo && edge(all[hi - 1]!)) hi--;
    const words = all.slice(lo, hi);
    const startsSentence = lo === 0 && (all[0]?.start ?? false);
    const capitalised = words.filter((w) => w.cap && !notName(w.text) && !PARTICLES.has(w.text.toLowerCase()));
    if (capitalised.length === 0) return;
    // One capitalised word starting a sentence is any word, unless a capital inside marks it a name
    // ("VolkerWessels", "BAM"); two or more are a name ("Jan de Vries leads").
    if (startsSentence && capitalised.length < 2 && !(capitalised.length === 1 && innerCapital(capitalised[0]!.text))) return;
    names.push({ words: words.map((w) => normaliseWord(w.text)).filter((w) => w.length > 0), start: startsSentence });
    nameTexts.push(words.map((w) => w.text).join(' '));
  };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const joins =
      !used[i] &&
      t.kind === 'word' &&
      (run.length === 0 || !t.start) &&
      (t.cap || (run.length > 0 && (PARTICLES.has(t.text.toLowerCase()) || COMPANY_SUFFIXES.has(normaliseWord(t.text)))));
    if (!joins) {
      if (run.length) flush();
      // A capitalised word that starts a new sentence starts a new run.
      if (!used[i] && t.kind === 'word' && t.cap) run.push(t);
      continue;
    }
    run.push(t);
  }
  if (run.length) flush();
  return { numbers, dates, names, nameTexts };
}

/** Everything the draft claims, in its own spelling (for tests and the eval's reading). */
export function extractClaims(text: string): Claim[] {
  const e = extract(text);
  return [
    ...e.numbers.map((n) => ({ kind: 'number' as const, text: n.text })),
    ...e.dates.map((d) => ({ kind: 'date' as const, text: d.text })),
    ...e.nameTexts.map((t) => ({ kind: 'name' as const, text: t })),
  ];
}

// ---------------------------------------------------------------------------------------------------
// The check.
// ---------------------------------------------------------------------------------------------------

interface Support {
  values: number[];
  dates: DateKey[];
  years: Set<number>;
  /** The evidence's words, normalised, "|" between two texts; and where each word stands. */
  list: string[];
  positions: Map<string, number[]>;
}

function support(texts: string[]): Support {
  const values: number[] = [];
  const dates: DateKey[] = [];
  const years = new Set<number>();
  const words: string[] = [];
  let budget = MAX_CHARS * 4;
  for (const raw of texts) {
    if (budget <= 0) break;
    const text = raw.slice(0, Math.min(MAX_CHARS, budget));
    budget -= text.length;
    const e = extract(text);
    for (const n of e.numbers) for (const v of n.values) values.push(v.value);
    for (const d of e.dates)
      for (const k of d.keys) {
        dates.push(k);
        if (k.y !== undefined) years.add(k.y);
      }
    for (const t of tokenize(text)) {
      if (t.kind === 'word') words.push(normaliseWord(t.text));
      else if (t.kind === 'number') {
        words.push(t.text);
        const y = yearOf(t);
        if (y !== null) years.add(y);
      }
    }
    words.push('|');
  }
  const positions = new Map<string, number[]>();
  words.forEach((w, i) => {
    const at = positions.get(w);
    if (at) at.push(i);
    else positions.set(w, [i]);
  });
  return { values, dates, years, list: words, positions };
}

/** A number is supported when some evidence value rounds to it at the draft's precision ("14,5 mln" for 14,532,000). */
function numberSupported(n: NumberClaim, s: Support): boolean {
  const tolerance = n.hedged ? 1 : 0.5;
  return n.values.some(
    ({ value, step }) => s.values.some((v) => Math.abs(v - value) <= step * tolerance + Math.abs(value) * 1e-9) || (step === 1 && s.years.has(value)),
  );
}

/** A date is supported by an evidence date that agrees on every part the draft gives. */
function dateSupported(d: DateClaim, s: Support): boolean {
  return d.keys.some((k) =>
    s.dates.some((e) => (k.y === undefined || e.y === k.y) && (k.m === undefined || e.m === k.m) && (k.d === undefined || e.d === k.d)),
  );
}

/** How many evidence words may stand between two of a name's words ("Nieuwbouw Parkkwartier" for "Nieuwbouw 48 woningen Parkkwartier"). */
const NAME_GAP = 2;

/** The name's words in the evidence in this order, each within NAME_GAP words of the one before. */
function foundInOrder(part: string[], s: Support): boolean {
  const core = part.filter((w) => !COMPANY_SUFFIXES.has(w) && !NOT_NAMES.has(w));
  if (core.length === 0) return true;
  for (const at of s.positions.get(core[0]!) ?? []) {
    let pos = at;
    let ok = true;
    for (const w of core.slice(1)) {
      let next = -1;
      for (let k = pos + 1; k <= pos + 1 + NAME_GAP && k < s.list.length; k++) {
        if (s.list[k] === '|') break;
        if (s.list[k] === w) {
          next = k;
          break;
        }
      }
      if (next < 0) {
        ok = false;
        break;
      }
      pos = next;
    }
    if (ok) return true;
  }
  return false;
}

/**
 * A name is supported when its words appear together in the evidence (a company suffix, a title may be
 * left off), or when each part between its particles does ("Marieke van Jansen Bouw": Marieke, Jansen
 * Bouw). A run that starts a sentence may have any word first ("Ook Heijmans"): it is tried without it.
 */
function nameSupported(name: { words: string[]; start: boolean }, s: Support): boolean {
  const tryWords = (words: string[]) => {
    if (foundInOrder(words, s)) return true;
    const parts: string[][] = [[]];
    for (const w of words) {
      if (PARTICLES.has(w)) parts.push([]);
      else parts[parts.length - 1]!.push(w);
    }
    const filled = parts.filter((p) => p.length > 0);
    return filled.length > 1 && filled.every((p) => foundInOrder(p, s));
  };
  return tryWords(name.words) || (name.start && name.words.length > 1 && tryWords(name.words.slice(1)));
}

export function checkGrounding(draft: GroundingDraft, evidence: GroundingEvidence): { unsupported: string[] } {
  // The tokenizer reads MAX_CHARS at most.
  const text = `${draft.subject ?? ''}\n${draft.body}`;
  const claims = extract(text);
  const s = support([...evidence.facts.map((f) => f.claim), ...(evidence.sources ?? []), ...(evidence.known ?? [])]);
  const unsupported: string[] = [];
  // Each distinct claim is looked up once: a text that repeats one claim costs what the claim costs.
  const seen = new Set<string>();
  const first = (key: string) => !seen.has(key) && !!seen.add(key);
  for (const n of claims.numbers) if (first(`n:${n.text}:${JSON.stringify(n.values)}:${n.hedged}`) && !numberSupported(n, s)) unsupported.push(n.text);
  for (const d of claims.dates) if (first(`d:${d.text}:${JSON.stringify(d.keys)}`) && !dateSupported(d, s)) unsupported.push(d.text);
  claims.names.forEach((name, i) => {
    if (first(`w:${name.start}:${name.words.join(' ')}`) && !nameSupported(name, s)) unsupported.push(claims.nameTexts[i]!);
  });
  return { unsupported: [...new Set(unsupported)] };
}

/** The risk a draft carries for each unsupported claim (why.risks). */
export const UNSUPPORTED_CLAIM_RISK = 'unsupported_claim';
export const unsupportedClaimRisk = (text: string) => `${UNSUPPORTED_CLAIM_RISK}: ${text.slice(0, 150)}`;

/**
 * What a sequence draft may say without a fact: the recipient (name, title, company), the sender, the
 * campaign's name and goal, the step's instructions and variant subject, the products and the signal's
 * title. The rejected draft's text is not among them (it may hold the very claim that was rejected);
 * the person's reason is.
 */
export function draftEvidence(input: DraftInput): GroundingEvidence {
  const known = [
    input.contact.fullName,
    input.contact.title,
    input.company.name,
    input.sender.name,
    input.campaign.name,
    input.campaign.goal,
    input.instructions,
    input.variant?.subject,
    input.rejection?.reason,
    input.brief?.signal?.title,
    ...(input.brief?.products.map((p) => p.name) ?? []),
  ].filter((k): k is string => typeof k === 'string' && k.trim().length > 0);
  return { facts: input.brief?.facts ?? [], known };
}

/**
 * A draft's risks after its words were edited (PATCH /messages/{id}, an approval with edits): its
 * `unsupported_claim` risks are made again for the new words. What the draft said before counts as
 * known (the writer's words were checked when written, a template's come from the facts), except
 * the claims already flagged, which stay flagged while the new words still hold them.
 */
export function risksAfterEdit(
  risks: readonly string[],
  evidence: GroundingEvidence,
  before: GroundingDraft,
  after: GroundingDraft,
): { risks: string[]; unsupported: string[] } {
  const prefix = `${UNSUPPORTED_CLAIM_RISK}: `;
  const text = `${after.subject ?? ''}\n${after.body}`;
  const stillThere = risks
    .filter((r) => r.startsWith(prefix))
    .map((r) => r.slice(prefix.length))
    .filter((claim) => claim !== '' && text.includes(claim));
  const fresh = checkGrounding(after, { ...evidence, known: [...(evidence.known ?? []), before.subject ?? '', before.body] }).unsupported;
  const unsupported = [...new Set([...stillThere, ...fresh])].slice(0, 10);
  return { risks: [...risks.filter((r) => !r.startsWith(prefix)), ...unsupported.map(unsupportedClaimRisk)], unsupported };
}
