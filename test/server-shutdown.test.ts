import http from 'node:http';
import express from 'express';
import { listen } from '../apps/api/server';

/** Graceful shutdown: close() stops taking connections, lets in-flight requests finish, then resolves. */
test('an in-flight request completes while the server closes; new connections are refused', async () => {
  const app = express();
  let release!: () => void;
  const started = new Promise<void>((resolveStarted) => {
    app.get('/slow', (_req, res) => {
      resolveStarted();
      new Promise<void>((r) => (release = r)).then(() => res.json({ done: true }));
    });
  });
  const server = await listen(app, 0, '127.0.0.1');
  const inFlight = fetch(`${server.url}/slow`).then(async (r) => ({ status: r.status, body: await r.json() }));
  await started;

  let closed = false;
  const closing = server.close(5000).then(() => (closed = true));
  await new Promise((r) => setTimeout(r, 100));
  expect(closed).toBe(false); // still waiting for the request
  await expect(
    new Promise((resolve, reject) => http.get(`${server.url}/slow`, resolve).on('error', reject)),
  ).rejects.toMatchObject({ code: 'ECONNREFUSED' });

  release();
  await expect(inFlight).resolves.toEqual({ status: 200, body: { done: true } });
  await closing;
  expect(closed).toBe(true);
});
