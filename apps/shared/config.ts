import { API_DB_ROLE, WORKER_DB_ROLE } from '../../db/roles';
import path from 'node:path';
import { z } from 'zod';
import { DNS_SERVER, parseDnsServers } from '../../activities/providers/dns/resolver';
import { parseRetrySchedule } from '../../domain/webhooks/delivery';

/**
 * All process configuration, read once from the environment. Every variable carries its description
 * (`.describe`, kept last so that it is on the outermost schema); docs/configuration.md is generated
 * from them (`npm run docs:config`), and test/unit/config-reference.test.ts fails when it is stale.
 */
export const configSchema = z.object({
  NODE_ENV: z
    .enum(['development', 'test', 'production'])
    .default('development')
    .describe(
      '`development`, `test` or `production`; in production the API and the worker refuse to start without an https `PUBLIC_BASE_URL`, and the worker without an unsubscribe key',
    ),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').describe('pino level of the API and the worker'),
  DATA_DIR: z
    .string()
    .default(path.resolve(__dirname, '../../.data'))
    .describe("Development data: the Temporal dev server's SQLite file, the embedded PostgreSQL, the development signing key"),
  DATABASE_URL: z
    .string()
    .url()
    .optional()
    .describe(
      "The owner's connection, used by migrations only (the API connects as `outreach_api`, the workers as `outreach_worker`). Unset under `npm run dev`: the embedded PostgreSQL",
    ),
  API_DATABASE_URL: z
    .string()
    .url()
    .optional()
    .describe("The API's connection, which acts only as a user (docs/architecture.md). Unset: `DATABASE_URL` as `outreach_api`"),
  WORKER_DATABASE_URL: z
    .string()
    .url()
    .optional()
    .describe("The workers' connection, which may act for an organization. Unset: `DATABASE_URL` as `outreach_worker`"),
  APP_DB_PASSWORD: z
    .string()
    .optional()
    .describe('Password the migrator sets on both `outreach_api` and `outreach_worker` (needed where authentication is not trust)'),
  API_DB_PASSWORD: z
    .string()
    .optional()
    .describe("`outreach_api`'s own password, set by the migrator and used in the default `API_DATABASE_URL`. Unset: `APP_DB_PASSWORD`"),
  WORKER_DB_PASSWORD: z
    .string()
    .optional()
    .describe("`outreach_worker`'s own password, set by the migrator and used in the default `WORKER_DATABASE_URL`. Unset: `APP_DB_PASSWORD`"),
  DB_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10).describe('PostgreSQL connections per process'),
  DB_NAMED_STATEMENTS: z
    .enum(['true', 'false'])
    .default('true')
    .describe(
      "Each connection parses a query once and keeps it as a named statement (`db/pool.ts`), and the one-round-trip reads PREPARE theirs; `false` behind a pooler that does not keep sessions (PgBouncer in transaction mode before 1.21): nothing is prepared, those reads and a transaction's first statement go with their literals written in",
    ),
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329).describe('Port of the embedded PostgreSQL'),

  PORT: z.coerce.number().int().min(0).max(65535).default(3000).describe('Port the API listens on'),
  HOST: z.string().default('127.0.0.1').describe('Address the API listens on'),
  BODY_LIMIT: z.string().default('256kb').describe('Largest accepted request body (413 above it)'),
  PUBLIC_BASE_URL: z
    .string()
    .url()
    .optional()
    .describe(
      'The public base of the links in e-mail (`{PUBLIC_BASE_URL}/u/{token}`). Unset: `http://127.0.0.1:PORT`. Required and https in production (RFC 8058 one-click unsubscribe): the API and the worker refuse to start otherwise',
    ),

  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233').describe('Temporal frontend; the tests use it instead of starting a server when it is set'),
  TEMPORAL_NAMESPACE: z.string().default('default').describe('Temporal namespace'),
  TEMPORAL_TASK_QUEUE: z
    .string()
    .default('outreach')
    .describe('The task queue the worker polls and the API starts on; the providers and webhooks queues are `<queue>-providers` and `<queue>-webhooks`'),
  TEMPORAL_UI_URL: z.string().url().default('http://127.0.0.1:8233').describe('The Temporal Web UI, printed for operators'),
  TEMPORAL_CLI: z
    .string()
    .optional()
    .describe('The `temporal` binary. Unset: `temporal` on PATH, else built into `~/.cache/outreach-signal/temporal-cli-v1.5.1`'),
  TEMPORAL_TLS_CA: z
    .string()
    .min(1)
    .optional()
    .describe(
      "TLS to Temporal (a cluster or Temporal Cloud): the CA that signed the server's certificate (file path or PEM text). Any `TEMPORAL_TLS_*` or `TEMPORAL_API_KEY` turns TLS on (the system's roots without a CA); none: plain gRPC (the dev server)",
    ),
  TEMPORAL_TLS_CERT: z
    .string()
    .min(1)
    .optional()
    .describe('The client certificate of mutual TLS with Temporal (file path or PEM text); set with `TEMPORAL_TLS_KEY` or not at all'),
  TEMPORAL_TLS_KEY: z
    .string()
    .min(1)
    .optional()
    .describe('The client key of mutual TLS with Temporal (file path or PEM text); set with `TEMPORAL_TLS_CERT` or not at all'),
  TEMPORAL_TLS_SERVER_NAME: z
    .string()
    .min(1)
    .optional()
    .describe("The name the Temporal server's certificate must carry, when it differs from the address's host. Unset: the address's host"),
  TEMPORAL_API_KEY: z.string().min(1).optional().describe('Temporal Cloud API key (sent as a bearer token over TLS)'),
  SCHEDULE_TIMEZONE: z
    .string()
    .min(1)
    .default('UTC')
    .describe('IANA time zone in which source cron schedules, the daily retention sweep and the daily mailbox health checks fire'),

  AUTH_MODE: z.enum(['jwks', 'hs256']).default('jwks').describe('`jwks` (an OIDC issuer) or `hs256` (a shared secret)'),
  AUTH_JWKS_URL: z.string().url().optional().describe("The issuer's JWKS document; required when `AUTH_MODE=jwks`"),
  AUTH_HS256_SECRET: z.string().min(32).optional().describe('The shared secret; required when `AUTH_MODE=hs256`'),
  AUTH_ISSUER: z.string().min(1).optional().describe('Expected `iss` of bearer tokens; required by the API'),
  AUTH_AUDIENCE: z.string().min(1).optional().describe('Expected `aud` of bearer tokens; required by the API'),
  AUTH_ALGORITHMS: z
    .string()
    .optional()
    .describe('Accepted algorithms, comma-separated; `none` is refused. Unset: `RS256,ES256` with `jwks`, `HS256` with `hs256`'),
  AUTH_CLOCK_TOLERANCE_SECONDS: z.coerce.number().int().min(0).max(300).default(5).describe('Allowed clock skew when verifying tokens'),

  SOURCE_FETCH_TIMEOUT_MS: z.coerce.number().int().min(100).default(15000).describe('Time limit of one source fetch'),
  SOURCE_FETCH_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(5 * 1024 * 1024)
    .describe('Size limit of one fetched document (decompressed bytes)'),
  SIGNAL_BATCH_SIZE: z.coerce.number().int().min(1).max(1000).default(100).describe('Publications stored per transaction'),
  LLM_BASE_URL: z
    .string()
    .url()
    .optional()
    .describe(
      "An OpenAI-compatible chat-completions endpoint for classification, reply intents and the strategist's and drafts' words (used with `LLM_MODEL`, unless the organization has an `llm` integration). Unset: the built-in rules classifier, the reply rules and the template writer",
    ),
  LLM_MODEL: z.string().min(1).optional().describe('The model to ask at `LLM_BASE_URL`'),
  LLM_API_KEY: z.string().min(1).optional().describe('The API key sent to `LLM_BASE_URL`'),
  INTEGRATION_SECRET_KEY: z
    .string()
    .min(32)
    .optional()
    .describe(
      '32 bytes (64 hex characters or base64), optionally `id:key`: seals integration secrets, json_api source headers, mailbox passwords and webhook secrets. Unset: `POST /integrations` and `POST /mailboxes` answer 503 (`npm run dev` generates one)',
    ),
  INTEGRATION_SECRET_KEYS: z
    .string()
    .min(32)
    .optional()
    .describe(
      'Key rotation: previous keys, comma-separated `[id:]key`, used only to open the values they sealed; `npm run secrets:reseal` moves every value to `INTEGRATION_SECRET_KEY`',
    ),
  UNSUBSCRIBE_TOKEN_KEY: z
    .string()
    .min(32)
    .optional()
    .describe(
      '32 bytes (64 hex characters or base64): the HMAC key of one-click unsubscribe tokens. Unset: HKDF-SHA256 of `INTEGRATION_SECRET_KEY`; neither: `/u/{token}` answers 503. Set it before the first key rotation, or the links already sent stop working',
    ),
  // OAuth mailboxes (docs/features/oauth-mailboxes.md): the service's OAuth client per provider.
  OAUTH_GOOGLE_CLIENT_ID: z
    .string()
    .min(1)
    .optional()
    .describe("The service's Google OAuth client id. Unset: Google mailboxes cannot be connected (`/mailboxes/oauth/start` answers 503)"),
  OAUTH_GOOGLE_CLIENT_SECRET: z.string().min(1).optional().describe("The service's Google OAuth client secret"),
  OAUTH_GOOGLE_AUTHORIZE_URL: z.string().url().default('https://accounts.google.com/o/oauth2/v2/auth').describe("Google's authorization endpoint"),
  OAUTH_GOOGLE_TOKEN_URL: z.string().url().default('https://oauth2.googleapis.com/token').describe("Google's token endpoint"),
  OAUTH_GOOGLE_ISSUER: z.string().url().default('https://accounts.google.com').describe("The issuer of Google's ID tokens"),
  OAUTH_MICROSOFT_CLIENT_ID: z
    .string()
    .min(1)
    .optional()
    .describe("The service's Microsoft (Entra ID) OAuth client id. Unset: Microsoft mailboxes cannot be connected (`/mailboxes/oauth/start` answers 503)"),
  OAUTH_MICROSOFT_CLIENT_SECRET: z.string().min(1).optional().describe("The service's Microsoft (Entra ID) OAuth client secret"),
  OAUTH_MICROSOFT_AUTHORIZE_URL: z
    .string()
    .url()
    .default('https://login.microsoftonline.com/common/oauth2/v2.0/authorize')
    .describe("Microsoft's authorization endpoint (identity platform v2, `common`)"),
  OAUTH_MICROSOFT_TOKEN_URL: z
    .string()
    .url()
    .default('https://login.microsoftonline.com/common/oauth2/v2.0/token')
    .describe("Microsoft's token endpoint (identity platform v2, `common`)"),
  OAUTH_MICROSOFT_ISSUER: z
    .string()
    .url()
    .optional()
    .describe("The issuer of Microsoft's ID tokens. Unset: the signing-in user's tenant (`https://login.microsoftonline.com/{tenant id}/v2.0`)"),
  // Salesforce as the CRM (docs/features/meetings-and-crm.md): the service's connected app.
  SALESFORCE_CLIENT_ID: z
    .string()
    .min(1)
    .optional()
    .describe("The service's Salesforce connected app (client id). Without it and the secret Salesforce integrations cannot connect"),
  SALESFORCE_CLIENT_SECRET: z.string().min(1).optional().describe("The service's Salesforce connected app (client secret)"),
  SALESFORCE_TOKEN_URL: z
    .string()
    .url()
    .default('https://login.salesforce.com/services/oauth2/token')
    .describe('The token endpoint of the refresh-token grant (a sandbox: `https://test.salesforce.com/services/oauth2/token`)'),
  SEND_SLOT_GRACE_SECONDS: z.coerce
    .number()
    .int()
    .min(10)
    .max(3600)
    .default(300)
    .describe('How far from its booked slot a send may still go out (the claim checks the moment again, `sendTimeCheck`); later, the e-mail is booked again'),
  OUTBOUND_ALLOW_PRIVATE_NETWORKS: z
    .enum(['true', 'false'])
    .optional()
    .describe(
      'Whether requests to tenant-chosen destinations (sources, websites, provider base URLs, mail servers, webhook URLs) may reach loopback, private or link-local addresses; only `true` allows them, whatever `NODE_ENV` says (`npm run dev` and the tests set it). Unset: refused',
    ),
  INGEST_RETRY_INITIAL_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(5000)
    .describe('First retry delay of a failed fetch (doubling, 3 attempts) and of a failing pipeline stage'),
  ENRICHMENT_BATCH_POLL_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(600)
    .default(30)
    .describe(
      "The worker's wait between two polls of a batch provider's request in the enrichment waterfall (Dropcontact asks for 30 s); a step polls 20 times before it gives up",
    ),
  PROJECT_LINK_WINDOW_DAYS: z.coerce
    .number()
    .min(0)
    .default(60)
    .describe('Signals with the same normalised title share a project within this many days of its latest signal'),
  RECONCILE_INTERVAL_SECONDS: z.coerce.number().int().min(10).default(300).describe('How often the `reconcile/signals` schedule runs'),
  RECONCILE_STUCK_AFTER_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .default(600)
    .describe(
      'A signal left `ingested` or mid-pipeline this long is processed again by the reconcile; `reconcile/outreach` looks only at enrollments and messages older than this',
    ),
  RECONCILE_OUTREACH_INTERVAL_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .default(600)
    .describe('How often the `reconcile/outreach` schedule restarts missing sequence runs and sends'),
  // Parked runs (sequences waiting days for a person or a timer) far outnumber busy ones, so the cache is bounded.
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce
    .number()
    .int()
    .min(0)
    .default(500)
    .describe(
      'Workflow runs a worker keeps in memory between tasks; the others (parked sequences) are replayed from their history when they wake, so memory stays bounded however many wait',
    ),
  RECONCILE_SCHEDULE: z
    .enum(['true', 'false'])
    .default('true')
    .describe(
      'Whether this worker keeps the `reconcile/signals` and `reconcile/outreach` schedules pointed at its task queue and runs the webhook dispatcher (`false` for workers of a side queue)',
    ),
  SEQUENCE_RECHECK_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .default(6 * 3600)
    .describe('The longest a sequence run sleeps without reading its enrollment again when no signal wakes it (every change signals; this is the safety net)'),
  SEND_HOLD_RECHECK_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .default(15 * 60)
    .describe('How often a held send (paused enrollment, mailbox not sendable, no mailbox) looks again when nothing wakes it'),
  PROVIDER_ACTIVITIES_PER_SECOND: z.coerce
    .number()
    .positive()
    .default(20)
    .describe('Rate limit of the providers task queue (`<TEMPORAL_TASK_QUEUE>-providers`: model and provider calls), across all workers'),
  PROVIDER_MAX_CONCURRENT_ACTIVITIES: z.coerce.number().int().min(1).default(8).describe('Provider calls running at once per worker process'),
  INBOUND_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(10 * 1024 * 1024)
    .describe('The largest raw message `POST /mailboxes/{id}/inbound` takes, in bytes (413 above)'),
  INBOX_POLL_SECONDS: z.coerce
    .number()
    .int()
    .min(5)
    .default(60)
    .describe('How often each mailbox with an IMAP server has its inbox read (its schedule `mailbox/<id>/inbox`)'),
  IMAP_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(20000)
    .describe('Connection and greeting timeout of an IMAP read (the socket timeout is four times it)'),
  IMPORT_IDLE_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(300000)
    .default(30000)
    .describe(
      '`POST /imports`: an upload that sends nothing for this long is cut off (408, the connection closed); it holds no database connection while it arrives',
    ),

  DNS_SERVERS: z
    .string()
    .optional()
    .refine((v) => parseDnsServers(v).every((s) => DNS_SERVER.test(s)), 'must be comma-separated host:port (IP addresses, IPv6 in brackets)')
    .describe(
      "DNS servers of the mailbox health checks and domain proofs, comma-separated `host:port` (IP addresses; IPv6 in brackets, `[::1]:53`). Unset: the system's resolver (`npm run dev`: its demo zone)",
    ),
  DNS_TIMEOUT_MS: z.coerce.number().int().min(50).max(60000).default(5000).describe('Per DNS query of a health check, before its one retry'),

  VERIFY_SMTP_PROBE: z
    .enum(['true', 'false'])
    .default('false')
    .describe(
      "The built-in address check asks the recipient's mail server at RCPT TO about the address and a made-up one (catch-all detection), never sending a message; only from a host whose outbound port 25 is open and whose address has a good reputation. `false`: syntax, mail host, disposable domain and role address only",
    ),
  VERIFY_SMTP_HELO: z
    .string()
    .regex(/^[A-Za-z0-9.-]{1,253}$/, 'must be a host name')
    .optional()
    .describe("The probe's EHLO name: this host's name as its reverse DNS gives it. Unset: the machine's host name"),
  VERIFY_SMTP_FROM: z
    .string()
    .max(254)
    .regex(/^$|^[^\s@<>]+@[^\s@<>]+$/, 'must be an e-mail address, or empty for the null sender')
    .default('')
    .describe("The probe's MAIL FROM: an address of a domain you control (empty: the null sender `<>`, which some servers refuse)"),

  RATE_LIMIT_USER_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(0)
    .default(600)
    .describe(
      'Requests per minute per user, counted in PostgreSQL and shared by all API processes (one-minute window; each process takes a hundredth of it at a time, docs/operations.md); `0`: no limit',
    ),
  RATE_LIMIT_ORG_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(0)
    .default(3000)
    .describe('Requests per minute naming one organization (`organizationId` in query or body), shared by its members and by all API processes; `0`: no limit'),
  RATE_LIMIT_PUBLIC_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(0)
    .default(120)
    .describe('Requests per minute per client address on the public routes (`/webhooks/*`, `/u/*`), shared by all API processes; `0`: no limit'),
  METRICS_TOKEN: z
    .string()
    .min(16)
    .optional()
    .describe('Bearer token for `GET /metrics` (API and worker). Unset: not served (404) unless `METRICS_PUBLIC=true`'),
  METRICS_PUBLIC: z
    .enum(['true', 'false'])
    .default('false')
    .describe('`true`: `/metrics` (API and worker) is open to anyone when `METRICS_TOKEN` is unset (`npm run dev` sets it)'),
  WORKER_METRICS_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(0)
    .describe("Port of the worker's `/metrics` (activity outcomes plus the Temporal SDK's metrics); `0`: off"),
  WORKER_METRICS_HOST: z.string().default('127.0.0.1').describe("Address the worker's `/metrics` listens on"),
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .optional()
    .refine((v) => v === undefined || parseRetrySchedule(v) !== undefined, 'must be comma-separated positive seconds')
    .describe(
      'Delays after each failed webhook delivery attempt, comma-separated seconds (`30,60,120`); when they are spent the delivery is `failed`. Unset: 30 s doubling, 12 retries (about 34 hours)',
    ),
  WEBHOOK_SWEEP_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .default(60)
    .describe(
      "How often the workers of the deployment's queue look for webhook deliveries that are due but were not woken (the outbox's safety net), and delete expired outbox events and idempotency records",
    ),
  WEBHOOK_MAX_CONCURRENT_DELIVERIES: z.coerce
    .number()
    .int()
    .min(1)
    .default(10)
    .describe('Webhook delivery batches running at once in one worker process, on `<TEMPORAL_TASK_QUEUE>-webhooks`'),
});
export type Config = z.infer<typeof configSchema>;

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
    throw new ConfigError(
      'APP_DATABASE_URL is gone: the API uses API_DATABASE_URL (role outreach_api), the workers WORKER_DATABASE_URL (role outreach_worker)',
    );
  }
  const parsed = configSchema.safeParse(env);
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
 * What production requires of the links in e-mail and of the worker that sends:
 * PUBLIC_BASE_URL set and https (RFC 8058 one-click and the footer the law requires), and for the
 * worker a key to sign unsubscribe links. Answers the problems, none outside production.
 */
export function productionProblems(
  c: Pick<Config, 'NODE_ENV' | 'PUBLIC_BASE_URL' | 'UNSUBSCRIBE_TOKEN_KEY' | 'INTEGRATION_SECRET_KEY'>,
  role: 'api' | 'worker',
): string[] {
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
