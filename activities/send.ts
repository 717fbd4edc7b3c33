import type { DB } from '../db/pool';
import { mailboxSecretContext, type SecretBox } from '../db/secrets';
import { asOrganization, type Tx } from '../db/tenancy';
import { complianceGate } from '../db/queries/compliance/gate';
import { complianceSettings } from '../db/queries/compliance/settings';
import { addressSuppressed } from '../db/queries/compliance/suppressions';
import { stopContactEnrollments } from '../db/queries/enrollments';
import { emailedBefore } from '../db/queries/sequence';
import {
  claimSend,
  ClaimLostError,
  holdSend,
  markHandover,
  recordSendFailure,
  recordSent,
  releaseClaim,
  scheduleMessage,
  sendContent,
  sendRecipient,
  skipBlocked,
} from '../db/queries/sending';
import { addressDomain, organizationalDomain, providerByDomain, receivingProvider, utcDay, type ReceivingProvider } from '../domain/sending/bulk-senders';
import { composeEmail, IncompleteComplianceSettings, type ComposedEmail } from '../domain/outreach/compose';
import { contactChannels } from '../domain/outreach/enrollments';
import { noticeSource } from '../domain/outreach/notice';
import { unsubscribeUrl, type UnsubscribeTokens } from '../domain/outreach/unsubscribe-token';
import { OAuthGrantRevoked, OAuthUnavailable, type MailboxCredentialRef, type OAuthTokenSource } from './providers/mail/oauth';
import type { OAuthProviderKey } from './providers/mail/oauth-providers';
import { loginRefused, mailboxSetupFailure, SmtpAmbiguousError, SmtpPermanentError } from './providers/mail/smtp';
import type { MailSender, SmtpSettings } from './providers/mail/types';
import { mxRecords, type DnsResolver } from './providers/dns/resolver';

/**
 * Sending one approved message (workflows/send-message.ts): book its slot (scheduleSend), then at
 * the slot send it at most once (sendMessage). The compliance gate runs again in the transaction
 * that claims the send, so a suppression added a second before still stops it; the claim is
 * committed before the SMTP conversation, so a retry after a crash flags the message instead of
 * sending it twice.
 */
export interface SendDeps {
  db: DB;
  sender: MailSender;
  secrets: SecretBox | null;
  tokens: UnsubscribeTokens | null;
  publicBaseUrl: string;
  /** Access tokens of OAuth mailboxes (oauth.ts); null when the worker cannot open secrets (INTEGRATION_SECRET_KEY). */
  oauthTokens?: OAuthTokenSource | null;
  /** How far from its slot a send may still go (SEND_SLOT_GRACE_SECONDS; default 300). */
  graceSeconds?: number;
  /** The clock the booking and the claim read (tests pass a late or early one). */
  now?: () => Date;
  /** MX lookups of recipient domains, for the bulk-sender counts (DNS_SERVERS); none: every recipient not known by name is `other`. */
  dns?: DnsResolver | null;
}

/** What a send counts under (the bulk-sender rules): the sender's organizational domain and the recipient's provider. */
export interface BulkSenderKey {
  orgDomain: string;
  provider: ReceivingProvider;
}

export interface MessageRef {
  organizationId: string;
  messageId: string;
}

export type SendOutcome =
  | { status: 'sent'; providerMessageId: string }
  | { status: 'failed'; error: string; hardBounce?: boolean; flagged?: boolean; stoppedEnrollmentIds: string[] }
  /** requeue: the slot was given back; hold: something (the mailbox, the settings, the enrollment) holds it, wait before booking again. */
  | { status: string; requeue?: boolean; hold?: boolean; reason?: string; stoppedEnrollmentIds?: string[] };

type Prepared =
  | { go: false; outcome: SendOutcome }
  | { go: true; composed: ComposedEmail; smtp: SmtpSettings; contactId: string | null; mailboxId: string; claimedAt: Date; oauth: MailboxCredentialRef | null };

export function createSendActivities(deps: SendDeps) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());
  const inOrg = <T>(ref: { organizationId: string }, fn: (tx: Tx) => Promise<T>) => asOrganization(db, ref.organizationId, fn);

  /** Claims the send, asks the gate, composes the e-mail; everything in one transaction, committed before SMTP. */
  async function prepare(r: MessageRef, bulk: BulkSenderKey | null): Promise<Prepared> {
    return inOrg(r, async (tx) => {
      const claim = await claimSend(tx, r.messageId, { now: now(), graceSeconds: deps.graceSeconds, bulk });
      if (!claim.go) {
        const { go: _go, ...outcome } = claim;
        return { go: false, outcome: outcome as SendOutcome };
      }
      const m = claim.message;
      const gate = m.contactId ? await complianceGate(tx, m.contactId) : undefined;
      const contact = m.contactId ? await sendRecipient(tx, m.contactId) : undefined;
      const route = gate && contact ? contactChannels(gate, contact, { generic_email: contact.generic_email, phone: contact.company_phone }).email : null;
      // A sequence step goes where the channel policy routes it; a reply or meeting-reminder draft answers
      // someone who wrote or booked, to their own address, unless it (or its domain, or the contact) is suppressed or erased.
      const allowedAddress = m.sequenceStep
        ? route === 'personal'
          ? contact?.email
          : route === 'generic'
            ? contact?.generic_email
            : null
        : !m.toAddress || (await addressSuppressed(tx, r.organizationId, m.toAddress)) || gate?.reasons.some((x) => x === 'erased' || x === 'suppressed')
          ? null
          : m.toAddress;
      if ((m.sequenceStep && (!gate || !contact)) || !allowedAddress || allowedAddress.toLowerCase() !== (m.toAddress ?? '').toLowerCase()) {
        const reason = `compliance gate at send time: ${gate?.reasons.join(', ') || 'the address may no longer be e-mailed'}`;
        await skipBlocked(tx, m.id, reason);
        const stopped = m.contactId && gate && !gate.contactable ? await stopContactEnrollments(tx, m.contactId, reason) : [];
        return { go: false, outcome: { status: 'skipped', stoppedEnrollmentIds: stopped } };
      }
      const { message, mailbox } = await sendContent(tx, m.id, m.mailboxId);
      const settings = await complianceSettings(tx, r.organizationId);
      if (!deps.tokens) throw new SendSetupError('unsubscribe links are not configured on the worker (UNSUBSCRIBE_TOKEN_KEY or INTEGRATION_SECRET_KEY)');
      const smtpConfig = mailbox.smtp_config as { host: string; port: number; secure?: boolean; username?: string | null };
      // An OAuth mailbox's secret is its refresh token: it logs in with an access token fetched after the claim, as its username or address.
      const oauth =
        mailbox.auth_type === 'oauth2'
          ? { organizationId: r.organizationId, mailboxId: m.mailboxId, provider: mailbox.auth_provider as OAuthProviderKey }
          : null;
      const username = smtpConfig.username ?? (oauth ? mailbox.address : null);
      const password =
        !oauth && smtpConfig.username && mailbox.secret_ciphertext && deps.secrets
          ? deps.secrets.open(mailbox.secret_ciphertext, mailboxSecretContext(r.organizationId, m.mailboxId))
          : null;
      const composed = composeEmail({
        messageId: m.id,
        subject: message.subject ?? '',
        body: message.body ?? '',
        from: { address: mailbox.address, displayName: mailbox.display_name },
        to: { address: allowedAddress, name: route === 'generic' && m.sequenceStep ? contact?.company_name : (contact?.full_name ?? null) },
        locale: contact?.locale ?? settings?.default_locale ?? 'nl-NL',
        firstToPerson: !(await emailedBefore(tx, m.contactId, allowedAddress, m.id)),
        lawfulBasis: gate?.lawful_basis?.basis ?? 'legitimate_interest',
        compliance: {
          sender_legal_name: settings?.sender_legal_name ?? null,
          sender_address: settings?.sender_address ?? null,
          privacy_url: settings?.privacy_url ?? null,
          unsubscribe_mailto: settings?.unsubscribe_mailto ?? null,
          retention_months: settings?.retention_months ?? 24,
          ai_disclosure: settings?.ai_disclosure ?? 'footer',
        },
        aiWritten: message.model !== null,
        source: noticeSource(
          contact
            ? {
                dataSource: contact.data_source,
                addressFoundBy: contact.address_found_by,
                description: contact.source_description,
                companyName: contact.company_name,
                companyDomain: contact.company_domain,
              }
            : null,
        ),
        unsubscribeUrl: unsubscribeUrl(deps.publicBaseUrl, deps.tokens.sign(m.id)),
        messageIdDomain: mailbox.domain,
        threading: { inReplyTo: message.in_reply_to, references: message.references_ids },
      });
      return {
        go: true,
        composed,
        mailboxId: m.mailboxId,
        contactId: m.contactId,
        claimedAt: m.claimedAt,
        oauth,
        smtp: { host: smtpConfig.host, port: smtpConfig.port, secure: smtpConfig.secure ?? false, username, password },
      };
    });
  }

  /**
   * The send's bulk-sender key, before its claim (the MX lookup is I/O, kept out of the claim's
   * transaction): the message's sender and recipient as they stand; null when it has neither.
   */
  async function bulkSenderKey(r: MessageRef): Promise<BulkSenderKey | null> {
    const m = await inOrg(r, (tx) =>
      tx
        .selectFrom('messages')
        .innerJoin('mailboxes', (j) => j.onRef('mailboxes.organization_id', '=', 'messages.organization_id').onRef('mailboxes.id', '=', 'messages.mailbox_id'))
        .select(['messages.to_address', 'mailboxes.address'])
        .where('messages.id', '=', r.messageId)
        .executeTakeFirst(),
    );
    if (!m?.to_address) return null;
    const domain = addressDomain(m.to_address);
    // A consumer domain known by name needs no MX lookup (gmail.com is most of a list).
    return { orgDomain: organizationalDomain(m.address), provider: providerByDomain(domain) ?? receivingProvider(domain, await mxHosts(domain)) };
  }

  /** The recipient domain's MX hosts; null when they cannot be read (the recipient then counts as `other`). */
  async function mxHosts(domain: string): Promise<string[] | null> {
    if (!deps.dns) return null;
    try {
      return (await mxRecords(deps.dns, domain)).map((x) => x.exchange);
    } catch {
      return null;
    }
  }

  /** An OAuth mailbox's access token (cached by the token source; `force` after the server refused one). */
  async function accessToken(ref: MailboxCredentialRef, force = false): Promise<string> {
    if (!deps.oauthTokens) throw new OAuthUnavailable('OAuth mailboxes cannot send from this worker: INTEGRATION_SECRET_KEY is not configured');
    return deps.oauthTokens.accessToken(ref, { force });
  }

  return {
    /** Books the approved message's send slot (or says what holds it, or that it is past sending). */
    async scheduleSend(
      r: MessageRef,
    ): Promise<
      | { state: 'scheduled'; slotAtMs: number; windowEndsAtMs: number }
      | { state: 'held'; reason: string }
      | { state: 'unchecked'; mailboxId: string }
      | { state: 'final'; status: string }
    > {
      // The recipient's provider only: the booking may still choose the pool's mailbox, whose domain it reads itself.
      const provider = (await bulkSenderKey(r))?.provider ?? null;
      const out = await inOrg(r, (tx) => scheduleMessage(tx, { ...r, now: now(), graceSeconds: deps.graceSeconds, provider }));
      return out.state === 'scheduled' ? { state: 'scheduled', slotAtMs: out.slotAt.getTime(), windowEndsAtMs: out.windowEndsAt.getTime() } : out;
    },

    /**
     * Sends the scheduled message once. A message already sent, skipped or flagged answers its status;
     * a 5xx fails it (a refused recipient is a hard bounce: suppressed, sequences stopped); a 4xx or a
     * connection that failed before the message was handed over is thrown to be retried; no reply after
     * the hand-over fails it flagged for checking (it may have been delivered).
     */
    async sendMessage(r: MessageRef): Promise<SendOutcome> {
      let prepared: Prepared;
      const bulk = await bulkSenderKey(r);
      try {
        prepared = await prepare(r, bulk);
      } catch (err) {
        // Setup errors are no recipient's fault: the message waits (approved, its slot given back) until they are mended.
        if (!(err instanceof IncompleteComplianceSettings) && !(err instanceof SendSetupError)) throw err;
        const reason = err.message;
        // No claim of this attempt was committed (prepare's transaction rolled back): held only while no send was handed over.
        await inOrg(r, (tx) => holdSend(tx, r.messageId, { reason, claimedAt: null }));
        return { status: 'approved', requeue: true, hold: true, reason };
      }
      if (!prepared.go) return prepared.outcome;
      const { composed, smtp, contactId, oauth } = prepared;
      // The hand-over is recorded under this attempt's claim right before DATA: a later attempt that finds
      // the claim without it knows nothing reached the server and sends; with it, delivery is unknown.
      const claimedAt = prepared.claimedAt;
      const deliver = (settings: SmtpSettings) =>
        deps.sender.send(composed, settings, { beforeHandover: () => inOrg(r, (tx) => markHandover(tx, r.messageId, claimedAt)) });
      let result: Awaited<ReturnType<MailSender['send']>>;
      try {
        if (!oauth) result = await deliver(smtp);
        else {
          try {
            result = await deliver({ ...smtp, accessToken: await accessToken(oauth) });
          } catch (err) {
            // The server refused a token the cache still held (expired or revoked early): nothing was handed
            // over; one fresh token, one more try under the same claim.
            if (!loginRefused(err)) throw err;
            deps.oauthTokens?.forget(oauth.mailboxId);
            result = await deliver({ ...smtp, accessToken: await accessToken(oauth, true) });
          }
        }
      } catch (err) {
        // A later attempt took the claim over (this one was given up for dead): it sends, this one ends.
        if (err instanceof ClaimLostError) throw err;
        // No access token (a dead grant pauses the mailbox `auth` in the token source; the provider away, or no
        // OAuth client on the worker): nothing was handed over, the claim is released and the message waits with the reason.
        if (err instanceof OAuthGrantRevoked || err instanceof OAuthUnavailable) {
          const reason = err.message;
          await inOrg(r, (tx) => holdSend(tx, r.messageId, { reason, claimedAt }));
          return { status: 'approved', requeue: true, hold: true, reason };
        }
        // The mailbox's own setup (its password, a relay that refuses the sender, a host the policy refuses):
        // the mailbox is held with the reason, the message waits, nobody's enrollment fails.
        const setup = mailboxSetupFailure(err);
        if (setup) {
          await inOrg(r, (tx) => holdSend(tx, r.messageId, { reason: setup, mailboxId: prepared.go ? prepared.mailboxId : undefined, claimedAt }));
          return { status: 'approved', requeue: true, hold: true, reason: setup };
        }
        if (err instanceof SmtpPermanentError || err instanceof SmtpAmbiguousError) {
          const flagged = err instanceof SmtpAmbiguousError;
          const hardBounce = err instanceof SmtpPermanentError && err.hardBounce;
          const stopped = await inOrg(r, (tx) =>
            recordSendFailure(tx, {
              messageId: r.messageId,
              organizationId: r.organizationId,
              error: err.message,
              hardBounce,
              softBounceReason: err instanceof SmtpPermanentError ? err.reason : null,
              address: composed.to.address,
              contactId,
              flagged,
            }),
          );
          return { status: 'failed', error: err.message, hardBounce, flagged, stoppedEnrollmentIds: stopped };
        }
        // Transient (4xx, or nothing handed over): nothing was delivered; this attempt's claim is released and the activity retried.
        await inOrg(r, (tx) => releaseClaim(tx, r.messageId, err instanceof Error ? err.message : String(err), claimedAt));
        throw err;
      }
      // Outside the try: a failure to record a delivered message is retried, and the retry's claim
      // finds send_attempted_at set and flags the message; it is never released to be sent again.
      await recordDelivered(() =>
        inOrg(r, (tx) =>
          recordSent(tx, {
            messageId: r.messageId,
            providerMessageId: result.messageId,
            fromAddress: composed.from.address,
            toAddress: composed.to.address,
            volume: bulk && { ...bulk, day: utcDay(now()) },
          }),
        ),
      );
      return { status: 'sent', providerMessageId: result.messageId };
    },
  };
}

/**
 * The server took the message: recording it is tried again here for about a minute (a database that
 * restarts or fails over for a few seconds), before the activity's own retry, which could only flag it.
 */
async function recordDelivered(record: () => Promise<unknown>, delaysMs: readonly number[] = [250, 500, 1000, 2000, 4000, 8000, 15000, 30000]): Promise<void> {
  for (const delay of delaysMs) {
    try {
      await record();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, delay));
    }
  }
  await record();
}

/** A setup error of the worker (no unsubscribe token key): the message waits instead of failing. */
export class SendSetupError extends Error {
  override readonly name = 'SendSetupError';
}
