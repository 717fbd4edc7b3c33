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
}

export interface CompanyForEnrichment {
  id: string;
  name: string;
  website: string | null;
  domain: string | null;
  country_code: string | null;
}

/** One step of the enrichment waterfall. */
export interface EnrichmentProvider {
  readonly key: string;
  findPeople(company: CompanyForEnrichment): Promise<EnrichmentResult>;
}

export class EnrichmentUnavailableError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'EnrichmentUnavailableError';
  }
}
