import { Router } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpServer, httpApiCaller } from '../../mcp/server';
import type { ApiDeps } from '../deps';
import { bind } from '../bind';
import { operations } from './mcp.schemas';

/**
 * POST /mcp: the MCP server over streamable HTTP, stateless (a server per request, no session). Its
 * tool calls are requests to this same API, on the address the caller reached, with the caller's own
 * Authorization header: the caller's rights, the API's checks and request log. Each tool call is
 * logged on this request too, with its caller.
 */
export function mcpRoutes(_deps: ApiDeps): Router {
  const r = Router();
  const serve = bind(r, operations);

  serve('postMcp', async (req, res, call) => {
    const message = call.body;
    const local = req.socket.localAddress ?? '127.0.0.1';
    const host = local.startsWith('::ffff:') ? local.slice(7) : local.includes(':') ? `[${local}]` : local;
    const caller = httpApiCaller(`http://${host}:${req.socket.localPort}`, req.headers.authorization ?? '', { 'x-request-id': `${req.id.slice(0, 120)}-mcp` });
    const server = createMcpServer(caller, { onToolCall: (tool, status) => req.log.info({ tool, status }, 'mcp tool call') });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    // The answer is JSON whatever the client says it accepts (like every route here); the SDK would refuse a
    // client that does not also list text/event-stream, with an answer that is not a problem.
    const headers: string[] = [];
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2)
      if (req.rawHeaders[i]!.toLowerCase() !== 'accept') headers.push(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
    req.rawHeaders = [...headers, 'Accept', 'application/json, text/event-stream'];
    req.headers.accept = 'application/json, text/event-stream';
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, message);
  });

  return r;
}
