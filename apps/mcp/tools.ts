import { z } from 'zod';
import type { Operation } from '../api/contract';
import { OPERATIONS } from '../api/openapi';

/**
 * The MCP tools, made from the API's operations (apps/api/routes/<feature>.schemas.ts): one tool per
 * operation a signed-in caller may call with JSON, named by its operationId, described by its summary
 * and role, its input the operation's path parameters, query and body in one object. A tool call is
 * the operation's HTTP request, made with the caller's own credentials (apps/mcp/server.ts), so the
 * roles, row-level security, validation, problems and request log are the API's own; adding an
 * operation adds its tool.
 */

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, unknown>; required?: string[]; additionalProperties?: boolean };
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  operation: Operation;
  /** Path parameters, then the names that go to the query; the rest of the arguments is the body. */
  pathParams: string[];
  queryParams: string[];
  /** A person's act (apps/api/contract.ts `mcp`): the operation that reads the record first. */
  personAct: { read: Operation } | null;
}

const PATH_PARAM = /\{(\w+)\}/g;

/** Operations that are not a signed-in caller's JSON call: public pages, metrics, raw uploads, forms. */
function exposed(op: Operation): boolean {
  if (op.mcp === 'hidden') return false;
  if (op.role === 'none' || op.role === 'metrics token') return false;
  if (op.raw || op.form || (op.media && op.media !== 'application/json')) return false;
  return true;
}

/** The JSON Schema of a request schema's input (what a caller sends), as an object's properties. */
function objectSchema(schema: z.ZodType | undefined): { properties: Record<string, unknown>; required: string[] } {
  if (!schema) return { properties: {}, required: [] };
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown>; required?: string[] };
  return { properties: json.properties ?? {}, required: json.required ?? [] };
}

function describe(op: Operation): string {
  const who = op.role === 'any user' ? 'any signed-in caller' : `role ${op.role} or above in the organization`;
  const person =
    typeof op.mcp === 'object'
      ? " A person's act: unless the organization allows assistants to do it (PATCH /settings/mcp allowApprove), the tool answers the record's id and how a person does it, and changes nothing."
      : '';
  return `${op.summary}. ${op.method.toUpperCase()} ${op.path}; needs ${who}.${person}`;
}

function toolOf(op: Operation, byId: Map<string, Operation>): ToolDefinition {
  const pathParams = [...op.path.matchAll(PATH_PARAM)].map((m) => m[1]!);
  const query = objectSchema(op.query);
  const body = objectSchema(op.body);
  const properties: Record<string, unknown> = {};
  for (const p of pathParams) properties[p] = op.pathSchemas?.[p] ?? { type: 'string', format: 'uuid', description: `the ${p.replace(/Id$/, '')}'s id` };
  Object.assign(properties, query.properties, body.properties);
  const read = typeof op.mcp === 'object' ? byId.get(op.mcp.read) : undefined;
  if (typeof op.mcp === 'object' && !read) throw new Error(`${op.id}: mcp.read names no operation (${op.mcp.read})`);
  return {
    name: op.id,
    title: op.summary.split(' (')[0]!.slice(0, 80),
    description: describe(op),
    inputSchema: { type: 'object', properties, required: [...pathParams, ...query.required, ...body.required], additionalProperties: false },
    annotations: {
      readOnlyHint: op.method === 'get',
      destructiveHint: op.method === 'delete',
      idempotentHint: op.method === 'get' || op.method === 'put' || op.method === 'delete',
      openWorldHint: false,
    },
    operation: op,
    pathParams,
    queryParams: Object.keys(query.properties),
    personAct: read ? { read } : null,
  };
}

/** Every tool, by name; made once per process. */
export function mcpTools(operations: readonly Operation[] = OPERATIONS): Map<string, ToolDefinition> {
  const byId = new Map(operations.map((o) => [o.id, o]));
  return new Map(operations.filter(exposed).map((op) => [op.id, toolOf(op, byId)]));
}
