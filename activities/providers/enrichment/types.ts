import type { PersonCandidate } from '../../../domain/companies/people';

export type { PersonCandidate };

export interface EnrichmentResult {
  people: PersonCandidate[];
  company: {
    genericEmail?: string | null;
    phone?: string | null;
    address?: string | null;
    /** Every address the company publishes (for its domain when its website does not name one). */
    publishedAddresses?: string[];
  };
  notes: string[];
  /** What the call cost at the provider, in its own units (a search, a credit); 0 or absent when free. */
  costUnits?: number;
}

/** A person the company already has, named but without an address: what Dropcontact and Apollo look up. */
export interface KnownPerson {
  fullName: string;
  title?: string | null;
  linkedinUrl?: string | null;
}

export interface CompanyForEnrichment {
  id: string;
  name: string;
  website: string | null;
  domain: string | null;
  country_code: string | null;
  /** The company's named contacts without an address (at most 25), for providers that find a known person's address. */
  people?: KnownPerson[];
}

/** One step of the enrichment waterfall. */
export interface EnrichmentProvider {
  readonly key: string;
  findPeople(company: CompanyForEnrichment): Promise<EnrichmentResult>;
}

/**
 * A provider that answers later (Dropcontact): a batch is submitted and its result polled. submit
 * answers the result at once when there is nothing to ask (no named people), else the request's id;
 * poll answers null while the provider is still working.
 */
export interface BatchEnrichmentProvider {
  readonly key: string;
  submit(company: CompanyForEnrichment): Promise<{ requestId: string } | { result: EnrichmentResult }>;
  poll(requestId: string): Promise<EnrichmentResult | null>;
}

export class EnrichmentUnavailableError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    /** The provider answered, refusing (an HTTP error status, a refusal in its answer): a request it refused was not taken. */
    readonly answered = false,
  ) {
    super(message);
    this.name = 'EnrichmentUnavailableError';
  }
}
