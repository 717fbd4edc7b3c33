/** Builds an RSS 2.0 document, for tests whose items need dates relative to now. */
export interface RssItem {
  guid: string;
  title: string;
  description?: string;
  link?: string;
  pubDate?: Date;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function rssFeed(title: string, items: RssItem[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>${esc(title)}</title><link>https://example.org</link><description>test</description>
${items
  .map(
    (i) => `<item><title>${esc(i.title)}</title><guid isPermaLink="false">${esc(i.guid)}</guid>
<link>${esc(i.link ?? `https://example.org/${i.guid}`)}</link>${i.pubDate ? `<pubDate>${i.pubDate.toUTCString()}</pubDate>` : ''}
${i.description ? `<description>${esc(i.description)}</description>` : ''}</item>`,
  )
  .join('\n')}
</channel></rss>`;
}
