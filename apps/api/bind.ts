import type { NextFunction, Request, Response, Router } from 'express';
import type { z } from 'zod';
import type { Operation } from './contract';
import { parseBody, parseQuery } from './validate';

/** The Express form of an operation's path: /sources/{sourceId} is /sources/:sourceId. */
export const expressPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

const BOUND = new WeakMap<Router, string[]>();

/**
 * What a handler is given of its operation, as the third argument: the operation's `role` (the
 * minimum role in the organization, or 'none', 'any user', 'metrics token'), and its `body` and
 * `query` parsed by its schemas. It is also Express's `next`, so that Express middleware
 * (express.raw, refuseApiKey) takes its place in the same chain and a step that passes the request
 * on calls `call()`.
 *
 * body and query are parsed when first read, not before the handler runs: a handler answers its
 * problems in its own order (a path id that names nothing is 404 before an invalid body is 400), and
 * the problem is the one parseBody and parseQuery throw. They are parsed once per request.
 */
export type Call<Op extends Operation> = NextFunction & { readonly role: Op['role'] } & (Op extends { body: infer S extends z.ZodType }
    ? { readonly body: z.infer<S> }
    : unknown) &
  (Op extends { query: infer S extends z.ZodType } ? { readonly query: z.infer<S> } : unknown);

/** A step of an operation's chain: its handler, or Express middleware before it (which takes `call` as its `next`). */
export type Handler<Op extends Operation> = (req: Request, res: Response, call: Call<Op>) => unknown;

/**
 * The body and query of a request once parsed, shared by the steps of its operation's chain. Kept per
 * operation too: a request passed on to another operation's route is parsed by that one's schemas.
 */
const PARSED = new WeakMap<Request, Map<Operation, { body?: { value: unknown }; query?: { value: unknown } }>>();

function parsedOf(req: Request, op: Operation) {
  let byOperation = PARSED.get(req);
  if (!byOperation) PARSED.set(req, (byOperation = new Map()));
  let parsed = byOperation.get(op);
  if (!parsed) byOperation.set(op, (parsed = {}));
  return parsed;
}

function callOf(op: Operation, req: Request, next: NextFunction): Call<Operation> {
  const call = ((...args: Parameters<NextFunction>) => next(...args)) as Call<Operation>;
  const { body, query } = op;
  Object.defineProperty(call, 'role', { value: op.role, enumerable: true });
  if (body) Object.defineProperty(call, 'body', { get: () => (parsedOf(req, op).body ??= { value: parseBody(body, req) }).value, enumerable: true });
  if (query) Object.defineProperty(call, 'query', { get: () => (parsedOf(req, op).query ??= { value: parseQuery(query, req) }).value, enumerable: true });
  return call;
}

/**
 * Serves a feature's operations on a router: `serve('getSource', handler)` mounts the handlers on the
 * operation's method and path, and gives each its `call` (the operation's role, body and query), so
 * that a route's method, path, role and request schemas are written once, in its operation
 * (routes/<feature>.schemas.ts). An id the feature lacks does not compile (and fails when the routes
 * are made).
 */
export function bind<Ops extends readonly Operation[]>(
  router: Router,
  operations: Ops,
): <Id extends Ops[number]['id']>(id: Id, ...handlers: Array<Handler<Extract<Ops[number], { id: Id }>>>) => void {
  return (id, ...handlers) => {
    const op = operations.find((o) => o.id === id);
    if (!op) throw new Error(`no operation ${id} among ${operations.map((o) => o.id).join(', ')}`);
    const steps = handlers.map(
      (handler) => (req: Request, res: Response, next: NextFunction) => (handler as Handler<Operation>)(req, res, callOf(op, req, next)),
    );
    router[op.method](expressPath(op.path), ...steps);
    BOUND.set(router, [...(BOUND.get(router) ?? []), op.id]);
  };
}

/** The ids of the operations bound on a router, in the order they were bound. */
export function boundOperations(router: Router): readonly string[] {
  return BOUND.get(router) ?? [];
}
