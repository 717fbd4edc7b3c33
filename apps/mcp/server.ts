import { createHash, randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { mcpTools, type ToolDefinition } from './tools';

/**
 * The service as an MCP server (stdio: apps/mcp/stdio.ts; streamable HTTP: POST /mcp). It holds no
 * rights of its own: every tool call and resource read is a request to the API with the caller's
 * credentials (ApiCaller), so what an assistant may read and change is exactly what its token or API
 * key may, under the same roles and row-level security, and the API's problems come back as tool
 * errors. A person's act (accepting a proposal, approving a draft) answers the record's id and how a
 * person does it, unless the organization allows assistants to do it.
 */

export interface ApiAnswer {
  status: number;
  body: unknown;
  /** The API answered a repeat of an earlier call with that call's answer (Idempotent-Replayed). */
  replayed?: boolean;
}

/** One request to the API as the caller. */
export interface ApiCaller {
  request(method: string, pathAndQuery: string, body?: unknown, headers?: Record<string, string>): Promise<ApiAnswer>;
}

/** The largest API answer an assistant is given, in bytes (a list at its limit is below; narrow it with limit). */
const MAX_ANSWER_BYTES = 1_000_000;

/**
 * How long a tool call waits for the API. Long: a call given up on may still be carried out by the
 * API, and the assistant would try it again (the answer then tells it to read before retrying).
 */
const CALL_TIMEOUT_MS = 120_000;

/** An ApiCaller over HTTP: the API at baseUrl, with the caller's Authorization header. */
export function httpApiCaller(baseUrl: string, authorization: string, headers: Record<string, string> = {}): ApiCaller {
  const base = baseUrl.replace(/\/$/, '');
  return {
    async request(method, pathAndQuery, body, extra = {}) {
      const res = await fetch(base + pathAndQuery, {
        method,
        headers: {
          authorization,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
          ...extra,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      });
      const text = await res.text();
      if (Buffer.byteLength(text) > MAX_ANSWER_BYTES)
        return { status: 502, body: { title: 'The answer is too large for an assistant; narrow it with limit or filters' } };
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        // not JSON (an empty 204, a page): passed on as text
      }
      return { status: res.status, body: parsed, replayed: res.headers.get('idempotent-replayed') === 'true' };
    },
  };
}

export interface McpServerOptions {
  /** Called once per tool call with the tool and the API's status (the HTTP route logs it with its caller). */
  onToolCall?: (tool: string, status: number) => void;
}

const TOOLS = mcpTools();

const RESOURCE_TEMPLATES = [
  {
    uriTemplate: 'outreach://organizations/{organizationId}/approval-inbox',
    name: 'approval-inbox',
    title: 'Approval inbox',
    description: "The organization's drafts waiting for a person's approval, newest first, each with its why (signal, sourced facts, score reasons, risks)",
    mimeType: 'application/json',
  },
  {
    uriTemplate: 'outreach://signals/{signalId}',
    name: 'signal',
    title: 'Signal',
    description: 'A signal with its classification and its score breakdown',
    mimeType: 'application/json',
  },
];

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** A path parameter as the operation declares it: a record id is a UUID (so `.` or `..` can never name another route). */
function validPathParam(tool: ToolDefinition, name: string, value: unknown): boolean {
  if (typeof value !== 'string' || value === '') return false;
  return tool.operation.pathSchemas?.[name] ? !/[/\\?#]|^\.\.?$/.test(value) : UUID.test(value);
}

/** The API request a resource URI reads, or null for a URI no template matches. */
function resourceRequest(uri: string): string | null {
  const inbox = /^outreach:\/\/organizations\/([^/]+)\/approval-inbox$/.exec(uri);
  if (inbox && UUID.test(inbox[1]!)) return `/messages?organizationId=${inbox[1]}&status=pending_approval&limit=50`;
  const signal = /^outreach:\/\/signals\/([^/]+)$/.exec(uri);
  if (signal && UUID.test(signal[1]!)) return `/signals/${signal[1]}`;
  return null;
}

/**
 * How long the same tool call with the same arguments counts as one (an assistant's retry of a call it
 * lost). Windows start on the hour: a retry that crosses one acts again (about one retry in thirty at
 * the 120 s timeout), which no key the client does not send can avoid.
 */
const SAME_CALL_WINDOW_MS = 60 * 60_000;

/**
 * The Idempotency-Key of a POST tool call: the tool and its arguments within an hour's window, so an
 * assistant that tries a call again (its answer lost, the API slow) gets the first call's answer
 * instead of doing it twice; the answer says so. The API keeps keys per caller.
 */
export function sameCallKey(tool: string, args: Record<string, unknown>, now = Date.now()): string {
  const canonical = JSON.stringify(
    Object.keys(args)
      .sort()
      .map((k) => [k, args[k]]),
  );
  return `mcp-${createHash('sha256')
    .update(`${tool}\n${canonical}\n${Math.floor(now / SAME_CALL_WINDOW_MS)}`)
    .digest('hex')}`;
}

function answer(body: unknown, isError = false): CallToolResult {
  return { content: [{ type: 'text', text: typeof body === 'string' ? body : JSON.stringify(body) }], isError };
}

/** The tool's HTTP request: path parameters into the path, query parameters into the query, the rest the JSON body. */
function requestOf(tool: ToolDefinition, args: Record<string, unknown>): { path: string; body: unknown } | { problem: unknown } {
  const missing = tool.pathParams.filter((p) => !validPathParam(tool, p, args[p]));
  if (missing.length)
    return {
      problem: {
        type: 'about:blank',
        title: 'Validation failed',
        status: 400,
        code: 'VALIDATION_FAILED',
        errors: missing.map((p) => ({ path: p, message: tool.operation.pathSchemas?.[p] ? 'is required (a path segment)' : 'is required (an id: a UUID)' })),
      },
    };
  let path = tool.operation.path;
  for (const p of tool.pathParams) path = path.replace(`{${p}}`, encodeURIComponent(args[p] as string));
  const query = new URLSearchParams();
  const body: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) {
    if (tool.pathParams.includes(k) || v === undefined) continue;
    if (tool.queryParams.includes(k)) for (const one of Array.isArray(v) ? v : [v]) query.append(k, String(one));
    else body[k] = v;
  }
  const q = query.toString();
  const hasBody = tool.operation.body !== undefined || Object.keys(body).length > 0;
  return { path: q ? `${path}?${q}` : path, body: hasBody ? body : undefined };
}

/**
 * A person's act: read the record as the caller (another tenant's id is its 404), then the
 * organization's `mcp.allowApprove`. Off: what the person does, and nothing changes. On: null, and
 * the call goes ahead under the caller's role.
 */
async function personActAnswer(caller: ApiCaller, tool: ToolDefinition, args: Record<string, unknown>, path: string): Promise<CallToolResult | null> {
  const act = tool.personAct!;
  let readPath = act.read.path;
  for (const p of tool.pathParams) readPath = readPath.replace(`{${p}}`, encodeURIComponent(args[p] as string));
  const record = await caller.request('GET', readPath);
  if (record.status >= 400) return answer(record.body, true);
  const organizationId = (record.body as { organization_id?: string }).organization_id;
  const settings = await caller.request('GET', `/settings/mcp?organizationId=${encodeURIComponent(organizationId ?? '')}`);
  if (settings.status >= 400) return answer(settings.body, true);
  if ((settings.body as { allow_approve?: boolean }).allow_approve === true) return null;
  const id = tool.pathParams.map((p) => args[p]).at(-1);
  return answer({
    action: 'person_required',
    operation: tool.name,
    id,
    organization_id: organizationId,
    how: `${tool.operation.method.toUpperCase()} ${path}`,
    message: `A person does this (${tool.operation.summary.split(' (')[0]}): the organization does not let assistants do it. Show the person this id; nothing was changed.`,
  });
}

export function createMcpServer(caller: ApiCaller, options: McpServerOptions = {}): Server {
  const server = new Server(
    { name: 'outreach-signal-service', version: '1.0.0' },
    {
      capabilities: { tools: {}, resources: {} },
      instructions:
        'Tools are the Outreach Signal Service API operations, run with your credentials: read signals with their score breakdown, opportunities, companies and contacts (GET /contacts/{id}/channels says what may be used), campaigns and proposals, the approval inbox and threads; edit drafts; ask the strategist. Accepting a proposal and approving a draft are a person’s acts unless the organization allows otherwise: those tools answer an id for the person. Most tools need organizationId (listOrganizations gives yours).',
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [...TOOLS.values()].map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema,
      annotations: t.annotations,
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const tool = TOOLS.get(req.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `no tool named ${req.params.name}`);
    const args = (req.params.arguments ?? {}) as Record<string, unknown>;
    const made = requestOf(tool, args);
    if ('problem' in made) {
      options.onToolCall?.(tool.name, 400);
      return answer(made.problem, true);
    }
    if (tool.personAct) {
      const held = await personActAnswer(caller, tool, args, made.path);
      if (held) {
        options.onToolCall?.(tool.name, held.isError ? 400 : 200);
        return held;
      }
    }
    let res: ApiAnswer;
    try {
      const method = tool.operation.method.toUpperCase();
      const key = method === 'POST' ? sameCallKey(tool.name, args) : null;
      res = await caller.request(method, made.path, made.body, key ? { 'idempotency-key': key } : {});
      // A refusal (4xx) changed nothing, so the same call made again after what refused it changed (an
      // edit, a setting) is sent anew rather than answered with the old refusal.
      if (key && res.replayed && res.status >= 400 && res.status < 500)
        res = await caller.request(method, made.path, made.body, { 'idempotency-key': `${key}-${randomUUID()}` });
    } catch (err) {
      options.onToolCall?.(tool.name, 0);
      return answer(
        {
          title: 'The API did not answer in time',
          detail: `${err instanceof Error ? err.message : String(err)}. The request may still have been carried out: read the record before trying again.`,
        },
        true,
      );
    }
    options.onToolCall?.(tool.name, res.status);
    const result = answer(res.status === 204 ? { done: true } : res.body, res.status >= 400);
    if (res.replayed)
      result.content.push({
        type: 'text',
        text: 'This is the answer to the same call with the same arguments made earlier this hour: nothing was done again. Change an argument to act anew.',
      });
    return result;
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [] }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    const path = resourceRequest(req.params.uri);
    if (!path) throw new McpError(ErrorCode.InvalidParams, `no resource at ${req.params.uri}`);
    const res = await caller.request('GET', path);
    if (res.status >= 400) throw new McpError(ErrorCode.InvalidParams, JSON.stringify(res.body));
    return { contents: [{ uri: req.params.uri, mimeType: 'application/json', text: JSON.stringify(res.body) }] };
  });

  return server;
}
