import Parser from 'rss-parser';
import { z } from 'zod';
import { fetchDocument, FetchLimits } from '../http-fetch';
import { isoOrNull, sha256, stripHtml, titleDedupeKey } from './normalize';
import { MalformedSourceError, NormalizedPublication, SourceFetchResult, SourceForFetch, SourceProvider } from './types';

const configSchema = z.object({ url: z.string().url(), signalType: z.string().optional() }).passthrough();

type Item = Parser.Item & { id?: string; summary?: string };

/** RSS 2.0 and Atom feeds, parsed by rss-parser; the fetch is ours (limits, conditional GET). */
export class RssSourceProvider implements SourceProvider {
  readonly key = 'rss';
  private readonly parser = new Parser<Record<string, unknown>, Item>();

  async fetch(source: SourceForFetch, limits: FetchLimits): Promise<SourceFetchResult> {
    const config = configSchema.parse(source.config);
    const res = await fetchDocument(
      config.url,
      limits,
      { etag: source.etag, lastModified: source.last_modified },
      'application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.8',
    );
    if (res.status === 'not_modified') return res;
    let feed: Parser.Output<Item>;
    try {
      feed = await this.parser.parseString(res.body);
    } catch (err) {
      throw new MalformedSourceError(`${config.url} is not a valid RSS or Atom feed: ${(err as Error).message}`);
    }
    const publications = (feed.items ?? [])
      .map((item) => toPublication(item, config.signalType ?? 'publication'))
      .filter((p): p is NormalizedPublication => p !== null);
    return { status: 'fetched', publications, etag: res.etag, lastModified: res.lastModified };
  }
}

function toPublication(item: Item, signalType: string): NormalizedPublication | null {
  const title = (item.title ?? '').trim();
  if (!title) return null; // an item without a title cannot become a signal
  const url = item.link ?? null;
  const publishedAt = isoOrNull(item.isoDate ?? item.pubDate);
  const externalId = (item.guid ?? item.id ?? url ?? sha256(`${title}|${publishedAt ?? ''}`)).slice(0, 500);
  const summary = stripHtml(item.contentSnippet ?? item.summary ?? item.content);
  const payload = { title, link: url, guid: item.guid ?? item.id ?? null, published: publishedAt, summary, categories: item.categories ?? [] };
  return {
    externalId,
    dedupeKey: titleDedupeKey(title),
    title: title.slice(0, 1000),
    summary,
    url,
    publishedAt,
    effectiveStart: null,
    effectiveEnd: null,
    signalType,
    locationText: null,
    municipality: null,
    lat: null,
    lng: null,
    contentHash: sha256(JSON.stringify(payload)),
    payload,
  };
}
