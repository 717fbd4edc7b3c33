import { Client, Connection } from '@temporalio/client';
import type { Express } from 'express';
import pino from 'pino';
import { createApp, ApiDeps } from '../../apps/api/app';
import { dnsResolverFrom } from '../../activities/providers/dns/resolver';
import { createTokenVerifier } from '../../apps/api/auth';
import { listen } from '../../apps/api/server';
import { SecretBox } from '../../db/secrets';
import { UnsubscribeTokens, unsubscribeTokenKey } from '../../domain/outreach/unsubscribe-token';
import { WorkflowStarter } from '../../apps/shared/temporal';
import { temporalConnectionEnv, temporalConnectionOptions } from '../../apps/shared/temporal-connection';
import { createDb, DB } from '../../db/pool';
import { apiClient, ok, Schemas } from './client';
import { assertMatchesContract } from './contract';
import { newUser, testEnv, TestUser } from './tokens';

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

export interface TestApi {
  url: string;
  app: Express;
  db: DB;
  temporal: Client;
  call(method: string, path: string, opts?: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> }): Promise<Reply>;
  close(): Promise<void>;
}

/** The real API, in-process, against the run's database, Temporal server and JWKS issuer. */
export async function startApi(overrides: Partial<ApiDeps> = {}): Promise<TestApi> {
  const db = createDb(testEnv('TEST_APP_DB_URL'), 5);
  const connection = await Connection.connect(temporalConnectionOptions(temporalConnectionEnv(process.env, testEnv('TEMPORAL_ADDRESS'))));
  const temporal = new Client({ connection });
  const issuer = testEnv('TEST_ISSUER');
  const app = createApp({
    db,
    logger: pino({ level: process.env.LOG_LEVEL ?? 'silent' }),
    temporalClient: temporal,
    workflows: new WorkflowStarter(temporal, {
      TEMPORAL_TASK_QUEUE: testEnv('TEMPORAL_TASK_QUEUE'),
      INGEST_RETRY_INITIAL_INTERVAL_MS: Number(testEnv('INGEST_RETRY_INITIAL_INTERVAL_MS')),
    }),
    verifyToken: createTokenVerifier({
      mode: 'jwks',
      jwksUrl: testEnv('TEST_JWKS_URL'),
      issuer,
      audience: testEnv('TEST_AUDIENCE'),
      algorithms: ['ES256', 'RS256'],
      clockToleranceSeconds: 5,
    }),
    issuer,
    bodyLimit: '64kb',
    secrets: new SecretBox(testEnv('INTEGRATION_SECRET_KEY')),
    unsubscribeTokens: testUnsubscribeTokens(),
    // Mailbox health checks ask the run's test DNS server (global setup), never the internet.
    dns: dnsResolverFrom({ DNS_SERVERS: testEnv('DNS_SERVERS'), DNS_TIMEOUT_MS: Number(testEnv('DNS_TIMEOUT_MS')) }),
    ...overrides,
  });
  const server = await listen(app, 0, '127.0.0.1');
  return {
    url: server.url,
    app,
    db,
    temporal,
    async call(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      if (opts.token) headers.authorization = `Bearer ${opts.token}`;
      let body: string | undefined = opts.rawBody;
      if (opts.body !== undefined) {
        body = JSON.stringify(opts.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await fetch(server.url + path, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // leave as text
      }
      // Every answer must match the OpenAPI document the app serves; a mismatch fails the calling test.
      assertMatchesContract(method, path, res.status, res.headers.get('content-type'), parsed);
      return { status: res.status, headers: res.headers, body: parsed };
    },
    async close() {
      await server.close(1000);
      await connection.close();
      await db.destroy();
    },
  };
}

/**
 * A Temporal client for an address where nothing listens, for tests of a start that fails. Without
 * the SDK's retry interceptor every call fails at once: with it, a call retries for about 20 s, and
 * a retry timer still pending when the test closes the connection throws "Channel has been shut
 * down" out of the timer, failing the whole test file.
 */
export function unreachableTemporal(): Client {
  return new Client({ connection: Connection.lazy({ address: '127.0.0.1:1', connectTimeout: 1000, interceptors: [] }) });
}

/** The unsubscribe tokens the test API accepts (derived from the run's INTEGRATION_SECRET_KEY, as without UNSUBSCRIBE_TOKEN_KEY). */
export function testUnsubscribeTokens(): UnsubscribeTokens {
  return new UnsubscribeTokens(unsubscribeTokenKey({ INTEGRATION_SECRET_KEY: testEnv('INTEGRATION_SECRET_KEY') })!);
}

/** A new user who owns a new organization (through the typed client). */
export async function newOrganization(api: TestApi, name = 'Acme Installaties B.V.'): Promise<{ owner: TestUser; orgId: string }> {
  const owner = await newUser();
  const org = ok(await apiClient(api.url, owner.token).POST('/organizations', { body: { name } }));
  return { owner, orgId: org.id };
}

export async function addMember(api: TestApi, admin: TestUser, orgId: string, role: Schemas['Membership']['role']): Promise<TestUser> {
  const user = await newUser();
  const added = await apiClient(api.url, admin.token).POST('/organizations/{organizationId}/members', {
    params: { path: { organizationId: orgId } },
    body: { userId: user.id, role },
  });
  if (added.response.status !== 201) throw new Error(`adding a member failed: ${added.response.status} ${JSON.stringify(added.error)}`);
  return user;
}

export function expectProblem(res: Reply, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ type: expect.any(String), title: expect.any(String), status, detail: expect.any(String) });
}
