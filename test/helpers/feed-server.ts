import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const FIXTURES = path.resolve(__dirname, '../fixtures');

export interface FeedServer {
  url: string;
  /** Serve a fixture file, or a string body, at a path. */
  set(pathname: string, doc: { fixture?: string; body?: string; contentType?: string; status?: number }): void;
  hits(pathname: string): { total: number; notModified: number };
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 serving recorded documents (feeds, SRU, JSON), with ETag / If-None-Match like a real one. */
export async function startFeedServer(): Promise<FeedServer> {
  const docs = new Map<string, { body: string; contentType: string; status: number }>();
  const counts = new Map<string, { total: number; notModified: number }>();
  const server = http.createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://x').pathname;
    const count = counts.get(pathname) ?? { total: 0, notModified: 0 };
    counts.set(pathname, count);
    count.total++;
    const doc = docs.get(pathname);
    if (!doc) return void res.writeHead(404).end('not found');
    if (doc.status !== 200) return void res.writeHead(doc.status).end('error');
    const etag = `"${createHash('sha1').update(doc.body).digest('hex')}"`;
    if (req.headers['if-none-match'] === etag) {
      count.notModified++;
      return void res.writeHead(304, { etag }).end();
    }
    res.writeHead(200, { 'content-type': doc.contentType, etag }).end(doc.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    set(pathname, d) {
      const body = d.body ?? readFileSync(path.join(FIXTURES, d.fixture!), 'utf8');
      docs.set(pathname, { body, contentType: d.contentType ?? 'application/xml', status: d.status ?? 200 });
    },
    hits: (pathname) => counts.get(pathname) ?? { total: 0, notModified: 0 },
    close: () => new Promise((r) => server.close(() => r())),
  };
}
