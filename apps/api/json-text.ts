import { gzip, constants } from 'node:zlib';
import type { Request, Response } from 'express';

/** Below this an answer goes as it is: gzip's header and the CPU are not worth it. */
const GZIP_MIN_BYTES = 1024;

/**
 * Sends a JSON answer that is already serialised (a list PostgreSQL built, db/json-answers.ts) with
 * the headers res.json gives (application/json; charset=utf-8, an ETag). When the client accepts
 * gzip (Accept-Encoding) and the answer is at least 1 KiB, it goes gzip-compressed at the fastest
 * level (JSON still shrinks about tenfold; compressing an 80 KB inbox costs about 0.3 ms, off the
 * event loop in libuv's pool), with Vary: Accept-Encoding.
 */
export function sendJsonText(req: Request, res: Response, json: string): void {
  res.type('json');
  if (json.length < GZIP_MIN_BYTES || !acceptsGzip(req)) {
    res.send(json);
    return;
  }
  gzip(json, { level: constants.Z_BEST_SPEED }, (err, body) => {
    if (err) {
      res.send(json);
      return;
    }
    res.vary('Accept-Encoding');
    res.setHeader('Content-Encoding', 'gzip');
    res.send(body);
  });
}

/**
 * Whether the client accepts gzip (RFC 9110 12.5.3): gzip (or x-gzip) named with a q above 0; when it
 * is not named, `*` with a q above 0. A named coding outranks `*`, so `*;q=0, gzip` accepts gzip.
 */
export function acceptsGzip(req: Request): boolean {
  const header = req.headers['accept-encoding'];
  if (!header) return false;
  let star: boolean | undefined;
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.toLowerCase().split(';');
    const coding = name.trim(); // `gzip ;q=0.5` names gzip too (whitespace around `;` is allowed)
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const accepted = q === undefined || Number(q.slice(2)) > 0;
    if (coding === 'gzip' || coding === 'x-gzip') return accepted;
    if (coding === '*') star = accepted;
  }
  return star ?? false;
}
