import { API_DB_ROLE, WORKER_DB_ROLE } from '../../db/roles';
import path from 'node:path';
import { z } from 'zod';
import { DNS_SERVER, parseDnsServers } from '../../activities/providers/dns/resolver';
import { parseRetrySchedule } from '../../domain/webhooks/delivery';

/**
 * All process configuration, read once from the environment. The README's configuration table
 * documents every variable here; keep the two in step.
 */
const schema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATA_DIR: z.string().default(path.resolve(__dirname, '../../.data')),
  // Owner connection: migrations only. The API connects as outreach_api, the workers as outreach_worker.
  DATABASE_URL: z.string().url().optional(),
  API_DATABASE_URL: z.string().url().optional(),
  WORKER_DATABASE_URL: z.string().url().optional(),
  // Passwords the migrator sets on the two roles; APP_DB_PASSWORD is the default for both.
  APP_DB_PASSWORD: z.string().optional(),
  API_DB_PASSWORD: z.string().optional(),
  WORKER_DB_PASSWORD: z.string().optional(),
  DB_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  // Each connection parses a query once and keeps it named (db/pool.ts); false behind PgBouncer in transaction mode before 1.21.
  DB_NAMED_STATEMENTS: z.enum(['true', 'false']).default('true'),
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),

  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('127.0.0.1'),
  BODY_LIMIT: z.string().default('256kb'),
  // Where the public links in e-mail point (one-click unsubscribe /u/{token}); default http://127.0.0.1:PORT. https in production.
  PUBLIC_BASE_URL: z.string().url().optional(),

  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('outreach'),
  TEMPORAL_UI_URL: z.string().url().default('http://127.0.0.1:8233'),
  TEMPORAL_CLI: z.string().optional(),
  // TLS to Temporal (a cluster or Temporal Cloud): CA, client certificate and key (file paths or PEM text), the certificate's
  // server name when it differs from the address's host, and Temporal Cloud's API key. Unset: plain gRPC (the dev server).
  TEMPORAL_TLS_CA: z.string().min(1).optional(),
  TEMPORAL_TLS_CERT: z.string().min(1).optional(),
  TEMPORAL_TLS_KEY: z.string().min(1).optional(),
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  SCHEDULE_TIMEZONE: z.string().min(1).default('UTC'),

  AUTH_MODE: z.enum(['jwks', 'hs256']).default('jwks'),
  AUTH_JWKS_URL: z.string().url().optional(),
  AUTH_HS256_SECRET: z.string().min(32).optional(),
  AUTH_ISSUER: z.string().min(1).optional(),
  AUTH_AUDIENCE: z.string().min(1).optional(),
  AUTH_ALGORITHMS: z.string().optional(),
  AUTH_CLOCK_TOLERANCE_SECONDS: z.coerce.number().int().min(0).max(300).default(5),

  SOURCE_FETCH_TIMEOUT_MS: z.coerce.number().int().min(100).default(15000),
  SOURCE_FETCH_MAX_BYTES: z.coerce.number().int().min(1024).default(5 * 1024 * 1024),
  SIGNAL_BATCH_SIZE: z.coerce.number().int().min(1).max(1000).default(100),
  // An OpenAI-compatible chat-completions endpoint for classification; unset = the built-in rules.
  LLM_BASE_URL: z.string().url().optional(),
  LLM_MODEL: z.string().min(1).optional(),
  LLM_API_KEY: z.string().min(1).optional(),
  // 32 bytes (64 hex characters or base64): encrypts integration secrets at rest. Required to add integrations.
  INTEGRATION_SECRET_KEY: z.string().min(32).optional(),
  // Key rotation: previous keys, still used to open values sealed with them (comma-separated id:key); `npm run secrets:reseal` moves all to the current key.
  INTEGRATION_SECRET_KEYS: z.string().min(32).optional(),
  // 32 bytes (64 hex or base64): signs one-click unsubscribe tokens; unset: derived from INTEGRATION_SECRET_KEY (HKDF-SHA256).
  UNSUBSCRIBE_TOKEN_KEY: z.string().min(32).optional(),
  // OAuth mailboxes (README, "Connecting a Google or Microsoft mailbox"): the service's OAuth client per provider.
  // Without a client id the provider is not offered; the URLs default to Google's and Microsoft's (v2, common) endpoints.
  OAUTH_GOOGLE_CLIENT_ID: z.string().min(1).optional(),
  OAUTH_GOOGLE_CLIENT_SECRET: z.string().min(1).optional(),
  OAUTH_GOOGLE_AUTHORIZE_URL: z.string().url().default('https://accounts.google.com/o/oauth2/v2/auth'),
  OAUTH_GOOGLE_TOKEN_URL: z.string().url().default('https://oauth2.googleapis.com/token'),
  OAUTH_GOOGLE_ISSUER: z.string().url().default('https://accounts.google.com'),
  OAUTH_MICROSOFT_CLIENT_ID: z.string().min(1).optional(),
  OAUTH_MICROSOFT_CLIENT_SECRET: z.string().min(1).optional(),
  OAUTH_MICROSOFT_AUTHORIZE_URL: z.string().url().default('https://login.microsoftonline.com/common/oauth2/v2.0/authorize'),
  OAUTH_MICROSOFT_TOKEN_URL: z.string().url().default('https://login.microsoftonline.com/common/oauth2/v2.0/token'),
  // Unset: the issuer is the signing-in user's tenant (https://login.microsoftonline.com/{tenant id}/v2.0).
  OAUTH_MICROSOFT_ISSUER: z.string().url().optional(),
  // Salesforce as the CRM (README, "Salesforce"): the service's connected app; without a client id Salesforce integrations cannot connect.
  SALESFORCE_CLIENT_ID: z.string().min(1).optional(),
  SALESFORCE_CLIENT_SECRET: z.string().min(1).optional(),
  SALESFORCE_TOKEN_URL: z.string().url().default('https://login.salesforce.com/services/oauth2/token'),
  // How far from its booked slot a send may still go out (the claim checks again at the moment of sending).
  SEND_SLOT_GRACE_SECONDS: z.coerce.number().int().min(10).max(3600).default(300),
  // Outbound fetches to loopback/private/link-local addresses: refused unless this is `true` (whatever NODE_ENV says).
  OUTBOUND_ALLOW_PRIVATE_NETWORKS: z.enum(['true', 'false']).optional(),
  INGEST_RETRY_INITIAL_INTERVAL_MS: z.coerce.number().int().min(100).default(5000),
  // Signals with the same normalised title share a project within this many days of its latest signal.
  PROJECT_LINK_WINDOW_DAYS: z.coerce.number().min(0).default(60),
  // The scheduled reconcile (reconcile/signals): how often, and how long a signal may sit unfinished.
  RECONCILE_INTERVAL_SECONDS: z.coerce.number().int().min(10).default(300),
  RECONCILE_STUCK_AFTER_SECONDS: z.coerce.number().int().min(0).default(600),
  // The scheduled outreach reconcile (reconcile/outreach): how often it restarts missing sequence runs and sends.
  RECONCILE_OUTREACH_INTERVAL_SECONDS: z.coerce.number().int().min(1).default(600),
  // Workflow runs a worker keeps in memory between tasks; the rest are replayed from history when they wake.
  // Parked runs (sequences waiting days for a person or a timer) far outnumber busy ones, so the cache is bounded.
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).default(500),
  // Whether this worker keeps the reconcile/signals and reconcile/outreach schedules (pointed at its task queue); `false` for workers of a side queue.
  RECONCILE_SCHEDULE: z.enum(['true', 'false']).default('true'),
  // Sequence runs and held sends look at the database this often when no signal wakes them (a safety net: every change signals).
  SEQUENCE_RECHECK_SECONDS: z.coerce.number().int().min(1).default(6 * 3600),
  SEND_HOLD_RECHECK_SECONDS: z.coerce.number().int().min(1).default(15 * 60),
  // The providers task queue (<TEMPORAL_TASK_QUEUE>-providers): model and provider calls, rate-limited.
  PROVIDER_ACTIVITIES_PER_SECOND: z.coerce.number().positive().default(20),
  PROVIDER_MAX_CONCURRENT_ACTIVITIES: z.coerce.number().int().min(1).default(8),
  // Inbound mail: the largest raw message POST /mailboxes/{id}/inbound takes (bytes; 413 above), how often
  // each mailbox's IMAP inbox is read (its Temporal Schedule mailbox/<id>/inbox), and the IMAP timeouts.
  INBOUND_MAX_BYTES: z.coerce.number().int().min(1024).default(10 * 1024 * 1024),
  INBOX_POLL_SECONDS: z.coerce.number().int().min(5).default(60),
  IMAP_TIMEOUT_MS: z.coerce.number().int().min(100).default(20000),

  // Mailbox health checks: DNS servers as comma-separated host:port (IPv6 in brackets); unset = the system resolver.
  DNS_SERVERS: z
    .string()
    .optional()
    .refine((v) => parseDnsServers(v).every((s) => DNS_SERVER.test(s)), 'must be comma-separated host:port (IP addresses, IPv6 in brackets)'),
  // Per DNS query, before its one retry.
  DNS_TIMEOUT_MS: z.coerce.number().int().min(50).max(60000).default(5000),

  // Requests per minute per user and per organization, per API process (token bucket); 0 = no limit.
  RATE_LIMIT_USER_PER_MINUTE: z.coerce.number().int().min(0).default(600),
  RATE_LIMIT_ORG_PER_MINUTE: z.coerce.number().int().min(0).default(3000),
  // Per client address on the public routes (/webhooks/*, /u/*); 0 = no limit.
  RATE_LIMIT_PUBLIC_PER_MINUTE: z.coerce.number().int().min(0).default(120),
  // Bearer token for GET /metrics (API and worker). Unset: not served (404) unless METRICS_PUBLIC=true.
  METRICS_TOKEN: z.string().min(16).optional(),
  // true: /metrics (API and worker) is open to anyone when METRICS_TOKEN is unset (`npm run dev` sets it).
  METRICS_PUBLIC: z.enum(['true', 'false']).default('false'),
  // The worker's /metrics (activity outcomes + the Temporal SDK's metrics); 0 = off.
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  WORKER_METRICS_HOST: z.string().default('127.0.0.1'),
  // Webhooks (issue 17): the delays after each failed delivery attempt, comma-separated seconds (default: 30 s doubling,
  // 12 retries over ~34 h), and how often the workers look for deliveries nobody woke (the outbox's safety net).
  WEBHOOK_RETRY_SCHEDULE: z.string().optional().refine((v) => v === undefined || parseRetrySchedule(v) !== undefined, 'must be comma-separated positive seconds'),
  WEBHOOK_SWEEP_SECONDS: z.coerce.number().int().min(1).default(60),
});

export type Config = z.infer<typeof schema>;

export interface AuthConfig {
  mode: 'jwks' | 'hs256';
  jwksUrl?: string;
  hs256Secret?: string;
  issuer: string;
  audience: string;
  algorithms: string[];
  clockToleranceSeconds: number;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  if (env.APP_DATABASE_URL) {
    throw new ConfigError('APP_DATABASE_URL is gone: the API uses API_DATABASE_URL (role outreach_api), the workers WORKER_DATABASE_URL (role outreach_worker)');
  }
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/** The public base of links in e-mail (PUBLIC_BASE_URL, else the API on 127.0.0.1), without a trailing slash. */
export function publicBaseUrl(c: Pick<Config, 'PUBLIC_BASE_URL' | 'PORT'>): string {
  return (c.PUBLIC_BASE_URL ?? `http://127.0.0.1:${c.PORT}`).replace(/\/+$/, '');
}

/**
 * What production requires of the links in e-mail and of the worker that sends (review S2, M4):
 * PUBLIC_BASE_URL set and https (RFC 8058 one-click and the footer the law requires), and for the
 * worker a key to sign unsubscribe links. Answers the problems, none outside production.
 */
export function productionProblems(c: Pick<Config, 'NODE_ENV' | 'PUBLIC_BASE_URL' | 'UNSUBSCRIBE_TOKEN_KEY' | 'INTEGRATION_SECRET_KEY'>, role: 'api' | 'worker'): string[] {
  if (c.NODE_ENV !== 'production') return [];
  const problems: string[] = [];
  if (!c.PUBLIC_BASE_URL) problems.push('PUBLIC_BASE_URL must be set in production (the unsubscribe links in e-mail)');
  else if (!c.PUBLIC_BASE_URL.startsWith('https://')) problems.push('PUBLIC_BASE_URL must be https in production (RFC 8058 one-click unsubscribe)');
  if (role === 'worker' && !c.UNSUBSCRIBE_TOKEN_KEY && !c.INTEGRATION_SECRET_KEY) {
    problems.push('UNSUBSCRIBE_TOKEN_KEY (or INTEGRATION_SECRET_KEY) must be set in production: no e-mail goes out without an unsubscribe link');
  }
  return problems;
}

/** Private destinations: refused unless allowed explicitly (`npm run dev` and the tests allow them, for local feeds). */
export function allowsPrivateNetworks(c: Config): boolean {
  return c.OUTBOUND_ALLOW_PRIVATE_NETWORKS === 'true';
}

/** The API's token verification settings; only the API needs (and checks) them. */
export function loadAuthConfig(c: Config): AuthConfig {
  const mode = c.AUTH_MODE;
  if (mode === 'jwks' && !c.AUTH_JWKS_URL) throw new ConfigError('AUTH_JWKS_URL is required when AUTH_MODE=jwks');
  if (mode === 'hs256' && !c.AUTH_HS256_SECRET) throw new ConfigError('AUTH_HS256_SECRET (32+ characters) is required when AUTH_MODE=hs256');
  if (!c.AUTH_ISSUER || !c.AUTH_AUDIENCE) throw new ConfigError('AUTH_ISSUER and AUTH_AUDIENCE are required');
  const algorithms = (c.AUTH_ALGORITHMS ?? (mode === 'jwks' ? 'RS256,ES256' : 'HS256'))
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  if (algorithms.some((a) => a.toLowerCase() === 'none')) throw new ConfigError('AUTH_ALGORITHMS may not contain "none"');
  if (mode === 'jwks' && algorithms.some((a) => a.startsWith('HS'))) throw new ConfigError('HMAC algorithms need AUTH_MODE=hs256');
  if (mode === 'hs256' && algorithms.some((a) => !a.startsWith('HS'))) throw new ConfigError('AUTH_MODE=hs256 allows only HS algorithms');
  return {
    mode,
    jwksUrl: c.AUTH_JWKS_URL,
    hs256Secret: c.AUTH_HS256_SECRET,
    issuer: c.AUTH_ISSUER,
    audience: c.AUTH_AUDIENCE,
    algorithms,
    clockToleranceSeconds: c.AUTH_CLOCK_TOLERANCE_SECONDS,
  };
}

/**
 * Database roles (migration 0003): the API acts only as a user (app.user_id); the workers may also
 * act for an organization (app.organization_id), which PostgreSQL honours for outreach_worker only.
 * Both inherit their grants from the NOLOGIN group role outreach_app.
 */
export const APP_GROUP_ROLE = 'outreach_app';

type DbConfig = Pick<Config, 'DATABASE_URL' | 'API_DATABASE_URL' | 'WORKER_DATABASE_URL' | 'APP_DB_PASSWORD' | 'API_DB_PASSWORD' | 'WORKER_DB_PASSWORD'>;

/** The passwords the migrator sets (undefined: left as they are, e.g. under trust or peer auth). */
export function rolePasswords(c: Partial<DbConfig>): { api?: string; worker?: string } {
  return { api: c.API_DB_PASSWORD ?? c.APP_DB_PASSWORD, worker: c.WORKER_DB_PASSWORD ?? c.APP_DB_PASSWORD };
}

/** The API's connection: API_DATABASE_URL, else DATABASE_URL as outreach_api. */
export function apiDatabaseUrl(c: DbConfig): string {
  if (c.API_DATABASE_URL) return c.API_DATABASE_URL;
  if (!c.DATABASE_URL) throw new ConfigError('DATABASE_URL or API_DATABASE_URL is required');
  return withRole(c.DATABASE_URL, API_DB_ROLE, rolePasswords(c).api);
}

/** The workers' connection: WORKER_DATABASE_URL, else DATABASE_URL as outreach_worker. */
export function workerDatabaseUrl(c: DbConfig): string {
  if (c.WORKER_DATABASE_URL) return c.WORKER_DATABASE_URL;
  if (!c.DATABASE_URL) throw new ConfigError('DATABASE_URL or WORKER_DATABASE_URL is required');
  return withRole(c.DATABASE_URL, WORKER_DB_ROLE, rolePasswords(c).worker);
}

/** The owner's URL with another user and password (same host, port and database). */
export function withRole(ownerUrl: string, role: string, password?: string): string {
  const u = new URL(ownerUrl);
  u.username = role;
  u.password = password ?? '';
  return u.toString();
}
