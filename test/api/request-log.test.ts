import type { IncomingMessage, ServerResponse } from 'node:http';
import net from 'node:net';
import { closingLevel, requestSummary } from '../../apps/api/request-log';
import { newOrganization, startApi, TestApi } from '../helpers/api';
import { capturedLogger } from '../helpers/log-capture';

const summary = (originalUrl: string) =>
  requestSummary({
    id: 'r-1',
    method: 'GET',
    originalUrl,
    headers: { authorization: 'Bearer secret' },
    socket: { remoteAddress: '192.0.2.7' },
  } as unknown as IncomingMessage & { originalUrl: string });

test("a request's log binding names it without its headers, and masks the credentials a URL may carry", () => {
  expect(summary('/signals?organizationId=o-1&q=code')).toEqual({
    id: 'r-1',
    method: 'GET',
    url: '/signals?organizationId=o-1&q=code',
    remoteAddress: '192.0.2.7',
  });
  expect(summary('/u/eyJhbGciOi.abc-def_ghi').url).toBe('/u/[redacted]');
  expect(summary('/u/tok.en?source=list').url).toBe('/u/[redacted]?source=list');
  expect(summary('/mailboxes/oauth/callback?code=4/0AbC&state=s-123&scope=mail').url).toBe(
    '/mailboxes/oauth/callback?code=[redacted]&state=[redacted]&scope=mail',
  );
  expect(summary('/mailboxes/oauth/callback?error=access_denied&state=s-9').url).toBe('/mailboxes/oauth/callback?error=access_denied&state=[redacted]');
  expect(JSON.stringify(summary('/signals'))).not.toContain('secret');
});

test("the closing line's level: error for a 5xx, info for a 4xx or an answer cut off, debug for the rest", () => {
  const res = (statusCode: number, writableFinished = true) => ({ statusCode, writableFinished }) as ServerResponse;
  expect([res(200), res(204), res(304), res(404), res(429), res(500), res(503), res(200, false)].map(closingLevel)).toEqual([
    'debug',
    'debug',
    'debug',
    'info',
    'info',
    'error',
    'error',
    'info',
  ]);
});

describe('the request log on the API', () => {
  let api: TestApi;
  const captured = capturedLogger('debug');
  beforeAll(async () => {
    api = await startApi({ logger: captured.logger });
  });
  afterAll(() => api.close());

  const linesOf = (id: string) => captured.lines.map((l) => JSON.parse(l) as Record<string, any>).filter((l) => l.req?.id === id);
  const settled = () => new Promise((r) => setTimeout(r, 100)); // the closing line follows the response's last byte

  test('one closing line a request: at debug for a success, at info for a 4xx; its id, its caller, never its token', async () => {
    const { owner, orgId } = await newOrganization(api);
    const ok = await fetch(`${api.url}/signals?organizationId=${orgId}`, { headers: { authorization: `Bearer ${owner.token}`, 'x-request-id': 'log-ok-1' } });
    expect(ok.status).toBe(200);
    await ok.text();
    const missing = await fetch(`${api.url}/nope`, { headers: { authorization: `Bearer ${owner.token}`, 'x-request-id': 'log-404-1' } });
    await missing.text();
    await settled();
    expect(linesOf('log-ok-1')).toEqual([
      expect.objectContaining({
        level: 20,
        msg: 'request completed',
        res: { statusCode: 200 },
        user_id: owner.id,
        req: { id: 'log-ok-1', method: 'GET', url: `/signals?organizationId=${orgId}`, remoteAddress: '127.0.0.1' },
      }),
    ]);
    expect(typeof linesOf('log-ok-1')[0]!.responseTime).toBe('number');
    expect(JSON.stringify(captured.lines)).not.toContain(owner.token);
    expect(linesOf('log-404-1')).toEqual([expect.objectContaining({ level: 30, msg: 'request completed', res: { statusCode: 404 } })]);
  });

  test('a request whose client goes away before the answer: one line "request aborted", at info', async () => {
    const { owner } = await newOrganization(api);
    // A JSON body announced as 1,000 bytes, of which 13 arrive: the API waits for the rest, and the client hangs up.
    const { port } = new URL(api.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.write(
      `POST /sources HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${owner.token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nX-Request-Id: log-aborted-1\r\n\r\n{"name": "s",`,
    );
    await new Promise((r) => setTimeout(r, 200));
    socket.destroy();
    await settled();
    expect(linesOf('log-aborted-1').filter((l) => l.msg?.startsWith('request '))).toEqual([expect.objectContaining({ level: 30, msg: 'request aborted' })]);
  });
});
