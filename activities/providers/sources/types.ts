import type { NormalizedPublication } from '../../../db/queries/signals';
import type { FetchLimits } from '../http-fetch';

export type { NormalizedPublication };

export interface SourceForFetch {
  id: string;
  organization_id: string;
  provider_key: string;
  config: unknown;
  etag: string | null;
  last_modified: string | null;
  country_code: string | null;
  language: string | null;
  /** Request headers sealed with SecretBox (sourceSecretContext), or null. */
  secret_headers?: Buffer | null;
}

export type SourceFetchResult =
  { status: 'not_modified' } | { status: 'fetched'; publications: NormalizedPublication[]; etag: string | null; lastModified: string | null };

/** A signal source: fetches its documents and normalises them into publications. */
export interface SourceProvider {
  readonly key: string;
  fetch(source: SourceForFetch, limits: FetchLimits): Promise<SourceFetchResult>;
}

/** The document was fetched but cannot be understood: retrying will not help. */
export class MalformedSourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedSourceError';
  }
}
