import { randomUUID } from 'node:crypto';
import { WorkflowStarter } from '../../apps/shared/temporal';
import { newOrganization, startApi } from '../helpers/api';
import { SALESFORCE_TEST_APP, SALESFORCE_TEST_REFRESH_TOKEN, startSalesforceServer } from '../helpers/salesforce-server';
import { startWorkerProcess, workerEnv } from '../helpers/worker-process';
import { exportHistory } from './export-history';

/**
 * Records test/histories/crm-outcome.json (part of `npm run record-histories`): a won outcome of an
 * opportunity linked in a Salesforce integration's mapping, through a real worker process configured
 * with a local Salesforce's connected app (the stack's workers have none).
 */
test('record the CRM outcome history through a real worker', async () => {
  const sf = await startSalesforceServer();
  const queue = `record-crm-outcome-${randomUUID()}`;
  const worker = await startWorkerProcess({
    ...workerEnv(queue),
    SALESFORCE_CLIENT_ID: SALESFORCE_TEST_APP.clientId,
    SALESFORCE_CLIENT_SECRET: SALESFORCE_TEST_APP.clientSecret,
    SALESFORCE_TOKEN_URL: sf.tokenUrl,
  });
  const base = await startApi();
  const api = await startApi({ workflows: new WorkflowStarter(base.temporal, { TEMPORAL_TASK_QUEUE: queue, INGEST_RETRY_INITIAL_INTERVAL_MS: 200 }) });
  try {
    const { owner, orgId } = await newOrganization(api);
    const as = async (method: string, p: string, body: unknown) => {
      const res = await api.call(method, p, { token: owner.token, body });
      if (res.status >= 300) throw new Error(`${p}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const opportunity = await as('POST', '/opportunities', { organizationId: orgId, summary: 'Nieuwbouw 24 woningen' });
    sf.records.Opportunity.set('0065g00000RecOpp01', { Name: 'Nieuwbouw 24 woningen', StageName: 'Proposal/Price Quote' });
    await as('POST', '/integrations', {
      organizationId: orgId,
      providerKey: 'salesforce',
      kind: 'crm',
      config: { instanceUrl: sf.url, autoSync: true },
      mapping: { opportunities: { [opportunity.id]: '0065g00000RecOpp01' } },
      secret: SALESFORCE_TEST_REFRESH_TOKEN,
    });
    await as('POST', `/opportunities/${opportunity.id}/outcome`, { outcome: 'won', value: 250000 });
    const run = base.temporal.workflow.getHandle(`crm-outcome/${opportunity.id}`);
    const result = await run.result();
    if (!result?.synced) throw new Error(`the run did not sync: ${JSON.stringify(result)}`);
    exportHistory(run.workflowId, undefined, 'crm-outcome.json');
  } finally {
    worker.kill('SIGKILL');
    await api.close();
    await base.close();
    await sf.close();
  }
});
