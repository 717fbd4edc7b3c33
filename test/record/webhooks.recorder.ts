import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WorkflowNotFoundError } from '@temporalio/client';
import { webhookWakeSignal } from '../../workflows/webhook-endpoint';
import { workflowIds } from '../../workflows/search-attributes';
import { startApi, newOrganization } from '../helpers/api';
import { until } from '../helpers/outreach';
import { exportHistory } from './export-history';

/**
 * Records test/histories/webhook-endpoint.json through the real worker (part of `npm run
 * record-histories`): an endpoint whose receiver answers 500 once and then 200 (a retry after the
 * schedule's first delay), then idles; deleted, it is woken and the run ends.
 */
test('record the webhook endpoint history through the real worker', async () => {
  const api = await startApi();
  const answers = [500];
  let received = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.statusCode = answers.shift() ?? 200;
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const { owner, orgId } = await newOrganization(api);
    const as = async (method: string, p: string, body?: unknown) => {
      const res = await api.call(method, p, { token: owner.token, body });
      if (res.status >= 300) throw new Error(`${p}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    const endpoint = await as('POST', '/webhook-endpoints', { organizationId: orgId, url, events: ['*'] });
    await as('POST', `/webhook-endpoints/${endpoint.id}/test`, {});
    await until(
      'delivered on the second attempt',
      async () => received >= 2 && (await as('GET', `/webhook-endpoints/${endpoint.id}/deliveries`))[0]?.status === 'delivered',
      60_000,
    );
    await api.call('DELETE', `/webhook-endpoints/${endpoint.id}`, { token: owner.token });
    const handle = api.temporal.workflow.getHandle(workflowIds.webhookEndpoint(endpoint.id));
    await handle.signal(webhookWakeSignal).catch((err) => {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    });
    await handle.result();
    exportHistory(handle.workflowId, undefined, 'webhook-endpoint.json');
  } finally {
    await new Promise((r) => server.close(r));
    await api.close();
  }
});
