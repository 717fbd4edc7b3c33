import { z } from 'zod';
import { record, type Operation } from '../contract';

/**
 * The HTTP contract of apps/api/routes/mcp.ts: the Model Context Protocol's streamable HTTP transport
 * (JSON-RPC 2.0 messages; answered as JSON). Its tools are the other operations (apps/mcp/tools.ts).
 */

const rpcId = z.union([z.string().max(200), z.number().int()]);

/** One JSON-RPC request (with an id) or notification (without): what a client sends an MCP server. Batches are not part of MCP since 2025-06-18. */
export const mcpBody = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: rpcId.optional(),
    method: z.string().min(1).max(200),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export const McpMessage = record(
  'McpMessage',
  "A JSON-RPC 2.0 answer of the MCP server: `result` (a tool's answer is `content`, `isError` when the API refused) or `error`",
  z.object({ jsonrpc: z.literal('2.0'), id: z.union([z.string(), z.number(), z.null()]).optional() }).catchall(z.unknown()),
);

export const operations = [
  {
    id: 'postMcp',
    method: 'post',
    path: '/mcp',
    tag: 'Agents',
    summary:
      'The Model Context Protocol (streamable HTTP, stateless): initialize, tools/list, tools/call, resources/read. Every tool call is the API request it names, made as this caller (its role, its organizations); a notification is answered 202',
    role: 'any user',
    mcp: 'hidden',
    body: mcpBody,
    answer: McpMessage,
  },
] as const satisfies readonly Operation[];
