import { randomUUID } from 'node:crypto';
import http from 'node:http';
import express, { Router, type ErrorRequestHandler } from 'express';
import { OPERATIONS } from '../../apps/api/openapi';
import { dispatchByFirstSegment } from '../../apps/api/route-dispatch';
import { startApi, TestApi } from '../helpers/api';
import { newUser } from '../helpers/tokens';

/** A small app: three routers behind the dispatch, then the 404 and the error handler the API has. */
async function smallApp(): Promise<{ get(path: string): Promise<string>; close(): Promise<void> }> {
  const first = Router();
  first.get('/a/x', (_req, res) => void res.send('first /a/x'));
  first.get('/a/dup', (_req, res) => void res.send('first /a/dup'));
  first.get('/a/pass', (_req, _res, next) => next()); // declines: the next router's /a/pass answers
  first.get('/a/fail', async () => {
    throw new Error('async failure');
  });
  const second = Router();
  second.get('/a/y', (_req, res) => void res.send('second /a/y'));
  second.get('/a/dup', (_req, res) => void res.send('second /a/dup'));
  second.get('/a/pass', (_req, res) => void res.send('second /a/pass'));
  second.get('/b', (_req, res) => void res.send('second /b'));
  const byParameter = Router(); // its first segment is a parameter: asked for every path, in its place
  byParameter.get('/:anything/z', (req, res) => void res.send(`parameter ${req.params.anything}`));
  const app = express();
  app.use(dispatchByFirstSegment([first, byParameter, second]));
  app.use((req, res) => void res.status(404).send(`no route for ${req.path}`));
  app.use(((err, _req, res, _next) => void res.status(500).send(`error: ${(err as Error).message}`)) as ErrorRequestHandler);
  const server = http.createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    get: async (path) => {
      const res = await fetch(base + path);
      return `${res.status} ${await res.text()}`;
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}

test('each request reaches the handler the routers mounted in a row would give it: the order kept, next() to the following router, any case, parameters first, errors and 404s as before', async () => {
  const app = await smallApp();
  try {
    expect(await app.get('/a/x')).toBe('200 first /a/x');
    expect(await app.get('/a/y')).toBe('200 second /a/y');
    expect(await app.get('/a/dup')).toBe('200 first /a/dup'); // the earlier router wins, as mounted in a row
    expect(await app.get('/a/pass')).toBe('200 second /a/pass');
    expect(await app.get('/A/Y')).toBe('200 second /a/y'); // Express matches paths whatever their case
    expect(await app.get('/b/')).toBe('200 second /b'); // and with a trailing slash
    expect(await app.get('/a/z')).toBe('200 parameter a'); // the parameter router, in its place before `second`
    expect(await app.get('/q/z')).toBe('200 parameter q'); // a segment no plain route has
    expect(await app.get('/a/fail')).toBe('500 error: async failure');
    expect(await app.get('/nothing')).toBe('404 no route for /nothing');
    expect(await app.get('/')).toBe('404 no route for /');
  } finally {
    await app.close();
  }
});

describe('the API', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  test('every documented operation reaches its route (the dispatch drops none): none answers the fallback "No route for"', async () => {
    const { token } = await newUser();
    const unrouted: string[] = [];
    for (const op of OPERATIONS) {
      const path = op.path.replace(/\{\w+\}/g, () => randomUUID());
      const body = op.method === 'get' || op.method === 'delete' ? undefined : '{}';
      const res = await fetch(api.url + path, {
        method: op.method.toUpperCase(),
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body,
      });
      const text = await res.text();
      expect(res.status).toBeLessThan(500);
      if (text.includes('No route for')) unrouted.push(`${op.method} ${op.path}`);
    }
    expect(unrouted).toEqual([]);
    // The fallback still answers what no router has.
    const none = await fetch(`${api.url}/no-such-thing`, { headers: { authorization: `Bearer ${token}` } });
    expect({ status: none.status, detail: ((await none.json()) as { detail: string }).detail }).toEqual({
      status: 404,
      detail: 'No route for GET /no-such-thing',
    });
  });
});
