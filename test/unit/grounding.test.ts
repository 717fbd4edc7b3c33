import { createSequenceActivities } from '../../activities/sequence';
import type { DraftWriter } from '../../activities/draft-writer';
import { renderDraftPrompt } from '../../activities/draft-writer';
import type { DB } from '../../db/pool';
import type { DraftInput, WrittenDraft } from '../../domain/outreach/draft';
import { checkGrounding, draftEvidence, extractClaims, MAX_CHARS, risksAfterEdit } from '../../domain/outreach/grounding';
import { writtenDraftStatus } from '../../domain/outreach/messages';

const facts = [
  { claim: 'Published: "Nieuwbouw 48 woningen Parkkwartier"' },
  { claim: 'Published on 2027-03-12' },
  { claim: 'Stated amount: EUR 14,500,000' },
  { claim: '3,200 m2 floor area' },
  { claim: 'Location: Utrecht' },
  { claim: 'Project lead: Marieke van den Berg' },
  { claim: 'Developer: Jansen Bouw B.V.' },
];
const known = ['Pieter de Vries', 'Woonstichting Eigen Haard', 'Anna Smit', 'Bouwplaatsbeveiliging'];
const evidence = { facts, known };
const check = (body: string, subject: string | null = null) => checkGrounding({ subject, body }, evidence).unsupported;

describe('numbers and amounts', () => {
  test.each([
    ['€ 14,5 miljoen', 'Dutch decimal comma and a scale word'],
    ['EUR 14.5 mln', 'English decimal point and mln'],
    ['14.500.000 euro', 'Dutch thousands marks'],
    ['€14.5m', 'a glued m after a currency'],
    ['ruim 14,4 miljoen euro', 'a hedge widens the rounding to one unit'],
    ['3200m²', 'a glued m without a currency is metres'],
    ['48 woningen', 'a count'],
    ['3.200 m2', 'the other thousands mark'],
  ])('%s is supported (%s)', (text) => {
    expect(check(`Het project van ${text} spreekt mij aan.`)).toEqual([]);
  });

  test.each([
    ['€ 3,2 miljoen', '€ 3,2 miljoen'],
    ['EUR 14.5 billion', 'EUR 14.5 billion'],
    ['52 woningen', '52'],
    ['120 parking spaces', '120'],
    ['12%', '12%'],
  ])('%s is invented', (text, claim) => {
    expect(check(`The plan has ${text} in it.`)).toEqual([claim]);
  });

  test('a rounding is supported, a number off by more is not', () => {
    expect(check('Het budget is € 14,5 miljoen.', null)).toEqual([]);
    expect(check('Het budget is € 14,7 miljoen.')).toEqual(['€ 14,7 miljoen']);
  });

  test('a meeting length is the writer’s offer, not a claim', () => {
    expect(check('Past een gesprek van 20 minuten? Or a 15-minute call?')).toEqual([]);
  });
});

describe('dates', () => {
  test.each(['12 maart 2027', 'March 12, 2027', '12 March', 'maart 2027', '12-03-2027', '2027-03-12', 'in 2027'])('%s is supported', (text) => {
    expect(check(`Gepubliceerd op ${text}, las ik.`)).toEqual([]);
  });

  test.each([
    ['14 april 2028', '14 april 2028'],
    ['March 13, 2027', 'March 13 2027'],
    ['juni 2027', 'juni 2027'],
    ['in 2029', '2029'],
  ])('%s is invented', (text, claim) => {
    expect(check(`Oplevering: ${text} volgens de planning.`)).toEqual([claim]);
  });

  test('"may" the verb is no month', () => {
    expect(check('We may 12 times ask.')).toEqual(['12']);
  });
});

describe('names', () => {
  test('the facts’ people, companies, places and the known names are supported, spelled otherwise too', () => {
    expect(
      check(
        'Beste Pieter,\n\nIk las dat Marieke van den Berg het project in Utrecht leidt, met Jansen Bouw als ontwikkelaar. Mevrouw Van den Berg noemde het. Gisteren belde Marieke van Jansen Bouw. Ook Jansen Bouw ontwikkelt. ' +
          'Voor Woonstichting Eigen Haard leveren wij Bouwplaatsbeveiliging.\n\nMet vriendelijke groet,\nAnna Smit',
        'Uw project Nieuwbouw Parkkwartier',
      ),
    ).toEqual([]);
  });

  test.each([
    ['Ik sprak met Willem Kramer over het project.', 'Willem Kramer'],
    ['Willem Kramer noemde uw naam.', 'Willem Kramer'],
    ['I noticed Dura Vermeer is the contractor.', 'Dura Vermeer'],
    ['VolkerWessels has been selected.', 'VolkerWessels'],
    ['Wij werkten met Koopmans Bouwgroep B.V. samen.', 'Koopmans Bouwgroep B.V.'],
    ['It resembles De Groene Kaap in Roermond.', 'Groene Kaap'],
    ['I spoke with Marieke Kramer.', 'Marieke Kramer'],
    ['Marieke van Dijk leidt het.', 'Marieke van Dijk'],
  ])('%s is invented', (body, claim) => {
    expect(check(body)).toEqual(expect.arrayContaining([claim]));
  });

  test('accents and case do not matter', () => {
    expect(
      checkGrounding({ subject: null, body: 'Ik las over Café Noord in Utrecht.' }, { facts: [{ claim: 'Cafe NOORD opent' }], known: [] }).unsupported,
    ).toEqual(['Utrecht']);
  });

  test('greetings, pronouns, months and weekdays are no names', () => {
    expect(extractClaims('Dear Sir,\n\nI hope you are well. Shall we talk on Monday or in March? Kind regards')).toEqual([]);
  });

  test('the source text a fact points at supports a claim', () => {
    const body = 'De gemeente draagt € 2,1 miljoen bij, en aannemer Heijmans bouwt.';
    expect(checkGrounding({ subject: null, body: `Ook ${body}` }, { facts: [] }).unsupported).toEqual(['€ 2,1 miljoen', 'Heijmans']);
    expect(checkGrounding({ subject: null, body: `Ook ${body}` }, { facts: [], sources: ['Subsidie € 2.100.000; aannemer Heijmans.'] }).unsupported).toEqual(
      [],
    );
  });
});

test('a draft that uses only the facts passes, English and Dutch', () => {
  expect(
    check(
      'Dear Mr De Vries,\n\nI came across your plans for Nieuwbouw 48 woningen Parkkwartier, published on March 12, 2027. ' +
        'With EUR 14.5 million set aside and 3,200 square metres of floor area, Jansen Bouw B.V. has a sizeable job in Utrecht.\n\nKind regards,\nAnna Smit',
      'Your project Nieuwbouw 48 woningen Parkkwartier',
    ),
  ).toEqual([]);
  expect(
    check(
      'Geachte heer De Vries,\n\nSinds 12 maart ligt het plan ter inzage. Het gaat om 48 woningen en ruim 14,5 mln euro. Marieke van den Berg leidt het.\n\nGroet,\nAnna Smit',
    ),
  ).toEqual([]);
});

test('a long hostile input is read only up to MAX_CHARS, and a claim repeated is one claim', () => {
  // Its time is measured by the eval (npm run eval:grounding prints it beside the draft's), not asserted here.
  const hostile = [
    '1,'.repeat(200_000),
    'A '.repeat(200_000),
    'Van '.repeat(200_000),
    '12-'.repeat(200_000),
    'B.V.'.repeat(100_000),
    `${'x'.repeat(MAX_CHARS)} Willem Kramer`,
  ];
  for (const body of hostile) {
    const r = checkGrounding({ subject: body, body }, { facts: [{ claim: body }], sources: [body], known: [body] });
    expect(r.unsupported.length).toBeLessThanOrEqual(MAX_CHARS);
  }
  expect(check('Wij werken met Zorgvlied Aannemers. '.repeat(2000)).filter((c) => c.includes('Zorgvlied'))).toHaveLength(1);
  // What comes after MAX_CHARS is not read.
  expect(check(`${'x'.repeat(MAX_CHARS)} Willem Kramer`)).toEqual([]);
});

describe('writeDraft with a model writer', () => {
  const input: DraftInput = {
    channel: 'email',
    position: 1,
    followUp: false,
    instructions: null,
    brief: {
      version: 1,
      opportunityId: 'o',
      signal: { id: 's', title: 'Nieuwbouw 48 woningen Parkkwartier', url: 'https://x.example' },
      facts: facts.map((f) => ({ ...f, sourceUrl: 'https://x.example' })),
      scoreReasons: [],
      products: [{ key: 'p', name: 'Bouwplaatsbeveiliging', matched: [] }],
      personas: [],
    },
    campaign: { name: 'Woningbouw', goal: null },
    contact: { fullName: 'Pieter de Vries', title: 'Inkoper' },
    company: { name: 'Woonstichting Eigen Haard' },
    locale: 'nl-NL',
    formality: 'formal',
    sender: { name: 'Anna Smit' },
  };
  const draft = (body: string): WrittenDraft => ({
    subject: 'Uw project',
    body,
    model: 'm',
    promptKey: 'sequence-draft',
    promptVersion: '1',
    confidence: 0.8,
    risks: [],
  });
  const activities = (answers: WrittenDraft[]) => {
    const calls: DraftInput[] = [];
    const writer: DraftWriter = {
      write: async (i) => {
        calls.push(i);
        return answers[Math.min(calls.length - 1, answers.length - 1)]!;
      },
    };
    return { calls, a: createSequenceActivities({ db: null as unknown as DB, draftWriterFor: async () => writer }) };
  };

  test('a grounded draft is answered as it is, with one call', async () => {
    const { calls, a } = activities([draft('Het gaat om 48 woningen in Utrecht.')]);
    expect(await a.writeDraft({ organizationId: 'org', input })).toMatchObject({ risks: [] });
    expect(calls).toHaveLength(1);
  });

  test('an unsupported claim is written once more with avoid; fixed, the second draft goes', async () => {
    const { calls, a } = activities([draft('Het gaat om 52 woningen.'), draft('Het gaat om 48 woningen.')]);
    expect(await a.writeDraft({ organizationId: 'org', input })).toMatchObject({ body: 'Het gaat om 48 woningen.', risks: [] });
    expect(calls.map((c) => c.avoid)).toEqual([undefined, ['52']]);
    expect(renderDraftPrompt(calls[1]!).user).toContain('"52"');
  });

  test('still unsupported after the second try: unsupported_claim risks, and review whatever the mode', async () => {
    const { calls, a } = activities([draft('Willem Kramer noemde 52 woningen.')]);
    const written = await a.writeDraft({ organizationId: 'org', input });
    expect(calls).toHaveLength(2);
    expect(written.risks).toEqual(['unsupported_claim: 52', 'unsupported_claim: Willem Kramer']);
    expect(writtenDraftStatus('approved', written.risks)).toBe('pending_approval');
    expect(writtenDraftStatus('approved', ['no_sourced_facts'])).toBe('approved');
    expect(writtenDraftStatus('task_open', written.risks)).toBe('task_open');
  });

  test('the known names come from the input', () => {
    expect(draftEvidence(input).known).toEqual(expect.arrayContaining(['Pieter de Vries', 'Woonstichting Eigen Haard', 'Anna Smit', 'Bouwplaatsbeveiliging']));
  });
});

describe('risksAfterEdit', () => {
  const evidence = { facts: [{ claim: 'Aanvraag omgevingsvergunning: 48 woningen, bouwsom EUR 14,5 mln' }], known: ['Pieter Bakker'] };
  const before = { subject: 'Uw project', body: 'Beste Pieter, uw plan voor 48 woningen viel ons op.' };

  test('an edit that adds an invented claim gets it as a risk; other risks stay', () => {
    const r = risksAfterEdit(['no_sourced_facts'], evidence, before, { subject: 'Uw project', body: `${before.body} Wij bouwden 120 woningen voor Heijmans.` });
    expect(r.risks[0]).toBe('no_sourced_facts');
    expect(r.unsupported).toEqual(expect.arrayContaining(['120']));
    expect(r.risks.filter((x) => x.startsWith('unsupported_claim: '))).toHaveLength(r.unsupported.length);
  });

  test('an edit that keeps to the draft and its facts has no unsupported claim; a flagged claim edited out is no longer a risk', () => {
    expect(risksAfterEdit([], evidence, before, { subject: 'Uw project', body: 'Beste Pieter, 48 woningen, EUR 14,5 mln: mooi plan.' }).risks).toEqual([]);
    const flagged = ['unsupported_claim: 120'];
    const withIt = { subject: null, body: 'Wij bouwden 120 woningen.' };
    expect(risksAfterEdit(flagged, evidence, withIt, withIt).risks).toEqual(flagged);
    expect(risksAfterEdit(flagged, evidence, withIt, { subject: null, body: 'Wij bouwen woningen.' }).risks).toEqual([]);
  });
});

test('honest drafts in a model’s own style (a meeting tool, 24/7, a holiday, a signature’s job title) are not flagged; an invented name beside them is', () => {
  const facts = [
    { claim: 'Aanvraag omgevingsvergunning: nieuwbouw 48 woningen met warmtepompen aan de Catharijnesingel, Utrecht (aanvrager Bouwbedrijf Jansen B.V.)' },
    { claim: 'Bouwsom EUR 14,5 mln' },
  ];
  const known = ['Pieter Bakker', 'Projectleider', 'Bouwbedrijf Jansen B.V.', 'Sanne de Verkoper'];
  const honest = [
    'Beste Pieter,\n\nIk zag dat Bouwbedrijf Jansen een vergunning heeft aangevraagd voor 48 woningen aan de Catharijnesingel in Utrecht. Zullen we volgende week een kort Teams-gesprek plannen?\n\nMet vriendelijke groet,\nSanne de Verkoper',
    'Hi Pieter,\n\nCongratulations on the permit application for 48 homes in Utrecht. With a building budget of around EUR 14.5 million, the heat pump choice matters. We support contractors 24/7 during installation.\n\nBest regards,\nSanne',
    'Geachte heer Bakker,\n\nGefeliciteerd met de aanvraag aan de Catharijnesingel. Heeft u in de week na Kerst tijd voor een kennismaking?\n\nVriendelijke groet,\nSanne de Verkoper\nAccount Manager',
  ];
  for (const body of honest) expect(checkGrounding({ subject: 'Uw project in Utrecht', body }, { facts, known }).unsupported).toEqual([]);
  expect(checkGrounding({ subject: null, body: `${honest[0]}\nOok Van Wijnen werkt met ons via Teams.` }, { facts, known }).unsupported.join()).toMatch(
    /Van Wijnen/,
  );
});

test('a subject and a body at their limits are read to the end', () => {
  const subject = 'Uw project '.repeat(18);
  const body = `${'Goed plan. '.repeat(1800)}Wij bouwden 37 woningen voor Heijmans Vastgoed.`;
  expect(subject.length + body.length).toBeGreaterThan(20_000);
  expect(checkGrounding({ subject, body }, { facts: [], known: [] }).unsupported).toEqual(expect.arrayContaining(['37', 'Heijmans Vastgoed']));
});
