import type { Request, RequestHandler } from 'express';
import type { z } from 'zod';
import { FieldError, notFound, validationFailed, zodToFieldErrors } from './errors';
import { uuid } from './contract';

/** Parses the JSON body; a missing body counts as {} so that `{}`-bodied POSTs may omit it. */
export function parseBody<S extends z.ZodType>(schema: S, req: Request): z.infer<S> {
  const r = schema.safeParse(req.body ?? {});
  if (!r.success) throw validationFailed(zodToFieldErrors(r.error, 'body'));
  return r.data;
}

export function parseQuery<S extends z.ZodType>(schema: S, req: Request): z.infer<S> {
  const r = schema.safeParse(req.query);
  if (!r.success) throw validationFailed(zodToFieldErrors(r.error, 'query'));
  return r.data;
}

/** A path id that is not a UUID cannot name a visible record: 404, never 400. */
export function pathId(req: Request, param: string, what: string): string {
  const value = String(req.params[param]);
  if (!uuid.safeParse(value).success) throw notFound(what);
  return value.toLowerCase();
}

/** How deep a request body may nest (objects and arrays); the body itself is level 0. */
export const MAX_JSON_DEPTH = 32;
const MAX_REPORTED = 20;
// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** What in this text PostgreSQL (or any UTF-8 consumer) cannot take, or undefined when it can take it all. */
export function unsafeTextReason(text: string): string | undefined {
  if (text.includes('\u0000')) return 'a NUL character (\\u0000)';
  if (LONE_SURROGATE.test(text)) return 'a lone UTF-16 surrogate';
  return undefined;
}

/**
 * Every string (and object key) in a parsed body or query that PostgreSQL would refuse, and every
 * place that nests deeper than maxDepth. Iterative, so no input can overflow the stack here.
 */
export function unsafeInputErrors(value: unknown, prefix: string, maxDepth = MAX_JSON_DEPTH): FieldError[] {
  const errors: FieldError[] = [];
  const at = (path: string[]) => [prefix, ...path].join('.');
  const stack: Array<{ value: unknown; path: string[] }> = [{ value, path: [] }];
  while (stack.length > 0 && errors.length < MAX_REPORTED) {
    const { value: v, path } = stack.pop()!;
    if (typeof v === 'string') {
      const reason = unsafeTextReason(v);
      if (reason) errors.push({ path: at(path), message: `must not contain ${reason}` });
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (path.length >= maxDepth) {
      errors.push({ path: at(path), message: `nests deeper than ${maxDepth} levels` });
      continue;
    }
    const entries = Array.isArray(v) ? v.map((child, i) => [String(i), child] as const) : Object.entries(v);
    for (const [key] of entries) {
      const reason = unsafeTextReason(key);
      if (reason) errors.push({ path: at(path), message: `has a key containing ${reason}` });
    }
    // Reversed, so that errors come out in document order.
    for (let i = entries.length - 1; i >= 0; i--) stack.push({ value: entries[i]![1], path: [...path, entries[i]![0]] });
  }
  return errors;
}

/**
 * Once for all inputs, before any route: a NUL character or a lone surrogate in any body field or
 * query parameter, or a body nested deeper than MAX_JSON_DEPTH, is 400 VALIDATION_FAILED naming the
 * field. (Path ids are checked by pathId.)
 */
export const rejectUnsafeInput: RequestHandler = (req, _res, next) => {
  const errors = [...unsafeInputErrors(req.query, 'query'), ...unsafeInputErrors(req.body, 'body')];
  if (errors.length > 0) return next(validationFailed(errors.slice(0, MAX_REPORTED)));
  next();
};
