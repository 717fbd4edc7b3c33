import type { CheckResult, EmailCheck } from '../../../domain/contacts/email-verification';
import { ProviderRequestError, requestJson } from '../outcome';
import { VerifierUnavailableError, type EmailVerifier } from './types';

/**
 * A self-hosted Reacher (check-if-email-exists) backend: POST /v0/check_email `{to_email}` answers
 * `is_reachable` (safe, risky, invalid, unknown) with the checks it made: `syntax.is_valid_syntax`,
 * `mx.accepts_mail`, `misc.is_disposable` and `misc.is_role_account`, and the SMTP conversation's
 * `smtp.{can_connect_smtp, is_deliverable, is_catch_all, has_full_inbox, is_disabled}`. A check it
 * could not make comes back as `{type, message}` in place of its object. The backend's shared secret
 * travels in `x-reacher-secret`.
 */
interface ReacherAnswer {
  input: string;
  is_reachable: 'safe' | 'risky' | 'invalid' | 'unknown';
  syntax?: { is_valid_syntax?: boolean };
  mx?: { accepts_mail?: boolean } | { type: string; message: string };
  misc?: { is_disposable?: boolean; is_role_account?: boolean } | { type: string; message: string };
  smtp?:
    | { can_connect_smtp?: boolean; is_deliverable?: boolean; is_catch_all?: boolean; has_full_inbox?: boolean; is_disabled?: boolean }
    | { type: string; message: string };
}

/** true: pass, false: fail; the flags that name a defect (disposable, role, catch-all) are inverted by the caller. */
const bool = (v: boolean | undefined): CheckResult => (v === undefined ? null : v ? 'pass' : 'fail');
const isError = (v: object | undefined): v is { type: string; message: string } => !!v && 'type' in v && 'message' in v;
const not = (r: CheckResult): CheckResult => (r === 'pass' ? 'fail' : r === 'fail' ? 'pass' : r);

export function createReacherVerifier(opts: { baseUrl: string; secret?: string | null; timeoutMs?: number }): EmailVerifier {
  const url = `${opts.baseUrl.replace(/\/$/, '')}/v0/check_email`;
  const verifier: EmailVerifier = {
    provider: 'reacher',
    async verify(address: string): Promise<EmailCheck> {
      return (await verifier.check(address)).check;
    },
    async check(address: string) {
      let a: ReacherAnswer;
      try {
        a = await requestJson<ReacherAnswer>(url, {
          method: 'POST',
          body: { to_email: address },
          headers: opts.secret ? { 'x-reacher-secret': opts.secret } : {},
          // An SMTP conversation with a slow server (greylisting, tarpits) takes Reacher up to a minute.
          timeoutMs: opts.timeoutMs ?? 90_000,
          errorMessage: (body, status) => (typeof body?.error === 'string' ? `Reacher ${status}: ${body.error}` : undefined),
        });
      } catch (err) {
        if (err instanceof ProviderRequestError) throw new VerifierUnavailableError(err.message, err.retryable);
        throw err;
      }
      if (!a || typeof a.is_reachable !== 'string') throw new VerifierUnavailableError('Reacher answered without is_reachable', false);
      return { check: fromReacher(a), temporary: reacherTemporary(a) };
    },
  };
  return verifier;
}

/** Reacher's answer as the service's checks; its own verdict decides what the checks cannot. */
export function fromReacher(a: ReacherAnswer): EmailCheck {
  const syntax = bool(a.syntax?.is_valid_syntax);
  const mx = isError(a.mx) ? 'unknown' : bool(a.mx?.accepts_mail);
  const misc = isError(a.misc) ? undefined : a.misc;
  const smtpAnswer = isError(a.smtp) ? undefined : a.smtp;
  let smtp: CheckResult = isError(a.smtp) ? 'unknown' : null;
  if (smtpAnswer) {
    if (smtpAnswer.can_connect_smtp === false) smtp = 'unknown';
    else if (smtpAnswer.is_disabled || smtpAnswer.is_deliverable === false) smtp = 'fail';
    else if (smtpAnswer.is_deliverable) smtp = 'pass';
  }
  const check: EmailCheck = {
    syntax,
    mx,
    disposable: not(bool(misc?.is_disposable)),
    role: not(bool(misc?.is_role_account)),
    catch_all: smtpAnswer ? not(bool(smtpAnswer.is_catch_all)) : null,
    smtp,
    provider: 'reacher',
    detail: `Reacher: ${a.is_reachable}${smtpAnswer?.has_full_inbox ? ' (the mailbox is full)' : ''}${isError(a.smtp) ? ` (SMTP: ${a.smtp.message.slice(0, 200)})` : ''}`,
  };
  // A full inbox exists but will bounce for now: Reacher calls it risky, and so do the checks.
  if (smtpAnswer?.has_full_inbox && check.smtp === 'pass') check.smtp = 'unknown';
  return check;
}

/** Reacher could not finish the SMTP conversation because the server said "later" (a 4xx: greylisting). */
export function reacherTemporary(a: ReacherAnswer): boolean {
  return isError(a.smtp) && /(^|\D)4\d\d(\D|$)|greylist/i.test(a.smtp.message);
}
