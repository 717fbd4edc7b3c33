import { ApplicationFailure } from '@temporalio/activity';
import type { DB } from '../db/pool';
import { secretContext, type SecretBox } from '../db/secrets';
import { usableIntegration } from '../db/queries/integrations';
import { contactsToVerify, recordEmailCheck } from '../db/queries/contact-verification';
import { asOrganization } from '../db/tenancy';
import { emailStatus, type EmailStatus } from '../domain/contacts/email-verification';
import type { DnsResolver } from './providers/dns/resolver';
import { verifierFrom } from './providers/registry';
import { createBuiltinVerifier } from './providers/verification/builtin';
import type { SmtpProbe } from './providers/verification/smtp-probe';
import { VerifierUnavailableError, type EmailVerifier, type VerifierAnswer } from './providers/verification/types';

export interface VerificationDeps {
  db: DB;
  secrets: SecretBox | null;
  dns: DnsResolver;
  /** The built-in checks' SMTP probe (VERIFY_SMTP_PROBE); null: none. */
  probe?: SmtpProbe | null;
}

export interface VerifyContactResult {
  contactId: string;
  /** null: nothing to check (no address, or the contact is erased), or the address changed while it was checked. */
  status: EmailStatus | null;
  provider: string | null;
  /** The answer was "not now" (greylisting, a mail host not reachable now): stored as unknown, to be checked again later. */
  deferred: boolean;
}

/**
 * Address verification: one contact's address checked by the organization's verifier (its
 * integration of kind `verification`, else the built-in checks) and the result stored only if the
 * address is still the one checked; and the contacts a run goes through, a page at a time.
 */
export function createVerificationActivities(deps: VerificationDeps) {
  const builtin = createBuiltinVerifier({ dns: deps.dns, probe: deps.probe ?? undefined });

  async function verifierFor(organizationId: string): Promise<EmailVerifier> {
    const integration = await asOrganization(deps.db, organizationId, (tx) => usableIntegration(tx, organizationId, 'verification'));
    if (!integration) return builtin;
    if (!deps.secrets && integration.secret_ciphertext)
      throw ApplicationFailure.nonRetryable('the verification integration cannot be used: INTEGRATION_SECRET_KEY is not configured', 'VerifierUnavailable');
    const secret = integration.secret_ciphertext
      ? deps.secrets!.open(integration.secret_ciphertext, secretContext(integration.organization_id, integration.id))
      : '';
    return verifierFrom(integration.provider_key, integration.config as Record<string, unknown>, secret);
  }

  return {
    async verifyContactEmail(ref: { organizationId: string; contactId: string }): Promise<VerifyContactResult> {
      const contact = await asOrganization(deps.db, ref.organizationId, (tx) =>
        tx.selectFrom('contacts').select(['email', 'erased_at']).where('id', '=', ref.contactId).executeTakeFirst(),
      );
      if (!contact?.email || contact.erased_at) return { contactId: ref.contactId, status: null, provider: null, deferred: false };
      const startedAt = new Date();
      let answer: VerifierAnswer;
      try {
        const verifier = await verifierFor(ref.organizationId);
        answer = await verifier.check(contact.email);
      } catch (err) {
        if (err instanceof VerifierUnavailableError && !err.retryable) throw ApplicationFailure.nonRetryable(err.message, 'VerifierUnavailable');
        throw err;
      }
      // A greylisting server answers a stranger later: unknown now, and the run checks it again later.
      const check = answer.check;
      const status = emailStatus(check, { temporary: answer.temporary });
      const stored = await asOrganization(deps.db, ref.organizationId, (tx) => recordEmailCheck(tx, ref.contactId, contact.email!, startedAt, status, check));
      return { contactId: ref.contactId, status: stored ? status : null, provider: check.provider, deferred: stored && answer.temporary };
    },

    /** The next page of a run's contacts with an address, in id order after `after`. */
    async contactsToVerify(f: {
      organizationId: string;
      companyId?: string;
      status?: EmailStatus;
      uncheckedOnly?: boolean;
      after?: string;
      limit: number;
    }): Promise<string[]> {
      return asOrganization(deps.db, f.organizationId, (tx) => contactsToVerify(tx, f));
    },
  };
}

export type VerificationActivities = ReturnType<typeof createVerificationActivities>;
