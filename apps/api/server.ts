import http from 'node:http';
import type { Express } from 'express';
import { DEFAULT_IMPORT_UPLOAD_TIMEOUT_MS } from './routes/imports';

/** The longest a request may take from its first byte: an import upload's limit and a minute more. */
export const REQUEST_TIMEOUT_MS = DEFAULT_IMPORT_UPLOAD_TIMEOUT_MS + 60_000;

/**
 * Listens, and on close stops taking connections while in-flight requests finish (bounded by graceMs).
 * A request is in flight until its handler has ended the response, even when its client has gone away
 * first (the connection closed, the handler still at work, say in a transaction): close() waits for
 * that too, so whoever closes the database after it does not pull it from under a handler.
 */
export function listen(app: Express, port: number, host: string): Promise<{ server: http.Server; url: string; close(graceMs?: number): Promise<void> }> {
  return new Promise((resolve, reject) => {
    const server = http.createServer(app);
    server.keepAliveTimeout = 5000;
    // Node's own limit on a request's whole time (5 minutes by default) would end a slow CSV upload
    // with a bare 408 before the import route's own limit answers it with a problem.
    server.requestTimeout = REQUEST_TIMEOUT_MS;
    const answering = new Set<http.ServerResponse>();
    // A response whose client went away before its handler ended it never emits 'finish' (its end() only
    // sets writableEnded): such responses are swept at the next request, so none is held for the
    // process's life.
    const abandoned = new Set<http.ServerResponse>();
    server.on('request', (_req, res: http.ServerResponse) => {
      for (const gone of abandoned) {
        if (!gone.writableEnded) continue;
        abandoned.delete(gone);
        answering.delete(gone);
      }
      answering.add(res);
      res.once('finish', () => answering.delete(res));
      res.once('close', () => {
        if (res.writableEnded) answering.delete(res);
        else abandoned.add(res);
      });
    });
    server.once('error', reject);
    server.listen(port, host, () => {
      const addr = server.address() as { port: number };
      resolve({
        server,
        url: `http://${host}:${addr.port}`,
        close: (graceMs = 10000) =>
          new Promise<void>((done) => {
            const deadline = Date.now() + graceMs;
            const timer = setTimeout(() => server.closeAllConnections(), graceMs);
            // Keep-alive sockets turn idle as their last response finishes: close them as they do.
            const idle = setInterval(() => server.closeIdleConnections(), 50);
            server.close(() => {
              clearInterval(idle);
              // Every connection is closed; a handler whose client went away may still be answering.
              const handlersDone = setInterval(() => {
                for (const res of answering) if (res.writableEnded) answering.delete(res);
                if (answering.size > 0 && Date.now() < deadline) return;
                clearInterval(handlersDone);
                clearTimeout(timer);
                done();
              }, 20);
            });
            server.closeIdleConnections();
          }),
      });
    });
  });
}
