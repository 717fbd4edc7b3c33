import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../apps/api/openapi';

/**
 * Every answer a test receives is checked against the OpenAPI document the app serves, so the
 * document cannot drift from the code: find the operation by method and path template, take the
 * response documented for the status, check the media type (problem+json for every error) and
 * validate the body with its JSON Schema (OpenAPI 3.1 schemas are JSON Schema 2020-12).
 *
 * Stricter than the published document in one way: an object may carry no field its schema does
 * not name (the document leaves objects open so that clients accept fields added later).
 */
type Json = Record<string, unknown>;
type Doc = { paths: Record<string, Record<string, Json>>; components: { schemas: Record<string, Json>; responses: Record<string, Json> } };

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function closed(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closed);
  if (!node || typeof node !== 'object') return node;
  const out: Json = Object.fromEntries(Object.entries(node as Json).map(([k, v]) => [k, closed(v)]));
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  params: number;
  op: Json;
}

let state: { doc: Doc; ajv: Ajv2020; routes: Route[]; compiled: Map<string, ValidateFunction> } | undefined;

function setup() {
  if (state) return state;
  const doc = openApiDocument() as unknown as Doc;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'openapi', components: { schemas: closed(doc.components.schemas) } });
  const routes: Route[] = [];
  for (const [template, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const pattern = new RegExp(`^${template.replace(/[.*+?^${}()|[\]\\]/g, (c) => (c === '{' || c === '}' ? c : `\\${c}`)).replace(/\{\w+\}/g, '[^/]+')}$`);
      routes.push({ method, template, pattern, params: (template.match(/\{/g) ?? []).length, op });
    }
  }
  // A literal segment wins over a parameter (/compliance/settings before /compliance/{x}).
  routes.sort((a, b) => a.params - b.params);
  state = { doc, ajv, routes, compiled: new Map() };
  return state;
}

function validator(key: string, schema: Json): ValidateFunction {
  const s = setup();
  let v = s.compiled.get(key);
  if (!v) {
    const rewired = JSON.parse(JSON.stringify(closed(schema)).replace(/"#\/components\/schemas\//g, '"openapi#/components/schemas/'));
    v = s.ajv.compile(rewired);
    s.compiled.set(key, v);
  }
  return v;
}

/** The operation a request goes to, by method and path template; undefined when the document has none. */
export function operationFor(method: string, url: string): { template: string; op: Json } | undefined {
  const path = new URL(url, 'http://x').pathname;
  const m = method.toLowerCase();
  return setup().routes.find((r) => r.method === m && r.pattern.test(path));
}

function responseFor(op: Json, status: number): Json | undefined {
  const responses = op.responses as Record<string, Json>;
  const found = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
  if (!found) return undefined;
  const ref = found.$ref as string | undefined;
  return ref ? setup().doc.components.responses[ref.replace('#/components/responses/', '')] : found;
}

const PROBLEM: Json = { $ref: '#/components/schemas/Problem' };

/**
 * Why an answer does not match the document, or null when it does. `url` is the request path
 * (a query string is ignored); `contentType` the answer's Content-Type header.
 */
export function contractViolation(method: string, url: string, status: number, contentType: string | null, body: unknown): string | null {
  if (!METHODS.includes(method.toLowerCase())) return null; // HEAD and OPTIONS answer no body to check
  const where = `${method.toUpperCase()} ${url} answered ${status}`;
  const show = () => (typeof body === 'string' ? body.slice(0, 300) : JSON.stringify(body)?.slice(0, 600));
  const route = operationFor(method, url);
  const media = (contentType ?? '').split(';')[0]!.trim();
  if (!route) {
    // Unknown routes answer the catch-all 404 (or 401 before it): a problem, nothing else.
    if (status < 400)
      return `${where}, but the OpenAPI document has no operation ${method.toUpperCase()} for this path: add it to the operations of its feature (apps/api/routes/<feature>.schemas.ts)`;
    return checkBody(`${where} (no operation)`, 'problem', PROBLEM, media, 'application/problem+json', body, show);
  }
  const id = String(route.op.operationId);
  const response = responseFor(route.op, status);
  if (!response) {
    const listed = Object.keys(route.op.responses as Json).join(', ');
    return `${where}, which ${id} (${method.toUpperCase()} ${route.template}) does not document (it lists ${listed}): document it in apps/api/openapi.ts, or fix the route. Body: ${show()}`;
  }
  const content = response.content as Record<string, { schema: Json }> | undefined;
  if (!content) return body === undefined || body === '' ? null : `${where}: ${id} documents no body for ${status}, but one came: ${show()}`;
  const [expected, { schema }] = Object.entries(content)[0]!;
  return checkBody(`${where} (${id})`, `${id}:${status}`, schema, media, expected, body, show);
}

function checkBody(where: string, key: string, schema: Json, media: string, expected: string, body: unknown, show: () => string | undefined): string | null {
  if (media !== expected) return `${where} with Content-Type ${media || '(none)'}; the document says ${expected}. Body: ${show()}`;
  if (!expected.endsWith('json')) return null;
  const validate = validator(key, schema);
  if (validate(body)) return null;
  const errors = (validate.errors ?? [])
    .slice(0, 8)
    .map(
      (e) => `  ${e.instancePath || '(body)'} ${e.message}${e.params && 'additionalProperty' in e.params ? `: ${String(e.params.additionalProperty)}` : ''}`,
    );
  return `${where}: the body does not match the OpenAPI document\n${errors.join('\n')}\nBody: ${show()}`;
}

/** Throws (failing the calling test) when an answer does not match the document. */
export function assertMatchesContract(method: string, url: string, status: number, contentType: string | null, body: unknown): void {
  const problem = contractViolation(method, url, status, contentType, body);
  if (problem) {
    const err = new Error(`API answer does not match GET /openapi.json:\n${problem}`);
    Error.captureStackTrace?.(err, assertMatchesContract);
    throw err;
  }
}
