/** Failure types shared by activities (which throw them) and workflows (which decide not to retry them). */
export const NON_RETRYABLE_INGEST_ERRORS = ['MalformedSource', 'SourceUnavailable', 'SourceNotFound', 'InvalidSourceConfig'];
