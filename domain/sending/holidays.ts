import Holidays from 'date-holidays';

/**
 * Public holidays from date-holidays: which countries and regions it knows, and the set of local
 * dates (YYYY-MM-DD) of a country's (and region's) public holidays over a range of years. Only type
 * 'public' counts (not bank holidays, observances or optional days). Deterministic for a given
 * version of the package; activities build the set and pass it to the pure slot functions.
 */
const catalog = new Holidays();

export function isHolidayCountry(country: string): boolean {
  return /^[A-Z]{2}$/.test(country) && Object.prototype.hasOwnProperty.call(catalog.getCountries() ?? {}, country);
}

/** The regions (date-holidays' states: "BY", "CA") of a country, by code. */
export function holidayRegions(country: string): Record<string, string> {
  if (!isHolidayCountry(country)) return {};
  return (catalog.getStates(country) as Record<string, string> | undefined) ?? {};
}

export function isHolidayRegion(country: string, region: string): boolean {
  return Object.prototype.hasOwnProperty.call(holidayRegions(country), region);
}

/** Computed sets, by country, region and years (date-holidays' rules are slow to evaluate; the answer never changes). */
const computed = new Map<string, ReadonlySet<string>>();

export function publicHolidays(country: string, region: string | null | undefined, years: { from: number; to: number }): ReadonlySet<string> {
  const key = `${country}/${region ?? ''}/${years.from}-${years.to}`;
  let set = computed.get(key);
  if (!set) {
    if (computed.size >= 1000) computed.clear();
    set = compute(country, region, years);
    computed.set(key, set);
  }
  return set;
}

function compute(country: string, region: string | null | undefined, years: { from: number; to: number }): Set<string> {
  const out = new Set<string>();
  if (!isHolidayCountry(country)) return out;
  const hd = region && isHolidayRegion(country, region) ? new Holidays(country, region) : new Holidays(country);
  for (let y = years.from; y <= years.to; y++) {
    for (const h of hd.getHolidays(y) || []) if (h.type === 'public') out.add(h.date.slice(0, 10));
  }
  return out;
}
