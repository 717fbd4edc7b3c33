import { requestJson, ProviderRequestError, VerifyOutcome } from '../outcome';
import { BatchEnrichmentProvider, CompanyForEnrichment, EnrichmentResult, EnrichmentUnavailableError, KnownPerson, PersonCandidate } from './types';

/**
 * Dropcontact (developer.dropcontact.com): a batch API. `POST /v1/enrich/all` with the
 * `X-Access-Token` header and `{data: [{first_name, last_name, full_name, company, website, …}],
 * siren, language}` answers `{error, success, request_id, credits_left}`;
 * `GET /v1/enrich/all/{request_id}` answers 200 `{success: false, reason: "Request not ready yet…"}`
 * while it works (and, by its documentation, the same for an unknown request id: the caller bounds
 * how often it polls), then `{success: true, data: [...]}` with the records in the order sent, each
 * with `email: [{email, qualification}]`, `first_name`, `last_name`, `job`, `linkedin`, `phone`, ….
 * A qualification is `<local>@<domain>`: local nominative | catch_all | generic | random | invalid,
 * domain pro | perso | invalid. `GET /v1/account/credits` (`{credits}`) costs nothing and answers 401
 * to a bad key. Errors: `{error, reason, success}` or `{detail}`; 401 a bad key, 403 not enough
 * credits for the whole request, 429 the rate limit (60 requests a second), 5xx theirs.
 * (The older host `https://api.dropcontact.io/batch` and `/batch/{request_id}` spoke the same
 * shapes; the documented endpoint today is the one above.)
 *
 * Credits: one per record for which a verified address is returned (taken at submit, given back when
 * nothing is found). The client counts them from the answer: a record with an address of any
 * qualification but `invalid` counts one.
 */
export const DROPCONTACT_DEFAULT_BASE_URL = 'https://api.dropcontact.com';

/** Dropcontact takes up to 250 records a request; a company sends at most this many of its people. */
export const DROPCONTACT_MAX_PEOPLE = 25;

export interface DropcontactRecordIn {
  first_name?: string;
  last_name?: string;
  full_name: string;
  company: string;
  website?: string;
  linkedin?: string;
  job?: string;
}

export interface DropcontactEmail {
  email: string;
  qualification?: string | null;
}

export interface DropcontactRecordOut {
  first_name?: string | null;
  last_name?: string | null;
  full_name?: string | null;
  email?: DropcontactEmail[] | null;
  job?: string | null;
  linkedin?: string | null;
  phone?: string | null;
  company?: string | null;
  website?: string | null;
}

interface SubmitAnswer {
  error?: boolean;
  success?: boolean;
  request_id?: string;
  credits_left?: number;
  reason?: string;
}

interface PollAnswer {
  success?: boolean;
  error?: boolean;
  reason?: string;
  data?: DropcontactRecordOut[];
  credits_left?: number;
}

/** Addresses taken for a person, best first; any other qualification (generic, random, perso, invalid, none) is not a person's work address. */
const TAKEN_QUALIFICATIONS = ['nominative@pro', 'catch_all@pro', 'non_confirm@pro'];

/** "Jan de Vries" -> first "Jan", last "de Vries" (particles stay with the surname). */
export function splitName(fullName: string): { first: string; last: string } {
  const parts = fullName.trim().split(/\s+/);
  return { first: parts[0] ?? '', last: parts.slice(1).join(' ') };
}

/** The address Dropcontact found for one record that may be used for the person, or null. */
export function pickDropcontactEmail(emails: DropcontactEmail[] | null | undefined): DropcontactEmail | null {
  let best: DropcontactEmail | null = null;
  let bestRank = TAKEN_QUALIFICATIONS.length;
  for (const e of emails ?? []) {
    if (!e || typeof e.email !== 'string' || !e.email.includes('@')) continue;
    const rank = TAKEN_QUALIFICATIONS.indexOf(String(e.qualification ?? '').toLowerCase());
    if (rank >= 0 && rank < bestRank) {
      best = e;
      bestRank = rank;
    }
  }
  return best;
}

function chargedFor(record: DropcontactRecordOut): boolean {
  return (record.email ?? []).some((e) => e && typeof e.email === 'string' && !/^invalid@/i.test(String(e.qualification ?? '')) && e.qualification != null);
}

export class DropcontactClient implements BatchEnrichmentProvider {
  readonly key = 'dropcontact';

  constructor(
    private readonly apiKey: string,
    private readonly baseUrl = DROPCONTACT_DEFAULT_BASE_URL,
    private readonly language = 'en',
  ) {}

  private request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    return requestJson<T>(`${this.baseUrl.replace(/\/$/, '')}${path}`, {
      method,
      headers: { 'x-access-token': this.apiKey },
      body,
      errorMessage: (b, status) => {
        const reason = typeof b?.reason === 'string' ? b.reason : typeof b?.detail === 'string' ? b.detail : undefined;
        return reason ? `Dropcontact ${status}: ${reason.slice(0, 300)}` : undefined;
      },
    });
  }

  /** Our error for a failed call: a bad key (401), too few credits (403) and other 4xx are not retried; 429 and 5xx are. */
  private unavailable(err: unknown): never {
    if (err instanceof ProviderRequestError) {
      const s = err.status;
      const retryable = s === null ? err.retryable : s === 429 || s >= 500;
      const hint = s === 401 ? ' (the access token is not valid)' : s === 403 ? ' (not enough credits for the request, or the token is refused)' : '';
      // A 4xx refused the request (nothing taken); a 5xx or no answer leaves open whether it was.
      throw new EnrichmentUnavailableError(`${err.message}${hint}`, retryable, s !== null && s < 500 && !err.tooLarge);
    }
    throw err;
  }

  async verify(): Promise<VerifyOutcome> {
    try {
      const a = await this.request<{ credits?: number }>('GET', '/v1/account/credits');
      const credits = typeof a?.credits === 'number' ? a.credits : null;
      if (credits === null) return { ok: false, message: 'Dropcontact answered without a credit balance' };
      return {
        ok: true,
        detail:
          credits > 0
            ? `Dropcontact: ${credits} credits left`
            : 'Dropcontact: the token works but no credits are left; requests are refused until credits are bought',
      };
    } catch (err) {
      if (err instanceof ProviderRequestError && !err.tooLarge) return { ok: false, message: err.message };
      throw err;
    }
  }

  recordsFor(company: CompanyForEnrichment, people: KnownPerson[]): DropcontactRecordIn[] {
    return people.map((p) => {
      const { first, last } = splitName(p.fullName);
      return {
        first_name: first,
        ...(last ? { last_name: last } : {}),
        full_name: p.fullName.trim(),
        company: company.name,
        ...(company.website || company.domain ? { website: company.website ?? company.domain! } : {}),
        ...(p.linkedinUrl ? { linkedin: p.linkedinUrl } : {}),
        ...(p.title ? { job: p.title } : {}),
      };
    });
  }

  async submit(company: CompanyForEnrichment): Promise<{ requestId: string } | { result: EnrichmentResult }> {
    const people = (company.people ?? []).filter((p) => p.fullName.trim()).slice(0, DROPCONTACT_MAX_PEOPLE);
    if (people.length === 0) return { result: { people: [], company: {}, notes: ['dropcontact: the company has no named people to look up'] } };
    let answer: SubmitAnswer;
    try {
      answer = await this.request<SubmitAnswer>('POST', '/v1/enrich/all', { data: this.recordsFor(company, people), siren: false, language: this.language });
    } catch (err) {
      this.unavailable(err);
    }
    if (!answer || answer.error || answer.success === false || typeof answer.request_id !== 'string' || !answer.request_id) {
      throw new EnrichmentUnavailableError(`Dropcontact refused the batch: ${String(answer?.reason ?? 'no request id').slice(0, 300)}`, false, true);
    }
    return { requestId: answer.request_id };
  }

  async poll(requestId: string): Promise<EnrichmentResult | null> {
    let answer: PollAnswer;
    try {
      answer = await this.request<PollAnswer>('GET', `/v1/enrich/all/${encodeURIComponent(requestId)}`);
    } catch (err) {
      this.unavailable(err);
    }
    if (!answer || answer.success !== true || !Array.isArray(answer.data)) return null;
    // Bounded: a batch is at most DROPCONTACT_MAX_PEOPLE records; anything past that was not ours.
    const records = answer.data.slice(0, DROPCONTACT_MAX_PEOPLE);
    const people: PersonCandidate[] = [];
    let charged = 0;
    let skipped = 0;
    let genericEmail: string | null = null;
    for (const r of records) {
      if (!r || typeof r !== 'object') continue;
      if (chargedFor(r)) charged += 1;
      if (!genericEmail) genericEmail = (r.email ?? []).find((e) => /^generic@pro$/i.test(String(e?.qualification ?? '')))?.email ?? null;
      const picked = pickDropcontactEmail(r.email);
      if (!picked) {
        if ((r.email ?? []).length > 0) skipped += 1;
        continue;
      }
      const fullName = (r.full_name ?? [r.first_name, r.last_name].filter(Boolean).join(' ')).trim();
      if (!fullName) continue;
      people.push({
        fullName,
        title: r.job ?? null,
        email: picked.email.trim().toLowerCase(),
        phone: r.phone ?? null,
        linkedinUrl: r.linkedin ?? null,
        source: `Dropcontact enrichment (request ${requestId}, ${picked.qualification})`,
      });
    }
    return {
      people,
      company: { genericEmail },
      notes: [`dropcontact: ${records.length} records, ${people.length} with a work address${skipped ? `, ${skipped} with only unusable addresses` : ''}`],
      costUnits: charged,
    };
  }
}
