import type { RequestHandler, Router } from 'express';

/**
 * The feature routers (routes/*.ts) behind one look-up on the path's first segment. Mounted one after
 * another, every request walked every route of every router before its own: GET /messages matched
 * its path against 118 route layers, GET /api-keys against 150 (counted with the routers' Layer.match
 * wrapped; docs/benchmarks.md, "API: npm run bench:api"). Here each request goes
 * only to the routers that have a route under its first segment (`/signals/...` to the signals
 * router), in the order they were given, so which handler answers is what it was before.
 *
 * A router with a layer whose first segment is not a plain word (a parameter, a pattern, a RegExp, a
 * middleware for every path) is asked for every path, in its place in the order. Segments are
 * compared in lower case, as Express matches paths by default (case-insensitive). The segments are
 * read from the routers' layers when the dispatch is made: a route added to a router afterwards is
 * not seen (the routers of routes/*.ts are complete when their function returns).
 */
export function dispatchByFirstSegment(routers: readonly Router[]): RequestHandler & { routers: readonly Router[] } {
  const segmentsOf = routers.map(firstSegments);
  const bySegment = new Map<string, Router[]>();
  for (const segment of new Set(segmentsOf.flatMap((s) => (s === ANY ? [] : [...s])))) {
    bySegment.set(
      segment,
      routers.filter((_r, i) => segmentsOf[i] === ANY || (segmentsOf[i] as Set<string>).has(segment)),
    );
  }
  const forAnyPath = routers.filter((_r, i) => segmentsOf[i] === ANY);

  const dispatch: RequestHandler = (req, res, next) => {
    const candidates = bySegment.get(firstSegment(req.path)) ?? forAnyPath;
    let i = 0;
    const step = (err?: unknown): void => {
      // 'router' leaves this router for the next one; an error goes to the error handler.
      if (err && err !== 'router' && err !== 'route') return next(err);
      const router = candidates[i++];
      if (!router) return next();
      router(req, res, step);
    };
    step();
  };
  // The routers stay visible to whoever lists the app's routes (test/api/openapi.test.ts).
  return Object.assign(dispatch, { routers });
}

const ANY = Symbol('any path');
const PLAIN = /^[a-z0-9._~-]+$/;

function firstSegment(path: string): string {
  const end = path.indexOf('/', 1);
  return (end === -1 ? path.slice(1) : path.slice(1, end)).toLowerCase();
}

/** The first segments a router's layers answer, or ANY when one of them may answer another. */
function firstSegments(router: Router): Set<string> | typeof ANY {
  const segments = new Set<string>();
  for (const layer of (router as unknown as { stack: Array<{ rawPath?: unknown }> }).stack) {
    const paths = Array.isArray(layer.rawPath) ? layer.rawPath : [layer.rawPath];
    for (const p of paths) {
      if (typeof p !== 'string' || !p.startsWith('/')) return ANY;
      const segment = firstSegment(p);
      if (!PLAIN.test(segment)) return ANY;
      segments.add(segment);
    }
  }
  return segments;
}
