import { productionProblems } from '../../apps/shared/config';

/** What production requires of the links in e-mail and of the worker that sends. */
describe('productionProblems', () => {
  const base = {
    NODE_ENV: 'production' as const,
    PUBLIC_BASE_URL: 'https://outreach.example.nl',
    UNSUBSCRIBE_TOKEN_KEY: 'k'.repeat(64),
    INTEGRATION_SECRET_KEY: undefined,
  };

  test('a complete production configuration has none', () => {
    expect(productionProblems(base, 'worker')).toEqual([]);
    expect(productionProblems({ ...base, UNSUBSCRIBE_TOKEN_KEY: undefined, INTEGRATION_SECRET_KEY: 'i'.repeat(64) }, 'worker')).toEqual([]);
  });

  test('PUBLIC_BASE_URL must be set, and https', () => {
    expect(productionProblems({ ...base, PUBLIC_BASE_URL: undefined }, 'api')).toEqual([expect.stringContaining('PUBLIC_BASE_URL must be set')]);
    expect(productionProblems({ ...base, PUBLIC_BASE_URL: 'http://outreach.example.nl' }, 'worker')).toEqual([expect.stringContaining('must be https')]);
  });

  test('the worker needs a key for unsubscribe links; the API does not check it here', () => {
    const keyless = { ...base, UNSUBSCRIBE_TOKEN_KEY: undefined };
    expect(productionProblems(keyless, 'worker')).toEqual([expect.stringContaining('UNSUBSCRIBE_TOKEN_KEY')]);
    expect(productionProblems(keyless, 'api')).toEqual([]);
  });

  test('outside production nothing is required', () => {
    expect(productionProblems({ ...base, NODE_ENV: 'development', PUBLIC_BASE_URL: undefined, UNSUBSCRIBE_TOKEN_KEY: undefined }, 'worker')).toEqual([]);
  });
});
