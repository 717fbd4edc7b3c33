import { z } from 'zod';
import { SecretBox, sourceSecretContext } from '../../../db/secrets';
import { fetchDocument, FetchLimits } from '../http-fetch';
import { pointFromText } from './geo';
import { isoOrNull, sha256, stripHtml, titleDedupeKey } from './normalize';
import { MalformedSourceError, NormalizedPublication, SourceFetchResult, SourceForFetch, SourceProvider } from './types';

/**
 * Any JSON API: `itemsPath` points at the array of items, `fields` maps publication fields to
 * dotted paths inside an item. Example config:
 *   { url, itemsPath: "data.results", fields: { externalId: "id", title: "name", publishedAt: "published_at",
 *     url: "links.self", summary: "description", lat: "geo.lat", lng: "geo.lon", municipality: "city" } }
 */
const path = z.string().min(1).max(200);

// Request headers sent with every fetch (an API key, a bearer token). Not framing or routing headers.
const FORBIDDEN_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-authorization',
  'proxy-connection',
  'accept-encoding',
  'if-none-match',
  'if-modified-since',
]);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
export const sourceHeadersSchema = z
  .record(
    z.string(),
    z
      .string()
      .max(4096)
      .regex(/^[\t\x20-\x7e\x80-\xff]*$/, 'must be a header value without line breaks or control characters'),
  )
  .superRefine((h, ctx) => {
    const names = Object.keys(h);
    if (names.length > 20) ctx.addIssue({ code: 'custom', message: 'at most 20 headers' });
    const seen = new Set<string>();
    for (const name of names) {
      const lower = name.toLowerCase();
      if (!HEADER_NAME.test(name)) ctx.addIssue({ code: 'custom', path: [name], message: 'must be an HTTP header name' });
      else if (FORBIDDEN_HEADERS.has(lower)) ctx.addIssue({ code: 'custom', path: [name], message: 'this header is set by the service' });
      else if (seen.has(lower)) ctx.addIssue({ code: 'custom', path: [name], message: 'header names must be unique (case-insensitively)' });
      seen.add(lower);
    }
  });

export const jsonApiConfigSchema = z
  .object({
    url: z.string().url(),
    itemsPath: z.string().max(200).default(''),
    signalType: z.string().min(1).max(50).default('publication'),
    // Write-only: stored sealed (sources.secret_headers), never in config; answered as header_names.
    headers: sourceHeadersSchema.optional(),
    fields: z
      .object({
        externalId: path,
        title: path,
        summary: path.optional(),
        url: path.optional(),
        publishedAt: path.optional(),
        effectiveStart: path.optional(),
        effectiveEnd: path.optional(),
        municipality: path.optional(),
        locationText: path.optional(),
        lat: path.optional(),
        lng: path.optional(),
        point: path.optional(), // "x y" RD or "lat lng" text
        dedupeKey: path.optional(),
        companyName: path.optional(),
        kvkNumber: path.optional(),
        website: path.optional(),
      })
      .strict(),
  })
  .passthrough();

export function getPath(obj: unknown, dotted: string): unknown {
  if (!dotted) return obj;
  return dotted.split('.').reduce<unknown>((cur, key) => (cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[key] : undefined), obj);
}

const str = (v: unknown): string | null =>
  v === undefined || v === null || v === '' ? null : typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : null;
const num = (v: unknown): number | null => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() ? Number(v) : NaN;
  return Number.isFinite(n) ? n : null;
};

export function mapJsonItems(body: unknown, config: z.infer<typeof jsonApiConfigSchema>): NormalizedPublication[] {
  const items = getPath(body, config.itemsPath);
  if (!Array.isArray(items)) throw new MalformedSourceError(`"${config.itemsPath || '(root)'}" is not an array in the response`);
  const f = config.fields;
  const out: NormalizedPublication[] = [];
  for (const item of items) {
    const externalId = str(getPath(item, f.externalId));
    const title = str(getPath(item, f.title));
    if (!externalId || !title) continue;
    let lat = f.lat ? num(getPath(item, f.lat)) : null;
    let lng = f.lng ? num(getPath(item, f.lng)) : null;
    if ((lat === null || lng === null) && f.point) {
      const p = str(getPath(item, f.point));
      const point = p ? pointFromText(p) : null;
      if (point) ({ lat, lng } = point);
    }
    const payload = item as Record<string, unknown>;
    out.push({
      externalId: externalId.slice(0, 500),
      dedupeKey: (f.dedupeKey && str(getPath(item, f.dedupeKey))) || titleDedupeKey(title),
      title: title.slice(0, 1000),
      summary: f.summary ? stripHtml(str(getPath(item, f.summary))) : null,
      url: f.url ? str(getPath(item, f.url)) : null,
      publishedAt: f.publishedAt ? isoOrNull(str(getPath(item, f.publishedAt))) : null,
      effectiveStart: f.effectiveStart ? isoOrNull(str(getPath(item, f.effectiveStart))) : null,
      effectiveEnd: f.effectiveEnd ? isoOrNull(str(getPath(item, f.effectiveEnd))) : null,
      signalType: config.signalType,
      locationText: f.locationText ? str(getPath(item, f.locationText)) : null,
      municipality: f.municipality ? str(getPath(item, f.municipality)) : null,
      lat,
      lng,
      contentHash: sha256(JSON.stringify(payload)),
      payload,
      company: f.companyName
        ? {
            name: str(getPath(item, f.companyName)) ?? undefined,
            kvkNumber: f.kvkNumber ? str(getPath(item, f.kvkNumber)) : null,
            website: f.website ? str(getPath(item, f.website)) : null,
          }
        : null,
    });
  }
  return out;
}

export class JsonApiSourceProvider implements SourceProvider {
  readonly key = 'json_api';

  /** `secrets` opens the source's sealed request headers; without it a source with headers cannot be fetched. */
  constructor(private readonly secrets: SecretBox | null = null) {}

  async fetch(source: SourceForFetch, limits: FetchLimits): Promise<SourceFetchResult> {
    const config = jsonApiConfigSchema.parse(source.config);
    const headers = this.headersOf(source, config.url);
    const res = await fetchDocument(config.url, limits, { etag: source.etag, lastModified: source.last_modified }, 'application/json', headers);
    if (res.status === 'not_modified') return res;
    let body: unknown;
    try {
      body = JSON.parse(res.body);
    } catch (err) {
      throw new MalformedSourceError(`${config.url} did not answer JSON: ${(err as Error).message}`);
    }
    return { status: 'fetched', publications: mapJsonItems(body, config), etag: res.etag, lastModified: res.lastModified };
  }

  private headersOf(source: SourceForFetch, url: string): Record<string, string> {
    if (!source.secret_headers) return {};
    if (!this.secrets) throw new MalformedSourceError('this source has request headers, but INTEGRATION_SECRET_KEY is not configured on the worker');
    try {
      return JSON.parse(this.secrets.open(source.secret_headers, sourceSecretContext(source.organization_id, source.id, url))) as Record<string, string>;
    } catch {
      // Sealed under another key, for another row or another origin: retrying cannot help, and the message names no value.
      throw new MalformedSourceError(
        "this source's request headers cannot be decrypted (INTEGRATION_SECRET_KEY changed, the URL's origin changed, or they belong to another source); set them again",
      );
    }
  }
}
