import type { EmailCheck } from '../../../domain/contacts/email-verification';

/**
 * A verifier answers the checks it could make on one address. It fails (throws) only when it could
 * not be asked at all (its service down, a refused key): an address it could not decide is an
 * answer, with `unknown` checks.
 */
export interface EmailVerifier {
  readonly provider: string;
  verify(address: string): Promise<EmailCheck>;
  /** verify, with whether the answer was only "not now" (a greylisting server's 4xx): a later check may decide. */
  check(address: string): Promise<VerifierAnswer>;
}

export interface VerifierAnswer {
  check: EmailCheck;
  temporary: boolean;
}

/** The verifier could not be asked; retryable when a later attempt may succeed. */
export class VerifierUnavailableError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'VerifierUnavailableError';
  }
}
