import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const FIXTURES = path.resolve(__dirname, '../fixtures');

export interface Recorded {
  status?: number;
  fixture?: string;
  body?: unknown;
  contentType?: string;
}

export interface ProviderServer {
  url: string;
  /** Requests seen, with method, path+query and headers. */
  requests: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders }>;
  route(method: string, pathname: string, answer: Recorded | ((req: http.IncomingMessage) => Recorded)): void;
  close(): Promise<void>;
}

/** A local stand-in for an outside API or website: answers recorded documents by method and path. */
export async function startProviderServer(): Promise<ProviderServer> {
  const routes = new Map<string, Recorded | ((req: http.IncomingMessage) => Recorded)>();
  const requests: ProviderServer['requests'] = [];
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method!, url: req.url!, headers: req.headers });
    const pathname = new URL(req.url!, 'http://x').pathname;
    const route = routes.get(`${req.method} ${pathname}`);
    if (!route) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    const a = typeof route === 'function' ? route(req) : route;
    const body = a.fixture ? readFileSync(path.join(FIXTURES, a.fixture), 'utf8') : typeof a.body === 'string' ? a.body : JSON.stringify(a.body ?? {});
    const type = a.contentType ?? (a.fixture?.endsWith('.html') ? 'text/html; charset=utf-8' : a.fixture?.endsWith('.txt') ? 'text/plain' : 'application/json');
    res.writeHead(a.status ?? 200, { 'content-type': type }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    route: (method, pathname, answer) => void routes.set(`${method} ${pathname}`, answer),
    close: () => new Promise((r) => server.close(() => r())),
  };
}
