import { normalizeKvk } from './identity';

/** The company a publication names: from a source's field mapping, else from its text. */
export interface CompanyHint {
  name: string;
  kvkNumber?: string | null;
  website?: string | null;
}

const KVK = /\b(?:KvK|K\.v\.K\.|Kamer van Koophandel)(?:[- ]?nummer|[- ]?nr\.?)?\s*:?\s*(\d[\d .]{6,10}\d)/i;
const LEGAL_NAME = /((?:[A-Z0-9][\w&'’.-]*\s+){0,5}[A-Z0-9][\w&'’.-]*)\s+(B\.V\.|BV|N\.V\.|NV|V\.O\.F\.|VOF)(?![\w.])/;
const WEBSITE = /\b((?:https?:\/\/)?www\.[a-z0-9-]+(?:\.[a-z0-9-]+)+)(?:\/[^\s]*)?/i;
// Words a capitalized run may start with that are not part of the name ("Aanvrager: X B.V.").
// Name particles (van, de, der) are kept: "Van Dijk Installaties BV".
const LEADING_NOISE = /^(?:door|namens|aanvrager:?|aanvraag|applicant:?|by|from|aan|voor)\s+/i;

export function extractCompanyHint(text: string, mapped?: Partial<CompanyHint> | null): CompanyHint | null {
  if (mapped?.name) return { name: mapped.name, kvkNumber: mapped.kvkNumber ? normalizeKvk(mapped.kvkNumber) : null, website: mapped.website ?? null };
  const legal = LEGAL_NAME.exec(text);
  if (!legal) return null;
  let name = `${legal[1]} ${legal[2]}`.trim();
  while (LEADING_NOISE.test(name)) name = name.replace(LEADING_NOISE, '');
  const kvk = KVK.exec(text);
  const site = WEBSITE.exec(text);
  return {
    name,
    kvkNumber: kvk ? normalizeKvk(kvk[1]!) : null,
    website: site ? (site[1]!.startsWith('http') ? site[1]! : `https://${site[1]}`) : null,
  };
}
