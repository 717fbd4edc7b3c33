/**
 * Legal forms of the countries the channel policy covers (NL, DE, FR, BE, UK), each with the kind
 * of recipient it makes a company in law (compliance-rules.md section 1): a company with legal
 * personality is a `legal_person`; a sole trader, and a partnership whose partners answer
 * personally, is a `natural_person` (the stricter reading where the law is unsettled).
 *
 * People write a legal form in many ways ("B.V.", "b.v.", "BV", "Ltd.", "UG (haftungsbeschränkt)"):
 * `parseLegalForm` reads them all and answers the canonical key, which is what is stored.
 */
export type RecipientKind = 'legal_person' | 'natural_person';

export interface LegalFormRow {
  /** The canonical key stored in companies.legal_form. */
  key: string;
  /** How the form is usually written. */
  label: string;
  countries: readonly string[];
  recipientKind: RecipientKind;
  /** Other ways of writing it, besides the key and the label (case, dots, spaces and accents never matter). */
  aliases?: readonly string[];
}

const L = 'legal_person' as const;
const N = 'natural_person' as const;

export const LEGAL_FORM_TABLE: readonly LegalFormRow[] = [
  // Netherlands (and Belgium, where the BV replaced the BVBA in 2019 and the NV keeps its name)
  { key: 'bv', label: 'B.V.', countries: ['NL', 'BE'], recipientKind: L, aliases: ['besloten vennootschap', 'bv/srl'] },
  { key: 'nv', label: 'N.V.', countries: ['NL', 'BE'], recipientKind: L, aliases: ['naamloze vennootschap', 'nv/sa'] },
  { key: 'stichting', label: 'Stichting', countries: ['NL'], recipientKind: L },
  { key: 'vereniging', label: 'Vereniging', countries: ['NL'], recipientKind: L },
  { key: 'cooperatie', label: 'Coöperatie', countries: ['NL'], recipientKind: L, aliases: ['coöperatie u.a.', 'coöperatieve vereniging'] },
  { key: 'eenmanszaak', label: 'Eenmanszaak', countries: ['NL', 'BE'], recipientKind: N, aliases: ['zzp'] },
  { key: 'vof', label: 'V.O.F.', countries: ['NL', 'BE'], recipientKind: N, aliases: ['vennootschap onder firma'] },
  { key: 'maatschap', label: 'Maatschap', countries: ['NL'], recipientKind: N },
  // Belgium (older and French names)
  { key: 'bvba', label: 'BVBA', countries: ['BE'], recipientKind: L, aliases: ['besloten vennootschap met beperkte aansprakelijkheid'] },
  { key: 'srl', label: 'SRL', countries: ['BE'], recipientKind: L, aliases: ['société à responsabilité limitée'] },
  { key: 'sprl', label: 'SPRL', countries: ['BE'], recipientKind: L },
  // Germany
  { key: 'gmbh', label: 'GmbH', countries: ['DE'], recipientKind: L, aliases: ['gesellschaft mit beschränkter haftung'] },
  { key: 'ag', label: 'AG', countries: ['DE'], recipientKind: L, aliases: ['aktiengesellschaft'] },
  { key: 'ug', label: 'UG (haftungsbeschränkt)', countries: ['DE'], recipientKind: L, aliases: ['ug haftungsbeschränkt', 'unternehmergesellschaft'] },
  {
    key: 'einzelunternehmen',
    label: 'Einzelunternehmen',
    countries: ['DE'],
    recipientKind: N,
    aliases: ['e.k.', 'e.kfm.', 'eingetragener kaufmann', 'einzelunternehmer'],
  },
  // France (SA is also the French name of the Belgian NV)
  { key: 'sarl', label: 'SARL', countries: ['FR'], recipientKind: L },
  { key: 'sas', label: 'SAS', countries: ['FR'], recipientKind: L, aliases: ['société par actions simplifiée'] },
  { key: 'sasu', label: 'SASU', countries: ['FR'], recipientKind: L },
  { key: 'eurl', label: 'EURL', countries: ['FR'], recipientKind: L },
  { key: 'sa', label: 'SA', countries: ['FR', 'BE'], recipientKind: L, aliases: ['société anonyme'] },
  {
    key: 'entreprise_individuelle',
    label: 'Entreprise individuelle',
    countries: ['FR', 'BE'],
    recipientKind: N,
    aliases: ['ei', 'micro-entreprise', 'auto-entrepreneur', 'micro-entrepreneur'],
  },
  // United Kingdom
  { key: 'ltd', label: 'Ltd', countries: ['UK'], recipientKind: L, aliases: ['limited', 'private limited company'] },
  { key: 'plc', label: 'PLC', countries: ['UK'], recipientKind: L, aliases: ['public limited company'] },
  { key: 'llp', label: 'LLP', countries: ['UK'], recipientKind: L, aliases: ['limited liability partnership'] },
  { key: 'sole_trader', label: 'Sole trader', countries: ['UK'], recipientKind: N, aliases: ['sole proprietor', 'sole proprietorship'] },
];

/** Case, accents, dots, spaces, hyphens, slashes and parentheses do not matter: "B. V." = "bv", "Coöperatie" = "cooperatie". */
export function compactLegalForm(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '');
}

const BY_SPELLING = new Map<string, LegalFormRow>();
for (const row of LEGAL_FORM_TABLE) {
  for (const spelling of [row.key, row.label, ...(row.aliases ?? [])]) {
    const compact = compactLegalForm(spelling);
    const taken = BY_SPELLING.get(compact);
    if (taken && taken !== row) throw new Error(`legal form spelling "${spelling}" names both ${taken.key} and ${row.key}`);
    BY_SPELLING.set(compact, row);
  }
}

export const LEGAL_FORM_KEYS = LEGAL_FORM_TABLE.map((r) => r.key);

/** The canonical legal form of a written one ("B.V." -> "bv", "UG (haftungsbeschränkt)" -> "ug"); null when unknown. */
export function parseLegalForm(text: string): LegalFormRow | null {
  return BY_SPELLING.get(compactLegalForm(text)) ?? null;
}

/** Who the recipient is in law; a company without a (known) legal form counts as a legal person. */
export function recipientKindFor(legalForm: string | null | undefined): RecipientKind {
  return (legalForm && parseLegalForm(legalForm)?.recipientKind) || 'legal_person';
}
