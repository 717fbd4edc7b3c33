/**
 * Whether a contact's e-mail address exists, as the checks that were run found it. Each check is
 * `pass`, `fail`, `unknown` (it ran and could not decide) or null (not run). The status is read from
 * the checks in one place, whichever verifier ran them, so that a built-in check and a provider's
 * answer mean the same thing to accept and to the API.
 */

export const EMAIL_STATUSES = ['unknown', 'valid', 'risky', 'invalid'] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];

export const CHECK_RESULTS = ['pass', 'fail', 'unknown'] as const;
export type CheckResult = (typeof CHECK_RESULTS)[number] | null;

export interface EmailCheck {
  /** The address is well formed with a registrable domain. */
  syntax: CheckResult;
  /** The domain accepts mail: an MX record, or an A record when it has none (RFC 5321 §5.1); a null MX fails. */
  mx: CheckResult;
  /** pass: not a disposable (throw-away) domain. */
  disposable: CheckResult;
  /** pass: a person's address, not a role one (info@, sales@). */
  role: CheckResult;
  /** pass: the domain refuses an address that cannot exist; fail: it accepts every address. */
  catch_all: CheckResult;
  /** The recipient's server at RCPT TO: pass accepted, fail refused the address, unknown could not tell. */
  smtp: CheckResult;
  /** Which verifier ran the checks: builtin, reacher, or a provider's key. */
  provider: string;
  /** A line for a person: the first thing that decided the status. */
  detail: string | null;
}

/** A check older than this is run again before the address is mailed by a new campaign. */
export const CHECK_MAX_AGE_DAYS = 90;

/**
 * The status the checks give. Invalid when the address cannot receive mail (bad syntax, no mail
 * host, a throw-away domain, a refusal from its server). Risky when it may exist but a bounce or no
 * reader is likely (a catch-all domain, a role address, a probe that could not decide). Unknown
 * while a check that decides validity has not answered (syntax or the mail host), or when the answer
 * was only "not now" (`temporary`: a greylisting server's 4xx, a mail host not reachable now): that
 * check is made again later. Valid otherwise: without a probe, an address passing the checks that
 * ran is as good as the checks can tell.
 */
export function emailStatus(
  c: Pick<EmailCheck, 'syntax' | 'mx' | 'disposable' | 'role' | 'catch_all' | 'smtp'>,
  opts: { temporary?: boolean } = {},
): EmailStatus {
  if (c.syntax === 'fail' || c.mx === 'fail' || c.disposable === 'fail' || c.smtp === 'fail') return 'invalid';
  if (c.syntax !== 'pass' || c.mx !== 'pass' || opts.temporary) return 'unknown';
  if (c.catch_all === 'fail' || c.role === 'fail' || c.smtp === 'unknown') return 'risky';
  return 'valid';
}

/** Whether a check made at `checkedAt` must be made again before `now` (never checked: yes). */
export function checkIsStale(checkedAt: Date | null, now: Date, maxAgeDays = CHECK_MAX_AGE_DAYS): boolean {
  return checkedAt === null || now.getTime() - checkedAt.getTime() > maxAgeDays * 86_400_000;
}

export type AddressSkipReason = 'invalid_email' | 'risky_email';

/** How long the first e-mail to an address not yet checked waits for its check, from the enrollment. */
export const UNCHECKED_ADDRESS_WAIT_MS = 10 * 60_000;

/**
 * The same rule again at the moment of sending (the address may have been checked, or checked again,
 * since the accept): skip an invalid or (not allowed) risky address; an address never checked waits
 * for its check at most UNCHECKED_ADDRESS_WAIT_MS from the enrollment, then goes. A check that ran
 * and could not decide (unknown, checked) goes: waiting longer would not decide it.
 */
export function sendTimeAddressVerdict(
  address: { status: EmailStatus; checked: boolean; allowRisky: boolean },
  enrolledAt: Date,
  now: Date,
): { go: true } | { go: false; skip: AddressSkipReason } | { go: false; waitMs: number } {
  const decision = acceptDecision(address.status, address.allowRisky);
  if (decision === 'invalid_email' || decision === 'risky_email') return { go: false, skip: decision };
  const waited = now.getTime() - enrolledAt.getTime();
  if (decision === 'wait' && !address.checked && waited < UNCHECKED_ADDRESS_WAIT_MS) return { go: false, waitMs: UNCHECKED_ADDRESS_WAIT_MS - waited };
  return { go: true };
}

/**
 * Whether accept enrolls a contact with this status: a skip reason, `wait` while the check has not
 * answered, or null to go. A campaign that allows risky addresses takes catch-all and role ones.
 */
export function acceptDecision(status: EmailStatus, allowRisky: boolean): AddressSkipReason | 'wait' | null {
  if (status === 'invalid') return 'invalid_email';
  if (status === 'risky') return allowRisky ? null : 'risky_email';
  if (status === 'unknown') return 'wait';
  return null;
}

/** Where the enrichment waterfall stops: at the first address whose check is at least this good. */
export const ENRICHMENT_STOP_AT = ['valid', 'risky'] as const;
export type EnrichmentStopAt = (typeof ENRICHMENT_STOP_AT)[number];

/** A checked address good enough to stop the waterfall: valid always, risky when the organization stops at risky. */
export function addressIsGoodEnough(status: EmailStatus | null, stopAt: EnrichmentStopAt): boolean {
  return status === 'valid' || (stopAt === 'risky' && status === 'risky');
}
