import http from 'node:http';
import express from 'express';
import { listen } from '../../apps/api/server';
import { DEFAULT_IMPORT_UPLOAD_TIMEOUT_MS } from '../../apps/api/routes/imports';

/** A server whose GET /slow answers when release() is called; `started` resolves when a request reached it. */
async function slowServer() {
  const app = express();
  let release!: () => void;
  const started = new Promise<void>((resolveStarted) => {
    app.get('/slow', (_req, res) => {
      resolveStarted();
      new Promise<void>((r) => (release = r)).then(() => res.json({ done: true }));
    });
  });
  const server = await listen(app, 0, '127.0.0.1');
  return { server, started, release: () => release() };
}

/** Graceful shutdown: close() stops taking connections, lets in-flight requests finish, then resolves. */
test('an in-flight request completes while the server closes; new connections are refused', async () => {
  const { server, started, release } = await slowServer();
  const inFlight = fetch(`${server.url}/slow`).then(async (r) => ({ status: r.status, body: await r.json() }));
  await started;

  let closed = false;
  const closing = server.close(5000).then(() => (closed = true));
  await new Promise((r) => setTimeout(r, 100));
  expect(closed).toBe(false); // still waiting for the request
  await expect(new Promise((resolve, reject) => http.get(`${server.url}/slow`, resolve).on('error', reject))).rejects.toMatchObject({ code: 'ECONNREFUSED' });

  release();
  await expect(inFlight).resolves.toEqual({ status: 200, body: { done: true } });
  await closing;
  expect(closed).toBe(true);
});

test('a request whose client went away is still waited for: close() resolves once its handler has answered (into the void)', async () => {
  const { server, started, release } = await slowServer();
  const gone = new AbortController();
  const request = fetch(`${server.url}/slow`, { signal: gone.signal }).catch((err: Error) => err.name);
  await started;
  gone.abort(); // the client hangs up while the handler works
  await expect(request).resolves.toBe('AbortError');

  let closed = false;
  const closing = server.close(5000).then(() => (closed = true));
  await new Promise((r) => setTimeout(r, 200));
  expect(closed).toBe(false); // the connection is gone, the handler is not done
  release();
  await closing;
  expect(closed).toBe(true);
});

test('close() gives up on a handler that never answers after the grace period', async () => {
  const app = express();
  let started!: () => void;
  const running = new Promise<void>((r) => (started = r));
  app.get('/never', () => started());
  const server = await listen(app, 0, '127.0.0.1');
  const gone = new AbortController();
  const request = fetch(`${server.url}/never`, { signal: gone.signal }).catch(() => undefined);
  await running;
  gone.abort();
  await request;
  const t0 = Date.now();
  await server.close(300);
  expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
});

test("Node's limit on a request's whole time leaves an import upload its own, longer limit", async () => {
  const { server } = await slowServer();
  try {
    expect(server.server.requestTimeout).toBeGreaterThan(DEFAULT_IMPORT_UPLOAD_TIMEOUT_MS);
  } finally {
    await server.close(100);
  }
});
