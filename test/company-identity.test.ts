import { checkEmail, emailHash, isGenericMailbox, normalizeCompanyName, normalizeKvk, recipientKindFor, registrableDomain, toE164 } from '../domain/companies/identity';
import { extractCompanyHint } from '../domain/companies/extract';

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
  expect(extractCompanyHint('whatever', { name: 'Mapped N.V.', kvkNumber: '8765 4321' })).toEqual({ name: 'Mapped N.V.', kvkNumber: '87654321', website: null });
});
