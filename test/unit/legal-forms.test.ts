import { compactLegalForm, LEGAL_FORM_TABLE, parseLegalForm, recipientKindFor } from '../../domain/companies/legal-forms';

const key = (written: string) => parseLegalForm(written)?.key ?? null;

test('the ways people write a legal form all name the same canonical key', () => {
  for (const w of ['B.V.', 'b.v.', 'BV', 'bv', ' B. V. ', 'B V']) expect({ w, key: key(w) }).toEqual({ w, key: 'bv' });
  for (const w of ['N.V.', 'nv', 'NV/SA']) expect({ w, key: key(w) }).toEqual({ w, key: 'nv' });
  for (const w of ['V.O.F.', 'vof', 'Vennootschap onder firma']) expect({ w, key: key(w) }).toEqual({ w, key: 'vof' });
  for (const w of ['Coöperatie', 'cooperatie', 'Coöperatie U.A.']) expect({ w, key: key(w) }).toEqual({ w, key: 'cooperatie' });
  for (const w of ['UG (haftungsbeschränkt)', 'UG', 'ug haftungsbeschrankt']) expect({ w, key: key(w) }).toEqual({ w, key: 'ug' });
  for (const w of ['Ltd', 'Ltd.', 'LIMITED']) expect({ w, key: key(w) }).toEqual({ w, key: 'ltd' });
  for (const w of ['e.K.', 'Einzelunternehmen']) expect({ w, key: key(w) }).toEqual({ w, key: 'einzelunternehmen' });
  expect(key('S.A.R.L.')).toBe('sarl');
  expect(key('S.A.S.')).toBe('sas');
  expect(key('S.A.')).toBe('sa');
  expect(key('P.L.C.')).toBe('plc');
  expect(key('L.L.P.')).toBe('llp');
  expect(key('BV/SRL')).toBe('bv');
  expect(compactLegalForm('UG (haftungsbeschränkt)')).toBe('ughaftungsbeschrankt');
});

test('every legal form of NL, DE, FR, BE and UK maps to its recipient kind; sole traders and partnerships are natural persons', () => {
  const kinds = Object.fromEntries(LEGAL_FORM_TABLE.map((r) => [r.key, r.recipientKind]));
  expect(kinds).toEqual({
    bv: 'legal_person',
    nv: 'legal_person',
    stichting: 'legal_person',
    vereniging: 'legal_person',
    cooperatie: 'legal_person',
    eenmanszaak: 'natural_person',
    vof: 'natural_person',
    maatschap: 'natural_person',
    bvba: 'legal_person',
    srl: 'legal_person',
    sprl: 'legal_person',
    gmbh: 'legal_person',
    ag: 'legal_person',
    ug: 'legal_person',
    einzelunternehmen: 'natural_person',
    sarl: 'legal_person',
    sas: 'legal_person',
    sasu: 'legal_person',
    eurl: 'legal_person',
    sa: 'legal_person',
    entreprise_individuelle: 'natural_person',
    ltd: 'legal_person',
    plc: 'legal_person',
    llp: 'legal_person',
    sole_trader: 'natural_person',
  });
  for (const country of ['NL', 'DE', 'FR', 'BE', 'UK']) {
    const rows = LEGAL_FORM_TABLE.filter((r) => r.countries.includes(country));
    expect({ country, natural: rows.some((r) => r.recipientKind === 'natural_person'), legal: rows.some((r) => r.recipientKind === 'legal_person') }).toEqual({
      country,
      natural: true,
      legal: true,
    });
  }
  expect(recipientKindFor('Sole Trader')).toBe('natural_person');
  expect(recipientKindFor('entreprise individuelle')).toBe('natural_person');
  expect(recipientKindFor('eenmanszaak')).toBe('natural_person');
  expect(recipientKindFor('GmbH')).toBe('legal_person');
  expect(recipientKindFor(null)).toBe('legal_person');
});

test('unknown or empty legal forms are not guessed', () => {
  for (const w of ['', '...', 'Kft.', 'B.V.B.V.', 'Inc', 'GmbH & Co. KG']) expect({ w, key: key(w) }).toEqual({ w, key: null });
});
