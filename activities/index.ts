import type { Config } from '../apps/shared/config';
import { secretContext, SecretBox } from '../db/secrets';
import { usableIntegration } from '../db/queries/integrations';
import { asOrganization, type Tx } from '../db/tenancy';
import type { DB } from '../db/pool';
import { OpenAiCompatibleClassifier } from './providers/classification/openai-compatible';
import { RulesClassifier } from '../domain/classification/rules';
import type { Classifier } from '../domain/classification/types';
import { createEnrichmentActivities } from './enrichment';
import { createIngestActivities } from './ingest';
import { createImportActivities } from './imports';
import { createMailboxHealthActivities } from './mailbox-health';
import { dnsResolverFrom } from './providers/dns/resolver';
import { createMeetingActivities } from './meetings';
import { createCrmOutcomeActivities } from './crm-outcome';
import { llmClassifierFrom, salesforceAppFrom } from './providers/registry';
import { createReconcileActivities } from './reconcile';
import { createReplyActivities } from './replies';
import { ImapInboxReader } from './providers/mail/imap';
import { createRetentionActivities } from './retention';
import { createSignalStageActivities } from './signal-stages';
import { createSourceProviders } from './providers/sources';
import { createStrategistActivities, type ProposalWriter } from './strategist';
import { OpenAiCompatibleStrategistWriter } from './strategist-writer';
import { unsubscribeTokenKey, UnsubscribeTokens } from '../domain/outreach/unsubscribe-token';
import { OpenAiCompatibleDraftWriter } from './draft-writer';
import type { ChatModelConfig } from './providers/llm/chat-json';
import { NodemailerSmtpSender } from './providers/mail/smtp';
import { oauthClientsFrom, OAuthTokenSource } from './providers/mail/oauth';
import { dbRefreshTokenStore } from './providers/mail/oauth-store';
import type { MailSender } from './providers/mail/types';
import { createSendActivities } from './send';
import { createSequenceActivities } from './sequence';
import { createVerificationActivities } from './verification';
import { smtpProbeFrom } from './providers/verification/smtp-probe';
import { createWebhookActivities } from './webhooks';

export interface ActivityDeps {
  db: DB;
  config: Pick<
    Config,
    | 'SOURCE_FETCH_TIMEOUT_MS'
    | 'SOURCE_FETCH_MAX_BYTES'
    | 'SIGNAL_BATCH_SIZE'
    | 'LLM_BASE_URL'
    | 'LLM_MODEL'
    | 'LLM_API_KEY'
    | 'INTEGRATION_SECRET_KEY'
    | 'INTEGRATION_SECRET_KEYS'
    | 'PROJECT_LINK_WINDOW_DAYS'
    | 'UNSUBSCRIBE_TOKEN_KEY'
    | 'DNS_SERVERS'
    | 'DNS_TIMEOUT_MS'
    | 'IMAP_TIMEOUT_MS'
  > &
    Partial<Pick<Config, 'VERIFY_SMTP_PROBE' | 'VERIFY_SMTP_HELO' | 'VERIFY_SMTP_FROM' | 'ENRICHMENT_BATCH_POLL_SECONDS'>> &
    Partial<Pick<Config, 'SEND_SLOT_GRACE_SECONDS' | 'SALESFORCE_CLIENT_ID' | 'SALESFORCE_CLIENT_SECRET' | 'SALESFORCE_TOKEN_URL'>> &
    // OAuth mailboxes' clients (oauthClientsFrom reads OAUTH_<PROVIDER>_*).
    Partial<
      Pick<
        Config,
        | 'OAUTH_GOOGLE_CLIENT_ID'
        | 'OAUTH_GOOGLE_CLIENT_SECRET'
        | 'OAUTH_GOOGLE_TOKEN_URL'
        | 'OAUTH_GOOGLE_ISSUER'
        | 'OAUTH_MICROSOFT_CLIENT_ID'
        | 'OAUTH_MICROSOFT_CLIENT_SECRET'
        | 'OAUTH_MICROSOFT_TOKEN_URL'
        | 'OAUTH_MICROSOFT_ISSUER'
      >
    >;
  /** The public base of the links in e-mail (the one-click unsubscribe): apps/shared/config.ts publicBaseUrl. */
  publicBaseUrl: string;
  /** The SMTP client (default nodemailer's; tests may shorten its timeouts). */
  mailSender?: MailSender;
}

/** How long a worker reuses an organization's classifier before looking at its integrations again. */
const CLASSIFIER_CACHE_MS = 30_000;

/** Every activity the worker hosts, wired to its dependencies. */
export function createActivities(deps: ActivityDeps) {
  const limits = { timeoutMs: deps.config.SOURCE_FETCH_TIMEOUT_MS, maxBytes: deps.config.SOURCE_FETCH_MAX_BYTES };
  const secrets = deps.config.INTEGRATION_SECRET_KEY ? new SecretBox(deps.config.INTEGRATION_SECRET_KEY, deps.config.INTEGRATION_SECRET_KEYS) : null;
  // The organization's own `llm` integration first; else an LLM configured for the deployment; else the rules.
  const fallback: Classifier =
    deps.config.LLM_BASE_URL && deps.config.LLM_MODEL
      ? new OpenAiCompatibleClassifier({ baseUrl: deps.config.LLM_BASE_URL, model: deps.config.LLM_MODEL, apiKey: deps.config.LLM_API_KEY })
      : new RulesClassifier();
  // Classification runs once per signal: the organization's classifier is looked up (and its secret
  // decrypted) at most once per CLASSIFIER_CACHE_MS, not on every signal.
  const classifiers = new Map<string, { classifier: Classifier; until: number }>();
  const classifierFor = async (organizationId: string): Promise<Classifier> => {
    const hit = classifiers.get(organizationId);
    if (hit && hit.until > Date.now()) return hit.classifier;
    const llm = await asOrganization(deps.db, organizationId, (tx) => usableIntegration(tx, organizationId, 'llm'));
    const classifier =
      llm?.secret_ciphertext && secrets
        ? llmClassifierFrom(llm.config as Record<string, unknown>, secrets.open(llm.secret_ciphertext, secretContext(llm.organization_id, llm.id)))
        : fallback;
    classifiers.set(organizationId, { classifier, until: Date.now() + CLASSIFIER_CACHE_MS });
    return classifier;
  };
  // The model that writes words (the strategist's proposals, the sequence's drafts): the organization's
  // `llm` integration, else LLM_*, else none (the template writers).
  const modelConfigFor = async (organizationId: string, tx?: Tx): Promise<ChatModelConfig | null> => {
    const llm = tx
      ? await usableIntegration(tx, organizationId, 'llm')
      : await asOrganization(deps.db, organizationId, (t) => usableIntegration(t, organizationId, 'llm'));
    if (llm?.secret_ciphertext && secrets) {
      const config = llm.config as Record<string, unknown>;
      return {
        baseUrl: String(config.baseUrl),
        model: String(config.model),
        apiKey: secrets.open(llm.secret_ciphertext, secretContext(llm.organization_id, llm.id)),
      };
    }
    return deps.config.LLM_BASE_URL && deps.config.LLM_MODEL
      ? { baseUrl: deps.config.LLM_BASE_URL, model: deps.config.LLM_MODEL, apiKey: deps.config.LLM_API_KEY }
      : null;
  };
  const writerFor = async (organizationId: string): Promise<ProposalWriter | null> => {
    const config = await modelConfigFor(organizationId);
    return config ? new OpenAiCompatibleStrategistWriter(config) : null;
  };
  const tokenKey = unsubscribeTokenKey(deps.config);
  // One token source per worker process for SMTP and IMAP alike: an access token is cached per mailbox, refreshed under the mailbox's lock.
  const oauthTokens = secrets ? new OAuthTokenSource(oauthClientsFrom(deps.config), dbRefreshTokenStore(deps.db, secrets)) : null;
  return {
    ...createSequenceActivities({
      db: deps.db,
      draftWriterFor: async (organizationId, tx) => {
        const config = await modelConfigFor(organizationId, tx);
        return config ? new OpenAiCompatibleDraftWriter(config) : null;
      },
    }),
    ...createSendActivities({
      db: deps.db,
      sender: deps.mailSender ?? new NodemailerSmtpSender(),
      secrets,
      tokens: tokenKey ? new UnsubscribeTokens(tokenKey) : null,
      publicBaseUrl: deps.publicBaseUrl,
      oauthTokens,
      graceSeconds: deps.config.SEND_SLOT_GRACE_SECONDS,
      dns: dnsResolverFrom(deps.config),
    }),
    ...createEnrichmentActivities({
      db: deps.db,
      limits,
      secrets,
      batchPollMs: deps.config.ENRICHMENT_BATCH_POLL_SECONDS ? deps.config.ENRICHMENT_BATCH_POLL_SECONDS * 1000 : undefined,
    }),
    ...createVerificationActivities({ db: deps.db, secrets, dns: dnsResolverFrom(deps.config), probe: smtpProbeFrom(deps.config) }),
    ...createRetentionActivities({ db: deps.db }),
    ...createImportActivities({ db: deps.db }),
    ...createMailboxHealthActivities({ db: deps.db, dns: dnsResolverFrom(deps.config) }),
    ...createReconcileActivities({ db: deps.db }),
    ...createSignalStageActivities({ db: deps.db, classifierFor }),
    ...createStrategistActivities({ db: deps.db, writerFor }),
    ...createMeetingActivities({ db: deps.db, secrets, salesforce: salesforceAppFrom(deps.config) }),
    ...createCrmOutcomeActivities({ db: deps.db, secrets, salesforce: salesforceAppFrom(deps.config) }),
    ...createWebhookActivities({ db: deps.db, secrets }),
    ...createReplyActivities({ db: deps.db, secrets, config: deps.config, reader: new ImapInboxReader(), oauthTokens }),
    ...createIngestActivities({
      db: deps.db,
      providers: createSourceProviders({ secrets }),
      limits,
      batchSize: deps.config.SIGNAL_BATCH_SIZE,
      projectWindowMs: deps.config.PROJECT_LINK_WINDOW_DAYS * 24 * 3600 * 1000,
    }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
