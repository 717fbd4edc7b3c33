/**
 * bench/pipeline: N generated publications (default 2,000) served by a local feed, ingested and
 * processed end to end (every pipeline stage that has an activity) by one worker; then the same worker
 * runs an empty pipeline of the same shape. Prints signals per second for both and their ratio.
 *
 *   npx tsx bench/pipeline.ts [--n 2000]
 *
 * Uses DATABASE_URL (else the embedded PostgreSQL) and TEMPORAL_ADDRESS (else a dev server it starts).
 */
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { sql } from 'kysely';
import { createActivities } from '../activities';
import { loadConfig, withRole, WORKER_DB_ROLE } from '../apps/shared/config';
import { WorkflowStarter } from '../apps/shared/temporal';
import { createDb } from '../db/pool';
import { dropDatabase, ensureDatabase, migrate } from '../db/migrator';
import { createOrganization } from '../db/queries/organizations';
import { seedOrganizationDefaults } from '../db/queries/organization-defaults';
import { insertSource } from '../db/queries/sources';
import { asUser } from '../db/tenancy';
import { PIPELINE_STAGES, STAGE_ACTIVITY } from '../workflows/stages';
import { startDatabase } from '../scripts/lib/postgres';
import { loadTemporalDevConfig, resolveTemporalCli, startTemporalDevServer } from '../scripts/lib/temporal-server';

// Per stage that has an activity: readSignalStatus, then the stage itself (workflows/process-signal.ts).
const ACTIVITIES_PER_SIGNAL = PIPELINE_STAGES.filter((s) => STAGE_ACTIVITY[s]).length * 2;

const { values } = parseArgs({ options: { n: { type: 'string', default: '2000' } } });
const N = Number(values.n);
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

function feed(n: number): string {
  const kinds = [
    (i: number) => [`Aanvraag omgevingsvergunning: nieuwbouw ${20 + (i % 80)} woningen met warmtepompen, kavel ${i}`, `Geraamde bouwsom EUR ${(i % 30) + 1},5 mln.`],
    (i: number) => [`Verleende omgevingsvergunning: renovatie kantoorpand ${i}`, `Renovatie van ${1000 + i} m2 kantoorruimte.`],
    (i: number) => [`Kapvergunning: ${1 + (i % 5)} bomen, perceel ${i}`, 'Het kappen van bomen.'],
    (i: number) => [`Tender: installation works for school building ${i}`, `HVAC installation for a ${2000 + i} m2 school.`],
  ];
  const now = new Date().toUTCString();
  const items = Array.from({ length: n }, (_, i) => {
    const [title, description] = kinds[i % kinds.length]!(i);
    return `<item><title>${title}</title><guid isPermaLink="false">bench-${i}</guid><link>https://example.org/${i}</link><pubDate>${now}</pubDate><description>${description}</description></item>`;
  });
  return `<?xml version="1.0"?><rss version="2.0"><channel><title>bench</title><link>https://example.org</link><description>bench</description>${items.join('')}</channel></rss>`;
}

async function waitAll(client: Client, ids: string[], concurrency = 200): Promise<void> {
  for (let i = 0; i < ids.length; i += concurrency) {
    await Promise.all(ids.slice(i, i + concurrency).map((id) => client.workflow.getHandle(id).result()));
  }
}

async function main() {
  const runId = Date.now().toString(36);
  const db = await startDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: path.join(os.tmpdir(), 'outreach-bench-data'), port: 54331, databaseName: 'postgres', log });
  const owner = new URL(db.ownerUrl);
  owner.pathname = `/outreach_bench_${runId}`;
  await ensureDatabase(owner.toString());
  await migrate(owner.toString(), { appPassword: db.appPassword });
  const appUrl = withRole(owner.toString(), WORKER_DB_ROLE, db.appPassword); // the worker's role (it also sets up as a user)

  let temporalAddress = process.env.TEMPORAL_ADDRESS;
  const temporal = temporalAddress
    ? undefined
    : await startTemporalDevServer({ cli: resolveTemporalCli(log), config: loadTemporalDevConfig(), grpcPort: 7299, headless: true, log });
  temporalAddress ??= temporal!.address;

  const feedBody = feed(N);
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/xml' }).end(feedBody));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const feedUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/feed.xml`;

  const config = loadConfig({ ...process.env, TEMPORAL_ADDRESS: temporalAddress, TEMPORAL_TASK_QUEUE: `bench-${runId}`, SOURCE_FETCH_MAX_BYTES: String(50 * 1024 * 1024) });
  const appDb = createDb(appUrl, 20);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const workerConnection = await NativeConnection.connect({ address: temporalAddress });
  const worker = await Worker.create({
    connection: workerConnection,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    workflowsPath: require.resolve('./workflows'),
    activities: { ...createActivities({ db: appDb, config }), benchNoop: async () => undefined },
  });
  const running = worker.run();
  const connection = await Connection.connect({ address: temporalAddress });
  const client = new Client({ connection });

  try {
    const userId = '00000000-0000-4000-8000-00000000be9c';
    const { orgId, sourceId } = await asUser(appDb, userId, async (tx) => {
      const org = await createOrganization(tx, 'Bench');
      await seedOrganizationDefaults(tx, org!.id, userId);
      const source = await insertSource(tx, { organization_id: org!.id, provider_key: 'rss', name: 'bench', config: { url: feedUrl } });
      return { orgId: org!.id, sourceId: source.id };
    });

    log(`pipeline: ${N} publications`);
    const t0 = performance.now();
    const run = await new WorkflowStarter(client, config).startIngest(orgId, sourceId);
    const outcome = await client.workflow.getHandle(run.workflowId, run.runId).result();
    await waitAll(client, outcome.signalIds.map((id: string) => `signal/${id}`));
    const pipelineSeconds = (performance.now() - t0) / 1000;
    const statuses = await asUser(appDb, userId, (tx) =>
      tx.selectFrom('signals').select(['status', sql<number>`count(*)::int`.as('n')]).where('organization_id', '=', orgId).groupBy('status').execute(),
    );

    log(`empty pipeline: ${N} children x ${ACTIVITIES_PER_SIGNAL} activities`);
    const t1 = performance.now();
    const empty = await client.workflow.execute('emptyIngestWorkflow', { taskQueue: config.TEMPORAL_TASK_QUEUE, workflowId: `bench-empty/${runId}`, args: [N, ACTIVITIES_PER_SIGNAL] });
    await waitAll(client, empty as string[]);
    const emptySeconds = (performance.now() - t1) / 1000;

    const pipelineRate = outcome.signalIds.length / pipelineSeconds;
    const emptyRate = N / emptySeconds;
    console.log(`publications            ${N}`);
    console.log(`signals processed       ${outcome.signalIds.length} (${statuses.map((s) => `${s.status} ${s.n}`).join(', ')})`);
    console.log(`pipeline                ${pipelineSeconds.toFixed(1)} s, ${pipelineRate.toFixed(1)} signals/s`);
    console.log(`empty workflow ceiling  ${emptySeconds.toFixed(1)} s, ${emptyRate.toFixed(1)} signals/s (${ACTIVITIES_PER_SIGNAL} no-op activities each)`);
    console.log(`ratio                   ${(pipelineRate / emptyRate).toFixed(2)} (target >= 0.6)`);
    console.log(`worker process RSS      ${(process.memoryUsage().rss / 1024 / 1024).toFixed(0)} MiB, ${os.cpus().length} cores`);
  } finally {
    worker.shutdown();
    await running;
    await workerConnection.close();
    await connection.close();
    await appDb.destroy();
    server.close();
    await temporal?.stop();
    await dropDatabase(owner.toString()).catch(() => undefined);
    await db.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
