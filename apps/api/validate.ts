import type { Request } from 'express';
import type { z } from 'zod';
import { notFound, validationFailed, zodToFieldErrors } from './errors';
import { uuid } from './schemas';

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

/** A path id that is not a UUID cannot name a visible record: 404, never 400 (api-contract). */
export function pathId(req: Request, param: string, what: string): string {
  const value = String(req.params[param]);
  if (!uuid.safeParse(value).success) throw notFound(what);
  return value.toLowerCase();
}
