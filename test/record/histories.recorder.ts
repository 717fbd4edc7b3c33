import { Pool } from 'pg';
import { startApi, newOrganization } from '../helpers/api';
import { startFeedServer } from '../helpers/feed-server';
import { rssFeed } from '../helpers/rss';
import { testEnv } from '../helpers/tokens';
import { exportHistory } from './export-history';

/**
 * Records test/histories/*.json through the real worker: `npm run record-histories`. Not part of
 * `npm test` (its file name does not end in .test.ts); the replay test replays what it writes.
 */

/** The history as `temporal workflow show --output json` exports it: what operators download from the UI too. */

test('record histories through the real worker', async () => {
  const api = await startApi();
  const feeds = await startFeedServer();
  try {
    const { owner, orgId } = await newOrganization(api);
    const now = new Date('2026-11-20T08:00:00Z');
    feeds.set('/feed.xml', {
      body: rssFeed('Recorded', [
        {
          guid: 'rec-1',
          title: 'Aanvraag omgevingsvergunning: nieuwbouw 48 woningen met warmtepompen',
          description: 'Aanvrager Bouwbedrijf Jansen B.V. (KvK 12345678), bouwsom EUR 14,5 mln.',
          pubDate: now,
        },
        { guid: 'rec-2', title: 'Kapvergunning: 2 bomen', pubDate: now },
        {
          guid: 'rec-3',
          title: 'Verleende omgevingsvergunning: renovatie kantoorpand Catharijnesingel 30',
          description: 'Renovatie van 1.200 m2 kantoorruimte.',
          pubDate: now,
        },
      ]),
    });
    const src = await api.call('POST', '/sources', {
      token: owner.token,
      body: { organizationId: orgId, providerKey: 'rss', name: 'Recorded', config: { url: `${feeds.url}/feed.xml` } },
    });
    const run = await api.call('POST', `/sources/${src.body.id}/run`, { token: owner.token, body: {} });
    const ingest = api.temporal.workflow.getHandle(run.body.workflow_id, run.body.run_id);
    const outcome = await ingest.result();
    const signals = await Promise.all(
      outcome.signalIds.map(async (id: string) => ({ id, result: await api.temporal.workflow.getHandle(`signal/${id}`).result() })),
    );
    exportHistory(run.body.workflow_id, run.body.run_id, 'ingest-source.json');
    const ready = signals.find((s) => s.result.finalStatus === 'ready')!;
    const ignored = signals.find((s) => s.result.finalStatus === 'ignored')!;
    exportHistory(`signal/${ready.id}`, undefined, 'process-signal-opportunity.json');
    exportHistory(`signal/${ignored.id}`, undefined, 'process-signal-ignored.json');

    // A signal left mid-pipeline (classified, the worker gone): the reconcile resumes it from scoring.
    const resumed = signals.find((s) => s.result.finalStatus === 'qualified')!;
    const owners = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 1 });
    try {
      await owners.query(`UPDATE signals SET status = 'classified', processed_at = NULL, updated_at = now() - interval '1 hour' WHERE id = $1`, [resumed.id]);
    } finally {
      await owners.end();
    }
    const reconcile = await api.temporal.workflow.start('reconcileSignalsWorkflow', {
      taskQueue: testEnv('TEMPORAL_TASK_QUEUE'),
      workflowId: 'reconcile/recorded',
      args: [{ stuckAfterSeconds: 300 }],
    });
    const reconciled = await reconcile.result();
    if (!reconciled.started.includes(resumed.id)) throw new Error(`reconcile did not start ${resumed.id}: ${JSON.stringify(reconciled)}`);
    await api.temporal.workflow.getHandle(`signal/${resumed.id}`).result();
    exportHistory('reconcile/recorded', reconcile.firstExecutionRunId, 'reconcile-signals.json');
    exportHistory(`signal/${resumed.id}`, undefined, 'process-signal-resumed.json');
  } finally {
    await feeds.close();
    await api.close();
  }
});
