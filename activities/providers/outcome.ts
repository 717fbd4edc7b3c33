import { BlockedDestinationError, guardedFetch } from './destination';
import { PROVIDER_RESPONSE_MAX_BYTES, readLimitedText, ResponseTooLargeError } from './http-fetch';

/** What a provider's credential check answers: connected, or the provider's own message. */
export type VerifyOutcome = { ok: true; detail: string } | { ok: false; message: string };

export class ProviderRequestError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly retryable: boolean,
    /** true when the provider answered more than PROVIDER_RESPONSE_MAX_BYTES: its base URL is wrong or hostile. */
    readonly tooLarge = false,
  ) {
    super(message);
    this.name = 'ProviderRequestError';
  }
}

/** JSON request with a time limit and a size limit (readLimited); non-2xx becomes a ProviderRequestError carrying the provider's message. */
export async function requestJson<T>(
  url: string,
  init: {
    method?: string;
    headers?: Record<string, string>;
    body?: unknown;
    timeoutMs?: number;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each provider reads its own error shape
    errorMessage: (body: any, status: number) => string | undefined;
  },
): Promise<T> {
  let res: Response;
  try {
    res = await guardedFetch(url, {
      method: init.method ?? 'GET',
      headers: { accept: 'application/json', ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
      signal: AbortSignal.timeout(init.timeoutMs ?? 15000),
    });
  } catch (err) {
    if (err instanceof BlockedDestinationError) throw new ProviderRequestError(err.message, null, false);
    throw new ProviderRequestError(`request failed: ${(err as Error).name === 'TimeoutError' ? 'timed out' : (err as Error).message}`, null, true);
  }
  let text: string;
  try {
    text = await readLimitedText(res, PROVIDER_RESPONSE_MAX_BYTES);
  } catch (err) {
    if (err instanceof ResponseTooLargeError) throw new ProviderRequestError(err.message, res.status, false, true);
    throw new ProviderRequestError(
      `request failed while reading: ${(err as Error).name === 'TimeoutError' ? 'timed out' : (err as Error).message}`,
      null,
      true,
    );
  }
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!res.ok) {
    const message = init.errorMessage(body, res.status) ?? (text.slice(0, 200) || `HTTP ${res.status}`);
    throw new ProviderRequestError(message, res.status, res.status === 429 || res.status >= 500 || res.status === 403);
  }
  return body as T;
}
