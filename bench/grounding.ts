/**
 * `npm run eval:grounding`: the grounding check (domain/outreach/grounding.ts) against a model stand-in
 * that invents facts at a known rate (contract "Drafts that do not invent": at least 95 % of invented
 * numbers and names caught, at most 2 % of honest drafts flagged).
 *
 * N draft-writing cases are generated from seeded fixture briefs (amounts, dwellings, floor areas,
 * dates, places, people, companies, project titles). Each goes through the real
 * OpenAiCompatibleDraftWriter over HTTP to a local OpenAI-compatible stand-in (test/helpers/chat-server.ts)
 * that reads the facts and names from the prompt and writes a draft: honest (the facts rephrased, numbers
 * and dates written otherwise than in the fact, the recipient, company, sender and products) or, in a known
 * fraction, the same with one invented number, amount, date, person, company or project name. The check
 * runs on what the writer answered; a flagged draft is written once more with `avoid` (the stand-in then
 * writes honestly), as writeDraft does.
 *
 * Options: --n (500), --rate (0.3), --seed (7).
 */
import { seededRandom } from './stats';
import { OpenAiCompatibleDraftWriter } from '../activities/draft-writer';
import { allowPrivateDestinations } from '../activities/providers/destination';
import type { OutreachBrief } from '../domain/outreach/brief';
import type { DraftInput } from '../domain/outreach/draft';
import { checkGrounding, draftEvidence, MAX_CHARS, normaliseWord } from '../domain/outreach/grounding';
import { startChatServer } from '../test/helpers/chat-server';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const N = arg('n', 500);
const RATE = arg('rate', 0.3);
const SEED = arg('seed', 7);

const rng = seededRandom;
let rand = rng(SEED);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
const chance = (p: number) => rand() < p;

// --- Fixture pools (facts and invented claims come from disjoint pools) -----------------------------

const FIRST = ['Pieter', 'Marieke', 'Jeroen', 'Sanne', 'Kees', 'Anouk', 'Thomas', 'Lotte', 'Bram', 'Femke', 'Ruud', 'Ilse', 'Daan', 'Noor'];
const LAST = [
  'de Vries',
  'van den Berg',
  'Jansen',
  'Bakker',
  'Visser',
  'Smit',
  'de Jong',
  'Mulder',
  'van Dijk',
  'Bos',
  'Vermeulen',
  'ter Horst',
  'Hendriks',
  'Dekker',
];
const INVENTED_FIRST = ['Willem', 'Esther', 'Maarten', 'Joyce', 'Hugo', 'Carlijn', 'Stefan', 'Mirjam'];
const INVENTED_LAST = ['Kramer', 'van Leeuwen', 'Brouwer', 'de Graaf', 'Koster', 'van der Meer', 'Prins', 'Huisman'];
const COMPANIES = [
  'Jansen Bouw B.V.',
  'Bouwbedrijf Mulder',
  'Van Wijk Installatietechniek',
  'Stam & Zonen',
  'Hoogvliet Vastgoed N.V.',
  'Studio Noord Architecten',
  'Bergstaete Ontwikkeling',
];
const RECIPIENT_COMPANIES = ['Woonstichting Eigen Haard', 'Gemeente Amersfoort', 'Portaal', 'Stichting Onderwijs Midden', 'Ymere', 'Zorggroep Oost'];
const INVENTED_COMPANIES = [
  'Heijmans',
  'Dura Vermeer',
  'BAM Bouw en Techniek',
  'VolkerWessels',
  'Ballast Nedam',
  'Van Hattem en Blankevoort',
  'Koopmans Bouwgroep',
  'Strukton Worksphere',
];
const PLACES = ['Utrecht', 'Amersfoort', 'Zwolle', 'Den Bosch', 'Haarlem', 'Leeuwarden', 'Breda', 'Nijmegen', 'Apeldoorn'];
const INVENTED_PLACES = ['Roermond', 'Hoorn', 'Deventer', 'Emmen', 'Vlissingen', 'Tiel'];
const OBJECTS = [
  'basisschool De Regenboog',
  'zorgcentrum Het Anker',
  'woontoren De Kroon',
  'sporthal Zuiderpark',
  'kantoor Stationsplein',
  'wijk Parkkwartier',
  'campus Hoge Weide',
];
const INVENTED_PROJECTS = ['De Groene Kaap', 'Zuidas Poort', 'Havenkwartier Noord', 'Het Spoorpark', 'Campus Westerdok', 'De Lichtfabriek'];
const WORKS = ['Nieuwbouw', 'Renovatie', 'Transformatie', 'Uitbreiding', 'Verduurzaming'];
const PRODUCTS = ['Bouwplaatsbeveiliging', 'Tijdelijke huisvesting', 'Bouwliften', 'Energiemonitoring'];
const STAGES = ['tender', 'permit granted', 'planning'];
const TITLES = ['Projectmanager', 'Directeur Vastgoed', 'Head of Procurement', 'Inkoper', 'Asset manager'];
const MONTHS_NL = ['januari', 'februari', 'maart', 'april', 'mei', 'juni', 'juli', 'augustus', 'september', 'oktober', 'november', 'december'];
const MONTHS_EN = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

const person = (first: readonly string[], last: readonly string[]) => `${pick(first)} ${pick(last)}`;

interface Case {
  input: DraftInput;
  /** What the stand-in invents in this case (null: an honest draft). */
  invent: { kind: Kind; text: string } | null;
}
type Kind = 'number' | 'amount' | 'date' | 'person' | 'company' | 'project';
const KINDS: Kind[] = ['number', 'amount', 'date', 'person', 'company', 'project'];

function fixtureCase(i: number): Omit<Case, 'invent'> {
  const place = pick(PLACES);
  const dwellings = int(12, 420);
  const title = chance(0.5) ? `${pick(WORKS)} ${dwellings} woningen ${place}` : `${pick(WORKS)} ${pick(OBJECTS)}`;
  const amount = int(120, 6000) * 10_000;
  const area = int(8, 250) * 100;
  const published = new Date(Date.UTC(int(2026, 2027), int(0, 11), int(1, 28)));
  const url = `https://aanbestedingen.example/${i}`;
  const facts: OutreachBrief['facts'] = [
    { claim: `Published: "${title}"`, sourceUrl: url },
    { claim: `Published on ${published.toISOString().slice(0, 10)}`, sourceUrl: url },
    { claim: `Stated amount: EUR ${amount.toLocaleString('en-GB')}`, sourceUrl: url },
  ];
  if (chance(0.7)) facts.push({ claim: `${dwellings.toLocaleString('en-GB')} dwellings`, sourceUrl: url });
  if (chance(0.5)) facts.push({ claim: `${area.toLocaleString('en-GB')} m2 floor area`, sourceUrl: url });
  facts.push({ claim: `Location: ${place}`, sourceUrl: url });
  facts.push({ claim: `Stage: ${pick(STAGES)}`, sourceUrl: url });
  if (chance(0.6)) facts.push({ claim: `Project lead: ${person(FIRST, LAST)}`, sourceUrl: url });
  if (chance(0.6)) facts.push({ claim: `Developer: ${pick(COMPANIES)}`, sourceUrl: url });
  if (chance(0.3)) facts.push({ claim: `Start of construction: ${published.getUTCFullYear() + 1}`, sourceUrl: url });
  const nl = chance(0.6);
  return {
    input: {
      channel: 'email',
      position: 1,
      followUp: false,
      instructions: null,
      brief: {
        version: 1,
        opportunityId: `opp-${i}`,
        signal: { id: `sig-${i}`, title, url },
        facts,
        scoreReasons: [],
        products: [{ key: 'p', name: pick(PRODUCTS), matched: [] }],
        personas: [],
      },
      campaign: { name: 'Woningbouw Midden-Nederland', goal: null },
      contact: { fullName: person(FIRST, LAST), title: pick(TITLES) },
      company: { name: pick(RECIPIENT_COMPANIES) },
      locale: nl ? 'nl-NL' : 'en-GB',
      formality: chance(0.6) ? 'formal' : 'informal',
      sender: { name: person(FIRST, LAST) },
    },
  };
}

// --- The stand-in model: reads the prompt, writes a draft ------------------------------------------

/** What the stand-in reads from the writer's prompt (renderDraftPrompt). */
function readPrompt(user: string) {
  const line = (prefix: string) =>
    user
      .split('\n')
      .find((l) => l.startsWith(prefix))
      ?.slice(prefix.length) ?? '';
  const recipient = line('Recipient: ');
  const facts = user
    .split('Facts:\n')[1]!
    .split('\nProducts:')[0]!
    .split('\n')
    .map((l) => l.replace(/^- /, '').replace(/ \[[^\]]*\]$/, ''));
  return {
    contact: recipient.split(',')[0]!.split(' at ')[0]!,
    company: recipient.split(' at ').slice(-1)[0]!,
    sender: line('Sender: '),
    product: line('Products: ').split(', ')[0]!,
    facts,
    avoid: user.includes('Your previous draft stated'),
  };
}

const nlNumber = (n: number, decimals = 0) => n.toLocaleString('nl-NL', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
const enNumber = (n: number, decimals = 0) => n.toLocaleString('en-GB', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
const factNumber = (s: string) => Number(s.replace(/,/g, ''));

/** An amount as a writer would put it: rounded to millions in words, or in full with the other thousands mark. */
function amountWords(eur: number, nl: boolean): string {
  const m = eur / 1e6;
  const d = m < 10 ? 2 : 1;
  return nl
    ? pick([
        `€ ${nlNumber(m, d)} miljoen`,
        `ruim ${nlNumber(Math.floor(m * 10) / 10, 1)} mln euro`,
        `EUR ${enNumber(m, d)} mln`,
        `€ ${nlNumber(eur)}`,
        `${nlNumber(m, d)} miljoen euro`,
        `circa €${nlNumber(m, 1)} mln`,
      ])
    : pick([`EUR ${enNumber(m, d)} million`, `€${enNumber(m, 1)}m`, `€ ${enNumber(eur)}`, `some ${enNumber(m, 1)} million euros`, `EUR ${enNumber(m, d)}m`]);
}

function dateWords(iso: string, nl: boolean): string {
  const [y, mo, d] = iso.split('-').map(Number) as [number, number, number];
  return nl
    ? pick([
        `${d} ${MONTHS_NL[mo - 1]} ${y}`,
        `${d} ${MONTHS_NL[mo - 1]}`,
        `${MONTHS_NL[mo - 1]} ${y}`,
        `${String(d).padStart(2, '0')}-${String(mo).padStart(2, '0')}-${y}`,
      ])
    : pick([`${MONTHS_EN[mo - 1]} ${d}, ${y}`, `${d} ${MONTHS_EN[mo - 1]} ${y}`, `${MONTHS_EN[mo - 1]} ${d}`, `${MONTHS_EN[mo - 1]} ${y}`, iso]);
}

/** One sentence per fact, in varied words. */
function factSentence(fact: string, nl: boolean): string | null {
  let m: RegExpMatchArray | null;
  if ((m = fact.match(/^Published: "(.*)"$/))) {
    const title = m[1]!;
    return nl
      ? pick([`Ik las over het project "${title}".`, `Via de publicatie over ${title} kwam ik bij u uit.`, `Uw project ${title} trok mijn aandacht.`])
      : pick([`I read about the project "${title}".`, `The publication on ${title} caught my eye.`, `I came across your plans for ${title}.`]);
  }
  if ((m = fact.match(/^Published on (\d{4}-\d{2}-\d{2})$/))) {
    const d = dateWords(m[1]!, nl);
    return nl
      ? pick([`Het plan werd op ${d} gepubliceerd.`, `Sinds ${d} ligt het plan ter inzage.`])
      : pick([`It was published on ${d}.`, `The plan has been public since ${d}.`]);
  }
  if ((m = fact.match(/^Stated amount: EUR ([\d,]+)$/))) {
    const a = amountWords(factNumber(m[1]!), nl);
    return nl
      ? pick([`Het budget bedraagt ${a}.`, `Er is ${a} voor begroot.`, `Met een investering van ${a} is het een flink project.`])
      : pick([`The budget is ${a}.`, `With ${a} set aside, it is a sizeable project.`]);
  }
  if ((m = fact.match(/^([\d,]+) dwellings$/))) {
    const n = factNumber(m[1]!);
    return nl
      ? pick([`Het gaat om ${n} woningen.`, `Er komen ${n} nieuwe woningen.`])
      : pick([`It covers ${n} homes.`, `Some ${n} dwellings are planned.`, `${n} apartments are planned.`]);
  }
  if ((m = fact.match(/^([\d,]+) m2 floor area$/))) {
    const n = factNumber(m[1]!);
    return nl
      ? pick([`Het vloeroppervlak is ${nlNumber(n)} m2.`, `Met ${n} m² bvo is er veel te doen.`])
      : pick([`The floor area is ${enNumber(n)} square metres.`, `With ${n}m² of floor space there is a lot to do.`]);
  }
  if ((m = fact.match(/^Location: (.*)$/)))
    return nl
      ? pick([`Het project ligt in ${m[1]}.`, `Wij zijn zelf ook actief in de regio ${m[1]}.`])
      : pick([`The site is in ${m[1]}.`, `We work in and around ${m[1]} as well.`]);
  if ((m = fact.match(/^Project lead: (.*)$/))) {
    const full = m[1]!;
    const last = full.split(' ').slice(1).join(' ');
    const lastCap = last.charAt(0).toUpperCase() + last.slice(1);
    return nl
      ? pick([`Ik begreep dat ${full} het project leidt.`, `Volgens de publicatie is mevrouw/meneer ${lastCap} projectleider.`])
      : pick([`I understand ${full} leads the project.`, `${full} is named as project lead.`, `According to the notice, Mr ${lastCap} leads it.`]);
  }
  if ((m = fact.match(/^Developer: (.*)$/))) {
    const c = chance(0.5) ? m[1]!.replace(/ (B\.V\.|N\.V\.)$/, '') : m[1]!;
    return nl ? pick([`${c} ontwikkelt het plan.`, `De ontwikkeling ligt bij ${c}.`]) : pick([`${c} is developing the scheme.`, `The developer is ${c}.`]);
  }
  if ((m = fact.match(/^Start of construction: (\d{4})$/))) return nl ? `De bouw start in ${m[1]}.` : `Construction starts in ${m[1]}.`;
  if ((m = fact.match(/^Stage: (.*)$/))) return nl ? `Het project is in de fase ${m[1]}.` : `The project is at the ${m[1]} stage.`;
  return null;
}

/** An invented claim of a kind, and the sentence that carries it; never in the facts (pools are disjoint, numbers checked). */
function invention(kind: Kind, nl: boolean, factNumbers: number[]): { text: string; sentence: string } {
  const fresh = (lo: number, hi: number) => {
    for (;;) {
      const n = int(lo, hi);
      if (factNumbers.every((f) => Math.abs(f - n) > Math.max(1, f * 0.02))) return n;
    }
  };
  switch (kind) {
    case 'number': {
      const n = fresh(3, 900);
      const text = String(n);
      return {
        text,
        sentence: nl
          ? pick([
              `Er komen ook ${n} parkeerplaatsen bij.`,
              `Het ontwerp telt ${n} appartementen.`,
              `Ongeveer ${n} procent is sociale huur.`,
              `Naar verwachting werken er ${n} mensen op de bouwplaats.`,
            ])
          : pick([
              `The plan also adds ${n} parking spaces.`,
              `It includes ${n} social-rent units.`,
              `Roughly ${n}% of the homes will be affordable.`,
              `About ${n} workers will be on site.`,
            ]),
      };
    }
    case 'amount': {
      let m = 0;
      do m = int(12, 600) / 10;
      while (factNumbers.some((f) => Math.abs(f - m * 1e6) <= f * 0.05));
      const text = nl ? `€ ${nlNumber(m, 1)} miljoen` : `EUR ${enNumber(m, 1)} million`;
      return {
        text,
        sentence: nl
          ? pick([`Daarnaast is ${text} gereserveerd voor de openbare ruimte.`, `De gemeente draagt ${text} bij.`])
          : pick([`A further ${text} goes to the public space.`, `The council contributes ${text}.`]),
      };
    }
    case 'date': {
      const y = int(2028, 2031);
      const mo = int(1, 12);
      const d = int(1, 28);
      const text = nl
        ? pick([`${d} ${MONTHS_NL[mo - 1]} ${y}`, `${MONTHS_NL[mo - 1]} ${y}`])
        : pick([`${MONTHS_EN[mo - 1]} ${d}, ${y}`, `${MONTHS_EN[mo - 1]} ${y}`]);
      return {
        text,
        sentence: nl
          ? pick([`De oplevering staat gepland voor ${text}.`, `Op ${text} sluit de inschrijving.`])
          : pick([`Completion is planned for ${text}.`, `Bids close on ${text}.`]),
      };
    }
    case 'person': {
      const text = person(INVENTED_FIRST, INVENTED_LAST);
      return {
        text,
        sentence: nl
          ? pick([
              `Ik sprak eerder met ${text} over dit soort projecten.`,
              `${text} noemde uw naam als aanspreekpunt.`,
              `Volgens ${text} start de aanbesteding binnenkort.`,
            ])
          : pick([`I spoke with ${text} about projects like this.`, `${text} mentioned you as the contact.`, `According to ${text}, the tender opens soon.`]),
      };
    }
    case 'company': {
      const text = pick(INVENTED_COMPANIES);
      return {
        text,
        sentence: nl
          ? pick([`Ik zag dat ${text} de uitvoering doet.`, `${text} is als hoofdaannemer gekozen.`, `Wij werkten eerder samen met ${text}.`])
          : pick([`I noticed ${text} is the main contractor.`, `${text} has been selected to build it.`, `We worked with ${text} on a similar job.`]),
      };
    }
    case 'project': {
      const text = pick(INVENTED_PROJECTS);
      const where = pick(INVENTED_PLACES);
      return {
        text: `${text} ${where}`,
        sentence: nl
          ? pick([`Het lijkt op ${text} in ${where}, waar wij ook bij betrokken waren.`, `Net als bij ${text} in ${where} kunnen wij snel schakelen.`])
          : pick([`It resembles ${text} in ${where}, where we were involved too.`, `As on ${text} in ${where}, we can start quickly.`]),
      };
    }
  }
}

/** The plan the eval gives the stand-in for the next request (which kind it invents, if any). */
let plan: Kind | null = null;
let invented: { kind: Kind; text: string } | null = null;

function standIn(request: any): string {
  const system: string = request.messages[0].content;
  const p = readPrompt(request.messages[1].content);
  const nl = system.includes('in Dutch');
  const formal = system.includes('formal register') && !system.includes('informal register');
  const first = p.contact.split(' ')[0]!;
  const greeting = nl
    ? formal
      ? pick([`Geachte ${p.contact},`, `Beste ${p.contact},`])
      : `Beste ${first},`
    : formal
      ? pick([`Dear ${p.contact},`, `Dear ${first},`])
      : pick([`Hi ${first},`, `Hello ${first},`]);
  const chosen = p.facts.filter(() => chance(0.75));
  const sentences = chosen.map((f) => factSentence(f, nl)).filter((s): s is string => s !== null);
  const factNumbers = p.facts.flatMap((f) => [...f.matchAll(/\d[\d,]*/g)].map((m) => factNumber(m[0])));
  invented = null;
  if (plan && !p.avoid) {
    const inv = invention(plan, nl, factNumbers);
    invented = { kind: plan, text: inv.text };
    sentences.splice(int(0, sentences.length), 0, inv.sentence);
  }
  const about = nl
    ? pick([`Voor ${p.company} kunnen wij helpen met ${p.product.toLowerCase()}.`, `Wij leveren ${p.product} aan opdrachtgevers zoals ${p.company}.`])
    : pick([`We help organisations like ${p.company} with ${p.product}.`, `Our ${p.product} service could help ${p.company} here.`]);
  const ask = nl
    ? pick(['Zullen we binnenkort kort bellen?', 'Heeft u volgende week een kwartier voor een gesprek?', 'Past een gesprek van 20 minuten?'])
    : pick(['Would a short call next week suit you?', 'Do you have 15 minutes for a call?', 'Shall we find a moment to talk?']);
  const close = nl ? pick(['Met vriendelijke groet,', 'Hartelijke groet,', 'Groet,']) : pick(['Kind regards,', 'Best regards,', 'Best,']);
  const titleFact = p.facts.find((f) => f.startsWith('Published: '))?.slice('Published: "'.length, -1) ?? '';
  const subject = nl
    ? pick([`Uw project ${titleFact}`, `Vraag over ${titleFact}`, `${p.product} voor ${p.company}`])
    : pick([`Your project ${titleFact}`, `Question about ${titleFact}`, `${p.product} for ${p.company}`]);
  const body = [greeting, sentences.join(' '), about, ask, `${close}\n${p.sender}`].join('\n\n');
  return JSON.stringify({ subject, body, confidence: 0.7, risks: [] });
}

// --- The run -------------------------------------------------------------------------------------

/** Whether the checker's answer names the invented claim (shares a word or a number with it). */
function names(unsupported: string[], text: string): boolean {
  const words = (s: string) =>
    new Set(
      s
        .split(/\s+/)
        .map((w) => normaliseWord(w).replace(/[^\p{L}\p{N}]/gu, ''))
        .filter((w) => w.length > 1 && !['van', 'der', 'de', 'den', 'ter', 'en', 'miljoen', 'million', 'eur'].includes(w)),
    );
  const want = words(text);
  return unsupported.some((u) => [...words(u)].some((w) => want.has(w)));
}

async function main() {
  allowPrivateDestinations(true);
  const chat = await startChatServer('stand-in-writer', standIn);
  const writer = new OpenAiCompatibleDraftWriter({ baseUrl: chat.baseUrl, model: 'stand-in-writer' });
  rand = rng(SEED);
  const cases: Case[] = [];
  for (let i = 0; i < N; i++) {
    const c = fixtureCase(i);
    cases.push({ ...c, invent: chance(RATE) ? { kind: KINDS[i % KINDS.length]!, text: '' } : null });
  }
  const perKind = new Map<Kind, { total: number; caught: number }>(KINDS.map((k) => [k, { total: 0, caught: 0 }]));
  let honest = 0;
  let flagged = 0;
  let retried = 0;
  let cleanAfterRetry = 0;
  let checkMs = 0;
  const misses: string[] = [];
  const falsePositives: string[] = [];
  for (const c of cases) {
    plan = c.invent?.kind ?? null;
    const written = await writer.write(c.input);
    const inv = invented;
    const evidence = draftEvidence(c.input);
    const t0 = performance.now();
    const { unsupported } = checkGrounding(written, evidence);
    checkMs += performance.now() - t0;
    if (inv) {
      const k = perKind.get(inv.kind)!;
      k.total++;
      if (names(unsupported, inv.text)) k.caught++;
      else misses.push(`${inv.kind} "${inv.text}" -> [${unsupported.join(' | ')}]`);
    } else {
      honest++;
      if (unsupported.length) {
        flagged++;
        falsePositives.push(`[${unsupported.join(' | ')}] in: ${written.body.replace(/\n+/g, ' / ').slice(0, 300)}`);
      }
    }
    if (unsupported.length) {
      retried++;
      plan = null;
      const again = await writer.write({ ...c.input, avoid: unsupported });
      if (checkGrounding(again, evidence).unsupported.length === 0) cleanAfterRetry++;
    }
  }
  await chat.close();

  const pct = (a: number, b: number) => (b ? ((100 * a) / b).toFixed(1) : '-');
  const inventedTotal = [...perKind.values()].reduce((s, k) => s + k.total, 0);
  const caught = [...perKind.values()].reduce((s, k) => s + k.caught, 0);
  console.log(`grounding eval: ${N} drafts through OpenAiCompatibleDraftWriter, invention rate ${RATE}, seed ${SEED}`);
  console.log(
    `invented facts caught: ${caught} / ${inventedTotal} (${pct(caught, inventedTotal)} %)   target >= 95 %   ${caught >= 0.95 * inventedTotal ? 'OK' : 'MISSED'}`,
  );
  for (const [kind, k] of perKind)
    console.log(`  ${kind.padEnd(8)} ${String(k.caught).padStart(4)} / ${String(k.total).padEnd(4)} (${pct(k.caught, k.total)} %)`);
  console.log(`honest drafts flagged: ${flagged} / ${honest} (${pct(flagged, honest)} %)   target <= 2 %   ${flagged <= 0.02 * honest ? 'OK' : 'MISSED'}`);
  console.log(`flagged drafts written again with avoid: ${retried}, clean after the retry: ${cleanAfterRetry}`);
  console.log(`check time: ${(checkMs / (N + retried)).toFixed(3)} ms per draft`);
  // Hostile text at the input's bound (MAX_CHARS), as draft and as every piece of evidence: what the
  // linear scan and the once-per-distinct-claim lookups cost at worst, beside a draft's own check.
  const hostile: Record<string, string> = {
    'digits and commas': '1,'.repeat(MAX_CHARS),
    'one capital word repeated': 'A '.repeat(MAX_CHARS),
    'particles repeated': 'Van '.repeat(MAX_CHARS),
    'dates glued': '12-'.repeat(MAX_CHARS),
    'company suffixes glued': 'B.V.'.repeat(MAX_CHARS),
    'distinct names': Array.from({ length: 2000 }, (_, i) => `Naam${i} Achter${i}`).join(' en '),
  };
  for (const [what, text] of Object.entries(hostile)) {
    const t0 = performance.now();
    checkGrounding({ subject: text, body: text }, { facts: [{ claim: text }], sources: [text], known: [text] });
    console.log(`hostile input (${what}, ${MAX_CHARS} characters read): ${(performance.now() - t0).toFixed(1)} ms`);
  }
  if (process.argv.includes('--verbose')) {
    for (const m of misses) console.log(`miss: ${m}`);
    for (const f of falsePositives) console.log(`false positive: ${f}`);
  } else {
    for (const m of misses.slice(0, 5)) console.log(`miss: ${m}`);
    for (const f of falsePositives.slice(0, 5)) console.log(`false positive: ${f}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
