import createClient, { Client, Middleware } from 'openapi-fetch';
import { assertMatchesContract } from './contract';
import type { components, paths } from './openapi-types';

/**
 * The typed API client for tests: openapi-fetch over the types generated from the OpenAPI document
 * (test/helpers/openapi-types.ts, `npm run openapi:types`). Paths, parameters, bodies and answers are
 * checked by the compiler; every answer is also validated against the document at run time.
 */
export type ApiClient = Client<paths>;
export type Schemas = components['schemas'];

/**
 * One schema of the document by name, to type an answer of `api.call` (test/helpers/api.ts), whose
 * body is validated against the document at run time but typed `any`:
 * `const contacts = (await api.call('GET', ...)).body as Schema<'Contact'>[]`.
 */
export type Schema<K extends keyof Schemas> = Schemas[K];

/** One entry of a VALIDATION_FAILED problem's `errors`: the invalid field and why. */
export type FieldError = NonNullable<Schema<'Problem'>['errors']>[number];

const matchesContract: Middleware = {
  async onResponse({ request, response }) {
    const text = await response.clone().text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: checked as text
    }
    const url = new URL(request.url);
    assertMatchesContract(request.method, url.pathname + url.search, response.status, response.headers.get('content-type'), body);
    return undefined;
  },
};

/** A client for the API at `baseUrl`, sending `token` as the bearer token when given. */
export function apiClient(baseUrl: string, token?: string): ApiClient {
  const client = createClient<paths>({ baseUrl, headers: token ? { authorization: `Bearer ${token}` } : {} });
  client.use(matchesContract);
  return client;
}

/** The answer of a call that must succeed; otherwise throws with the status and the problem. */
export function ok<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined || !result.response.ok) {
    throw new Error(`${result.response.url} answered ${result.response.status}: ${JSON.stringify(result.error)}`);
  }
  return result.data;
}
