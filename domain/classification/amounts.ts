/**
 * Amounts and units as they appear in Dutch and English notices: "EUR 2,5 mln", "€ 14.500.000",
 * "1.200 m2", "1,200 sqm", "48 woningen", "2.5 million euro".
 */

/** "14,5" -> 14.5, "1.200" -> 1200, "1,200.50" -> 1200.5, "2.5" -> 2.5. */
export function parseLocaleNumber(text: string): number | null {
  const t = text.trim().replace(/[.,]$/, '');
  if (!/^\d[\d.,]*$/.test(t)) return null;
  const lastDot = t.lastIndexOf('.');
  const lastComma = t.lastIndexOf(',');
  let normalized: string;
  if (lastDot >= 0 && lastComma >= 0) {
    // Both: the later one is the decimal separator.
    const decimal = lastDot > lastComma ? '.' : ',';
    const thousands = decimal === '.' ? ',' : '.';
    normalized = t.split(thousands).join('').replace(decimal, '.');
  } else if (lastDot >= 0 || lastComma >= 0) {
    const sep = lastDot >= 0 ? '.' : ',';
    const groups = t.split(sep);
    // "1.200" / "14.500.000" / "1,200": groups of three after the first are thousands.
    const thousands = groups.length > 2 || (groups.length === 2 && groups[1]!.length === 3 && groups[0] !== '0');
    normalized = thousands ? groups.join('') : groups.join('.');
  } else normalized = t;
  const n = Number(normalized);
  return Number.isFinite(n) ? n : null;
}

const MULTIPLIERS: Array<[RegExp, number]> = [
  [/^(mld|mrd|miljard|billion|bn)$/i, 1e9],
  [/^(mln|mio|miljoen|million|m)$/i, 1e6],
  [/^(k|duizend|thousand|dzd)$/i, 1e3],
];

const multiplierOf = (word: string | undefined) => (word ? (MULTIPLIERS.find(([re]) => re.test(word))?.[1] ?? 1) : 1);

const NUM = String.raw`(\d[\d.,]*)`;
const MULT = String.raw`(mld|mrd|miljard|billion|bn|mln|mio|miljoen|million|m|k|duizend|thousand)?`;

export interface Measures {
  amountEur: number | null;
  areaM2: number | null;
  dwellings: number | null;
}

export function extractMeasures(text: string): Measures {
  const amounts: number[] = [];
  const before = new RegExp(String.raw`(?:EUR|€|euro)\s*${NUM}\s*${MULT}\b`, 'gi');
  const after = new RegExp(String.raw`${NUM}\s*${MULT}\s*(?:EUR|euro)\b`, 'gi');
  for (const re of [before, after]) {
    for (const m of text.matchAll(re)) {
      const n = parseLocaleNumber(m[1]!);
      if (n !== null) amounts.push(n * multiplierOf(m[2]));
    }
  }
  const area = /(\d[\d.,]*)\s*(?:m2|m²|vierkante meters?|square met(?:er|re)s?|sq\.? ?m|sqm)(?![a-z])/i.exec(text);
  const homes =
    /(\d[\d.,]*)\s*(?:nieuwe\s+|new\s+)?(?:woningen|appartementen|wooneenheden|huurwoningen|koopwoningen|dwellings|homes|apartments|housing units)\b/i.exec(
      text,
    );
  return {
    amountEur: amounts.length ? Math.max(...amounts) : null,
    areaM2: area ? parseLocaleNumber(area[1]!) : null,
    dwellings: homes ? parseLocaleNumber(homes[1]!) : null,
  };
}

/** Conversion factors used when a notice gives no amount; kept in the classification output. */
export const SIZE_FACTORS = { eurPerM2: 1500, eurPerDwelling: 250_000 };

/** One estimate in euros: an explicit amount, else dwellings, else floor area. */
export function estimateEuros(m: Measures): { euros: number | null; basis: string | null } {
  if (m.amountEur !== null) return { euros: m.amountEur, basis: 'stated amount' };
  if (m.dwellings !== null) return { euros: m.dwellings * SIZE_FACTORS.eurPerDwelling, basis: `${m.dwellings} dwellings × EUR ${SIZE_FACTORS.eurPerDwelling}` };
  if (m.areaM2 !== null) return { euros: m.areaM2 * SIZE_FACTORS.eurPerM2, basis: `${m.areaM2} m2 × EUR ${SIZE_FACTORS.eurPerM2}` };
  return { euros: null, basis: null };
}
