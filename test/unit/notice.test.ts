import {
  art14Notice,
  NOTICE_LANGUAGES,
  NOTICE_WORDS,
  noticeLanguage,
  noticeSource,
  noticeText,
  type NoticeInput,
  type NoticeLanguage,
  type NoticeSource,
  type RecordedSource,
} from '../../domain/outreach/notice';

/**
 * The Art. 14 notice in each language, pure: every line of it follows the message's language, the
 * source of each kind is told in that language, and a name ending in a full stop ("B.V.") gets no
 * second one.
 */
const base: NoticeInput = {
  senderLegalName: 'Acme Installaties B.V.',
  senderAddress: 'Stationsweg 1, 3511 AA Utrecht',
  privacyUrl: 'https://acme-installaties.nl/privacy',
  retentionMonths: 24,
  source: { kind: 'website', companyName: 'Croeselaan Ontwikkeling B.V.' },
  unsubscribeUrl: 'https://outreach.example.nl/u/TOKEN',
};
const text = (language: NoticeLanguage, over: Partial<NoticeInput> = {}) => noticeText(art14Notice({ ...base, ...over }, language));
const lines = (language: NoticeLanguage, over: Partial<NoticeInput> = {}) => text(language, over).split('\n').filter(Boolean);
/** The line that tells the source. */
const sourceLine = (language: NoticeLanguage, source: NoticeSource) => art14Notice({ ...base, source }, language).paragraphs[4]!;

const recorded = (over: Partial<RecordedSource>): RecordedSource => ({
  dataSource: 'manual',
  description: null,
  companyName: 'Croeselaan Ontwikkeling B.V.',
  companyDomain: 'croeselaan.nl',
  ...over,
});

describe('the language of a locale', () => {
  test.each([
    ['nl-NL', 'nl'],
    ['nl-BE', 'nl'],
    ['nl', 'nl'],
    ['NL_nl', 'nl'],
    ['de-DE', 'de'],
    ['de-AT', 'de'],
    ['de_CH', 'de'],
    ['fr-FR', 'fr'],
    ['fr-BE', 'fr'],
    ['fr', 'fr'],
    ['en-GB', 'en'],
    ['es-ES', 'en'],
    ['', 'en'],
    ['nld', 'en'],
  ])('%s -> %s', (locale, language) => expect(noticeLanguage(locale)).toBe(language));
});

describe('the Dutch case: a contact of a company whose name ends in a full stop', () => {
  test('Bron: de openbare website van Croeselaan Ontwikkeling B.V. (one full stop, in Dutch)', () => {
    expect(lines('nl')).toContain('Bron: de openbare website van Croeselaan Ontwikkeling B.V.');
    expect(text('nl')).not.toContain('..');
    expect(text('nl')).not.toMatch(/public website|the /);
  });

  test('the same contact as recorded (manual, no description) reads the same', () => {
    const source = noticeSource(recorded({ dataSource: 'manual', description: null }));
    expect(sourceLine('nl', source)).toBe('Bron: de openbare website van Croeselaan Ontwikkeling B.V.');
  });

  test('a sender whose address ends in a full stop: one full stop on the controller line', () => {
    expect(lines('nl', { senderAddress: 'Stationsweg 1, Utrecht, Ned.' })).toContain(
      'Verwerkingsverantwoordelijke: Acme Installaties B.V., Stationsweg 1, Utrecht, Ned.',
    );
  });
});

describe.each(NOTICE_LANGUAGES.map((l) => [l]))('every line in %s', (language) => {
  const others = NOTICE_LANGUAGES.filter((l) => l !== language);
  /** The fixed words of the other languages' lines (the part before the colon, and whole lines without one). */
  const foreign = others.flatMap((o) => lines(o).map((l) => (l.includes(':') ? l.slice(0, l.indexOf(':') + 1) : l)));

  test.each([['legitimate_interest'], ['consent']] as const)('lawful basis %s: no line of another language, each line its own', (lawfulBasis) => {
    const own = lines(language, { lawfulBasis });
    for (const line of own) for (const f of foreign) expect({ line, starts: line.startsWith(f) }).toEqual({ line, starts: false });
    const w = NOTICE_WORDS[language];
    expect(own[0]).toBe(w.heading);
    expect(own).toContain(w.basis[lawfulBasis]);
    expect(own.at(-1)).toBe(w.objection[lawfulBasis](base.unsubscribeUrl));
  });

  test('the objection is its own paragraph, last, with the link', () => {
    const paragraphs = text(language).split('\n\n');
    expect(paragraphs).toHaveLength(2);
    expect(paragraphs[1]).toContain(base.unsubscribeUrl);
  });
});

/** Each source kind, as recorded and as told in each language. */
const KINDS: Array<{ kind: string; recorded: Partial<RecordedSource> | null; told: Record<NoticeLanguage, string> }> = [
  {
    kind: 'website (the page recorded)',
    recorded: { dataSource: 'website', description: 'company website (https://croeselaan.nl/team)' },
    told: {
      nl: 'Bron: de openbare website van Croeselaan Ontwikkeling B.V. (https://croeselaan.nl/team).',
      en: 'Source: the public website of Croeselaan Ontwikkeling B.V. (https://croeselaan.nl/team).',
      de: 'Quelle: die öffentliche Website von Croeselaan Ontwikkeling B.V. (https://croeselaan.nl/team).',
      fr: 'Source : le site web public de Croeselaan Ontwikkeling B.V. (https://croeselaan.nl/team).',
    },
  },
  {
    kind: 'website (no page recorded: the domain)',
    recorded: { dataSource: 'website', description: null },
    told: {
      nl: 'Bron: de openbare website van Croeselaan Ontwikkeling B.V. (croeselaan.nl).',
      en: 'Source: the public website of Croeselaan Ontwikkeling B.V. (croeselaan.nl).',
      de: 'Quelle: die öffentliche Website von Croeselaan Ontwikkeling B.V. (croeselaan.nl).',
      fr: 'Source : le site web public de Croeselaan Ontwikkeling B.V. (croeselaan.nl).',
    },
  },
  {
    kind: 'enrichment provider Hunter',
    recorded: { dataSource: 'hunter', description: 'hunter.io domain search (croeselaan.nl, confidence 91)' },
    told: {
      nl: 'Bron: Hunter (hunter.io), een dienst die openbaar gepubliceerde zakelijke contactgegevens verzamelt (gezocht op croeselaan.nl).',
      en: 'Source: Hunter (hunter.io), a service that collects business contact details published online (searched for croeselaan.nl).',
      de: 'Quelle: Hunter (hunter.io), ein Dienst, der online veröffentlichte geschäftliche Kontaktdaten sammelt (gesucht nach croeselaan.nl).',
      fr: 'Source : Hunter (hunter.io), un service qui collecte les coordonnées professionnelles publiées en ligne (recherche sur croeselaan.nl).',
    },
  },
  {
    kind: 'import (the description given with it, quoted as typed)',
    recorded: { dataSource: 'import', description: 'Deelnemerslijst Bouwbeurs 2026' },
    told: {
      nl: 'Bron: een door ons geïmporteerde lijst (Deelnemerslijst Bouwbeurs 2026).',
      en: 'Source: a list we imported (Deelnemerslijst Bouwbeurs 2026).',
      de: 'Quelle: eine von uns importierte Liste (Deelnemerslijst Bouwbeurs 2026).',
      fr: 'Source : une liste que nous avons importée (Deelnemerslijst Bouwbeurs 2026).',
    },
  },
  {
    kind: 'manual with a description (as typed, one full stop)',
    recorded: { dataSource: 'manual', description: 'Visitekaartje, Bouwbeurs 2026.' },
    told: {
      nl: 'Bron: Visitekaartje, Bouwbeurs 2026.',
      en: 'Source: Visitekaartje, Bouwbeurs 2026.',
      de: 'Quelle: Visitekaartje, Bouwbeurs 2026.',
      fr: 'Source : Visitekaartje, Bouwbeurs 2026.',
    },
  },
  {
    kind: 'manual without a description',
    recorded: { dataSource: 'manual', description: null },
    told: {
      nl: 'Bron: de openbare website van Croeselaan Ontwikkeling B.V.',
      en: 'Source: the public website of Croeselaan Ontwikkeling B.V.',
      de: 'Quelle: die öffentliche Website von Croeselaan Ontwikkeling B.V.',
      fr: 'Source : le site web public de Croeselaan Ontwikkeling B.V.',
    },
  },
  {
    kind: 'referral (named by a colleague in a reply)',
    recorded: { dataSource: 'referral', description: 'Named by Jan Jansen in a reply (message 1)' },
    told: {
      nl: 'Bron: iemand van Croeselaan Ontwikkeling B.V. die u noemde in een antwoord op ons bericht (geen openbare bron).',
      en: 'Source: someone at Croeselaan Ontwikkeling B.V. who named you in a reply to our message (not a public source).',
      de: 'Quelle: eine Person bei Croeselaan Ontwikkeling B.V., die Sie in einer Antwort auf unsere Nachricht genannt hat (keine öffentliche Quelle).',
      fr: 'Source : une personne de Croeselaan Ontwikkeling B.V. qui a mentionné votre nom dans une réponse à notre message (pas une source publique).',
    },
  },
  {
    kind: 'signal: a public register',
    recorded: { dataSource: 'public_register', description: 'Handelsregister KvK' },
    told: {
      nl: 'Bron: een openbaar register of een openbare bekendmaking (Handelsregister KvK).',
      en: 'Source: a public register or official publication (Handelsregister KvK).',
      de: 'Quelle: ein öffentliches Register oder eine amtliche Bekanntmachung (Handelsregister KvK).',
      fr: 'Source : un registre public ou une publication officielle (Handelsregister KvK).',
    },
  },
  {
    kind: 'someone who wrote to us (no contact)',
    recorded: null,
    told: { nl: 'Bron: uw bericht aan ons.', en: 'Source: your message to us.', de: 'Quelle: Ihre Nachricht an uns.', fr: 'Source : votre message.' },
  },
];

describe.each(KINDS)('source kind: $kind', ({ recorded: r, told }) => {
  test.each(NOTICE_LANGUAGES.map((l) => [l]))('in %s', (language) => {
    const source = noticeSource(r ? recorded(r) : null);
    expect(sourceLine(language, source)).toBe(told[language]);
    expect(text(language, { source })).not.toMatch(/\.\.(?!\.)/);
  });
});

test('another enrichment provider is named by its key, in the language of the message', () => {
  expect(sourceLine('nl', noticeSource(recorded({ dataSource: 'clearbit' })))).toBe(
    'Bron: clearbit, een dienst die openbaar gepubliceerde zakelijke contactgegevens verzamelt (gezocht op croeselaan.nl).',
  );
});

test('a person entered by hand whose address a provider found is told the provider as the source', () => {
  expect(sourceLine('en', noticeSource(recorded({ dataSource: 'manual', description: 'met at the fair', addressFoundBy: 'dropcontact' })))).toMatch(
    /^Source: Dropcontact \(dropcontact\.com\), /,
  );
  expect(sourceLine('nl', noticeSource(recorded({ dataSource: 'import', addressFoundBy: 'apollo' })))).toMatch(/^Bron: Apollo \(apollo\.io\), /);
  // An address the same provider or the company's website gave: the recorded source as before.
  expect(sourceLine('en', noticeSource(recorded({ dataSource: 'manual', description: 'met at the fair', addressFoundBy: 'website' })))).toBe(
    'Source: met at the fair.',
  );
});

test('a description over several lines stays on the source line', () => {
  expect(sourceLine('en', noticeSource(recorded({ dataSource: 'import', description: 'CRM export\n2026 ' })))).toBe(
    'Source: a list we imported (CRM export 2026).',
  );
});

test('retention: one month and several, in each language', () => {
  expect(lines('nl', { retentionMonths: 1 })).toContain('Bewaartermijn: 1 maand na het laatste contact, daarna worden uw gegevens gewist.');
  expect(lines('de', { retentionMonths: 1 })).toContain('Speicherdauer: 1 Monat nach unserem letzten Kontakt; danach werden Ihre Daten gelöscht.');
  expect(lines('de')).toContain('Speicherdauer: 24 Monate nach unserem letzten Kontakt; danach werden Ihre Daten gelöscht.');
  expect(lines('fr')).toContain('Durée de conservation : 24 mois après notre dernier contact ; vos données sont ensuite effacées.');
  expect(lines('en', { retentionMonths: 1 })).toContain('Retention: 1 month after our last contact, after which your data is erased.');
});
