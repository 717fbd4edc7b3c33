import { BlockedDestinationError, guardedFetch } from './destination';

/**
 * The one HTTP client for fetching outside documents: time limit, size limit (counted while
 * streaming, so a lying Content-Length does not help), conditional GET, and errors that say
 * whether trying again can help.
 */
export interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
  userAgent?: string;
}

export interface ConditionalHeaders {
  etag?: string | null;
  lastModified?: string | null;
}

export type FetchResult =
  { status: 'not_modified' } | { status: 'ok'; body: string; contentType: string | null; etag: string | null; lastModified: string | null; url: string };

export class FetchError extends Error {
  constructor(
    message: string,
    /** false when the same request cannot succeed later (4xx, too large): retries are pointless. */
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'FetchError';
  }
}

/** A body longer than its reader's limit, counted after decompression. */
export class ResponseTooLargeError extends Error {
  constructor(
    readonly url: string,
    readonly maxBytes: number,
  ) {
    super(`the response from ${url} exceeds the ${maxBytes}-byte limit`);
    this.name = 'ResponseTooLargeError';
  }
}

/** The limit for a provider's JSON answer (LLM, CRM, enrichment), counted after decompression. */
export const PROVIDER_RESPONSE_MAX_BYTES = 4 * 1024 * 1024;

/**
 * The one reader for every response body from a tenant-chosen URL: it counts the bytes it reads
 * (decompressed: guardedFetch inflates only as this reads), and at `maxBytes` it cancels the body,
 * which closes the connection, and throws ResponseTooLargeError. A declared Content-Length over
 * the limit is refused before reading. Other stream errors are rethrown as they are.
 */
export async function readLimited(res: Response, maxBytes: number): Promise<Buffer> {
  if (!res.body) return Buffer.alloc(0);
  const declared = res.headers.has('content-encoding') ? 0 : Number(res.headers.get('content-length') ?? '0');
  if (declared > maxBytes) {
    await res.body.cancel().catch(() => undefined);
    throw new ResponseTooLargeError(res.url, maxBytes);
  }
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new ResponseTooLargeError(res.url, maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** readLimited as UTF-8 text. */
export async function readLimitedText(res: Response, maxBytes: number): Promise<string> {
  return (await readLimited(res, maxBytes)).toString('utf8');
}

export const DEFAULT_USER_AGENT = 'OutreachSignalService/0.1 (+https://outreach-signal.dev/bot)';

/** `extraHeaders` (a source's own, e.g. an API key) are sent too; they never travel to another origin on a redirect. */
export async function fetchDocument(
  url: string,
  limits: FetchLimits,
  cond: ConditionalHeaders = {},
  accept = '*/*',
  extraHeaders: Record<string, string> = {},
): Promise<FetchResult> {
  const headers: Record<string, string> = { 'user-agent': limits.userAgent ?? DEFAULT_USER_AGENT, accept };
  for (const [name, value] of Object.entries(extraHeaders)) headers[name.toLowerCase()] = value;
  if (cond.etag) headers['if-none-match'] = cond.etag;
  if (cond.lastModified) headers['if-modified-since'] = cond.lastModified;
  let res: Response;
  try {
    res = await guardedFetch(url, { headers, signal: AbortSignal.timeout(limits.timeoutMs) });
  } catch (err) {
    if (err instanceof BlockedDestinationError) throw new FetchError(err.message, false);
    const e = err as Error & { cause?: { code?: string } };
    const reason = e.name === 'TimeoutError' ? `timed out after ${limits.timeoutMs} ms` : (e.cause?.code ?? e.message);
    throw new FetchError(`GET ${url} failed: ${reason}`, true);
  }
  if (res.status === 304) {
    await res.body?.cancel();
    return { status: 'not_modified' };
  }
  if (!res.ok) {
    await res.body?.cancel();
    const retryable = res.status >= 500 || res.status === 429 || res.status === 408;
    throw new FetchError(`GET ${url} answered HTTP ${res.status}`, retryable);
  }
  let body: Buffer;
  try {
    body = await readLimited(res, limits.maxBytes);
  } catch (err) {
    if (err instanceof ResponseTooLargeError) throw new FetchError(`GET ${url}: document exceeds the ${limits.maxBytes}-byte limit`, false);
    throw new FetchError(`GET ${url} failed while reading: ${(err as Error).message}`, true);
  }
  return {
    status: 'ok',
    body: body.toString('utf8'),
    contentType: res.headers.get('content-type'),
    etag: res.headers.get('etag'),
    lastModified: res.headers.get('last-modified'),
    url: res.url,
  };
}
