import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { DB } from '../../db/pool';
import type { SecretBox } from '../../db/secrets';
import type { UnsubscribeTokens } from '../../domain/outreach/unsubscribe-token';
import type { DnsResolver } from '../../activities/providers/dns/resolver';
import type { SalesforceApp } from '../../activities/providers/crm/salesforce';
import type { OAuthClients } from '../../activities/providers/mail/oauth';
import type { Config } from '../shared/config';
import type { MetricsAccess } from '../shared/metrics';
import type { WorkflowStarter } from '../shared/temporal';
import type { ApiMetrics } from './metrics';
import type { RateLimits } from './rate-limit';
import type { TokenVerifier } from './token-cache';

/** OAuth mailboxes: the service's clients and the callback URL. */
export interface OAuthDeps {
  clients: OAuthClients;
  /** The callback's public URL, registered at the provider (PUBLIC_BASE_URL + /mailboxes/oauth/callback). */
  redirectUri: string;
}

/** What the API is built from (apps/api/main.ts, the tests and the benches build it): every route receives it. */
export interface ApiDeps {
  db: DB;
  logger: Logger;
  temporalClient: Client;
  workflows: WorkflowStarter;
  verifyToken: TokenVerifier;
  issuer: string;
  bodyLimit: string;
  /** Encrypts integration secrets; null when INTEGRATION_SECRET_KEY is not configured. */
  secrets: SecretBox | null;
  /** Requests per minute per user and per organization (rate-limit.ts); absent: no limits. */
  rateLimits?: RateLimits;
  /** Prometheus metrics; absent: a registry of this app's own, with the pool behind `db`. */
  metrics?: ApiMetrics;
  /** Who may read GET /metrics (METRICS_TOKEN, METRICS_PUBLIC); absent: nobody (404). */
  metricsAccess?: MetricsAccess;
  /** DNS for the mailbox health check (DNS_SERVERS, DNS_TIMEOUT_MS); absent: the system resolver. */
  dns?: DnsResolver;
  /** Verifies one-click unsubscribe tokens (/u/{token}); absent or null: those answer 503. */
  unsubscribeTokens?: UnsubscribeTokens | null;
  /** POST /mailboxes/{id}/inbound: the largest raw message (INBOUND_MAX_BYTES) and the deployment's reply model (LLM_*). */
  inbound?: { maxBytes?: number; llm?: Pick<Config, 'LLM_BASE_URL' | 'LLM_MODEL' | 'LLM_API_KEY'> };
  /** OAuth mailboxes: the service's clients (OAUTH_GOOGLE_*, OAUTH_MICROSOFT_*) and the callback URL; absent: the consent flow answers 503. */
  oauth?: OAuthDeps;
  /**
   * POST /imports: how long an upload may send nothing before it is cut off (IMPORT_IDLE_TIMEOUT_MS), how
   * long it may take in all, and how many uploads of one organization this process receives at once.
   */
  imports?: { idleTimeoutMs?: number; uploadTimeoutMs?: number; maxUploadsPerOrganization?: number; maxConcurrentStores?: number };
  /** Salesforce integrations: the service's connected app (SALESFORCE_*); absent: their check answers that it is not configured. */
  salesforce?: SalesforceApp | null;
}
