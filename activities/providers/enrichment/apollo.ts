import { isFreeMailDomain } from '../../../domain/companies/domains';
import { isGenericMailbox } from '../../../domain/companies/identity';
import { requestJson, ProviderRequestError, VerifyOutcome } from '../outcome';
import { splitName } from './dropcontact';
import { CompanyForEnrichment, EnrichmentProvider, EnrichmentResult, EnrichmentUnavailableError, PersonCandidate } from './types';

/**
 * Apollo (docs.apollo.io) People Enrichment: `POST /api/v1/people/match` with the `x-api-key` header
 * and the person's details as query parameters (first_name, last_name, name, organization_name,
 * domain, linkedin_url, reveal_personal_emails, reveal_phone_number) answers
 * `{person: {id, first_name, last_name, name, title, email, email_status, linkedin_url,
 * personal_emails, organization: {name, primary_domain}, …} | null}`. Personal e-mails are revealed
 * only when asked (reveal_personal_emails=true, which this client never sends); an address Apollo has
 * not unlocked reads `email_not_unlocked@domain.com`. A credit is charged when a match returns
 * credit-consuming data (an e-mail or demographics); nothing when `person` is null.
 * `GET /api/v1/auth/health` checks a key for free (`{healthy, is_logged_in}`; a bad key is 401 or
 * `is_logged_in: false`). Errors: 401 a bad key, 403 a key without access to the endpoint, 422 a
 * refused request (e.g. no credits), 429 the rate limit; the message is in `error` or `message`.
 */
export const APOLLO_DEFAULT_BASE_URL = 'https://api.apollo.io';

/** People looked up per run: one call (and possibly one credit) each, one after the other. */
export const APOLLO_MAX_LOOKUPS = 10;

/** email_status values that say the address is not usable (none found, or it bounced). */
const UNUSABLE_STATUS = new Set(['unavailable', 'bounced', 'invalid', 'do_not_email', 'catch_all_unverifiable']);

export interface ApolloPerson {
  id: string;
  first_name?: string | null;
  last_name?: string | null;
  name?: string | null;
  title?: string | null;
  email?: string | null;
  email_status?: string | null;
  linkedin_url?: string | null;
  personal_emails?: string[] | null;
  organization?: { name?: string | null; primary_domain?: string | null } | null;
}

interface MatchAnswer {
  person: ApolloPerson | null;
}

/** The work address a match carries, or null (no address, not unlocked, unusable status, a personal mailbox). */
export function apolloWorkEmail(p: ApolloPerson): string | null {
  const email = typeof p.email === 'string' ? p.email.trim().toLowerCase() : '';
  // Bounded before the pattern: an address is at most 254 characters (RFC 5321).
  if (!email || email.length > 254 || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) return null;
  // A role mailbox (info@, sales@) is not the person's own address.
  if (isGenericMailbox(email)) return null;
  if (email.startsWith('email_not_unlocked@')) return null;
  const status = String(p.email_status ?? '').toLowerCase();
  if (!status || UNUSABLE_STATUS.has(status)) return null;
  const domain = email.split('@')[1]!;
  if (isFreeMailDomain(domain)) return null;
  if ((p.personal_emails ?? []).some((e) => typeof e === 'string' && e.trim().toLowerCase() === email)) return null;
  return email;
}

export class ApolloClient implements EnrichmentProvider {
  readonly key = 'apollo';

  constructor(
    private readonly apiKey: string,
    private readonly baseUrl = APOLLO_DEFAULT_BASE_URL,
  ) {}

  private request<T>(method: 'GET' | 'POST', path: string, params: Record<string, string> = {}): Promise<T> {
    const u = new URL(`${this.baseUrl.replace(/\/$/, '')}${path}`);
    for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
    return requestJson<T>(u.toString(), {
      method,
      headers: { 'x-api-key': this.apiKey, 'cache-control': 'no-cache' },
      errorMessage: (b, status) => {
        const m = typeof b?.error === 'string' ? b.error : typeof b?.message === 'string' ? b.message : undefined;
        return m ? `Apollo ${status}: ${m.slice(0, 300)}` : undefined;
      },
    });
  }

  async verify(): Promise<VerifyOutcome> {
    try {
      const h = await this.request<{ healthy?: boolean; is_logged_in?: boolean }>('GET', '/api/v1/auth/health');
      if (h?.is_logged_in === true) return { ok: true, detail: 'Apollo: the API key is valid' };
      return { ok: false, message: 'Apollo does not know this API key (is_logged_in: false)' };
    } catch (err) {
      if (err instanceof ProviderRequestError && !err.tooLarge) return { ok: false, message: err.message };
      throw err;
    }
  }

  match(params: Record<string, string>): Promise<MatchAnswer> {
    return this.request<MatchAnswer>('POST', '/api/v1/people/match', { ...params, reveal_personal_emails: 'false', reveal_phone_number: 'false' });
  }

  /** Our error for a failed call: a bad key (401) and other 4xx are not retried; 429 and 5xx are. */
  private unavailable(err: unknown): Error {
    if (err instanceof ProviderRequestError) {
      const s = err.status;
      const retryable = s === null ? err.retryable : s === 429 || s >= 500;
      return new EnrichmentUnavailableError(`${err.message}${s === 401 ? ' (the API key is not valid)' : ''}`, retryable, s !== null && s < 500);
    }
    return err instanceof Error ? err : new Error(String(err));
  }

  async findPeople(company: CompanyForEnrichment): Promise<EnrichmentResult> {
    const known = (company.people ?? []).filter((p) => p.fullName.trim());
    if (known.length === 0) {
      const why = company.domain ? 'the company has no named people to look up' : 'the company has no named people and no domain';
      return { people: [], company: {}, notes: [`apollo: ${why}`] };
    }
    const asked = known.slice(0, APOLLO_MAX_LOOKUPS);
    const people: PersonCandidate[] = [];
    let matched = 0;
    let charged = 0;
    let interrupted: string | null = null;
    for (const k of asked) {
      const { first, last } = splitName(k.fullName);
      const params: Record<string, string> = { name: k.fullName.trim(), first_name: first, organization_name: company.name };
      if (last) params.last_name = last;
      if (company.domain) params.domain = company.domain;
      if (k.linkedinUrl) params.linkedin_url = k.linkedinUrl;
      let answer: MatchAnswer;
      try {
        answer = await this.match(params);
      } catch (err) {
        const failure = this.unavailable(err);
        // Matches already made were paid for: they are kept (a retry of the whole step would pay for them
        // again) and the people not reached wait for a later run.
        if (matched > 0 || people.length > 0) {
          interrupted = failure.message;
          break;
        }
        throw failure;
      }
      const p = answer?.person;
      if (!p || typeof p !== 'object') continue;
      matched += 1;
      // Apollo charges for a match that reveals an address, whether or not it is one this client takes.
      if (typeof p.email === 'string' && p.email.includes('@') && !p.email.startsWith('email_not_unlocked@')) charged += 1;
      const email = apolloWorkEmail(p);
      if (!email) continue;
      people.push({
        // The known person's own name: the match updates that contact (a name Apollo spells otherwise would make another).
        fullName: k.fullName.trim(),
        title: typeof p.title === 'string' ? p.title : (k.title ?? null),
        email,
        phone: null,
        linkedinUrl: typeof p.linkedin_url === 'string' ? p.linkedin_url : (k.linkedinUrl ?? null),
        source: `Apollo people match (person ${String(p.id).slice(0, 40)}, email_status ${String(p.email_status).slice(0, 40)})`,
      });
    }
    const notes = [`apollo: ${asked.length} looked up, ${matched} matched, ${people.length} with a work address`];
    if (interrupted) notes.push(`apollo: stopped after ${matched} matches, the rest left for a later run: ${interrupted}`);
    if (known.length > asked.length) notes.push(`apollo: ${known.length - asked.length} people left for a later run (at most ${APOLLO_MAX_LOOKUPS} a run)`);
    return { people, company: {}, notes, costUnits: charged };
  }
}
