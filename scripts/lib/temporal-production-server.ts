import { spawn, spawnSync, ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import net from 'node:net';
import { temporalConnectionOptions, type TemporalConnectionConfig } from '../../apps/shared/temporal-connection';
import type { TemporalDevConfig } from './temporal-server';
import { dropDatabase } from '../../db/migrator';

/**
 * The production Temporal Server (not the CLI's dev server): `go.temporal.io/server` at the version
 * the Temporal CLI v1.5.1 embeds, built once with `go install` into a cache folder outside the clone,
 * with PostgreSQL persistence and SQL visibility (schemas set up by its temporal-sql-tool) and mutual
 * TLS on its frontend (a CA, a server and a client certificate made at start with openssl).
 */
export const TEMPORAL_SERVER_VERSION = 'v1.29.1';
const MODULES = [`go.temporal.io/server/cmd/server@${TEMPORAL_SERVER_VERSION}`, `go.temporal.io/server/cmd/tools/sql@${TEMPORAL_SERVER_VERSION}`];

export function temporalServerCacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'outreach-signal', `temporal-server-${TEMPORAL_SERVER_VERSION}`);
}

export interface TemporalServerBinaries {
  /** cmd/server */
  server: string;
  /** cmd/tools/sql (temporal-sql-tool) */
  sqlTool: string;
}

/** The server and temporal-sql-tool binaries, built now with `go install` when not cached yet (several minutes). */
export function resolveTemporalServer(log: (line: string) => void = console.log): TemporalServerBinaries {
  const dir = temporalServerCacheDir();
  const bins = { server: path.join(dir, 'server'), sqlTool: path.join(dir, 'sql') };
  if (existsSync(bins.server) && existsSync(bins.sqlTool)) return bins;
  const go = existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : 'go';
  log(`building the Temporal Server ${TEMPORAL_SERVER_VERSION} once into ${dir} (takes several minutes)…`);
  mkdirSync(dir, { recursive: true });
  const r = spawnSync(go, ['install', ...MODULES], {
    stdio: 'inherit',
    env: { ...process.env, GOBIN: dir, GOFLAGS: process.env.GOFLAGS ?? '-mod=mod -p=1' },
  });
  if (r.status !== 0 || !existsSync(bins.server) || !existsSync(bins.sqlTool)) throw new Error(`go install ${MODULES.join(' ')} failed`);
  return bins;
}

export interface TlsMaterial {
  dir: string;
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** The name on the server's certificate (also valid for 127.0.0.1). */
  serverName: string;
}

function openssl(args: string[], cwd: string): void {
  const r = spawnSync('openssl', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')} failed: ${r.stderr || r.error}`);
}

/** A CA, a server certificate (localhost, 127.0.0.1) and a client certificate, all signed by that CA. */
export function makeTlsMaterial(dir: string): TlsMaterial {
  mkdirSync(dir, { recursive: true });
  const days = '30';
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      days,
      '-subj',
      '/CN=outreach-temporal-ca',
    ],
    dir,
  );
  const leaf = (name: string, cn: string, ext: string) => {
    writeFileSync(path.join(dir, `${name}.ext`), ext);
    openssl(
      ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`],
      dir,
    );
    openssl(
      [
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        'ca.pem',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        `${name}.pem`,
        '-days',
        days,
        '-extfile',
        `${name}.ext`,
      ],
      dir,
    );
  };
  leaf('server', 'localhost', 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n');
  leaf('client', 'outreach-client', 'extendedKeyUsage=clientAuth\n');
  const p = (f: string) => path.join(dir, f);
  return {
    dir,
    ca: p('ca.pem'),
    serverCert: p('server.pem'),
    serverKey: p('server.key'),
    clientCert: p('client.pem'),
    clientKey: p('client.key'),
    serverName: 'localhost',
  };
}

export interface PostgresTarget {
  host: string;
  port: number;
  user: string;
  password?: string;
  /** The two databases (created when missing, schemas brought to the latest version). */
  database: string;
  visibilityDatabase: string;
}

/** Parses a postgres:// URL into the server's and temporal-sql-tool's terms, with the two database names. */
export function postgresTarget(url: string, database: string, visibilityDatabase: string): PostgresTarget {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username) || 'postgres',
    password: decodeURIComponent(u.password) || undefined,
    database,
    visibilityDatabase,
  };
}

/** temporal-sql-tool: create both databases, version tables, then the embedded schemas at their latest version. */
export function setupTemporalSchemas(sqlTool: string, pg: PostgresTarget, log: (line: string) => void): void {
  const run = (db: string, args: string[]) => {
    const base = ['--plugin', 'postgres12', '--ep', pg.host, '-p', String(pg.port), '-u', pg.user, '--db', db];
    if (pg.password) base.push('--pw', pg.password);
    const r = spawnSync(sqlTool, [...base, ...args], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`temporal-sql-tool ${args.join(' ')} (${db}) failed:\n${r.stdout}\n${r.stderr}`);
  };
  for (const [db, schema] of [
    [pg.database, 'postgresql/v12/temporal'],
    [pg.visibilityDatabase, 'postgresql/v12/visibility'],
  ] as const) {
    run(db, ['create-database']);
    run(db, ['setup-schema', '-v', '0.0']);
    run(db, ['update-schema', '--schema-name', schema]);
    log(`temporal-sql-tool: ${db} at the latest ${schema} schema`);
  }
}

/**
 * A free port on 127.0.0.1 below 32768: the server records its services' ports in a smallint column
 * (cluster_membership), so the kernel's ephemeral range (32768+) cannot be used.
 */
async function freeServerPort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 12000);
    if (taken.has(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const srv = net.createServer();
      srv.once('error', () => resolve(false));
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
    if (free) {
      taken.add(port);
      return port;
    }
  }
}

interface Ports {
  frontend: number;
  frontendHttp: number;
  frontendMembership: number;
  history: number;
  historyMembership: number;
  matching: number;
  matchingMembership: number;
  worker: number;
  workerMembership: number;
}

/** The server's static configuration (config/development-postgres12.yaml of the server, with TLS and our ports). */
function serverConfigYaml(pg: PostgresTarget, ports: Ports, tls: TlsMaterial, dynamicConfigFile: string): string {
  const store = (db: string, maxConns: number) => `      sql:
        pluginName: "postgres12"
        databaseName: ${JSON.stringify(db)}
        connectAddr: "${pg.host}:${pg.port}"
        connectProtocol: "tcp"
        user: ${JSON.stringify(pg.user)}
        password: ${JSON.stringify(pg.password ?? '')}
        maxConns: ${maxConns}
        maxIdleConns: ${maxConns}
        maxConnLifetime: "1h"`;
  const rpc = (grpc: number, membership: number, http?: number) => `    rpc:
      grpcPort: ${grpc}
      membershipPort: ${membership}
      bindOnIP: "127.0.0.1"${http ? `\n      httpPort: ${http}` : ''}`;
  return `log:
  stdout: true
  level: warn

persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: 4
  datastores:
    postgres-default:
${store(pg.database, 20)}
    postgres-visibility:
${store(pg.visibilityDatabase, 5)}

global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "127.0.0.1"
  pprof:
    port: 0
  tls:
    frontend:
      server:
        certFile: ${JSON.stringify(tls.serverCert)}
        keyFile: ${JSON.stringify(tls.serverKey)}
        clientCaFiles: [${JSON.stringify(tls.ca)}]
        requireClientAuth: true
      client:
        serverName: ${JSON.stringify(tls.serverName)}
        rootCaFiles: [${JSON.stringify(tls.ca)}]
    systemWorker:
      certFile: ${JSON.stringify(tls.clientCert)}
      keyFile: ${JSON.stringify(tls.clientKey)}
      client:
        serverName: ${JSON.stringify(tls.serverName)}
        rootCaFiles: [${JSON.stringify(tls.ca)}]

services:
  frontend:
${rpc(ports.frontend, ports.frontendMembership, ports.frontendHttp)}
  matching:
${rpc(ports.matching, ports.matchingMembership)}
  history:
${rpc(ports.history, ports.historyMembership)}
  worker:
${rpc(ports.worker, ports.workerMembership)}

clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: "active"
  currentClusterName: "active"
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: "frontend"
      rpcAddress: "localhost:${ports.frontend}"

dcRedirectionPolicy:
  policy: "noop"

dynamicConfigClient:
  filepath: ${JSON.stringify(dynamicConfigFile)}
  pollInterval: "10s"
`;
}

/** Dynamic configuration: search attributes seen at once after they are added (as the CLI's dev server does), a quick namespace cache. */
const DYNAMIC_CONFIG = `system.forceSearchAttributesCacheRefreshOnRead:
  - value: true
system.namespaceCacheRefreshInterval:
  - value: 2s
history.cacheHostLevelMaxSize:
  - value: 8096
frontend.namespaceRPS.visibility:
  - value: 100
`;

/** temporal.api.enums.v1.IndexedValueType, by the names temporal-dev.yml uses. */
const INDEXED_VALUE_TYPE: Record<TemporalDevConfig['searchAttributes'][string], number> = {
  Text: 1,
  Keyword: 2,
  Int: 3,
  Double: 4,
  Bool: 5,
  Datetime: 6,
  KeywordList: 7,
};

export interface TemporalProductionServer {
  address: string;
  namespace: string;
  tls: TlsMaterial;
  /** The client's connection settings (TEMPORAL_ADDRESS and TEMPORAL_TLS_*) for the API, workers and tests. */
  env: Required<Pick<TemporalConnectionConfig, 'TEMPORAL_ADDRESS' | 'TEMPORAL_TLS_CA' | 'TEMPORAL_TLS_CERT' | 'TEMPORAL_TLS_KEY' | 'TEMPORAL_TLS_SERVER_NAME'>>;
  process(): ChildProcess;
  /** SIGKILL, as a crash would. */
  kill(): Promise<void>;
  /** Starts it again on the same ports, databases and certificates; resolves once it answers. */
  restart(): Promise<void>;
  /** SIGTERM (then SIGKILL after 15 s); removes the temporary folder (and the two databases with dropDatabasesOnStop). */
  stop(): Promise<void>;
}

/**
 * Sets up the schemas on `postgresUrl` (databases `database` and `visibilityDatabase`), writes the
 * configuration and certificates into a fresh temporary folder, starts the server, registers the
 * namespace and the search attributes of temporal-dev.yml, and resolves once all of it answers over mTLS.
 */
export async function startTemporalProductionServer(opts: {
  binaries: TemporalServerBinaries;
  postgresUrl: string;
  database: string;
  visibilityDatabase: string;
  config: TemporalDevConfig;
  grpcPort?: number;
  /** The test runs: fresh databases per run, dropped when the server stops. */
  dropDatabasesOnStop?: boolean;
  log: (line: string) => void;
}): Promise<TemporalProductionServer> {
  const pg = postgresTarget(opts.postgresUrl, opts.database, opts.visibilityDatabase);
  setupTemporalSchemas(opts.binaries.sqlTool, pg, opts.log);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'outreach-temporal-server-'));
  const tls = makeTlsMaterial(path.join(dir, 'tls'));
  const taken = new Set<number>();
  const ports: Ports = {
    frontend: opts.grpcPort || (await freeServerPort(taken)),
    frontendHttp: await freeServerPort(taken),
    frontendMembership: await freeServerPort(taken),
    history: await freeServerPort(taken),
    historyMembership: await freeServerPort(taken),
    matching: await freeServerPort(taken),
    matchingMembership: await freeServerPort(taken),
    worker: await freeServerPort(taken),
    workerMembership: await freeServerPort(taken),
  };
  const configDir = path.join(dir, 'config');
  mkdirSync(configDir);
  const dynamicConfigFile = path.join(configDir, 'dynamic.yaml');
  writeFileSync(dynamicConfigFile, DYNAMIC_CONFIG);
  writeFileSync(path.join(configDir, 'production.yaml'), serverConfigYaml(pg, ports, tls, dynamicConfigFile));

  const address = `127.0.0.1:${ports.frontend}`;
  const env = {
    TEMPORAL_ADDRESS: address,
    TEMPORAL_TLS_CA: tls.ca,
    TEMPORAL_TLS_CERT: tls.clientCert,
    TEMPORAL_TLS_KEY: tls.clientKey,
    TEMPORAL_TLS_SERVER_NAME: tls.serverName,
  };
  const namespace = opts.config.namespace;
  let child!: ChildProcess;
  let output = '';
  let exited!: Promise<unknown>;

  const spawnServer = () => {
    output = '';
    child = spawn(opts.binaries.server, ['--root', dir, '--config', 'config', '--env', 'production', '--allow-no-auth', 'start'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const collect = (b: Buffer) => {
      output = (output + b.toString()).slice(-6000);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    exited = new Promise((resolve) => child.once('exit', resolve));
  };

  /** Waits until the frontend answers over mTLS; registers the namespace and search attributes when missing. */
  const ready = async () => {
    const deadline = Date.now() + Math.max(120, opts.config.startTimeoutSeconds) * 1000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`Temporal Server exited (${child.exitCode}):\n${output}`);
      const connection = Connection.lazy({ ...temporalConnectionOptions(env), connectTimeout: 2000 });
      try {
        await connection.ensureConnected();
        try {
          await connection.workflowService.describeNamespace({ namespace });
        } catch (err) {
          if ((err as { code?: number }).code !== 5) throw err; // NOT_FOUND: register it
          await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('7 days') });
          opts.log(`Temporal Server: namespace ${namespace} registered`);
        }
        const sa = await connection.operatorService.listSearchAttributes({ namespace });
        const have = Object.keys(sa.customAttributes ?? {});
        const missing = Object.entries(opts.config.searchAttributes).filter(([k]) => !have.includes(k));
        if (missing.length) {
          await connection.operatorService.addSearchAttributes({
            namespace,
            searchAttributes: Object.fromEntries(missing.map(([k, t]) => [k, INDEXED_VALUE_TYPE[t]])),
          });
          continue;
        }
        // The namespace is known to the frontend's and history's caches once a visibility query succeeds.
        await connection.workflowService.countWorkflowExecutions({ namespace, query: '' });
        break;
      } catch {
        // not up yet
      } finally {
        await connection.close().catch(() => undefined);
      }
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`Temporal Server did not answer on ${address}:\n${output}`);
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  };

  const started = Date.now();
  spawnServer();
  await ready();
  opts.log(
    `Temporal Server ${TEMPORAL_SERVER_VERSION} up on ${address} (mTLS, PostgreSQL ${pg.host}:${pg.port}/${pg.database}) in ${((Date.now() - started) / 1000).toFixed(1)}s`,
  );

  const terminate = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 15000);
    await exited;
    clearTimeout(timer);
  };
  return {
    address,
    namespace,
    tls,
    env,
    process: () => child,
    kill: () => terminate('SIGKILL'),
    async restart() {
      await terminate('SIGTERM');
      spawnServer();
      await ready();
    },
    async stop() {
      await terminate('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
      if (opts.dropDatabasesOnStop) {
        for (const db of [pg.database, pg.visibilityDatabase]) {
          const url = new URL(opts.postgresUrl);
          url.pathname = `/${db}`;
          await dropDatabase(url.toString());
        }
      }
    },
  };
}
