import { allowPrivateDestinations } from '../../activities/providers/destination';
import { ApolloClient, APOLLO_MAX_LOOKUPS, apolloWorkEmail } from '../../activities/providers/enrichment/apollo';
import { EnrichmentUnavailableError, type CompanyForEnrichment } from '../../activities/providers/enrichment/types';
import { enrichmentProviderFrom, INTEGRATION_PROVIDERS, verifyIntegration } from '../../activities/providers/registry';
import { startApolloServer, type ApolloStandIn } from '../helpers/apollo-server';

/** The Apollo client against a stand-in of its People Enrichment API on 127.0.0.1. */

const KEY = 'apollo-key-5678';
let apollo: ApolloStandIn;

const company = (people: CompanyForEnrichment['people'], domain: string | null = 'vissertech.nl'): CompanyForEnrichment => ({
  id: 'c2',
  name: 'Visser Techniek',
  website: domain ? `https://${domain}` : null,
  domain,
  country_code: 'NL',
  people,
});

const person = (id: string, firstName: string, lastName: string, email: string | null, emailStatus: string | null, personalEmails: string[] = []) => ({
  id,
  firstName,
  lastName,
  organizationName: 'Visser Techniek',
  domain: 'vissertech.nl',
  title: 'Projectleider',
  email,
  emailStatus,
  linkedinUrl: `https://www.linkedin.com/in/${id}`,
  personalEmails,
});

beforeAll(async () => {
  allowPrivateDestinations(true);
  apollo = await startApolloServer({
    apiKey: KEY,
    directory: [
      person('p1', 'Eva', 'Visser', 'eva.visser@vissertech.nl', 'verified', ['eva.private@gmail.com']),
      person('p2', 'Finn', 'Meijer', 'finn@vissertech.nl', 'unavailable'),
      person('p3', 'Greet', 'Bos', 'greet.bos@gmail.com', 'verified'),
      person('p4', 'Hugo', 'Mulder', null, null),
      person('p5', 'Ilse', 'de Boer', 'email_not_unlocked@domain.com', 'verified'),
      person('p6', 'Jan', 'de Vries', 'jan@vissertech.nl', 'bounced'),
    ],
  });
});
afterAll(async () => {
  await apollo.close();
  allowPrivateDestinations(process.env.OUTBOUND_ALLOW_PRIVATE_NETWORKS === 'true');
});
beforeEach(() => {
  apollo.failWith = null;
});

test('happy path: one people/match per known person, the work address with its source; the cost is the matches that revealed an address', async () => {
  const client = new ApolloClient(KEY, apollo.url);
  const before = { matches: apollo.matches, credits: apollo.credits };
  const r = await client.findPeople(company([{ fullName: 'Eva Visser', title: 'Directeur' }, { fullName: 'Hugo Mulder' }, { fullName: 'Onbekend Persoon' }]));
  expect(apollo.matches - before.matches).toBe(3);
  const asked = apollo.asked.slice(-3);
  expect(asked[0]).toMatchObject({
    name: 'Eva Visser',
    first_name: 'Eva',
    last_name: 'Visser',
    organization_name: 'Visser Techniek',
    domain: 'vissertech.nl',
    reveal_personal_emails: 'false',
  });
  expect(r.people).toEqual([
    {
      fullName: 'Eva Visser',
      title: 'Projectleider',
      email: 'eva.visser@vissertech.nl',
      phone: null,
      linkedinUrl: 'https://www.linkedin.com/in/p1',
      source: expect.stringMatching(/Apollo.*p1.*verified/),
    },
  ]);
  expect(r.costUnits).toBe(1);
  expect(apollo.credits - before.credits).toBe(1);
  expect(r.notes[0]).toMatch(/3 looked up, 2 matched, 1 with a work address/);
});

test('personal addresses are never taken: not asked for, and a free-mail address in the work field is skipped', async () => {
  const client = new ApolloClient(KEY, apollo.url);
  const r = await client.findPeople(company([{ fullName: 'Eva Visser' }, { fullName: 'Greet Bos' }]));
  expect(apollo.asked.slice(-2).every((a) => a.reveal_personal_emails === 'false')).toBe(true);
  expect(r.people.map((p) => p.email)).toEqual(['eva.visser@vissertech.nl']);
  expect(JSON.stringify(r)).not.toMatch(/gmail/);
  expect(apolloWorkEmail({ id: 'x', email: 'a@firm.nl', email_status: 'verified', personal_emails: ['a@firm.nl'] })).toBeNull();
});

test('email_status filtering: unavailable, bounced, none and not-unlocked addresses are skipped', async () => {
  const client = new ApolloClient(KEY, apollo.url);
  const r = await client.findPeople(
    company([{ fullName: 'Finn Meijer' }, { fullName: 'Jan de Vries' }, { fullName: 'Ilse de Boer' }, { fullName: 'Hugo Mulder' }]),
  );
  expect(r.people).toEqual([]);
  for (const status of ['verified', 'extrapolated', 'likely to engage', 'guessed'])
    expect(apolloWorkEmail({ id: 'x', email: 'a@firm.nl', email_status: status })).toBe('a@firm.nl');
  for (const status of ['unavailable', 'bounced', 'invalid', null, undefined, ''])
    expect(apolloWorkEmail({ id: 'x', email: 'a@firm.nl', email_status: status })).toBeNull();
});

test('at most APOLLO_MAX_LOOKUPS calls a run, one after the other', async () => {
  const client = new ApolloClient(KEY, apollo.url);
  const before = apollo.matches;
  apollo.delayMs = 20;
  apollo.maxInFlight = 0;
  const many = Array.from({ length: 14 }, (_, i) => ({ fullName: `Persoon Nummer${i}` }));
  const r = await client.findPeople(company(many));
  apollo.delayMs = 0;
  expect(apollo.matches - before).toBe(APOLLO_MAX_LOOKUPS);
  expect(apollo.maxInFlight).toBe(1);
  expect(r.notes.join(' ')).toMatch(/4 people left/);
  expect(r.costUnits).toBe(0);
});

test('no known people: empty with a note and no call', async () => {
  const client = new ApolloClient(KEY, apollo.url);
  const requests = apollo.requests;
  const noDomain = await client.findPeople(company([], null));
  expect(noDomain).toEqual({ people: [], company: {}, notes: [expect.stringMatching(/no named people and no domain/)] });
  const withDomain = await client.findPeople(company(undefined));
  expect(withDomain.people).toEqual([]);
  expect(apollo.requests).toBe(requests);
});

test('a bad key is not retried; 429 and 5xx are', async () => {
  const bad = new ApolloClient('wrong', apollo.url);
  const err = await bad.findPeople(company([{ fullName: 'Eva Visser' }])).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(EnrichmentUnavailableError);
  expect((err as EnrichmentUnavailableError).retryable).toBe(false);
  expect((err as Error).message).toMatch(/401/);
  const client = new ApolloClient(KEY, apollo.url);
  for (const status of [429, 502]) {
    apollo.failWith = status;
    const e = await client.findPeople(company([{ fullName: 'Eva Visser' }])).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(EnrichmentUnavailableError);
    expect((e as EnrichmentUnavailableError).retryable).toBe(true);
  }
  apollo.failWith = 403;
  const e403 = await client.findPeople(company([{ fullName: 'Eva Visser' }])).catch((x: unknown) => x);
  expect((e403 as EnrichmentUnavailableError).retryable).toBe(false);
});

test('verifyIntegration uses auth/health (no match, no credit); a bad key fails', async () => {
  const before = { matches: apollo.matches, credits: apollo.credits };
  await expect(verifyIntegration('apollo', { baseUrl: apollo.url }, KEY)).resolves.toEqual({ ok: true, detail: expect.any(String) });
  await expect(verifyIntegration('apollo', { baseUrl: apollo.url }, 'wrong')).resolves.toEqual({ ok: false, message: expect.stringMatching(/is_logged_in/) });
  apollo.failWith = 401;
  await expect(verifyIntegration('apollo', { baseUrl: apollo.url }, KEY)).resolves.toEqual({ ok: false, message: expect.stringMatching(/401/) });
  expect(apollo.matches).toBe(before.matches);
  expect(apollo.credits).toBe(before.credits);
});

test('registry: the config is strict, and enrichmentProviderFrom builds the Apollo client', () => {
  expect(INTEGRATION_PROVIDERS.apollo.kind).toBe('enrichment');
  expect(INTEGRATION_PROVIDERS.apollo.config.safeParse({}).success).toBe(true);
  expect(INTEGRATION_PROVIDERS.apollo.config.safeParse({ baseUrl: 'ftp://x' }).success).toBe(false);
  expect(INTEGRATION_PROVIDERS.apollo.config.safeParse({ other: 1 }).success).toBe(false);
  const p = enrichmentProviderFrom('apollo', {}, KEY);
  expect(p.key).toBe('apollo');
  expect('findPeople' in p).toBe(true);
});
