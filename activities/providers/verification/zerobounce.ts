import type { CheckResult, EmailCheck } from '../../../domain/contacts/email-verification';
import { ProviderRequestError, requestJson } from '../outcome';
import { VerifierUnavailableError, type EmailVerifier } from './types';

/**
 * ZeroBounce's real-time validation (API v2). `GET /v2/validate?api_key=&email=&ip_address=` (the IP
 * may be blank but the parameter is required) answers one address: `status` (valid, invalid,
 * catch-all, unknown, spamtrap, abuse, do_not_mail), a `sub_status` naming the reason (empty when
 * there is none), `mx_found` as the string "true" or "false", and what ZeroBounce knows of the
 * owner (free_email, did_you_mean, smtp_provider, names, processed_at…). A refused key or an account
 * without credits is not an HTTP error: the answer is 200 with `{error}` and no status.
 * `GET /v2/getcredits?api_key=` answers `{Credits}` (a string or a number), -1 for a key it does not
 * know. Regional hosts (api-eu, api-us) answer the same paths.
 */
export const ZEROBOUNCE_DEFAULT_BASE_URL = 'https://api.zerobounce.net';

export const ZEROBOUNCE_STATUSES = ['valid', 'invalid', 'catch-all', 'unknown', 'spamtrap', 'abuse', 'do_not_mail'] as const;
export type ZeroBounceStatus = (typeof ZEROBOUNCE_STATUSES)[number];

export interface ZeroBounceAnswer {
  address: string;
  status: ZeroBounceStatus;
  sub_status: string;
  free_email?: boolean;
  did_you_mean?: string | null;
  account?: string | null;
  domain?: string | null;
  domain_age_days?: string | null;
  smtp_provider?: string | null;
  mx_found?: string | boolean | null;
  mx_record?: string | null;
  processed_at?: string;
}

export interface ZeroBounceVerifier extends EmailVerifier {
  /** The account's credit balance: the credential check (-1 is ZeroBounce's answer for a key it does not know). */
  credits(): Promise<number>;
}

/** ZeroBounce states that real-time answers take up to 30 seconds (a slow or greylisting server ends as unknown). */
const VALIDATE_TIMEOUT_MS = 45_000;

export function createZeroBounceVerifier(opts: { apiKey: string; baseUrl?: string | null; timeoutMs?: number }): ZeroBounceVerifier {
  const root = `${(opts.baseUrl || ZEROBOUNCE_DEFAULT_BASE_URL).replace(/\/$/, '')}/v2`;
  const errorMessage = (body: { error?: unknown } | undefined, status: number) =>
    typeof body?.error === 'string' ? `ZeroBounce ${status}: ${body.error}` : undefined;

  async function get<T>(path: string, params: Record<string, string>, timeoutMs: number): Promise<T> {
    const url = `${root}/${path}?${new URLSearchParams({ api_key: opts.apiKey, ...params })}`;
    let body: T | { error?: unknown } | undefined;
    try {
      body = await requestJson<T | { error?: unknown }>(url, { timeoutMs, errorMessage });
    } catch (err) {
      // The key travels in the query: a message that quotes the URL must not carry it on.
      if (err instanceof ProviderRequestError)
        throw new VerifierUnavailableError(opts.apiKey ? err.message.split(opts.apiKey).join('[api key]') : err.message, err.retryable);
      throw err;
    }
    // The key refused or the credits spent: nothing a retry changes until a person acts.
    if (body && typeof body === 'object' && 'error' in body && typeof body.error === 'string')
      throw new VerifierUnavailableError(`ZeroBounce: ${body.error}`, false);
    return body as T;
  }

  const verifier: ZeroBounceVerifier = {
    provider: 'zerobounce',
    async verify(address: string): Promise<EmailCheck> {
      return (await verifier.check(address)).check;
    },
    async check(address: string) {
      const a = await get<ZeroBounceAnswer>('validate', { email: address, ip_address: '' }, opts.timeoutMs ?? VALIDATE_TIMEOUT_MS);
      if (!a || typeof a.status !== 'string') throw new VerifierUnavailableError('ZeroBounce answered without a status', false);
      // Greylisted: the recipient's server said "later"; ZeroBounce charges no credit for an unknown.
      return { check: fromZeroBounce(a), temporary: a.status === 'unknown' && a.sub_status === 'greylisted' };
    },
    async credits(): Promise<number> {
      const a = await get<{ Credits?: unknown }>('getcredits', {}, 15_000);
      const credits = Number(a?.Credits);
      if (a?.Credits === undefined || a.Credits === null || a.Credits === '' || !Number.isFinite(credits))
        throw new VerifierUnavailableError('ZeroBounce answered without a credit balance', false);
      return credits;
    },
  };
  return verifier;
}

type Checks = Omit<EmailCheck, 'provider' | 'detail'>;

/**
 * ZeroBounce's answer as the service's checks, chosen so that emailStatus() reads the same verdict
 * from them as ZeroBounce's own status wherever the two agree on what an address is:
 * valid → valid; invalid, spamtrap, abuse and the do_not_mail reasons that must never be mailed →
 * invalid; catch-all, role addresses and answers that could not be decided → risky.
 */
export function fromZeroBounce(a: ZeroBounceAnswer): EmailCheck {
  const sub = (a.sub_status ?? '').toLowerCase();
  const mxFound = String(a.mx_found ?? '').toLowerCase();
  // The domain's mail host as ZeroBounce found it. An MX it did not find may still be an A record
  // (RFC 5321 §5.1): without a sub_status naming the defect, that is not a failure.
  const mx: CheckResult = mxFound === 'true' ? 'pass' : 'unknown';
  // An answer from the recipient's server: its mail host was reached.
  const reached: Checks = { syntax: 'pass', mx: 'pass', disposable: 'pass', role: 'pass', catch_all: 'pass', smtp: 'pass' };
  // Not decided by a conversation with the server (a list or a reputation): the SMTP checks stay unrun.
  const listed: Checks = { syntax: 'pass', mx, disposable: 'pass', role: 'pass', catch_all: null, smtp: null };

  let c: Checks;
  switch (a.status) {
    case 'valid':
      c = { ...reached };
      // ZeroBounce calls an address on an accept-all domain valid when its own signals say so; the
      // server's acceptance still proves nothing there, as for any catch-all.
      if (sub === 'accept_all' || sub === 'role_based_accept_all') c.catch_all = 'fail';
      if (sub === 'role_based_accept_all') c.role = 'fail';
      break;
    case 'catch-all':
      // The server accepts every recipient, this one included.
      c = { ...reached, catch_all: 'fail' };
      break;
    case 'unknown':
      // The server did not let itself be asked (greylisting, anti-spam, timeouts, dropped connections).
      c = { ...listed, catch_all: null, smtp: 'unknown' };
      break;
    case 'invalid':
      c = invalidChecks(sub, mx);
      break;
    case 'do_not_mail':
      c = doNotMailChecks(sub, mx);
      break;
    case 'spamtrap':
    case 'abuse':
      // A spam trap exists only to catch senders who mail it, and an abuse address belongs to someone
      // known to report mail as spam: either harms the sending domain's reputation whatever the mailbox
      // does, so neither is ever mailed. The recipient check carries that verdict, which makes it invalid.
      c = { ...listed, smtp: 'fail' };
      break;
    default:
      // A status this client does not know: not decided, so accept waits rather than guesses.
      c = { ...listed, smtp: 'unknown' };
  }
  return { ...c, provider: 'zerobounce', detail: detailOf(a, sub) };
}

function invalidChecks(sub: string, mx: CheckResult): Checks {
  switch (sub) {
    case 'failed_syntax_check':
      return { syntax: 'fail', mx: null, disposable: null, role: null, catch_all: null, smtp: null };
    case 'no_dns_entries':
    case 'does_not_accept_mail':
    case 'unroutable_ip_address':
      // No mail host, a domain that only sends, or a host at an address nothing can reach.
      return { syntax: 'pass', mx: 'fail', disposable: null, role: null, catch_all: null, smtp: null };
    case 'mailbox_quota_exceeded':
      // The mailbox exists but is full: a bounce for now, not for good. Reacher's full inbox reads the
      // same way (risky), and the next check after it has been emptied may find it valid.
      return { syntax: 'pass', mx: 'pass', disposable: 'pass', role: 'pass', catch_all: null, smtp: 'unknown' };
    case 'possible_typo':
      // A misspelling of a well-known domain (did_you_mean says which): mail goes to a stranger or bounces.
      return { syntax: 'pass', mx, disposable: 'pass', role: 'pass', catch_all: null, smtp: 'fail' };
    default:
      // mailbox_not_found, and any reason this client does not know: the server refused the recipient.
      return { syntax: 'pass', mx: 'pass', disposable: 'pass', role: 'pass', catch_all: null, smtp: 'fail' };
  }
}

function doNotMailChecks(sub: string, mx: CheckResult): Checks {
  const base: Checks = { syntax: 'pass', mx, disposable: 'pass', role: 'pass', catch_all: null, smtp: null };
  switch (sub) {
    case 'disposable':
      return { ...base, disposable: 'fail' };
    case 'role_based':
      // A role address that exists: someone may read it, but not the person the message is for.
      return { ...base, mx: 'pass', role: 'fail', catch_all: 'pass', smtp: 'pass' };
    case 'role_based_catch_all':
      return { ...base, mx: 'pass', role: 'fail', catch_all: 'fail', smtp: 'pass' };
    case 'mx_forward':
      // The domain's MX forwards to another service that was not asked: not decided.
      return { ...base, smtp: 'unknown' };
    default:
      // toxic (abuse, spam and bot-made addresses), global_suppression (on many senders' suppression
      // lists), possible_trap (may be a spam trap) and any reason this client does not know: mailing
      // them harms the sender, so they are treated like a refusal.
      return { ...base, smtp: 'fail' };
  }
}

function detailOf(a: ZeroBounceAnswer, sub: string): string {
  const suggestion = sub === 'possible_typo' && a.did_you_mean ? ` (did you mean ${a.did_you_mean.slice(0, 200)}?)` : '';
  return `ZeroBounce: ${a.status}${sub ? ` / ${sub}` : ''}${suggestion}`;
}
