import { requestJson, ProviderRequestError, VerifyOutcome } from '../outcome';
import { CompanyForEnrichment, EnrichmentProvider, EnrichmentResult, EnrichmentUnavailableError } from './types';

/**
 * Hunter (hunter.io) API v2: Domain Search (GET /v2/domain-search?domain=…) lists the e-mail
 * addresses Hunter knows for a domain, each with type personal|generic, confidence, names,
 * position, LinkedIn and phone; GET /v2/account checks the key. The key travels in the
 * X-API-KEY header. Errors are `{errors: [{id, code, details}]}`; 403 is the rate limit
 * (retryable), 429 the exhausted monthly quota.
 */
export const HUNTER_DEFAULT_BASE_URL = 'https://api.hunter.io';

interface HunterEmail {
  value: string;
  type: 'personal' | 'generic';
  confidence: number;
  first_name: string | null;
  last_name: string | null;
  position: string | null;
  linkedin: string | null;
  phone_number: string | null;
  sources?: Array<{ domain: string; uri: string; extracted_on: string }>;
}

interface DomainSearch {
  data: { domain: string; organization: string | null; pattern: string | null; emails: HunterEmail[] };
  meta: { results: number; limit: number; offset: number };
}

interface Account {
  data: { email: string; plan_name: string; requests?: { searches?: { used: number; available: number } } };
}

export class HunterClient implements EnrichmentProvider {
  readonly key = 'hunter';

  constructor(
    private readonly apiKey: string,
    private readonly baseUrl = HUNTER_DEFAULT_BASE_URL,
    private readonly minConfidence = 50,
  ) {}

  private get<T>(path: string, params: Record<string, string>) {
    const u = new URL(`${this.baseUrl.replace(/\/$/, '')}${path}`);
    for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
    return requestJson<T>(u.toString(), {
      headers: { 'x-api-key': this.apiKey },
      errorMessage: (body, status) => {
        const e = body?.errors?.[0];
        return e ? `Hunter ${status} ${e.id}: ${e.details}` : undefined;
      },
    });
  }

  domainSearch(domain: string, limit = 20) {
    return this.get<DomainSearch>('/v2/domain-search', { domain, limit: String(limit) });
  }

  async verify(): Promise<VerifyOutcome> {
    try {
      const a = await this.get<Account>('/v2/account', {});
      return { ok: true, detail: `Hunter account ${a.data.email} (${a.data.plan_name})` };
    } catch (err) {
      if (err instanceof ProviderRequestError && !err.tooLarge) return { ok: false, message: err.message };
      throw err;
    }
  }

  async findPeople(company: CompanyForEnrichment): Promise<EnrichmentResult> {
    if (!company.domain) return { people: [], company: {}, notes: ['hunter: the company has no domain'] };
    let res: DomainSearch;
    try {
      res = await this.domainSearch(company.domain);
    } catch (err) {
      if (err instanceof ProviderRequestError) throw new EnrichmentUnavailableError(err.message, err.retryable);
      throw err;
    }
    const emails = res.data.emails ?? [];
    const generic = emails.find((e) => e.type === 'generic');
    const people = emails
      .filter((e) => e.type === 'personal' && e.confidence >= this.minConfidence && (e.first_name || e.last_name))
      .map((e) => ({
        fullName: [e.first_name, e.last_name].filter(Boolean).join(' '),
        title: e.position,
        email: e.value,
        phone: e.phone_number,
        linkedinUrl: e.linkedin,
        source: `hunter.io domain search (${res.data.domain}, confidence ${e.confidence})`,
      }));
    return {
      people,
      company: { genericEmail: generic?.value ?? null },
      notes: [`hunter: ${emails.length} addresses, ${people.length} people`],
      // The domain search this call made, in Hunter's unit (a search).
      // Hunter counts a domain search that returns addresses; one that finds none is not counted.
      costUnits: emails.length > 0 ? 1 : 0,
    };
  }
}
