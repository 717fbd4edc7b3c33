import { WorkflowStarter } from '../../apps/shared/temporal';
import { startApi, newOrganization } from '../helpers/api';
import { testEnv } from '../helpers/tokens';
import { exportHistory } from './export-history';

/**
 * Records test/histories/contact-import.json through the real worker (part of `npm run
 * record-histories`): a five-row import in chunks of two (three chunks), one row skipped.
 */
test('record the contact import history through the real worker', async () => {
  const api = await startApi();
  const starter = new WorkflowStarter(api.temporal, {
    TEMPORAL_TASK_QUEUE: testEnv('TEMPORAL_TASK_QUEUE'),
    INGEST_RETRY_INITIAL_INTERVAL_MS: 200,
    importRun: { chunkSize: 2 },
  });
  const own = await startApi({ workflows: starter });
  try {
    const { owner, orgId } = await newOrganization(own);
    const csv = [
      'name;email;company;domain',
      'Jan Jansen;jan@jansen-bouw.nl;Bouwbedrijf Jansen B.V.;jansen-bouw.nl',
      'Piet Jansen;piet@jansen-bouw.nl;bouwbedrijf jansen bv;jansen-bouw.nl',
      'Anna de Vries;anna@devries.nl;De Vries BV;devries.nl',
      ';leeg@devries.nl;De Vries BV;devries.nl',
      'Kees Bakker;kees@bakker.nl;Bakker;bakker.nl',
    ].join('\n');
    const res = await own.call('POST', `/imports?organizationId=${orgId}&sourceDescription=recorded`, {
      token: owner.token,
      rawBody: csv,
      headers: { 'content-type': 'text/csv' },
    });
    if (res.status !== 202) throw new Error(`POST /imports: ${res.status} ${JSON.stringify(res.body)}`);
    const handle = api.temporal.workflow.getHandle(res.body.workflow_id);
    const result = await handle.result();
    if (!result.done || result.processedRows !== 5) throw new Error(`unexpected result: ${JSON.stringify(result)}`);
    const { firstExecutionRunId } = await handle.describe().then((d) => ({ firstExecutionRunId: d.runId }));
    exportHistory(res.body.workflow_id, firstExecutionRunId, 'contact-import.json');
  } finally {
    await own.close();
    await api.close();
  }
});
