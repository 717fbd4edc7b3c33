import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { Level, Logger } from 'pino';

declare module 'http' {
  interface IncomingMessage {
    /** The request's id: the client's X-Request-Id when it is a plain token, else a new UUID (answered in X-Request-Id). */
    id: string;
    /** The request's logger: every line names the request (requestSummary) and, once authenticated, its caller. */
    log: Logger;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Credentials a URL may carry: the unsubscribe token in /u/<token>, and an OAuth callback's code and
 * state. Linear (no nested quantifiers), run on every request's URL.
 */
const URL_SECRETS = /^(\/u\/)[^/?#]+|([?&](?:code|state)=)[^&#]*/g;

/** A request in its log lines: which one it was, not its headers (which may carry credentials), its URL's credentials masked. */
export function requestSummary(req: IncomingMessage & { id?: unknown; originalUrl?: string }) {
  const url = (req.originalUrl ?? req.url ?? '').replace(URL_SECRETS, (_m, path?: string, param?: string) => `${path ?? param}[redacted]`);
  return { id: req.id, method: req.method, url, remoteAddress: req.socket?.remoteAddress };
}

/** The level of a request's closing line: error for a 5xx, info for a 4xx or an answer cut off, debug otherwise. */
export function closingLevel(res: ServerResponse): Level {
  if (res.statusCode >= 500) return 'error';
  if (res.statusCode >= 400 || !res.writableFinished) return 'info';
  return 'debug';
}

/**
 * The request log, first after the metrics: the request's id (X-Request-Id), `req.log` (a child of
 * `logger` bound to the request's summary), and one line when the connection is done with the
 * response: "request completed" (or "request aborted" when it closed before the answer was sent), with
 * the status and the time taken, at closingLevel's level and only when that level is enabled.
 *
 * What pino-http did here, without its per-request cost: its middleware took about 0.07 ms of a list
 * request's 0.4 ms of API CPU, measured with the database taken out (the API's pool answering at once,
 * docs/benchmarks.md, "API: npm run bench:api"), where this takes a child logger (about 1 µs) and one listener.
 */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', id);
    req.id = id;
    req.log = logger.child({ req: requestSummary(req) });
    const started = performance.now();
    res.once('close', () => {
      const level = closingLevel(res);
      if (!req.log.isLevelEnabled(level)) return;
      const responseTime = Math.round(performance.now() - started);
      req.log[level]({ res: { statusCode: res.statusCode }, responseTime }, res.writableFinished ? 'request completed' : 'request aborted');
    });
    next();
  };
}
