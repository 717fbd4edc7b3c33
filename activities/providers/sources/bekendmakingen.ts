import { XMLParser } from 'fast-xml-parser';
import { z } from 'zod';
import { fetchDocument, FetchLimits } from '../http-fetch';
import { pointFromText } from './geo';
import { isoOrNull, sha256, stripHtml, titleDedupeKey } from './normalize';
import { MalformedSourceError, NormalizedPublication, SourceFetchResult, SourceForFetch, SourceProvider } from './types';

/**
 * Dutch official publications (officielebekendmakingen.nl) through the SRU 2.0 search service of
 * KOOP. A searchRetrieve response holds records whose recordData is a gzd:gzd document: the
 * publication's metadata (owmskern: identifier, title, type, creator = municipality, modified;
 * owmsmantel: date, available, subject = category, abstract; tpmeta: publicatienaam, location) and
 * enrichedData (preferredUrl). Namespace prefixes are dropped, so the parser matches local names.
 */
const DEFAULT_QUERY = 'c.product-area==officielepublicaties AND dt.type=="omgevingsvergunning"';

const configSchema = z
  .object({
    url: z.string().url().default('https://repository.overheid.nl/sru'),
    query: z.string().min(1).default(DEFAULT_QUERY),
    maximumRecords: z.number().int().min(1).max(1000).default(100),
  })
  .passthrough();

const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  textNodeName: '#text',
  isArray: (name) => ['record', 'creator', 'subject', 'spatial', 'type', 'locatiepunt', 'diagnostic'].includes(name),
});

type Node = Record<string, unknown>;
const text = (v: unknown): string | null => {
  if (v === undefined || v === null) return null;
  if (Array.isArray(v)) return text(v[0]);
  if (typeof v === 'object') return text((v as Node)['#text']);
  const s = String(v).trim();
  return s || null;
};
const texts = (v: unknown): string[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]).map(text).filter((s): s is string => !!s);
const withScheme = (v: unknown, pattern: RegExp): string | null => {
  const list = Array.isArray(v) ? v : v === undefined ? [] : [v];
  const hit = list.find((x) => typeof x === 'object' && x && pattern.test(String((x as Node)['@scheme'] ?? '')));
  return text(hit ?? null);
};

export function buildSruUrl(base: string, query: string, maximumRecords: number, startRecord = 1): string {
  const u = new URL(base);
  u.searchParams.set('operation', 'searchRetrieve');
  u.searchParams.set('version', '2.0');
  u.searchParams.set('query', query);
  u.searchParams.set('maximumRecords', String(maximumRecords));
  u.searchParams.set('startRecord', String(startRecord));
  return u.toString();
}

export function parseSruResponse(xml: string): NormalizedPublication[] {
  let doc: Node;
  try {
    doc = parser.parse(xml, true) as Node;
  } catch (err) {
    throw new MalformedSourceError(`not valid XML: ${(err as Error).message}`);
  }
  const response = doc.searchRetrieveResponse as Node | undefined;
  if (!response) throw new MalformedSourceError('not an SRU searchRetrieveResponse');
  const diagnostics = (response.diagnostics as Node | undefined)?.diagnostic as Node[] | undefined;
  if (diagnostics?.length) throw new MalformedSourceError(`SRU diagnostic: ${text(diagnostics[0]!.message) ?? text(diagnostics[0]!.details) ?? 'unknown'}`);
  const records = ((response.records as Node | undefined)?.record as Node[] | undefined) ?? [];
  return records.map(toPublication).filter((p): p is NormalizedPublication => p !== null);
}

function toPublication(record: Node): NormalizedPublication | null {
  const gzd = (record.recordData as Node | undefined)?.gzd as Node | undefined;
  const meta = (gzd?.originalData as Node | undefined)?.meta as Node | undefined;
  if (!meta) return null;
  const kern = (meta.owmskern ?? {}) as Node;
  const mantel = (meta.owmsmantel ?? {}) as Node;
  const tp = (meta.tpmeta ?? {}) as Node;
  const enriched = (gzd?.enrichedData ?? {}) as Node;

  const identifier = text(kern.identifier);
  const title = text(kern.title);
  if (!identifier || !title) return null;
  const municipality = withScheme(kern.creator, /gemeente/i) ?? withScheme(kern.spatial, /gemeente/i) ?? text(kern.creator);
  const published = isoOrNull(text(mantel.available) ?? text(mantel.date) ?? text(kern.modified));
  const category = texts(mantel.subject)[0] ?? null;
  const summary = stripHtml(text(mantel.abstract) ?? text(mantel.description));
  const address = text(tp.postcodeHuisnummer) ?? text(tp.adres) ?? null;
  const pointText = text(tp.locatiepunt) ?? text((tp.geometrie as Node | undefined)?.['#text'] ?? tp.geometrie);
  const point = pointText ? pointFromText(pointText) : null;
  const url = text(enriched.preferredUrl) ?? text(enriched.url) ?? `https://zoek.officielebekendmakingen.nl/${identifier}.html`;
  const payload = {
    identifier,
    title,
    type: texts(kern.type),
    municipality,
    category,
    publication: text(tp.publicatienaam),
    published,
    address,
    location_point: pointText,
    url,
  };
  return {
    externalId: identifier,
    dedupeKey: titleDedupeKey(title),
    title,
    summary: summary ?? [category, address, municipality].filter(Boolean).join(' · ') ?? null,
    url,
    publishedAt: published,
    effectiveStart: isoOrNull(text(tp.datumTijdstipWijziging) ?? null),
    effectiveEnd: null,
    signalType: 'permit',
    locationText: [address, municipality].filter(Boolean).join(', ') || null,
    municipality,
    lat: point?.lat ?? null,
    lng: point?.lng ?? null,
    contentHash: sha256(JSON.stringify(payload)),
    payload,
  };
}

export class BekendmakingenSourceProvider implements SourceProvider {
  readonly key = 'bekendmakingen';

  async fetch(source: SourceForFetch, limits: FetchLimits): Promise<SourceFetchResult> {
    const config = configSchema.parse(source.config);
    const res = await fetchDocument(buildSruUrl(config.url, config.query, config.maximumRecords), limits, {}, 'application/xml, text/xml');
    if (res.status === 'not_modified') return res;
    try {
      return { status: 'fetched', publications: parseSruResponse(res.body), etag: null, lastModified: null };
    } catch (err) {
      if (err instanceof MalformedSourceError) throw new MalformedSourceError(`${config.url}: ${err.message}`);
      throw err;
    }
  }
}
