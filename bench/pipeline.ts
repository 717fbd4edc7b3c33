/**
 * bench/pipeline: N generated publications (default 2,000) served by a local feed, ingested and
 * processed end to end by one worker process: every signal's processSignalWorkflow and what those
 * start on their own (a company's enrichment, an opportunity's strategist: with --companies K the
 * publications name K applicant companies, else none and no such run starts), until the last of
 * them has finished. The same worker also runs the empty twin of that run (equal work): its recorded
 * histories replayed as shapes (bench/shapes.ts), the same workflows with the same activities on the
 * same task queues, the same timers and the same children, each activity a no-op. Three rounds by
 * default, each with a fresh organization, which of the two goes first alternating; the medians are
 * printed, with the worker process's resident memory. Without TEMPORAL_ADDRESS each half of a round
 * (the run, its twin) gets a dev server and a worker of its own, started fresh: the dev server slows
 * as histories pile up in its memory (a twin alone went from 11.5 to 5.3 signals/s over four rounds on
 * one server), which had decided the ratio more than the pipeline did.
 *
 *   npx tsx bench/pipeline.ts [--n 2000] [--rounds 3] [--companies 0] [--profile]
 *
 * Uses DATABASE_URL (else the embedded PostgreSQL) and TEMPORAL_ADDRESS (else a dev server it starts).
 */
import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { sql } from 'kysely';
import { loadConfig, withRole } from '../apps/shared/config';
import { WORKER_DB_ROLE } from '../db/roles';
import { WorkflowStarter } from '../apps/shared/temporal';
import { createDb, DB } from '../db/pool';
import { dropDatabase, ensureDatabase, migrate } from '../db/migrator';
import { createOrganization } from '../db/queries/organizations';
import { seedOrganizationDefaults } from '../db/queries/organization-defaults';
import { insertSource } from '../db/queries/sources';
import { asUser } from '../db/tenancy';
import type { ProcessSignalResult } from '../workflows/process-signal';
import { workflowIds } from '../workflows/search-attributes';
import { intern, type RunShape, shapeOf, sizeOf, twinAttributes, twinIds } from './shapes';
import { startDatabase } from '../scripts/lib/postgres';
import { loadTemporalDevConfig, resolveTemporalCli, startTemporalDevServer } from '../scripts/lib/temporal-server';
import { median } from './stats';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '3' },
    companies: { type: 'string', default: '0' },
    profile: { type: 'boolean', default: false },
  },
});
const N = Number(values.n);
const ROUNDS = Number(values.rounds);
/** How many companies the publications name as applicant (0: none, so no enrichment or strategist starts). */
const COMPANIES = Number(values.companies);
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

/** The runs a signal's run started on their own (ABANDON): its company's enrichment, its opportunity's strategist. */
function startedBy(r: ProcessSignalResult): string[] {
  const ids: string[] = [];
  for (const { stage, detail } of r.stages) {
    if (stage === 'enrichment' && detail?.enrich) ids.push(workflowIds.enrichCompany(detail.companyId as string));
    if (stage === 'strategist' && detail?.startStrategist) ids.push(workflowIds.strategist(detail.opportunityId as string));
  }
  return ids;
}

function feed(n: number, round: number): string {
  const kinds = [
    (i: number) => [
      `Aanvraag omgevingsvergunning: nieuwbouw ${20 + (i % 80)} woningen met warmtepompen, kavel ${i}`,
      `Geraamde bouwsom EUR ${(i % 30) + 1},5 mln.`,
    ],
    (i: number) => [`Verleende omgevingsvergunning: renovatie kantoorpand ${i}`, `Renovatie van ${1000 + i} m2 kantoorruimte.`],
    (i: number) => [`Kapvergunning: ${1 + (i % 5)} bomen, perceel ${i}`, 'Het kappen van bomen.'],
    (i: number) => [`Tender: installation works for school building ${i}`, `HVAC installation for a ${2000 + i} m2 school.`],
  ];
  const now = new Date().toUTCString();
  const items = Array.from({ length: n }, (_, i) => {
    const [title, text] = kinds[i % kinds.length]!(i);
    const description = COMPANIES > 0 ? `${text} Aanvrager: Bouwbedrijf Bench${round}x${i % COMPANIES} B.V.` : text;
    return `<item><title>${title}</title><guid isPermaLink="false">bench-${round}-${i}</guid><link>https://example.org/${round}/${i}</link><pubDate>${now}</pubDate><description>${description}</description></item>`;
  });
  return `<?xml version="1.0"?><rss version="2.0"><channel><title>bench</title><link>https://example.org</link><description>bench</description>${items.join('')}</channel></rss>`;
}

async function resultsOf<T>(client: Client, ids: string[], concurrency = 200): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < ids.length; i += concurrency) out.push(...(await Promise.all(ids.slice(i, i + concurrency).map((id) => resultOf<T>(client, id)))));
  return out;
}

/** A run's result; a run its parent has not started yet (a twin's later batch) is waited for. */
async function resultOf<T>(client: Client, id: string): Promise<T> {
  for (;;) {
    try {
      return await client.workflow.getHandle(id).result();
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** Resident memory of a process, now and at its peak (Linux /proc), in MiB. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux); 0 when it is gone. */
function cpuMsOf(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / 100) * 1000; // utime + stime, USER_HZ 100
  } catch {
    return 0;
  }
}

/** Where a half's CPU went: the worker process, the Temporal server, PostgreSQL's backends for the bench database. */
interface CpuSplit {
  worker: number;
  server: number;
  postgres: number;
}

function startWorker(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    // --profile: a V8 CPU profile of each worker process (pipeline and twin halves) in bench/profiles.
    const profile = values.profile ? ['--cpu-prof', `--cpu-prof-dir=${path.join(__dirname, 'profiles')}`] : [];
    const child = spawn(process.execPath, [...profile, '--import', 'tsx', path.join(__dirname, 'worker.ts')], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout!.on('data', (b: Buffer) => {
      if (b.toString().includes('bench worker started')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`bench worker exited (${code})`)));
  });
}

async function main() {
  const runId = Date.now().toString(36);
  const db = await startDatabase({
    databaseUrl: process.env.DATABASE_URL,
    dataDir: path.join(os.tmpdir(), 'outreach-bench-data'),
    port: 54331,
    databaseName: 'postgres',
    log,
  });
  const owner = new URL(db.ownerUrl);
  owner.pathname = `/outreach_bench_${runId}`;
  await ensureDatabase(owner.toString());
  await migrate(owner.toString(), { appPassword: db.appPassword });
  const appUrl = withRole(owner.toString(), WORKER_DB_ROLE, db.appPassword); // the worker's role (the bench also sets up as a user)

  // A server given (TEMPORAL_ADDRESS) serves every half; else each half starts a dev server of its own.
  const sharedAddress = process.env.TEMPORAL_ADDRESS;
  const cli = sharedAddress ? undefined : resolveTemporalCli(log);

  const feeds = new Map<string, string>();
  const server = http.createServer((req, res) => res.writeHead(200, { 'content-type': 'application/xml' }).end(feeds.get(req.url ?? '') ?? ''));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const feedBase = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

  const taskQueue = `bench-${runId}`;
  const workerEnv = {
    ...process.env,
    WORKER_DATABASE_URL: appUrl,
    TEMPORAL_ADDRESS: sharedAddress ?? '127.0.0.1:7299',
    TEMPORAL_TASK_QUEUE: taskQueue,
    SOURCE_FETCH_MAX_BYTES: String(50 * 1024 * 1024),
    // The rules classifier calls no provider: the providers queue's rate limit is raised so that it
    // does not set the pace (its concurrency bound stays the default).
    PROVIDER_ACTIVITIES_PER_SECOND: '1000',
    LOG_LEVEL: 'warn',
  };
  const config = loadConfig({ ...workerEnv, APP_DATABASE_URL: undefined });
  const appDb: DB = createDb(appUrl, 5);
  let memory = { rss: 0, peak: 0 };
  const ownerPool = createDb(owner.toString(), 1);
  const postgresCpuMs = async () => {
    const pids = await sql<{ pid: number }>`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`.execute(ownerPool);
    return pids.rows.reduce((sum, r) => sum + cpuMsOf(r.pid), 0);
  };
  /**
   * fn with a server (a fresh dev server unless one is given) and a worker of its own, both stopped
   * after. fn's `cpu` starts the CPU count; its result is the CPU each part used since then.
   */
  const onServer = async <T>(fn: (client: Client, cpu: () => Promise<() => Promise<CpuSplit>>) => Promise<T>): Promise<T> => {
    const temporal = cli ? await startTemporalDevServer({ cli, config: loadTemporalDevConfig(), grpcPort: 7299, headless: true, log }) : undefined;
    let worker: ChildProcess | undefined;
    let connection: Connection | undefined;
    try {
      worker = await startWorker(workerEnv);
      connection = await Connection.connect({ address: workerEnv.TEMPORAL_ADDRESS });
      const w = worker;
      const cpu = async () => {
        const at = { worker: cpuMsOf(w.pid), server: cpuMsOf(temporal?.process.pid), postgres: await postgresCpuMs() };
        return async (): Promise<CpuSplit> => ({
          worker: cpuMsOf(w.pid) - at.worker,
          server: cpuMsOf(temporal?.process.pid) - at.server,
          postgres: (await postgresCpuMs()) - at.postgres,
        });
      };
      return await fn(new Client({ connection }), cpu);
    } catch (err) {
      console.error(err); // before the connection closes under a call still retrying
      throw err;
    } finally {
      if (worker) {
        const m = memoryOf(worker.pid!);
        memory = { rss: m.rss, peak: Math.max(memory.peak, m.peak) };
        worker.kill('SIGTERM');
        await new Promise((r) => worker!.once('exit', r));
      }
      await connection?.close();
      await temporal?.stop();
    }
  };
  const userId = '00000000-0000-4000-8000-00000000be9c';
  const rounds: Array<{ pipeline: number; empty: number; ratio: number; order: string; statuses: string; size: string; cpu: CpuSplit; twinCpu: CpuSplit }> = [];

  try {
    /** One pipeline run of N publications for a fresh organization, timed until its last workflow finished. */
    const pipelineRun = (round: number) =>
      onServer(async (client, cpu) => {
        feeds.set(`/feed-${round}.xml`, feed(N, round));
        const { orgId, sourceId } = await asUser(appDb, userId, async (tx) => {
          const org = await createOrganization(tx, `Bench ${round}`);
          await seedOrganizationDefaults(tx, org!.id, userId);
          const source = await insertSource(tx, {
            organization_id: org!.id,
            provider_key: 'rss',
            name: 'bench',
            config: { url: `${feedBase}/feed-${round}.xml` },
          });
          return { orgId: org!.id, sourceId: source.id };
        });
        log(`round ${round}: pipeline, ${N} publications`);
        const used = await cpu();
        const t0 = performance.now();
        const run = await new WorkflowStarter(client, config).startIngest(orgId, sourceId);
        const outcome = await client.workflow.getHandle(run.workflowId, run.runId).result();
        const results = await resultsOf<ProcessSignalResult>(
          client,
          outcome.signalIds.map((id: string) => workflowIds.processSignal(id)),
        );
        // Every signal's run has finished, so everything they started has started: wait for the last run of each.
        await resultsOf(client, [...new Set(results.flatMap(startedBy))]);
        const seconds = (performance.now() - t0) / 1000;
        const cpuUsed = await used();
        const statuses = await asUser(appDb, userId, (tx) =>
          tx
            .selectFrom('signals')
            .select(['status', sql<number>`count(*)::int`.as('n')])
            .where('organization_id', '=', orgId)
            .groupBy('status')
            .orderBy('status')
            .execute(),
        );
        const shape = await shapeOf(client, { workflowId: run.workflowId, runId: run.runId }, taskQueue);
        return { rate: results.length / seconds, statuses: statuses.map((s) => `${s.status} ${s.n}`).join(', '), shape, cpu: cpuUsed };
      });
    /** The empty twin of a recorded run, timed until its last workflow finished. */
    const twinRun = (round: number, shape: RunShape, signals: number) =>
      onServer(async (client, cpu) => {
        const size = sizeOf(shape);
        const twin = `bench-empty/${runId}/${round}`;
        log(`round ${round}: the empty twin, ${size.workflows} workflows, ${size.activities} activities, ${size.timers} timers, ${size.patches} patch markers`);
        const used = await cpu();
        const t1 = performance.now();
        await client.workflow.start('emptyTwinWorkflow', {
          taskQueue,
          workflowId: twin,
          args: [intern(shape)],
          typedSearchAttributes: twinAttributes(shape.attributes, twin),
        });
        await resultsOf(client, twinIds(shape, twin));
        return { rate: signals / ((performance.now() - t1) / 1000), cpu: await used() };
      });

    // On a shared server the server and the worker slow down as histories pile up, so whichever runs
    // second in a round is at a disadvantage: the order alternates (on fresh servers too: PostgreSQL
    // keeps every round's signals), and a round that starts with the twin replays the previous round's
    // recorded run (every round's feed has the same shape).
    let last: Awaited<ReturnType<typeof pipelineRun>> | undefined;
    for (let round = 1; round <= ROUNDS; round++) {
      const twinFirst = round % 2 === 0 && last !== undefined;
      const first = twinFirst ? await twinRun(round, last!.shape, N) : undefined;
      last = await pipelineRun(round);
      const twin = first ?? (await twinRun(round, last.shape, N));
      const emptyRate = twin.rate;
      const size = sizeOf(last.shape);
      rounds.push({
        pipeline: last.rate,
        empty: emptyRate,
        ratio: last.rate / emptyRate,
        order: twinFirst ? 'twin first' : 'pipeline first',
        statuses: last.statuses,
        size: `${size.workflows} workflows, ${size.activities} activities, ${size.timers} timers, ${size.patches} patch markers`,
        cpu: last.cpu,
        twinCpu: twin.cpu,
      });
      log(`round ${round}: pipeline ${last.rate.toFixed(1)}/s, empty ${emptyRate.toFixed(1)}/s, ratio ${(last.rate / emptyRate).toFixed(2)}`);
    }
    console.log(
      `publications            ${N} per round, ${ROUNDS} rounds (pipeline and its empty twin, which goes first alternating; ${cli ? 'each on a fresh dev server and worker' : `both on ${sharedAddress}`})`,
    );
    console.log(`signals                 ${rounds[0]!.statuses}; the run and its twin: ${rounds[0]!.size}`);
    const perSignal = (c: CpuSplit) => `worker ${(c.worker / N).toFixed(1)}, server ${(c.server / N).toFixed(1)}, postgres ${(c.postgres / N).toFixed(1)}`;
    for (const [i, r] of rounds.entries()) {
      console.log(
        `round ${i + 1}                 pipeline ${r.pipeline.toFixed(1)} signals/s, empty twin ${r.empty.toFixed(1)} signals/s, ratio ${r.ratio.toFixed(2)} (${r.order})`,
      );
      console.log(`  CPU ms per signal      pipeline: ${perSignal(r.cpu)}; twin: ${perSignal(r.twinCpu)}`);
    }
    const mid = (pick: (r: (typeof rounds)[number]) => number) => median(rounds.map(pick)) / N;
    console.log(
      `CPU ms per signal       (median) pipeline: worker ${mid((r) => r.cpu.worker).toFixed(1)}, server ${mid((r) => r.cpu.server).toFixed(1)}, postgres ${mid((r) => r.cpu.postgres).toFixed(1)}; ` +
        `twin: worker ${mid((r) => r.twinCpu.worker).toFixed(1)}, server ${mid((r) => r.twinCpu.server).toFixed(1)}, postgres ${mid((r) => r.twinCpu.postgres).toFixed(1)} (the activities' bodies: the difference)`,
    );
    console.log(`pipeline (median)       ${median(rounds.map((r) => r.pipeline)).toFixed(1)} signals/s`);
    console.log(
      `empty ceiling (median)  ${median(rounds.map((r) => r.empty)).toFixed(1)} signals/s (the same workflows, activities, timers and children; no-op activities)`,
    );
    console.log(`ratio (median)          ${median(rounds.map((r) => r.ratio)).toFixed(2)} (target >= 0.9)`);
    console.log(
      `worker process RSS      ${memory.rss.toFixed(0)} MiB at the end of the last half, ${memory.peak.toFixed(0)} MiB peak; ${os.cpus().length} cores, load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
  } finally {
    await ownerPool.destroy();
    await appDb.destroy();
    server.close();
    await dropDatabase(owner.toString()).catch(() => undefined);
    await db.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
