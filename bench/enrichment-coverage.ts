/**
 * bench/enrichment-coverage: the coverage of each enrichment provider alone beside the waterfall
 * (website → Hunter → Dropcontact → Apollo, stopAt valid) on the SAME generated companies, through
 * the real API, worker and Temporal, beside the ceiling: the union of what the stand-ins know.
 *
 * N companies (seeded) each have a domain, 1-3 named people without an address (as a CRM import
 * leaves them, POST /contacts) and a website on a local stand-in. A seeded draw per company decides
 * what each source knows, at published-figure-like rates: the website publishes a personal address
 * for ~35% (else info@, a role address, or nothing), Hunter's domain search ~43%, Dropcontact the
 * known person's address ~52%, Apollo's people match ~43%; the draws are independent, so the union
 * is ~90%. The coverage figures follow from these rates: they show that the waterfall reaches the
 * union of its providers and what that costs, not a real-world coverage.
 *
 * Each run is a fresh organization over the same companies: website only; Hunter, Dropcontact,
 * Apollo each as the organization's only integration (the website step cannot be left out of a run
 * for a company with a domain, so there the company's website is a blank page: the step runs, finds
 * nothing and costs nothing); and the waterfall. Companies are enriched 8 at a time
 * (POST /companies/{id}/enrich, then the workflow `company/<id>/enrich`); per run it prints the
 * companies with at least one valid address, the cost units summed over the runs' steps
 * (GET /companies/{id}/enrichment-runs), the mean steps tried per company and the wall time.
 *
 *   npm run bench:enrichment [-- --companies 100 --seed 42 --concurrency 8]
 *
 * Creates its own database on DATABASE_URL (the owner; else an embedded PostgreSQL) and drops it
 * afterwards; starts a Temporal dev server, the worker (bench/worker.ts) and the API of its own. The
 * worker's DNS is a local server that answers an MX for every made-up domain, so a personal address
 * checks `valid` and info@ `risky`; the providers queue's rate limit is raised so it does not set the pace.
 */
import { seededRandom } from './stats';
import { startBenchApi, startProcess, stop } from './processes';
import type { ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { withRole } from '../apps/shared/config';
import { freeLoopbackPort } from '../apps/shared/ports';
import { dropDatabase, ensureDatabase, migrate } from '../db/migrator';
import { API_DB_ROLE, WORKER_DB_ROLE } from '../db/roles';
import { startDnsServer } from '../scripts/lib/dns-server';
import { startDatabase } from '../scripts/lib/postgres';
import { loadTemporalDevConfig, resolveTemporalCli, startTemporalDevServer } from '../scripts/lib/temporal-server';
import { startApolloServer, type ApolloDirectoryEntry } from '../test/helpers/apollo-server';
import { startDropcontactServer, type DropcontactDirectoryEntry } from '../test/helpers/dropcontact-server';
import { startProviderServer } from '../test/helpers/provider-server';

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const USER = '0e000000-0000-4000-8000-0000000000e1';

/** Published-figure-like rates: the share of companies for which each source knows a personal address. */
const RATES = { website: 0.35, websiteInfo: 0.5, hunter: 0.43, dropcontact: 0.52, apollo: 0.43 };

const FIRST = ['Jan', 'Sanne', 'Pieter', 'Eva', 'Daan', 'Lotte', 'Thijs', 'Fleur', 'Bram', 'Noor', 'Ruben', 'Iris', 'Lars', 'Anouk', 'Joris', 'Maud'];
const LAST = ['de Vries', 'Jansen', 'Bakker', 'Visser', 'Smit', 'Meijer', 'de Boer', 'Mulder', 'Bos', 'Vos', 'Peters', 'Hendriks', 'Dekker', 'Brouwer'];
const TRADE = ['Bouw', 'Installatie', 'Techniek', 'Dakwerken', 'Schilders', 'Elektro', 'Klimaat', 'Infra'];

const rng = seededRandom;

interface Person {
  fullName: string;
  first: string;
  last: string;
  email: string;
}

interface Fixture {
  name: string;
  domain: string;
  people: Person[];
  /** The person each source knows the address of (null: it knows none); the website may publish only info@. */
  website: Person | null;
  websiteInfo: boolean;
  hunter: Person | null;
  dropcontact: Person | null;
  apollo: Person | null;
}

function fixtures(n: number, seed: number): Fixture[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  return Array.from({ length: n }, (_, i) => {
    const trade = pick(TRADE);
    const owner = pick(LAST);
    const name = `${owner} ${trade} ${i + 1} B.V.`;
    const domain = `${`${owner}-${trade}`.toLowerCase().replace(/\s+/g, '')}-${i + 1}.nl`;
    const people: Person[] = [];
    const count = 1 + Math.floor(r() * 3);
    while (people.length < count) {
      const first = pick(FIRST);
      const last = pick(LAST);
      const fullName = `${first} ${last}`;
      if (people.some((p) => p.fullName === fullName)) continue;
      people.push({ fullName, first, last, email: `${first}.${last}`.toLowerCase().replace(/\s+/g, '') + `@${domain}` });
    }
    const knows = (rate: number) => (r() < rate ? pick(people) : null);
    const website = knows(RATES.website);
    const websiteInfo = !website && r() < RATES.websiteInfo;
    return { name, domain, people, website, websiteInfo, hunter: knows(RATES.hunter), dropcontact: knows(RATES.dropcontact), apollo: knows(RATES.apollo) };
  });
}

const sitePath = (i: number) => `/c${i + 1}/`;

function siteHtml(f: Fixture): string {
  const ld = f.website
    ? { '@context': 'https://schema.org', '@type': 'Person', name: f.website.fullName, jobTitle: 'Directeur', email: `mailto:${f.website.email}` }
    : f.websiteInfo
      ? { '@context': 'https://schema.org', '@type': 'Organization', name: f.name, email: `info@${f.domain}` }
      : null;
  return `<html><head><title>${f.name}</title>${ld ? `<script type="application/ld+json">${JSON.stringify(ld)}</script>` : ''}</head><body><h1>${f.name}</h1><p>Wij bouwen en installeren in de regio.</p></body></html>`;
}

/** Runs `work` over 0..n-1 with `c` at once. */
async function bounded(n: number, c: number, work: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: c }, async () => {
      while (next < n) await work(next++);
    }),
  );
}

interface Step {
  provider: string;
  status: string;
  found: number;
  verified: number;
  cost_units: number;
  error: string | null;
}

interface RunFigures {
  label: string;
  covered: number;
  cost: number;
  costBy: Record<string, number>;
  stepsTried: number;
  stoppedAt: Record<string, number>;
  failedSteps: string[];
  wallSeconds: number;
  /** What this run's sources know together (the run's own ceiling). */
  knows: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { companies: { type: 'string', default: '100' }, seed: { type: 'string', default: '42' }, concurrency: { type: 'string', default: '8' } },
  });
  const n = Number(values.companies);
  const seed = Number(values.seed);
  const concurrency = Number(values.concurrency);
  const fx = fixtures(n, seed);
  const runId = Date.now().toString(36);

  const db = await startDatabase({ databaseUrl: process.env.DATABASE_URL, port: 54342, databaseName: 'postgres', log });
  const owner = new URL(db.ownerUrl);
  owner.pathname = `/outreach_bench_enrichment_${runId}`;
  const ownerUrl = owner.toString();
  const children: ChildProcess[] = [];
  const cleanups: Array<() => Promise<unknown>> = [];
  await ensureDatabase(ownerUrl);
  try {
    await migrate(ownerUrl, { appPassword: db.appPassword });
    const dev = await startTemporalDevServer({
      cli: resolveTemporalCli(log),
      config: loadTemporalDevConfig(),
      grpcPort: await freeLoopbackPort(),
      headless: true,
      log,
    });
    cleanups.push(() => dev.stop());

    // Every made-up domain takes mail: a personal address checks valid, info@ risky.
    const dns = await startDnsServer({}, { unlistedReceiveMail: true });
    cleanups.push(() => dns.close());

    // The stand-ins: the companies' websites (and a blank one), Hunter, Dropcontact, Apollo.
    const sites = await startProviderServer();
    cleanups.push(() => sites.close());
    sites.route('GET', '/robots.txt', { body: 'User-agent: *\nAllow: /\n', contentType: 'text/plain' });
    sites.route('GET', '/blank/', {
      body: '<html><head><title>Welkom</title></head><body><p>Welkom.</p></body></html>',
      contentType: 'text/html; charset=utf-8',
    });
    fx.forEach((f, i) => sites.route('GET', sitePath(i), { body: siteHtml(f), contentType: 'text/html; charset=utf-8' }));

    const byDomain = new Map(fx.map((f) => [f.domain, f]));
    const hunter = await startProviderServer();
    cleanups.push(() => hunter.close());
    hunter.route('GET', '/v2/domain-search', (req) => {
      if (req.headers['x-api-key'] !== 'hunter-key')
        return { status: 401, body: { errors: [{ id: 'authentication_failed', code: 401, details: 'No user found for the API key supplied' }] } };
      const domain = new URL(req.url!, 'http://x').searchParams.get('domain') ?? '';
      const f = byDomain.get(domain);
      const p = f?.hunter;
      const emails = p
        ? [
            {
              value: p.email,
              type: 'personal',
              confidence: 92,
              first_name: p.first,
              last_name: p.last,
              position: 'Directeur',
              linkedin: null,
              phone_number: null,
            },
          ]
        : [];
      return {
        body: {
          data: { domain, organization: f?.name ?? null, pattern: p ? '{first}.{last}' : null, emails },
          meta: { results: emails.length, limit: 20, offset: 0 },
        },
      };
    });
    const dropcontact = await startDropcontactServer({
      token: 'dc-token',
      credits: 1_000_000,
      directory: fx.flatMap((f): DropcontactDirectoryEntry[] =>
        f.dropcontact ? [{ fullName: f.dropcontact.fullName, company: f.name, emails: [{ email: f.dropcontact.email, qualification: 'nominative@pro' }] }] : [],
      ),
    });
    cleanups.push(() => dropcontact.close());
    const apollo = await startApolloServer({
      apiKey: 'apollo-key',
      directory: fx.flatMap((f, i): ApolloDirectoryEntry[] =>
        f.apollo
          ? [
              {
                id: `a${i}`,
                firstName: f.apollo.first,
                lastName: f.apollo.last,
                organizationName: f.name,
                domain: f.domain,
                title: 'Directeur',
                email: f.apollo.email,
                emailStatus: 'verified',
              },
            ]
          : [],
      ),
    });
    cleanups.push(() => apollo.close());

    const taskQueue = `bench-enrichment-${runId}`;
    const common = {
      ...process.env,
      TEMPORAL_ADDRESS: dev.address,
      TEMPORAL_TASK_QUEUE: taskQueue,
      INTEGRATION_SECRET_KEY: '00'.repeat(32),
      RECONCILE_SCHEDULE: 'false',
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
      ENRICHMENT_BATCH_POLL_SECONDS: '1',
    };
    const worker = await startProcess(
      'worker',
      path.resolve(__dirname, 'worker.ts'),
      {
        ...common,
        LOG_LEVEL: 'warn',
        WORKER_DATABASE_URL: withRole(ownerUrl, WORKER_DB_ROLE, db.appPassword),
        DNS_SERVERS: dns.address,
        DNS_TIMEOUT_MS: '1000',
        PROVIDER_ACTIVITIES_PER_SECOND: '1000',
      },
      'bench worker started',
    );
    children.push(worker);

    const {
      child: api,
      base,
      token,
    } = await startBenchApi({
      env: {
        ...common,
        API_DATABASE_URL: withRole(ownerUrl, API_DB_ROLE, db.appPassword),
        // Set-up makes thousands of requests; the limits are not what is measured.
        RATE_LIMIT_USER_PER_MINUTE: '0',
        RATE_LIMIT_ORG_PER_MINUTE: '0',
        LOG_LEVEL: 'info',
      },
      userId: USER,
      cleanups,
    });
    children.push(api);
    const call = async <T = Record<string, unknown>>(method: string, url: string, body?: unknown): Promise<T> => {
      for (let i = 0; ; i++) {
        try {
          const res = await fetch(`${base}${url}`, {
            method,
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: body ? JSON.stringify(body) : undefined,
          });
          const text = await res.text();
          if (res.status >= 300) throw new Error(`${method} ${url} answered ${res.status}: ${text.slice(0, 300)}`);
          return JSON.parse(text) as T;
        } catch (err) {
          if (i > 100 || !(err instanceof TypeError)) throw err; // TypeError: the API is not listening yet
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    };
    const client = new Client({ connection: await Connection.connect({ address: dev.address }) });
    cleanups.push(() => client.connection.close());

    const integrations = {
      hunter: { baseUrl: hunter.url, secret: 'hunter-key' },
      dropcontact: { baseUrl: dropcontact.url, secret: 'dc-token' },
      apollo: { baseUrl: apollo.url, secret: 'apollo-key' },
    };
    type Source = 'website' | keyof typeof integrations;
    const knownBy = (f: Fixture, s: Source) => f[s] !== null;

    /** One run: a fresh organization with these integrations in this order, the companies, each enriched; its figures. */
    async function run(label: string, sources: Source[]): Promise<RunFigures> {
      const withWebsite = sources.includes('website');
      const org = await call<{ id: string }>('POST', '/organizations', { name: `Bench enrichment ${label}` });
      const ids: string[] = [];
      for (const s of sources) {
        if (s === 'website') continue;
        const { baseUrl, secret } = integrations[s];
        const created = await call<{ id: string }>('POST', '/integrations', {
          organizationId: org.id,
          providerKey: s,
          kind: 'enrichment',
          config: { baseUrl },
          secret,
        });
        ids.push(created.id);
      }
      if (ids.length) await call('PATCH', '/settings/enrichment', { organizationId: org.id, order: ids, stopAt: 'valid' });
      const companyIds: string[] = new Array<string>(n);
      await bounded(n, concurrency, async (i) => {
        const f = fx[i]!;
        const website = `${sites.url}${withWebsite ? sitePath(i) : '/blank/'}`;
        const c = await call<{ id: string }>('POST', '/companies', { organizationId: org.id, name: f.name, website, domain: f.domain });
        for (const p of f.people) await call('POST', '/contacts', { organizationId: org.id, companyId: c.id, fullName: p.fullName });
        companyIds[i] = c.id;
      });
      log(`${label}: ${n} companies created; enriching ${concurrency} at a time (load ${os.loadavg()[0]!.toFixed(2)})`);
      const t0 = performance.now();
      await bounded(n, concurrency, async (i) => {
        await call('POST', `/companies/${companyIds[i]}/enrich`, {});
        await client.workflow.getHandle(`company/${companyIds[i]}/enrich`).result();
      });
      const wallSeconds = (performance.now() - t0) / 1000;

      const figures: RunFigures = {
        label,
        covered: 0,
        cost: 0,
        costBy: {},
        stepsTried: 0,
        stoppedAt: {},
        failedSteps: [],
        wallSeconds,
        knows: fx.filter((f) => sources.some((s) => knownBy(f, s))).length,
      };
      await bounded(n, concurrency, async (i) => {
        const runs = await call<Array<{ status: string; stopped_at_step: number | null; steps: Step[] }>>('GET', `/companies/${companyIds[i]}/enrichment-runs`);
        const contacts = await call<Array<{ email: string | null; email_status: string | null }>>(
          'GET',
          `/contacts?organizationId=${org.id}&companyId=${companyIds[i]}`,
        );
        if (contacts.some((c) => c.email_status === 'valid')) figures.covered++;
        const r = runs[0];
        if (!r) throw new Error(`${label}: company ${i} has no enrichment run`);
        for (const s of r.steps) {
          figures.cost += s.cost_units;
          figures.costBy[s.provider] = (figures.costBy[s.provider] ?? 0) + s.cost_units;
          if (s.status !== 'skipped') figures.stepsTried++;
          if (s.status === 'failed') figures.failedSteps.push(`${s.provider}: ${s.error}`);
        }
        const stopped = r.stopped_at_step === null ? 'none' : r.steps[r.stopped_at_step]!.provider;
        figures.stoppedAt[stopped] = (figures.stoppedAt[stopped] ?? 0) + 1;
      });
      log(`${label}: ${figures.covered} of ${n} covered in ${wallSeconds.toFixed(1)} s`);
      return figures;
    }

    const plans: Array<[string, Source[]]> = [
      ['website only', ['website']],
      ['Hunter only', ['hunter']],
      ['Dropcontact only', ['dropcontact']],
      ['Apollo only', ['apollo']],
      ['waterfall website→Hunter→Dropcontact→Apollo', ['website', 'hunter', 'dropcontact', 'apollo']],
    ];
    const loadBefore = os.loadavg().map((l) => l.toFixed(2));
    const results: RunFigures[] = [];
    for (const [label, sources] of plans) results.push(await run(label, sources));

    const pct = (k: number) => `${((100 * k) / n).toFixed(0)}%`.padStart(4);
    const all: Source[] = ['website', 'hunter', 'dropcontact', 'apollo'];
    const union = fx.filter((f) => all.some((s) => knownBy(f, s))).length;
    const people = fx.reduce((s, f) => s + f.people.length, 0);
    console.log(
      `\nenrichment coverage, ${n} generated companies (seed ${seed}, ${people} named people without an address), ${concurrency} at a time, through the API, a Temporal dev server and one worker; ${os.cpus().length} cores, load ${loadBefore.join(' ')} before, ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} after`,
    );
    console.log(
      `fixture rates (personal address known): website ${RATES.website}, Hunter ${RATES.hunter}, Dropcontact ${RATES.dropcontact}, Apollo ${RATES.apollo}; drawn: website ${fx.filter((f) => f.website).length} (info@ only ${fx.filter((f) => f.websiteInfo).length}), Hunter ${fx.filter((f) => f.hunter).length}, Dropcontact ${fx.filter((f) => f.dropcontact).length}, Apollo ${fx.filter((f) => f.apollo).length}`,
    );
    console.log(
      `${'run'.padEnd(46)} ${'covered (valid)'.padEnd(16)} ${'its sources know'.padEnd(17)} ${'cost units'.padEnd(11)} ${'steps/company'.padEnd(14)} wall`,
    );
    for (const r of results) {
      console.log(
        `${r.label.padEnd(46)} ${`${String(r.covered).padStart(3)} ${pct(r.covered)}`.padEnd(16)} ${`${String(r.knows).padStart(3)} ${pct(r.knows)}`.padEnd(17)} ${String(r.cost).padEnd(11)} ${(r.stepsTried / n).toFixed(2).padEnd(14)} ${r.wallSeconds.toFixed(1)} s`,
      );
    }
    console.log(`${'ceiling: the union of what the stand-ins know'.padEnd(46)} ${`${String(union).padStart(3)} ${pct(union)}`.padEnd(16)}`);
    const w = results[results.length - 1]!;
    console.log(
      `waterfall: stopped at ${JSON.stringify(w.stoppedAt)}; cost units by provider ${JSON.stringify(w.costBy)}; ${(w.covered / Math.max(union, 1)).toFixed(2)} of the ceiling`,
    );
    const singles = results.slice(1, 4).reduce((s, r) => s + r.cost, 0) + results[0]!.cost;
    console.log(`the four single-provider runs together cost ${singles} units`);
    for (const r of results) if (r.failedSteps.length) console.log(`${r.label}: ${r.failedSteps.length} failed steps, e.g. ${r.failedSteps[0]}`);
  } finally {
    for (const c of children) await stop(c);
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    await dropDatabase(ownerUrl).catch(() => undefined);
    await db.stop();
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : e);
  process.exit(1);
});
