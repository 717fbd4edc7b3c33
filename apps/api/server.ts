import http from 'node:http';
import type { Express } from 'express';

/** Listens, and on close stops taking connections while in-flight requests finish (bounded). */
export function listen(app: Express, port: number, host: string): Promise<{ server: http.Server; url: string; close(graceMs?: number): Promise<void> }> {
  return new Promise((resolve, reject) => {
    const server = http.createServer(app);
    server.keepAliveTimeout = 5000;
    server.once('error', reject);
    server.listen(port, host, () => {
      const addr = server.address() as { port: number };
      resolve({
        server,
        url: `http://${host}:${addr.port}`,
        close: (graceMs = 10000) =>
          new Promise<void>((done) => {
            const timer = setTimeout(() => server.closeAllConnections(), graceMs);
            // Keep-alive sockets turn idle as their last response finishes: close them as they do.
            const idle = setInterval(() => server.closeIdleConnections(), 50);
            server.close(() => {
              clearTimeout(timer);
              clearInterval(idle);
              done();
            });
            server.closeIdleConnections();
          }),
      });
    });
  });
}
