import {
  checkEmail,
  emailHash,
  isGenericMailbox,
  normalizeCompanyName,
  normalizeKvk,
  recipientKindFor,
  registrableDomain,
  toE164,
} from '../../domain/companies/identity';
import { extractCompanyHint } from '../../domain/companies/extract';

test.each([
  ['Bouwbedrijf De Vries B.V.', 'bouwbedrijf de vries'],
  ['BOUWBEDRIJF DE VRIES BV', 'bouwbedrijf de vries'],
  ['De Vries Holding B.V.', 'de vries'],
  ['Installatietechniek Jansen & Zn. V.O.F.', 'installatietechniek jansen en zn'],
  ['Stichting Woonzorg Nederland', 'woonzorg nederland'],
  ['Coöperatie Zonnepark U.A.', 'zonnepark'],
  ['Philips N.V.', 'philips'],
  ['Holding B.V.', 'holding'],
])('normalizeCompanyName(%s) = %s', (name, normalized) => expect(normalizeCompanyName(name)).toBe(normalized));

test('KvK numbers: eight digits, separators dropped', () => {
  expect(normalizeKvk('12345678')).toBe('12345678');
  expect(normalizeKvk('1234 5678')).toBe('12345678');
  expect(normalizeKvk('KvK: 12.34.56.78')).toBe('12345678');
  expect(normalizeKvk('1234567')).toBeNull();
  expect(normalizeKvk('123456789')).toBeNull();
});

test('registrable domains by the public suffix list', () => {
  expect(registrableDomain('https://www.bouwbedrijf-devries.nl/contact')).toBe('bouwbedrijf-devries.nl');
  expect(registrableDomain('shop.example.co.uk')).toBe('example.co.uk');
  expect(registrableDomain('jan@mail.devries.nl')).toBe('devries.nl');
  expect(registrableDomain('localhost')).toBeNull();
});

test('e-mail: syntax and a real public suffix', () => {
  expect(checkEmail(' Jan.de.Vries@DeVries.NL ')).toEqual({ ok: true, email: 'jan.de.vries@devries.nl', domain: 'devries.nl' });
  expect(checkEmail('jan@@devries.nl').ok).toBe(false);
  expect(checkEmail('jan@localhost').ok).toBe(false);
  expect(checkEmail('jan@devries.notatld').ok).toBe(false);
  expect(isGenericMailbox('info@devries.nl')).toBe(true);
  expect(isGenericMailbox('jan@devries.nl')).toBe(false);
  expect(emailHash('Jan@DeVries.nl')).toBe(emailHash('jan@devries.nl'));
});

test('phone numbers to E.164, national numbers read in the company’s country', () => {
  expect(toE164('030 - 123 45 67')).toBe('+31301234567');
  expect(toE164('+32 2 555 12 12', 'NL')).toBe('+3225551212');
  expect(toE164('06 1234 5678')).toBe('+31612345678');
  expect(toE164('12345')).toBeNull();
});

test('legal form decides the recipient kind; a sole trader is a natural person', () => {
  expect(recipientKindFor('bv')).toBe('legal_person');
  expect(recipientKindFor('stichting')).toBe('legal_person');
  expect(recipientKindFor('eenmanszaak')).toBe('natural_person');
  expect(recipientKindFor('vof')).toBe('natural_person');
  expect(recipientKindFor('maatschap')).toBe('natural_person');
  expect(recipientKindFor(undefined)).toBe('legal_person');
});

test('the company a notice names, from a mapping or from the text', () => {
  expect(extractCompanyHint('Aanvrager: Bouwbedrijf Jansen B.V. (KvK 12345678), www.bouwjansen.nl')).toEqual({
    name: 'Bouwbedrijf Jansen B.V.',
    kvkNumber: '12345678',
    website: 'https://www.bouwjansen.nl',
  });
  expect(extractCompanyHint('Aanvraag door Van Dijk Installaties BV voor 12 woningen')).toMatchObject({ name: 'Van Dijk Installaties BV', kvkNumber: null });
  expect(extractCompanyHint('Kapvergunning: 2 bomen')).toBeNull();
  expect(extractCompanyHint('whatever', { name: 'Mapped N.V.', kvkNumber: '8765 4321' })).toEqual({
    name: 'Mapped N.V.',
    kvkNumber: '87654321',
    website: null,
  });
});

// Company domains, published addresses and people on a page -------------------------------------------
import * as cheerio from 'cheerio';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { companyDomain, domainFromAddresses, genericAddressFor, siteDomain } from '../../domain/companies/domains';
import {
  addressesIn,
  emailFitsName,
  looksLikePersonName,
  mergePerson,
  normalizePersonName,
  peopleFromLines,
  type PersonCandidate,
} from '../../domain/companies/people';
import { erasureMarkers, personHash } from '../../domain/compliance/erasure';
import { pageLines } from '../../activities/providers/enrichment/website';

test('a website on an IP address or a hosting subdomain names no company domain', () => {
  expect(companyDomain('https://www.bouwjansen.nl/contact')).toBe('bouwjansen.nl');
  expect(companyDomain('http://127.0.0.1:8080/')).toBeNull();
  expect(companyDomain('https://[2001:db8::1]/')).toBeNull();
  expect(companyDomain('https://devries.wixsite.com/installatie')).toBeNull();
  expect(companyDomain('https://devries.github.io/')).toBeNull();
  expect(companyDomain('localhost')).toBeNull();
  // As a site, a hosting subdomain is its own (links to another wixsite.com site are another site).
  expect(siteDomain('devries.wixsite.com')).toBe('devries.wixsite.com');
  expect(siteDomain('jan@mail.devries.nl')).toBe('devries.nl');
});

test('the domain most published addresses share, free-mail providers left out', () => {
  expect(
    domainFromAddresses([
      'info@devries-installatie.nl',
      'j.devries@devries-installatie.nl',
      'hallo@pixelwebdesign.nl',
      'piet@gmail.com',
      'x@ziggo.nl',
      'y@hotmail.com',
    ]),
  ).toBe('devries-installatie.nl');
  expect(domainFromAddresses(['a@een.nl', 'b@twee.nl'])).toBeNull(); // a tie names nothing
  expect(domainFromAddresses(['jan@gmail.com', 'piet@outlook.com'])).toBeNull();
  expect(domainFromAddresses(['a@een.nl', 'A@EEN.nl', 'b@twee.nl'])).toBeNull(); // distinct addresses count once
  expect(domainFromAddresses([null, undefined, 'not an address', 'k@mail.een.nl', 'l@een.nl'])).toBe('een.nl');
  expect(genericAddressFor(['hallo@pixelwebdesign.nl', 'info@devries-installatie.nl'], 'devries-installatie.nl')).toBe('info@devries-installatie.nl');
  expect(genericAddressFor(['hallo@pixelwebdesign.nl'], 'devries-installatie.nl')).toBeNull();
  expect(genericAddressFor([null, 'info@een.nl'], null)).toBe('info@een.nl');
});

test('erasure markers hash the address and the name within the company; names compare without case, accents or spacing', () => {
  expect(normalizePersonName('  Jan  de Vriës ')).toBe('jan de vries');
  expect(personHash('c1', 'Jan de Vries')).toBe(personHash('c1', 'JAN DE VRIËS'));
  expect(personHash('c1', 'Jan de Vries')).not.toBe(personHash('c2', 'Jan de Vries'));
  expect(personHash('c1', 'Jan de Vries')).toMatch(/^[0-9a-f]{64}$/);
  expect(erasureMarkers({ companyId: 'c1', fullName: 'Jan de Vries', email: null })).toEqual([
    { scope: 'person_hash', value: personHash('c1', 'Jan de Vries') },
  ]);
  expect(erasureMarkers({ companyId: 'c1', fullName: 'Jan de Vries', email: 'J@X.nl' }).map((m) => m.scope)).toEqual(['email_hash', 'person_hash']);
});

test('person names and their addresses', () => {
  for (const name of ['Jan de Vries', 'Fatima el Amrani', 'Jan-Willem van der Berg', 'J. de Vries', 'Kim Jansen'])
    expect([name, looksLikePersonName(name)]).toEqual([name, true]);
  for (const text of ['Neem contact op', 'Ons Team', 'Algemene Vragen', 'Projectleider', 'Jan V.', 'jan de vries', 'Offertes Planning'])
    expect([text, looksLikePersonName(text)]).toEqual([text, false]);
  expect(emailFitsName('j.devries@x.nl', 'Jan de Vries')).toBe(true);
  expect(emailFitsName('f.elamrani@x.nl', 'Fatima el Amrani')).toBe(true);
  expect(emailFitsName('projecten@x.nl', 'Jan de Vries')).toBe(false);
});

test('people in the text of a page: a contact line, a team list, a card, a table row', () => {
  expect(
    peopleFromLines([
      { text: 'Jan de Vries — Projectleider — j.devries@example.nl' },
      { text: 'Marieke Bos | Werkvoorbereider | stuur Marieke een e-mail', emails: ['m.bos@example.nl'] },
      { text: 'Henk Smit, Monteur, tel. 06 2345 6789' },
      { text: 'Algemene Vragen — Klantenservice — 030 123 4567' },
      { text: 'Piet Bakker — Calculator — projecten@example.nl' }, // not his address, no phone: not a find
      { text: 'Fatima el Amrani', group: 1 },
      { text: 'Office manager', group: 1 },
      { text: 'Mail Fatima', emails: ['f.elamrani@example.nl'], group: 1 },
      { text: 'Kees Klaassen', group: 2 }, // a card of its own, without an address
      { text: 'Uitvoerder', group: 3 },
    ]),
  ).toEqual([
    { fullName: 'Jan de Vries', title: 'Projectleider', email: 'j.devries@example.nl', phone: null },
    { fullName: 'Marieke Bos', title: 'Werkvoorbereider', email: 'm.bos@example.nl', phone: null },
    { fullName: 'Henk Smit', title: 'Monteur', email: null, phone: '06 2345 6789' },
    { fullName: 'Fatima el Amrani', title: 'Office manager', email: 'f.elamrani@example.nl', phone: null },
  ]);

  const fixture = (f: string) => cheerio.load(readFileSync(path.join(__dirname, '..', 'fixtures', f), 'utf8'));
  expect(peopleFromLines(pageLines(fixture('website-text/team.html'))).map((p) => [p.fullName, p.title, p.email ?? p.phone])).toEqual([
    ['Henk Smit', 'Monteur', '06 2345 6789'],
    ['Piet Bakker', 'Calculator', 'pietbakker1970@gmail.com'],
    ['Fatima el Amrani', 'Office manager', 'f.elamrani@devries-installatie.nl'],
    ['Kim Jansen', 'Administratie', 'k.jansen@devries-installatie.nl'],
  ]);
  expect(peopleFromLines(pageLines(fixture('website-text/index.html')))).toEqual([]);
  expect(peopleFromLines([{ text: 'Contactpersoon: Jan de Vries — Projectleider — j.devries@example.nl' }])).toEqual([
    { fullName: 'Jan de Vries', title: 'Projectleider', email: 'j.devries@example.nl', phone: null },
  ]);
  // What the pages publish, in links and in text (scripts are not text): the input of the company's domain.
  expect(addressesIn(pageLines(fixture('website-text/index.html'))).sort()).toEqual(['hallo@pixelwebdesign.nl', 'info@devries-installatie.nl']);
  const withScript = cheerio.load('<body><p>Mail <a href="mailto:A@Een.nl">ons</a> of b@een.nl</p><script>var x = "tracker@elders.nl"</script></body>');
  expect(addressesIn(pageLines(withScript)).sort()).toEqual(['a@een.nl', 'b@een.nl']);
});

test('one person found twice is one candidate: by address, else by name; the first find wins and later ones fill gaps', () => {
  const people = new Map<string, PersonCandidate>();
  mergePerson(people, { fullName: 'Jan de Vries', email: 'j.devries@x.nl', source: 'page 1' });
  mergePerson(people, { fullName: 'jan  de vries', title: 'Projectleider', phone: '06 1234 5678', source: 'page 2' });
  mergePerson(people, { fullName: 'J. de Vries', email: 'J.DeVries@x.nl', title: 'Directeur', source: 'page 3' });
  expect([...people.values()]).toEqual([
    { fullName: 'Jan de Vries', title: 'Projectleider', email: 'j.devries@x.nl', phone: '06 1234 5678', linkedinUrl: null, source: 'page 1' },
  ]);
});
