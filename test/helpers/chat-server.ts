import http from 'node:http';

/** A local OpenAI-compatible /chat/completions endpoint: records requests, answers what the test queues. */
export interface ChatServer {
  baseUrl: string;
  requests: Array<{ headers: http.IncomingHttpHeaders; body: any }>;
  /** Answer the next calls with this assistant content (or an HTTP status). Reused when the queue runs out. */
  reply(...answers: Array<string | { status: number; body?: unknown }>): void;
  close(): Promise<void>;
}

/**
 * `respond`: a stand-in model that answers each request from what it was asked (when nothing is queued);
 * without it the last queued answer is reused.
 */
export async function startChatServer(model = 'test-model-2026-01', respond?: (body: any) => string): Promise<ChatServer> {
  let queue: Array<string | { status: number; body?: unknown }> = [];
  let last: string | { status: number; body?: unknown } = '{}';
  const requests: ChatServer['requests'] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return void res.writeHead(404).end();
      requests.push({ headers: req.headers, body: JSON.parse(raw) });
      const body = requests[requests.length - 1]!.body;
      const answer = queue.shift() ?? (respond ? respond(body) : last);
      last = answer;
      if (typeof answer !== 'string') {
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body ?? { error: { message: 'boom' } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model,
          choices: [{ index: 0, message: { role: 'assistant', content: answer }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 100, completion_tokens: 50, total_tokens: 150 },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    reply: (...answers) => {
      queue = answers;
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}
