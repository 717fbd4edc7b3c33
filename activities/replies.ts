import { ApplicationFailure, log } from '@temporalio/activity';
import type { Config } from '../apps/shared/config';
import type { DB } from '../db/pool';
import { getInboxState, mailboxInbox, saveInboxState, setMailboxError } from '../db/queries/inbox-state';
import { keepUnprocessed } from '../db/queries/inbound';
import { usableIntegration } from '../db/queries/integrations';
import { mailboxSecretContext, secretContext, type SecretBox } from '../db/secrets';
import { asOrganization } from '../db/tenancy';
import { RulesReplyClassifier, type ReplyClassifier } from '../domain/replies/classify';
import { OpenAiCompatibleReplyClassifier } from './providers/classification/reply-openai-compatible';
import { ingestInbound, retryUnprocessed, type Transact } from './inbound/ingest-message';
import { sharedParsePool } from './inbound/parse-pool';
import { ImapAuthError, ImapConnectError, type ImapSettings, type InboxReader } from './providers/mail/imap';
import { OAuthGrantRevoked, OAuthUnavailable, type OAuthTokenSource } from './providers/mail/oauth';
import type { OAuthProviderKey } from './providers/mail/oauth-providers';
import { NotRfc822Error } from './providers/mail/parse';

/**
 * Inbound mail activities: one raw message ingested (the same code as POST /mailboxes/{id}/inbound),
 * and one read of a mailbox's IMAP inbox. The reply classifier is the organization's `llm`
 * integration, else the deployment's LLM_*, else the rules.
 */
export interface ReplyActivityDeps {
  db: DB;
  secrets: SecretBox | null;
  config: Pick<Config, 'LLM_BASE_URL' | 'LLM_MODEL' | 'LLM_API_KEY' | 'IMAP_TIMEOUT_MS'>;
  reader: InboxReader;
  /** Access tokens of OAuth mailboxes (oauth.ts); null when the worker cannot open secrets. */
  oauthTokens?: OAuthTokenSource | null;
}

/** The organization's reply classifier: its `llm` integration, else LLM_*, else the rules. */
export function replyClassifierLookup(
  db: DB,
  secrets: SecretBox | null,
  config: Pick<Config, 'LLM_BASE_URL' | 'LLM_MODEL' | 'LLM_API_KEY'>,
  transactFor = (organizationId: string): Transact =>
    (fn) =>
      asOrganization(db, organizationId, fn),
) {
  const fallback: ReplyClassifier =
    config.LLM_BASE_URL && config.LLM_MODEL
      ? new OpenAiCompatibleReplyClassifier({ baseUrl: config.LLM_BASE_URL, model: config.LLM_MODEL, apiKey: config.LLM_API_KEY })
      : new RulesReplyClassifier();
  return async (organizationId: string): Promise<ReplyClassifier> => {
    const llm = await transactFor(organizationId)((tx) => usableIntegration(tx, organizationId, 'llm'));
    if (!llm?.secret_ciphertext || !secrets) return fallback;
    const c = llm.config as Record<string, unknown>;
    return new OpenAiCompatibleReplyClassifier({
      baseUrl: String(c.baseUrl),
      model: String(c.model),
      apiKey: secrets.open(llm.secret_ciphertext, secretContext(llm.organization_id, llm.id)),
    });
  };
}

/** The activity's logger when running as an activity (tests call the functions directly). */
function warn(message: string, attrs: Record<string, unknown>): void {
  try {
    log.warn(message, attrs);
  } catch {
    // not in an activity context
  }
}

export interface PollResult {
  /** Messages read from the server this time. */
  read: number;
  stored: number;
  duplicates: number;
  /** Enrollments stopped or paused by what was read: the workflow wakes their sequences. */
  changedEnrollmentIds: string[];
  /** More messages wait (the batch was full): the workflow reads again. */
  more: boolean;
  /** Messages kept unprocessed this time (their error is the mailbox's last_error); the next poll retries them. */
  unprocessed: number;
  /** Earlier unprocessed messages processed now. */
  reprocessed: number;
  /** Why the inbox could not be read (also stored as the mailbox's last_error); null when it could. */
  error: string | null;
}

export function createReplyActivities(deps: ReplyActivityDeps) {
  const classifierFor = replyClassifierLookup(deps.db, deps.secrets, deps.config);
  sharedParsePool().warm();
  const transact =
    (organizationId: string): Transact =>
    (fn) =>
      asOrganization(deps.db, organizationId, fn);

  async function ingestInboundMessage(input: { organizationId: string; mailboxId: string; rawBase64: string; receivedAt?: string }) {
    try {
      const outcome = await ingestInbound(transact(input.organizationId), await classifierFor(input.organizationId), {
        organizationId: input.organizationId,
        mailboxId: input.mailboxId,
        raw: Buffer.from(input.rawBase64, 'base64'),
        receivedAt: input.receivedAt ? new Date(input.receivedAt) : undefined,
      });
      if (outcome.duplicate) return { duplicate: true, messageId: outcome.messageId, changedEnrollmentIds: [] };
      return {
        duplicate: false,
        messageId: outcome.messageId,
        changedEnrollmentIds: outcome.changedEnrollmentIds,
        ...('unprocessed' in outcome ? { unprocessed: true, error: outcome.error } : {}),
      };
    } catch (err) {
      if (err instanceof NotRfc822Error) throw ApplicationFailure.nonRetryable(err.message, 'NotRfc822');
      throw err;
    }
  }

  /**
   * Reads the messages after the stored UID (the first read, and one after a UIDVALIDITY change,
   * start at the end of the inbox: old mail is no reply), at most batchSize, stores each
   * (de-duplicated by Message-ID) and saves the UID after each one. A message that cannot be
   * processed is kept unprocessed (ingest-message.ts) and the position moves on past it; its error is
   * the mailbox's last_error, and this poll retries the earlier unprocessed ones. A refused login or
   * an unreachable server is written to the mailbox's last_error and answered, not thrown: the next
   * scheduled poll tries again, nothing loops hot.
   */
  async function pollMailboxInbox(input: { organizationId: string; mailboxId: string; batchSize?: number }): Promise<PollResult> {
    const result: PollResult = { read: 0, stored: 0, duplicates: 0, changedEnrollmentIds: [], more: false, error: null, unprocessed: 0, reprocessed: 0 };
    const run = transact(input.organizationId);
    const mailbox = await run((tx) => mailboxInbox(tx, input.mailboxId));
    const imap = mailbox?.imap_config as { host?: string; port?: number; secure?: boolean; username?: string | null } | null | undefined;
    if (!mailbox || !imap?.host || !imap.port) return { ...result, error: 'the mailbox has no IMAP server' };
    if (!deps.secrets || !mailbox.secret_ciphertext) {
      const error = 'the IMAP password cannot be opened: INTEGRATION_SECRET_KEY is not configured';
      await run((tx) => setMailboxError(tx, input.mailboxId, error));
      return { ...result, error };
    }
    // An OAuth mailbox's secret is its refresh token: it logs in with SASL XOAUTH2 and an access token instead.
    const oauth =
      mailbox.auth_type === 'oauth2'
        ? { organizationId: mailbox.organization_id, mailboxId: mailbox.id, provider: mailbox.auth_provider as OAuthProviderKey }
        : null;
    const password = oauth ? '' : deps.secrets.open(mailbox.secret_ciphertext, mailboxSecretContext(mailbox.organization_id, mailbox.id));
    const settings: ImapSettings = {
      host: imap.host,
      port: imap.port,
      secure: imap.secure ?? imap.port === 993,
      username: imap.username ?? mailbox.address,
      password,
      timeoutMs: deps.config.IMAP_TIMEOUT_MS,
    };
    const accessToken = (force: boolean) => {
      if (!deps.oauthTokens) throw new OAuthUnavailable('OAuth mailboxes cannot be read by this worker: INTEGRATION_SECRET_KEY is not configured');
      return deps.oauthTokens.accessToken(oauth!, { force });
    };
    const state = await run((tx) => getInboxState(tx, input.mailboxId));
    const read = async (s: ImapSettings) => deps.reader.readSince(s, state, input.batchSize ?? 50);
    let batch;
    try {
      if (!oauth) batch = await read(settings);
      else {
        try {
          batch = await read({ ...settings, accessToken: await accessToken(false) });
        } catch (err) {
          // The server refused a token the cache still held (expired or revoked early): one fresh token, one more try.
          if (!(err instanceof ImapAuthError)) throw err;
          deps.oauthTokens?.forget(oauth.mailboxId);
          batch = await read({ ...settings, accessToken: await accessToken(true) });
        }
      }
    } catch (err) {
      // A dead grant has paused the mailbox (`auth`) in the token source; its reason is the mailbox's last_error too.
      if (!(err instanceof ImapAuthError || err instanceof ImapConnectError || err instanceof OAuthGrantRevoked || err instanceof OAuthUnavailable)) throw err;
      await run((tx) => setMailboxError(tx, input.mailboxId, err.message));
      return { ...result, error: err.message };
    }
    const classifier = await classifierFor(input.organizationId);
    const changed = new Set<string>();
    let lastError: string | null = null;
    // The messages earlier polls kept unprocessed first (not the ones this poll keeps: they wait for the next).
    const retried = await retryUnprocessed(run, classifier, { organizationId: input.organizationId, mailboxId: input.mailboxId, limit: 3 });
    result.reprocessed = retried.processed;
    retried.changedEnrollmentIds.forEach((id) => changed.add(id));
    for (const msg of batch.messages) {
      result.read++;
      try {
        const outcome = await ingestInbound(run, classifier, {
          organizationId: input.organizationId,
          mailboxId: input.mailboxId,
          raw: msg.raw,
          receivedAt: msg.internalDate ?? undefined,
        });
        if (outcome.duplicate) result.duplicates++;
        else if ('unprocessed' in outcome) {
          result.unprocessed++;
          lastError = `message UID ${msg.uid} could not be processed (kept unprocessed, retried by the next poll): ${outcome.error}`.slice(0, 1000);
          warn('kept an inbox message unprocessed', { mailboxId: input.mailboxId, uid: msg.uid, error: outcome.error });
        } else {
          result.stored++;
          outcome.changedEnrollmentIds.forEach((id) => changed.add(id));
        }
      } catch (err) {
        // A message that is not RFC 822 is kept with its error, never retried (it never will be one); the database being away is retried from this UID.
        if (!(err instanceof NotRfc822Error)) throw err;
        await run((tx) =>
          keepUnprocessed(tx, {
            organizationId: input.organizationId,
            mailboxId: input.mailboxId,
            raw: msg.raw,
            receivedAt: msg.internalDate ?? new Date(),
            error: err.message,
            retry: false,
          }),
        );
        result.unprocessed++;
        lastError = `message UID ${msg.uid} is not an e-mail (kept with its error): ${err.message}`.slice(0, 1000);
        warn('kept an inbox message that is not RFC 822', { mailboxId: input.mailboxId, uid: msg.uid });
      }
      await run((tx) =>
        saveInboxState(tx, { organizationId: input.organizationId, mailboxId: input.mailboxId, uidValidity: batch.uidValidity, lastUid: msg.uid }),
      );
    }
    if (!batch.messages.length)
      await run((tx) =>
        saveInboxState(tx, { organizationId: input.organizationId, mailboxId: input.mailboxId, uidValidity: batch.uidValidity, lastUid: batch.startUid - 1 }),
      );
    await run((tx) => setMailboxError(tx, input.mailboxId, lastError));
    return { ...result, changedEnrollmentIds: [...changed], more: batch.more };
  }

  return { ingestInboundMessage, pollMailboxInbox };
}
