import { z } from 'zod';
import type { ProblemCode } from './errors';

/**
 * What the features' contracts share. Each feature's HTTP contract lives next to its handlers, in
 * apps/api/routes/<feature>.schemas.ts: its request schemas, the records it answers and its
 * operations; apps/api/openapi.ts assembles the OpenAPI document from them. Here: the shape of an
 * operation, `record` and the registry of records, the problem answer, and the primitives several
 * features use (ids, timestamps, pagination, roles, the checks of a row against its record).
 *
 * Request fields are camelCase and unknown fields are rejected, so that typos do not pass silently.
 * Answers are snake_case, timestamps ISO 8601 strings, numeric columns numbers, and a field is
 * nullable exactly where its database column is.
 */

export type Tag =
  | 'Health'
  | 'Reference'
  | 'Organizations'
  | 'Sources'
  | 'Signals'
  | 'Opportunities'
  | 'Settings'
  | 'Companies'
  | 'Contacts'
  | 'Compliance'
  | 'Integrations'
  | 'Mailboxes'
  | 'Campaigns'
  | 'Enrollments'
  | 'Messages'
  | 'Threads'
  | 'Meetings'
  | 'Analytics'
  | 'Webhooks'
  | 'API keys'
  | 'Agents';

export type ProblemStatus = 400 | 401 | 403 | 404 | 408 | 409 | 413 | 415 | 422 | 429 | 500 | 503;

/** One operation of the API: a row of the document's `paths`. */
export interface Operation {
  /** The operationId: a stable, readable verb + noun (listSignals, ignoreSignal). */
  id: string;
  method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  path: string; // OpenAPI form: /sources/{sourceId}
  tag: Tag;
  summary: string;
  /** Who may call it: 'none' needs no token; 'any user' any valid token; 'metrics token' METRICS_TOKEN; else the minimum role in the organization. */
  role: 'viewer' | 'member' | 'admin' | 'any user' | 'none' | 'metrics token';
  body?: z.ZodType;
  /** An optional application/x-www-form-urlencoded body instead of JSON (the one-click unsubscribe). */
  form?: z.ZodType;
  /** A required body of another media type, passed as bytes (a raw e-mail: message/rfc822). */
  raw?: { media: string; description: string };
  /** Path parameters that are not record ids (format uuid), with their own schema. */
  pathSchemas?: Record<string, Record<string, unknown>>;
  query?: z.ZodType;
  /** The success status (default 200) and, for an idempotent create, the status of a repeat. */
  status?: number;
  repeatStatus?: number;
  /** What a success answers: a schema registered with `record`, or an array of one. */
  answer: z.ZodType;
  /** Media type of the success answer (default application/json). */
  media?: 'application/json' | 'text/html' | 'text/plain';
  /** Problems beyond those implied by the token, role, inputs and body (see problemsOf in openapi.ts). */
  problems?: readonly ProblemStatus[];
  /** The success answers no body (204). */
  empty?: true;
  /** Other statuses answered with an HTML page (a public page's refusal), by status: their description. */
  pages?: Record<number, string>;
  /**
   * What an AI assistant may do with it over MCP (apps/mcp/tools.ts makes a tool of every operation a
   * signed-in caller may call with JSON): `hidden` for none (credentials, members, mailboxes' and
   * webhooks' destinations, compliance settings stay with people); `person` for a person's act
   * (accepting a proposal, approving a draft, sending a reply, enrolling contacts, changing a campaign,
   * resuming an enrollment, completing a task, recording a lawful basis, erasing a person): its tool
   * answers the record's id and how a person does it, unless the organization allows assistants to do
   * it (`PATCH /settings/mcp {allowApprove}`); `read` names the operation that reads the record first.
   */
  mcp?: 'hidden' | { act: 'person'; read: string };
}

// Records ------------------------------------------------------------------------------------------
/**
 * Every record the API answers, by id: each schema registered with `record` becomes
 * components/schemas/<id>, and an operation names the record it answers.
 */
export const RECORDS = new Map<string, { schema: z.ZodType; description: string }>();

/** Registers a schema as the record `id` (components/schemas/<id>) with its description. */
export function record<S extends z.ZodType>(id: string, description: string, schema: S): S {
  RECORDS.set(id, { schema, description });
  return schema;
}

export const id = z.uuid();

export const timestamp = z.iso.datetime();

export const nullable = <S extends z.ZodType>(s: S) => s.nullable();

/** created_at and updated_at. */
export const stamps = { created_at: timestamp, updated_at: timestamp };

export const dependencyState = z.enum(['ok', 'down']);

// Requests -----------------------------------------------------------------------------------------
export const uuid = z.string().uuid('must be a UUID');

export const jsonObject = z.record(z.string(), z.unknown());

export const roles = ['owner', 'admin', 'member', 'viewer'] as const;

export type Role = (typeof roles)[number];

export const emptyBody = z.object({}).strict();

/** A list query: the organization, `limit` 1..100 (default 50), `before` an id of the previous page (lists are newest first). */
export const listBase = {
  organizationId: uuid,
  limit: z.coerce.number().int().min(1).max(100).default(50),
  before: uuid.optional(),
};

/** GET /webhook-endpoints and GET /api-keys: newest first, `limit` 1..100 (default 50), `before` an id of the previous page. */
export const pagedOrganizationQuery = z
  .object({ organizationId: uuid, limit: z.coerce.number().int().min(1).max(100).default(50), before: uuid.optional() })
  .strict();

/** A query naming only the organization (its settings). */
export const organizationQuery = z.object({ organizationId: uuid }).strict();

/** A body with an optional reason (dismissing a campaign, stopping an enrollment). */
export const reasonBody = z.object({ reason: z.string().trim().min(1).max(500).optional() }).strict();

// Validators never throw: a value that cannot be decoded is invalid, not an error.
/** A BCP 47 language tag with a region, in its canonical form (nl-NL). */
export function isBcp47(v: string): boolean {
  try {
    return /^[a-z]{2,3}(-[A-Z][a-z]{3})?-[A-Z]{2}$/.test(v) && Intl.getCanonicalLocales(v)[0] === v;
  } catch {
    return false;
  }
}

const REGIONS = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

/** An ISO 3166-1 alpha-2 country code. */
export function isIsoCountry(v: string): boolean {
  return /^[A-Z]{2}$/.test(v) && REGIONS.of(v) !== undefined;
}

/** Who a recipient is in law: a company (legal person) or a person (natural person). */
export const recipientKind = z.enum(['legal_person', 'natural_person']);

/** What the channel policy says of a channel: allowed, only with consent, or not at all. */
export const channelRule = z.enum(['allowed', 'consent', 'no']);

// Problems (RFC 9457) --------------------------------------------------------------------------------
export const PROBLEM_CODES = [
  'VALIDATION_FAILED',
  'MALFORMED_JSON',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'REQUEST_TIMEOUT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMITED',
  'SERVICE_UNAVAILABLE',
  'INTERNAL',
  'IDEMPOTENCY_KEY_REUSED',
  'IDEMPOTENCY_IN_PROGRESS',
] as const satisfies readonly ProblemCode[];

/** Fails to compile, naming it, when errors.ts gains a problem code this list lacks. */
export const PROBLEM_CODES_COMPLETE: Exclude<ProblemCode, (typeof PROBLEM_CODES)[number]> extends never
  ? true
  : Exclude<ProblemCode, (typeof PROBLEM_CODES)[number]> = true;

export const Problem = record(
  'Problem',
  'An error, as RFC 9457 application/problem+json with a machine-readable code. Extension members appear where they apply.',
  z
    .object({
      type: z.string().describe('A URI naming the problem type'),
      title: z.string(),
      status: z.number().int(),
      detail: z.string(),
      code: z.enum(PROBLEM_CODES),
      instance: z.string().optional().describe('The request path'),
      request_id: z.string().optional().describe('The X-Request-Id of the request, to find it in the logs'),
      errors: z
        .array(z.object({ path: z.string(), message: z.string() }))
        .optional()
        .describe('VALIDATION_FAILED: one entry per invalid field'),
      checks: z.record(z.string(), dependencyState).optional().describe('SERVICE_UNAVAILABLE from /readyz: each dependency and its state'),
      scope: z
        .enum(['user', 'organization', 'address'])
        .optional()
        .describe('RATE_LIMITED: whose allowance ran out (address: the client address, on the public routes)'),
      retry_after: z.number().int().optional().describe('RATE_LIMITED: seconds to wait, as the Retry-After header'),
      company_id: id.optional().describe('CONFLICT: the existing company'),
      contact_id: id.optional().describe('CONFLICT: the existing contact'),
      opportunity_id: id.optional().describe('CONFLICT: the existing open opportunity'),
    })
    .catchall(z.unknown()),
);

// A query's row against its record: same fields, same nullability (a compile error otherwise). Each
// feature checks its own queries (ROWS_MATCH in its .schemas.ts).
export type Row<F extends (...args: never[]) => unknown> = NonNullable<Awaited<ReturnType<F>>>;

/** JSON columns (and unknown fields) admit null by type alone; their nullability is not compared. */
type NullableKeys<T> = { [K in keyof T]-?: null extends T[K] ? ({ [k: string]: never } extends T[K] ? never : K) : never }[keyof T];

/** What differs between a query's row and a schema: fields on one side only, fields nullable on one side only. */
type Diff<R, S> = {
  only_in_query: Exclude<keyof R, keyof S>;
  only_in_schema: Exclude<keyof S, keyof R>;
  nullable_on_one_side: Exclude<NullableKeys<R>, NullableKeys<S>> | Exclude<NullableKeys<S>, NullableKeys<R>>;
};

/** true when the row and the schema agree; else the differences, which the compiler then prints. */
export type Agrees<R, S extends z.ZodType> =
  Diff<R, z.output<S>> extends { only_in_query: never; only_in_schema: never; nullable_on_one_side: never } ? true : Diff<R, z.output<S>>;
