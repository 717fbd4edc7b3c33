/**
 * npm run dev: the whole stack from one command.
 * Temporal dev server (with Web UI) -> PostgreSQL (DATABASE_URL or embedded) + migrations ->
 * development identity provider (JWKS) -> local SMTP catcher -> demo DNS zone -> demo organization -> worker -> API.
 * Ctrl-C stops every child; a second start keeps the data (DATA_DIR).
 */
import { ChildProcess, spawn } from 'node:child_process';
import { createReadStream, existsSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { sql } from 'kysely';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import { apiDatabaseUrl, loadConfig, rolePasswords, workerDatabaseUrl } from '../apps/shared/config';
import { WorkflowStarter } from '../apps/shared/temporal';
import { createDb } from '../db/pool';
import { ensureDatabase, migrate } from '../db/migrator';
import { createOrganization } from '../db/queries/organizations';
import { seedOrganizationDefaults } from '../db/queries/organization-defaults';
import { asUser } from '../db/tenancy';
import { DEV_AUDIENCE, devIssuer, loadOrCreateDevKey, signDevToken } from './lib/dev-identity';
import { DATA_DIR, DEMO_ORG_NAME, DEMO_USER_ID, DEV_IDENTITY_DIR, DEV_IDP_PORT, REPO_ROOT } from './lib/dev-env';
import { startDevMailCatcher } from './lib/mail-catcher';
import { startDemoDns } from './lib/demo-dns';
import { loadTemporalDevConfig, resolveTemporalCli, startTemporalDevServer } from './lib/temporal-server';

const log = (line: string) => console.log(`[dev] ${line}`);
const API_PORT = Number(process.env.PORT ?? 3000);
const FEEDS_DIR = path.join(REPO_ROOT, 'test', 'fixtures', 'feeds');

async function main() {
  const temporalConfig = loadTemporalDevConfig();
  const cli = resolveTemporalCli(log);
  // Its own process group: Ctrl-C must not stop it before the worker that polls it.
  const temporal = await startTemporalDevServer({ cli, config: temporalConfig, dataDir: DATA_DIR, ownProcessGroup: true, log });
  const cleanups: Array<() => Promise<void>> = [() => temporal.stop()];

  try {
    const db = process.env.DATABASE_URL
      ? { ownerUrl: process.env.DATABASE_URL, appPassword: undefined as string | undefined, embedded: false, clusterDir: undefined }
      : await startEmbeddedPostgres(Number(process.env.EMBEDDED_PG_PORT ?? 54329), cleanups);
    log(db.embedded ? `embedded PostgreSQL started (data in ${db.clusterDir})` : 'using DATABASE_URL');
    await ensureDatabase(db.ownerUrl);
    // The API connects as outreach_api, the worker as outreach_worker (docs/architecture.md, "Database roles and tenancy").
    const roles = { ...process.env, DATABASE_URL: db.ownerUrl, APP_DB_PASSWORD: process.env.APP_DB_PASSWORD ?? db.appPassword };
    const passwords = rolePasswords(roles);
    await migrate(db.ownerUrl, { apiPassword: passwords.api, workerPassword: passwords.worker });
    const apiUrl = apiDatabaseUrl(roles);
    const workerUrl = workerDatabaseUrl(roles);

    // Development identity provider: JWKS for the API, plus the demo feeds for a first source.
    const { publicJwk, privateJwk } = await loadOrCreateDevKey(DEV_IDENTITY_DIR);
    const idp = await serveDevIdp(DEV_IDP_PORT, publicJwk);
    cleanups.unshift(() => new Promise((r) => idp.close(() => r())));
    const issuer = devIssuer(DEV_IDP_PORT);

    // A local SMTP catcher: mail sent to it is kept in memory and listed over HTTP, delivered nowhere.
    const mail = await startDevMailCatcher(process.env, log);
    cleanups.unshift(() => mail.close());

    // The demo mailbox's domain on a local DNS server (DNS_SERVERS), so its health check can pass; unless DNS_SERVERS is set.
    const demoDns = process.env.DNS_SERVERS ? null : await startDemoDns(DEMO_MAILBOX_ADDRESS.split('@')[1]!);
    if (demoDns) cleanups.unshift(() => demoDns.close());

    const demoOrgId = await seedDemoOrganization(apiUrl);

    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'development',
      DATABASE_URL: db.ownerUrl,
      API_DATABASE_URL: apiUrl,
      WORKER_DATABASE_URL: workerUrl,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: temporal.namespace,
      TEMPORAL_UI_URL: temporal.uiUrl,
      AUTH_MODE: 'jwks',
      AUTH_JWKS_URL: `${issuer}/.well-known/jwks.json`,
      AUTH_ISSUER: issuer,
      AUTH_AUDIENCE: DEV_AUDIENCE,
      PORT: String(API_PORT),
      INTEGRATION_SECRET_KEY: process.env.INTEGRATION_SECRET_KEY ?? devSecretKey(),
      // The demo feeds are served on 127.0.0.1: development allows private destinations explicitly.
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: process.env.OUTBOUND_ALLOW_PRIVATE_NETWORKS ?? 'true',
      // /metrics is served only with a token or when opened explicitly: development opens it (and says so below).
      METRICS_PUBLIC: process.env.METRICS_PUBLIC ?? 'true',
      ...(demoDns && { DNS_SERVERS: demoDns.address }),
    };
    // The demo organization was seeded directly, not through POST /organizations: give it its retention schedule.
    const temporalClient = new Client({ connection: await Connection.connect({ address: temporal.address }), namespace: temporal.namespace });
    await new WorkflowStarter(temporalClient, loadConfig(env)).ensureRetentionSchedule(demoOrgId);
    await temporalClient.connection.close();

    const worker = startChild('worker', 'apps/worker/main.ts', env);
    const api = startChild('api', 'apps/api/main.ts', env);
    cleanups.unshift(
      () => stopChild(worker),
      () => stopChild(api),
    );
    await waitForHttp(`http://127.0.0.1:${API_PORT}/readyz`, 60000);

    const token = await signDevToken({ privateJwk, issuer, userId: DEMO_USER_ID });
    const base = `http://127.0.0.1:${API_PORT}`;
    const demoMailbox = await ensureDemoMailbox(base, token, demoOrgId, mail.smtp.port).catch((e: unknown) => {
      log(`demo mailbox not set up: ${e instanceof Error ? e.message : String(e)}`);
      return null;
    });
    console.log(`
  Outreach Signal Service is up.

  API               ${base}            (health: ${base}/readyz)
  Metrics           ${metricsLine(base, env)}
  Temporal Web UI   ${temporal.uiUrl}   (namespace ${temporal.namespace})
  Demo organization ${demoOrgId}  (owner: demo user ${DEMO_USER_ID})
  Demo feed         http://127.0.0.1:${DEV_IDP_PORT}/demo/feeds/permits-rss.xml
  Mail catcher      smtp://127.0.0.1:${mail.smtp.port} (no auth, no TLS)   caught mail: ${mail.http.url}/messages
  Demo mailbox      ${demoMailbox ? `${DEMO_MAILBOX_ADDRESS} (${demoMailbox.id}) sends to the mail catcher; health ${demoMailbox.health}` : '(none)'}
  DNS               ${demoDns ? `${demoDns.address} (UDP and TCP): the demo zone for ${DEMO_MAILBOX_ADDRESS.split('@')[1]}, NXDOMAIN for the rest` : `DNS_SERVERS ${process.env.DNS_SERVERS}`}

  Bearer token for the demo owner (12 h; another: npm run token -- --user <uuid>):
  ${token}

  Try:
  export TOKEN=${token.slice(0, 12)}…   # the full token above
  curl -s -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\
    -d '{"organizationId":"${demoOrgId}","providerKey":"rss","name":"Demo permits","config":{"url":"http://127.0.0.1:${DEV_IDP_PORT}/demo/feeds/permits-rss.xml"}}' \\
    ${base}/sources

  Ctrl-C stops everything; data stays in ${DATA_DIR}${db.clusterDir && !db.clusterDir.startsWith(DATA_DIR) ? ` and ${db.clusterDir}` : ''}.
`);
    await waitForShutdown([worker, api]);
  } finally {
    for (const c of cleanups) await c().catch((e) => log(`cleanup: ${String(e)}`));
    log('stopped');
  }
}

const DEMO_MAILBOX_ADDRESS = 'demo@example.com';

/**
 * The demo organization's mailbox, through the API (POST /mailboxes), sending to the local mail
 * catcher; created once, and pointed at the catcher's port again when that changed. The compliance
 * settings a message needs (sender legal name and address, privacy URL) get demo values where unset.
 * Its health is checked once here, against the demo DNS zone.
 */
async function ensureDemoMailbox(base: string, token: string, organizationId: string, smtpPort: number): Promise<{ id: string; health: string }> {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = (await res.json()) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${json?.detail ?? ''}`);
    return json;
  };
  const smtp = { host: '127.0.0.1', port: smtpPort, secure: false };
  const mailboxes = (await call('GET', `/mailboxes?organizationId=${organizationId}`)) as Array<{ id: string; address: string; smtp: { port: number } }>;
  let mailbox = mailboxes.find((m) => m.address === DEMO_MAILBOX_ADDRESS);
  if (!mailbox) {
    mailbox = await call('POST', '/mailboxes', {
      organizationId,
      address: DEMO_MAILBOX_ADDRESS,
      displayName: 'Demo Outreach',
      smtp,
      secret: 'catcher-needs-no-password',
    });
  } else if (mailbox.smtp.port !== smtpPort) {
    await call('PATCH', `/mailboxes/${mailbox.id}`, { smtp });
  }
  const settings = await call('GET', `/compliance/settings?organizationId=${organizationId}`);
  const demo: Record<string, string> = {};
  if (!settings.sender_legal_name) demo.senderLegalName = 'Demo Installaties B.V.';
  if (!settings.sender_address) demo.senderAddress = 'Stationsplein 1, 3511 ED Utrecht';
  if (!settings.privacy_url) demo.privacyUrl = 'https://example.com/privacy';
  if (Object.keys(demo).length) await call('PATCH', '/compliance/settings', { organizationId, ...demo });
  // Its deliverability, checked now (the daily Schedule re-checks it).
  const health = (await call('POST', `/mailboxes/${mailbox!.id}/health`, {}).catch(() => null)) as { score: number; sendable: boolean } | null;
  return { id: mailbox!.id, health: health ? `${health.score}/100, ${health.sendable ? 'sendable' : 'not sendable'}` : 'not checked' };
}

/** Development only: the integration secret key, generated once and kept with the dev data. */
function devSecretKey(): string {
  const file = path.join(DEV_IDENTITY_DIR, 'integration-secret.key');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

function serveDevIdp(port: number, publicJwk: object): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/.well-known/jwks.json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [publicJwk] }));
      return;
    }
    const feed = /^\/demo\/feeds\/([\w.-]+\.xml)$/.exec(url.pathname);
    const file = feed ? path.join(FEEDS_DIR, feed[1]!) : undefined;
    if (file && existsSync(file)) {
      res.writeHead(200, { 'content-type': 'application/xml' });
      createReadStream(file).pipe(res);
      return;
    }
    res.writeHead(404).end();
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

/** The demo owner's organization, created once. */
async function seedDemoOrganization(apiUrl: string): Promise<string> {
  const db = createDb(apiUrl, 1);
  try {
    return await asUser(db, DEMO_USER_ID, async (tx) => {
      const existing = await tx
        .selectFrom('organizations')
        .select('id')
        .where('name', '=', DEMO_ORG_NAME)
        .where(sql<boolean>`app.member_role(organizations.id) = 'owner'`)
        .executeTakeFirst();
      if (existing) return existing.id;
      const org = await createOrganization(tx, DEMO_ORG_NAME);
      await seedOrganizationDefaults(tx, org!.id);
      return org!.id;
    });
  } finally {
    await db.destroy();
  }
}

/** The embedded PostgreSQL in its own process (scripts/embedded-postgres.ts), stopped after everything else. */
async function startEmbeddedPostgres(port: number, cleanups: Array<() => Promise<void>>) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'scripts/embedded-postgres.ts'), DATA_DIR, String(port), 'outreach'], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  cleanups.unshift(() => stopChild(child));
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.once('exit', (code) => reject(new Error(`embedded PostgreSQL exited (${code})`)));
  });
  const { ownerUrl, appPassword, clusterDir } = JSON.parse(line) as { ownerUrl: string; appPassword: string; clusterDir: string };
  return { ownerUrl, appPassword, embedded: true, clusterDir };
}

/** What the banner says about /metrics: open to anyone (METRICS_PUBLIC=true, the dev default), behind METRICS_TOKEN, or not served. */
function metricsLine(base: string, env: NodeJS.ProcessEnv): string {
  if (env.METRICS_TOKEN) return `${base}/metrics   (needs Authorization: Bearer $METRICS_TOKEN)`;
  if (env.METRICS_PUBLIC === 'true')
    return `${base}/metrics   OPEN to anyone who reaches this port (METRICS_PUBLIC=true; set METRICS_TOKEN or METRICS_PUBLIC=false to close it)`;
  return 'not served (METRICS_PUBLIC=false and no METRICS_TOKEN)';
}

function startChild(name: string, entry: string, env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, entry)], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
    // Own process group: Ctrl-C reaches the launcher, which stops children in order.
    detached: true,
  });
  child.on('exit', (code, signal) => log(`${name} exited (${signal ?? code})`));
  return child;
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 25000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * Ctrl-C reaches the launcher more than once (the terminal signals the whole process group and tsx
 * relays it too): the handlers stay installed so a repeat cannot kill the launcher mid-cleanup.
 */
function waitForShutdown(children: ChildProcess[]): Promise<void> {
  return new Promise((resolve) => {
    const done = () => resolve();
    process.on('SIGINT', done);
    process.on('SIGTERM', done);
    for (const c of children) c.once('exit', done); // one child dying takes the stack down
  });
}

async function waitForHttp(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not become ready within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : e);
  process.exit(1);
});
