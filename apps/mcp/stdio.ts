import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer, httpApiCaller } from './server';

/**
 * `npm run mcp`: the MCP server on stdin and stdout, for a desktop assistant. It speaks to a running
 * API (OUTREACH_API_URL, default http://127.0.0.1:3000) as the holder of OUTREACH_API_KEY (an `osk_`
 * key: one organization, one role) or OUTREACH_TOKEN (a user's bearer token). Nothing but the
 * protocol goes to stdout; problems go to stderr.
 */
function main(): void {
  const credential = process.env.OUTREACH_API_KEY ?? process.env.OUTREACH_TOKEN;
  if (!credential) {
    process.stderr.write(
      'Set OUTREACH_API_KEY (an osk_ key) or OUTREACH_TOKEN (a bearer token), and OUTREACH_API_URL when the API is not on http://127.0.0.1:3000\n',
    );
    process.exit(2);
  }
  const url = process.env.OUTREACH_API_URL ?? 'http://127.0.0.1:3000';
  const server = createMcpServer(httpApiCaller(url, `Bearer ${credential}`), {
    onToolCall: (tool, status) => process.stderr.write(`${new Date().toISOString()} tool ${tool}: ${status}\n`),
  });
  server.connect(new StdioServerTransport()).catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}

main();
