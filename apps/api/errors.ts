import type { ErrorRequestHandler, Response } from 'express';
import { ZodError } from 'zod';
import type { Logger } from 'pino';

/**
 * Every error the API answers is RFC 9457 problem+json with a machine-readable `code`.
 * Handlers throw ProblemError; everything else is mapped here, once.
 */
export type ProblemCode =
  | 'VALIDATION_FAILED'
  | 'MALFORMED_JSON'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'REQUEST_TIMEOUT'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_LIMITED'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'IDEMPOTENCY_IN_PROGRESS';

const STATUS: Record<ProblemCode, number> = {
  VALIDATION_FAILED: 400,
  MALFORMED_JSON: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  REQUEST_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL: 500,
  IDEMPOTENCY_KEY_REUSED: 422,
  IDEMPOTENCY_IN_PROGRESS: 409,
};

const TITLE: Record<ProblemCode, string> = {
  VALIDATION_FAILED: 'Validation failed',
  MALFORMED_JSON: 'Malformed JSON',
  UNAUTHENTICATED: 'Authentication required',
  FORBIDDEN: 'Forbidden',
  NOT_FOUND: 'Not found',
  CONFLICT: 'Conflict',
  REQUEST_TIMEOUT: 'Request timeout',
  PAYLOAD_TOO_LARGE: 'Payload too large',
  UNSUPPORTED_MEDIA_TYPE: 'Unsupported media type',
  RATE_LIMITED: 'Too many requests',
  SERVICE_UNAVAILABLE: 'Service unavailable',
  INTERNAL: 'Internal server error',
  IDEMPOTENCY_KEY_REUSED: 'Idempotency key reused',
  IDEMPOTENCY_IN_PROGRESS: 'Idempotent request in progress',
};

export interface FieldError {
  path: string;
  message: string;
}

export class ProblemError extends Error {
  constructor(
    readonly code: ProblemCode,
    detail?: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(detail ?? TITLE[code]);
  }
  get status(): number {
    return STATUS[this.code];
  }
}

export const notFound = (what = 'resource') => new ProblemError('NOT_FOUND', `The ${what} does not exist or is not visible to you`);
export const forbidden = (detail = 'Your role in this organization does not allow this') => new ProblemError('FORBIDDEN', detail);
export const conflict = (detail: string, extra: Record<string, unknown> = {}) => new ProblemError('CONFLICT', detail, extra);
export const validationFailed = (errors: FieldError[]) => new ProblemError('VALIDATION_FAILED', 'The request has invalid fields', { errors });

export function zodToFieldErrors(err: ZodError, prefix: string): FieldError[] {
  return err.issues.map((i) => ({
    path: [prefix, ...i.path.map(String)].filter(Boolean).join('.'),
    message: i.message,
  }));
}

export function sendProblem(res: Response, problemCode: ProblemCode, detail: string, extra: Record<string, unknown> = {}): void {
  const status = STATUS[problemCode];
  if (problemCode === 'UNAUTHENTICATED' && !res.getHeader('WWW-Authenticate')) res.setHeader('WWW-Authenticate', 'Bearer');
  res
    .status(status)
    .type('application/problem+json')
    .send(
      JSON.stringify({
        type: `https://outreach-signal.dev/problems/${problemCode.toLowerCase().replace(/_/g, '-')}`,
        title: TITLE[problemCode],
        status,
        detail,
        code: problemCode,
        instance: res.req.originalUrl,
        request_id: res.req.id,
        ...extra,
      }),
    );
}

interface PgError {
  code?: string;
  constraint?: string;
}

/** Maps known failures to problems; an unknown error is a 500 whose body says nothing of its cause. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (res.headersSent) return;
    if (err instanceof ProblemError) return sendProblem(res, err.code, err.message, err.extra);
    if (err instanceof ZodError) return sendProblem(res, 'VALIDATION_FAILED', 'The request has invalid fields', { errors: zodToFieldErrors(err, '') });
    // body-parser's errors carry a `type`.
    const type = (err as { type?: string }).type;
    if (type === 'entity.parse.failed') return sendProblem(res, 'MALFORMED_JSON', 'The request body is not valid JSON');
    if (type === 'entity.too.large') return sendProblem(res, 'PAYLOAD_TOO_LARGE', 'The request body exceeds the size limit');
    if (type === 'encoding.unsupported' || type === 'charset.unsupported')
      return sendProblem(res, 'UNSUPPORTED_MEDIA_TYPE', 'The request body encoding is not supported');
    // The router could not percent-decode a path parameter (`/sources/%zz`): such a path names no record.
    if (err instanceof URIError && (err as { status?: number }).status === 400) return sendProblem(res, 'NOT_FOUND', 'The path does not name a record');
    // body-parser marks what it could not read (bytes that are not their Content-Encoding, a length
    // that does not match) as an exposed 400.
    const http = err as { status?: number; expose?: boolean };
    if (http.status === 400 && http.expose === true) {
      const encoding = req.headers['content-encoding'];
      return sendProblem(res, 'MALFORMED_JSON', encoding ? `The request body is not valid ${encoding} data` : 'The request body could not be read');
    }
    const pg = err as PgError;
    if (pg.code === '23505') return sendProblem(res, 'CONFLICT', 'A record with these values already exists');
    if (pg.code === '42501') return sendProblem(res, 'FORBIDDEN', 'Your role in this organization does not allow this');
    // 22021 / 22P05: text PostgreSQL cannot store (the edge rejects NUL and lone surrogates first).
    if (pg.code === '23514' || pg.code === '22P02' || pg.code === '23503' || pg.code === '22021' || pg.code === '22P05')
      return sendProblem(res, 'VALIDATION_FAILED', 'The request violates a data constraint', {
        errors: [{ path: pg.constraint ?? '', message: 'violates a data constraint' }],
      });
    req.log?.error({ err }, 'unhandled error');
    if (!req.log) logger.error({ err }, 'unhandled error');
    return sendProblem(res, 'INTERNAL', 'An unexpected error occurred; the request id identifies it in the logs');
  };
}
