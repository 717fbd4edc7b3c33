/**
 * The production Temporal Server (TEMPORAL_MODE=server, `npm run test:server`): the global set-up
 * starts it on this run's PostgreSQL with mutual TLS on its frontend, and the stack's two worker
 * processes, the in-process API and this file all reach it through temporalConnectionOptions.
 */
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { temporalConnectionEnv, temporalConnectionOptions } from '../../apps/shared/temporal-connection';
import { searchAttributes, workflowIds } from '../../workflows/search-attributes';
import type { reconcileSignalsWorkflow } from '../../workflows';
import { startApi } from '../helpers/api';
import { testEnv } from '../helpers/tokens';

const withCert = () => temporalConnectionEnv(process.env, testEnv('TEMPORAL_ADDRESS'));

test('the stack runs on the production server over mTLS: readyz, the workers run a workflow and its activity, SQL visibility finds it by search attribute', async () => {
  expect(process.env.TEMPORAL_MODE).toBe('server');
  expect(withCert()).toMatchObject({ TEMPORAL_TLS_CA: expect.any(String), TEMPORAL_TLS_CERT: expect.any(String), TEMPORAL_TLS_KEY: expect.any(String) });
  const api = await startApi();
  try {
    const ready = await api.call('GET', '/readyz');
    expect({ status: ready.status, body: ready.body }).toEqual({ status: 200, body: { status: 'ready', checks: { postgres: 'ok', temporal: 'ok' } } });

    const server = await api.temporal.connection.workflowService.getSystemInfo({});
    expect(server.serverVersion).toBe('1.29.1'); // not the CLI's dev server

    // The worker processes (two, polling the run's task queue over mTLS) run it and its database activity.
    const organizationId = '00000000-0000-4000-8000-000000000018';
    const workflowId = `temporal-server-test/${Date.now()}`;
    const handle = await api.temporal.workflow.start<typeof reconcileSignalsWorkflow>('reconcileSignalsWorkflow', {
      taskQueue: testEnv('TEMPORAL_TASK_QUEUE'),
      workflowId,
      args: [{ stuckAfterSeconds: 3600, retryInitialIntervalMs: 200 }],
      typedSearchAttributes: searchAttributes({ OrganizationId: organizationId }),
    });
    await expect(handle.result()).resolves.toEqual({ found: 0, started: [], running: [] });

    // The worker ensured the reconcile schedule at start-up (schedules run on the server's system worker, itself on mTLS).
    const schedule = await api.temporal.schedule.getHandle(workflowIds.reconcileSchedule).describe();
    expect(schedule.action).toMatchObject({ type: 'startWorkflow', workflowType: 'reconcileSignalsWorkflow' });

    // SQL visibility with the namespace's custom search attributes.
    const query = `OrganizationId = '${organizationId}'`;
    let found: string[] = [];
    for (let i = 0; i < 120 && found.length === 0; i++) {
      found = [];
      for await (const w of api.temporal.workflow.list({ query })) found.push(w.workflowId);
      if (found.length === 0) await new Promise((r) => setTimeout(r, 500));
    }
    expect(found).toEqual([workflowId]);
  } finally {
    await api.close();
  }
});

test('without the client certificate the server refuses the client and the worker connection; without TLS too', async () => {
  const { TEMPORAL_TLS_CERT: _cert, TEMPORAL_TLS_KEY: _key, ...caOnly } = withCert();
  const attempts: Array<[string, () => Promise<{ close(): Promise<void> }>]> = [
    ['client, CA only', () => Connection.connect({ ...temporalConnectionOptions(caOnly), connectTimeout: 5000 })],
    ['worker, CA only', () => NativeConnection.connect(temporalConnectionOptions(caOnly))],
    ['client, plaintext', () => Connection.connect({ address: caOnly.TEMPORAL_ADDRESS, connectTimeout: 5000 })],
  ];
  for (const [name, connect] of attempts) {
    const outcome = await connect().then(
      async (c) => {
        // A lazy handshake may only fail on the first call.
        const client = c instanceof Connection ? new Client({ connection: c }) : undefined;
        const call = client
          ? client.workflowService.getSystemInfo({}).then(
              () => 'answered',
              () => 'refused',
            )
          : Promise.resolve('connected');
        const result = await call;
        await c.close().catch(() => undefined);
        return result;
      },
      () => 'refused',
    );
    expect({ name, outcome }).toEqual({ name, outcome: 'refused' });
  }

  // The same options with the certificate: accepted (the refusals above are the certificate's doing).
  const connection = await Connection.connect(temporalConnectionOptions(withCert()));
  try {
    await expect(connection.workflowService.getSystemInfo({})).resolves.toMatchObject({ serverVersion: '1.29.1' });
  } finally {
    await connection.close();
  }
});

test('TEMPORAL_TLS_CERT without TEMPORAL_TLS_KEY is a configuration error naming both', () => {
  expect(() => temporalConnectionOptions({ TEMPORAL_ADDRESS: 'x:1', TEMPORAL_TLS_CERT: '/nowhere.pem' })).toThrow(/TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY/);
  expect(() => temporalConnectionOptions({ TEMPORAL_ADDRESS: 'x:1', TEMPORAL_TLS_CA: '/nowhere/ca.pem' })).toThrow(/TEMPORAL_TLS_CA: cannot read/);
  expect(temporalConnectionOptions({ TEMPORAL_ADDRESS: 'x:1' })).toEqual({ address: 'x:1' });
  expect(temporalConnectionOptions({ TEMPORAL_ADDRESS: 'x:1', TEMPORAL_API_KEY: 'k' })).toEqual({ address: 'x:1', tls: {}, apiKey: 'k' });
});
