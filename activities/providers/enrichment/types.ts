/** A person an enrichment provider found, with where the data came from (GDPR Art. 14: the source). */
export interface PersonCandidate {
  fullName: string;
  title?: string | null;
  email?: string | null;
  phone?: string | null;
  linkedinUrl?: string | null;
  source: string;
}

export interface EnrichmentResult {
  people: PersonCandidate[];
  company: { genericEmail?: string | null; phone?: string | null; address?: string | null };
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
