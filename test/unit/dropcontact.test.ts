import { allowPrivateDestinations } from '../../activities/providers/destination';
import { DropcontactClient, pickDropcontactEmail } from '../../activities/providers/enrichment/dropcontact';
import { EnrichmentUnavailableError, type CompanyForEnrichment, type EnrichmentResult } from '../../activities/providers/enrichment/types';
import { enrichmentProviderFrom, INTEGRATION_PROVIDERS, verifyIntegration } from '../../activities/providers/registry';
import { startDropcontactServer, type DropcontactStandIn } from '../helpers/dropcontact-server';

/** The Dropcontact client against a stand-in of its batch API on 127.0.0.1. */

const TOKEN = 'dc-token-1234';
let dc: DropcontactStandIn;

const company = (people: CompanyForEnrichment['people']): CompanyForEnrichment => ({
  id: 'c1',
  name: 'Bouwbedrijf Jansen',
  website: 'https://www.jansenbouw.nl',
  domain: 'jansenbouw.nl',
  country_code: 'NL',
  people,
});

beforeAll(async () => {
  allowPrivateDestinations(true);
  dc = await startDropcontactServer({
    token: TOKEN,
    directory: [
      {
        fullName: 'Anna Jansen',
        company: 'jansenbouw.nl',
        emails: [
          { email: 'info@jansenbouw.nl', qualification: 'generic@pro' },
          { email: 'anna.jansen@jansenbouw.nl', qualification: 'nominative@pro' },
        ],
        job: 'Directeur',
        linkedin: 'https://www.linkedin.com/in/annajansen',
      },
      { fullName: 'Bram de Vries', company: 'Bouwbedrijf Jansen', emails: [{ email: 'bram@jansenbouw.nl', qualification: 'catch_all@pro' }] },
      { fullName: 'Carla Smit', company: 'jansenbouw.nl', emails: [{ email: 'carla.smit@gmail.com', qualification: 'nominative@perso' }] },
      { fullName: 'Daan Bakker', company: 'jansenbouw.nl', emails: [{ email: 'daan@jansenbouw.nl', qualification: 'invalid@pro' }] },
      { fullName: 'Eva Visser', company: 'jansenbouw.nl', emails: [{ email: 'eva@jansenbouw.nl', qualification: '' }] },
    ],
  });
});
afterAll(async () => {
  await dc.close();
  allowPrivateDestinations(process.env.OUTBOUND_ALLOW_PRIVATE_NETWORKS === 'true');
});
beforeEach(() => {
  dc.failWith = null;
  dc.notReadyPolls = 0;
});

async function run(client: DropcontactClient, c: CompanyForEnrichment): Promise<{ result: EnrichmentResult; polls: number }> {
  const s = await client.submit(c);
  if ('result' in s) return { result: s.result, polls: 0 };
  for (let polls = 1; polls <= 10; polls++) {
    const r = await client.poll(s.requestId);
    if (r) return { result: r, polls };
  }
  throw new Error('never ready');
}

test('happy path: the known people go in one batch; the nominative@pro address comes back with its source and cost', async () => {
  const client = new DropcontactClient(TOKEN, dc.url);
  const before = { submits: dc.submits, credits: dc.credits };
  const { result } = await run(
    client,
    company([{ fullName: 'Anna Jansen', title: 'Directeur' }, { fullName: 'Bram de Vries' }, { fullName: 'Niemand Bekend' }]),
  );
  expect(dc.submits).toBe(before.submits + 1);
  const sent = dc.submitted.at(-1)!;
  expect(sent).toHaveLength(3);
  expect(sent[1]).toMatchObject({
    first_name: 'Bram',
    last_name: 'de Vries',
    full_name: 'Bram de Vries',
    company: 'Bouwbedrijf Jansen',
    website: 'https://www.jansenbouw.nl',
  });
  expect(result.people.map((p) => p.email)).toEqual(['anna.jansen@jansenbouw.nl', 'bram@jansenbouw.nl']);
  const anna = result.people[0]!;
  expect(anna).toMatchObject({ fullName: 'Anna Jansen', title: 'Directeur', linkedinUrl: 'https://www.linkedin.com/in/annajansen' });
  expect(anna.source).toMatch(/Dropcontact/);
  expect(anna.source).toMatch(/req\d+/);
  expect(anna.source).toMatch(/nominative@pro/);
  expect(result.people[1]!.source).toMatch(/catch_all@pro/);
  expect(result.company.genericEmail).toBe('info@jansenbouw.nl');
  // Two records came back with an address: two credits, as the stand-in charged.
  expect(result.costUnits).toBe(2);
  expect(before.credits - dc.credits).toBe(2);
});

test('not ready: poll answers null until Dropcontact has the result', async () => {
  dc.notReadyPolls = 3;
  const client = new DropcontactClient(TOKEN, dc.url);
  const polls = dc.polls;
  const { result, polls: tries } = await run(client, company([{ fullName: 'Anna Jansen' }]));
  expect(tries).toBe(4);
  expect(dc.polls - polls).toBe(4);
  expect(result.people).toHaveLength(1);
  // An id Dropcontact does not know is answered as "not ready" too.
  await expect(client.poll('unknown-id')).resolves.toBeNull();
});

test('no named people: a result at once, without a call', async () => {
  const client = new DropcontactClient(TOKEN, dc.url);
  const requests = dc.requests;
  for (const people of [undefined, [], [{ fullName: '   ' }]]) {
    const s = await client.submit(company(people));
    expect(s).toEqual({ result: { people: [], company: {}, notes: [expect.stringMatching(/no named people/)] } });
  }
  expect(dc.requests).toBe(requests);
});

test('personal, invalid and unqualified addresses are never taken', async () => {
  const client = new DropcontactClient(TOKEN, dc.url);
  const { result } = await run(client, company([{ fullName: 'Carla Smit' }, { fullName: 'Daan Bakker' }, { fullName: 'Eva Visser' }]));
  expect(result.people).toEqual([]);
  expect(result.notes[0]).toMatch(/3 with only unusable addresses/);
});

test('qualification order: nominative@pro before catch_all@pro; generic, random, perso, invalid, none never', () => {
  expect(
    pickDropcontactEmail([
      { email: 'x@a.nl', qualification: 'catch_all@pro' },
      { email: 'y@a.nl', qualification: 'nominative@pro' },
    ])?.email,
  ).toBe('y@a.nl');
  for (const q of ['generic@pro', 'random@pro', 'nominative@perso', 'invalid@pro', 'nominative@invalid', '', null, undefined])
    expect(pickDropcontactEmail([{ email: 'z@a.nl', qualification: q }])).toBeNull();
  expect(pickDropcontactEmail(null)).toBeNull();
});

test('a bad token is not retried; 429 and 5xx are', async () => {
  const bad = new DropcontactClient('wrong', dc.url);
  const err = await bad.submit(company([{ fullName: 'Anna Jansen' }])).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(EnrichmentUnavailableError);
  expect((err as EnrichmentUnavailableError).retryable).toBe(false);
  expect((err as Error).message).toMatch(/401/);
  const pollErr = await bad.poll('req000001').catch((e: unknown) => e);
  expect((pollErr as EnrichmentUnavailableError).retryable).toBe(false);

  const client = new DropcontactClient(TOKEN, dc.url);
  for (const status of [429, 503]) {
    dc.failWith = status;
    const e = await client.submit(company([{ fullName: 'Anna Jansen' }])).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(EnrichmentUnavailableError);
    expect((e as EnrichmentUnavailableError).retryable).toBe(true);
    const p = await client.poll('req000001').catch((x: unknown) => x);
    expect((p as EnrichmentUnavailableError).retryable).toBe(true);
  }
  dc.failWith = 403;
  const e403 = await client.submit(company([{ fullName: 'Anna Jansen' }])).catch((x: unknown) => x);
  expect((e403 as EnrichmentUnavailableError).retryable).toBe(false);
});

test('verifyIntegration reads the free credit balance; a bad token fails; no submit is made', async () => {
  const submits = dc.submits;
  await expect(verifyIntegration('dropcontact', { baseUrl: dc.url }, TOKEN)).resolves.toEqual({ ok: true, detail: expect.stringMatching(/credits left/) });
  await expect(verifyIntegration('dropcontact', { baseUrl: dc.url }, 'wrong')).resolves.toEqual({ ok: false, message: expect.stringMatching(/401/) });
  expect(dc.submits).toBe(submits);
});

test('registry: the config is strict, and enrichmentProviderFrom builds the batch client', () => {
  expect(INTEGRATION_PROVIDERS.dropcontact.kind).toBe('enrichment');
  expect(INTEGRATION_PROVIDERS.dropcontact.config.safeParse({ baseUrl: 'https://api.dropcontact.com' }).success).toBe(true);
  expect(INTEGRATION_PROVIDERS.dropcontact.config.safeParse({ apiKey: 'x' }).success).toBe(false);
  const p = enrichmentProviderFrom('dropcontact', {}, TOKEN);
  expect(p.key).toBe('dropcontact');
  expect('submit' in p && 'poll' in p).toBe(true);
  expect(enrichmentProviderFrom('hunter', {}, 'k').key).toBe('hunter');
  let thrown: unknown;
  try {
    enrichmentProviderFrom('zerobounce', {}, 'k');
  } catch (e) {
    thrown = e;
  }
  expect(thrown).toBeInstanceOf(EnrichmentUnavailableError);
  expect((thrown as EnrichmentUnavailableError).retryable).toBe(false);
});
