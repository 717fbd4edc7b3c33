import { Client, Connection } from '@temporalio/client';
import { createDb } from '../../db/pool';
import { expectProblem, startApi } from '../helpers/api';
import { capturedLogger } from '../helpers/log-capture';

test('readyz names the dependency that is down, never the driver message; the message goes to the log', async () => {
  const { logger, lines: logLines } = capturedLogger('info');
  // No gRPC retries on this dead connection: they would outlive the test.
  const deadTemporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:9', connectTimeout: 1000, interceptors: [] }) });
  const broken = await startApi({ db: createDb('postgres://outreach_app@127.0.0.1:9/none', 1), temporalClient: deadTemporal, logger });
  try {
    const res = await broken.call('GET', '/readyz');
    expectProblem(res, 503, 'SERVICE_UNAVAILABLE');
    expect(res.body.checks).toEqual({ postgres: 'down', temporal: 'down' });
    const text = JSON.stringify(res.body);
    for (const leak of ['ECONNREFUSED', '127.0.0.1:9', 'outreach_app', 'connect', 'unavailable:'])
      expect({ leak, found: text.includes(leak) }).toEqual({ leak, found: false });
    const logged = logLines.join('');
    expect(logged).toMatch(/readiness check failed/);
    expect(logged).toMatch(/ECONNREFUSED|127\.0\.0\.1:9/);
  } finally {
    await broken.close();
    await deadTemporal.connection.close().catch(() => undefined);
  }
  const api = await startApi();
  try {
    const ok = await api.call('GET', '/readyz');
    expect({ status: ok.status, body: ok.body }).toEqual({ status: 200, body: { status: 'ready', checks: { postgres: 'ok', temporal: 'ok' } } });
    const pgDown = await startApi({ db: createDb('postgres://outreach_app@127.0.0.1:9/none', 1) });
    try {
      const res = await pgDown.call('GET', '/readyz');
      expectProblem(res, 503, 'SERVICE_UNAVAILABLE');
      expect(res.body.checks).toEqual({ postgres: 'down', temporal: 'ok' });
      expect(res.body.detail).toBe('Not ready: postgres not reachable');
    } finally {
      await pgDown.close();
    }
  } finally {
    await api.close();
  }
});
