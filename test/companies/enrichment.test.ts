import { Client } from 'pg';
import { newOrganization, addMember, expectProblem } from '../helpers/api';
import type { Schema } from '../helpers/client';
import { startFeedServer } from '../helpers/feed-server';
import { startProviderServer, ProviderServer } from '../helpers/provider-server';
import { rssFeed } from '../helpers/rss';
import { emailHash } from '../../domain/companies/identity';
import { testEnv, type TestUser } from '../helpers/tokens';
import { useStack } from '../helpers/stack';
import { resultWithin } from '../helpers/workflow-result';
import type { EnrichCompanyResult } from '../../workflows/enrich-company';

// A test here waits for several runs, each up to resultWithin's 30 s: room for the run that gets stuck to be described.
jest.setTimeout(120_000);

/** Enrichment through the real worker, against a recorded company website and recorded Hunter responses. */
const { api, owners } = useStack({ api: true, owners: true });
let site: ProviderServer;
let textSite: ProviderServer;
let hunter: ProviderServer;
let owner: TestUser;
let orgId: string;

beforeAll(async () => {
  site = await startProviderServer();
  site.route('GET', '/robots.txt', { fixture: 'website/robots.txt' });
  site.route('GET', '/', { fixture: 'website/index.html' });
  site.route('GET', '/over-ons/team', { fixture: 'website/team.html' });
  site.route('GET', '/contact', { fixture: 'website/contact.html' });
  site.route('GET', '/intern/medewerkers', { fixture: 'website/intern.html' });
  // A recorded small-company site without schema.org data: people only in the text of its pages.
  textSite = await startProviderServer();
  textSite.route('GET', '/robots.txt', { fixture: 'website-text/robots.txt' });
  textSite.route('GET', '/', { fixture: 'website-text/index.html' });
  textSite.route('GET', '/contact', { fixture: 'website-text/contact.html' });
  textSite.route('GET', '/ons-team', { fixture: 'website-text/team.html' });
  hunter = await startProviderServer();
  hunter.route('GET', '/v2/domain-search', (req) =>
    req.headers['x-api-key'] === 'hunter-key-123'
      ? { fixture: 'hunter/domain-search.json' }
      : { status: 401, body: { errors: [{ id: 'authentication_failed', code: 401, details: 'No user found for the API key supplied' }] } },
  );
  hunter.route('GET', '/v2/account', (req) =>
    req.headers['x-api-key'] === 'hunter-key-123'
      ? { fixture: 'hunter/account.json' }
      : { status: 401, body: { errors: [{ id: 'authentication_failed', code: 401, details: 'No user found for the API key supplied' }] } },
  );
  ({ owner, orgId } = await newOrganization(api));
});
afterAll(async () => {
  await site.close();
  await textSite.close();
  await hunter.close();
});

async function company(body: Record<string, unknown>) {
  const res = await api.call('POST', '/companies', { token: owner.token, body: { organizationId: orgId, ...body } });
  expect(res.status).toBe(201);
  return res.body as Schema<'Company'>;
}

async function enrich(companyId: string, token = owner.token) {
  const res = await api.call('POST', `/companies/${companyId}/enrich`, { token, body: {} });
  expect(res.status).toBe(202);
  expect(res.body).toMatchObject({ id: companyId, enrichment_status: 'running' });
  return resultWithin<EnrichCompanyResult>(api.temporal.workflow.getHandle(`company/${companyId}/enrich`));
}

const contactsOf = async (companyId: string) =>
  (await api.call('GET', `/contacts?organizationId=${orgId}&companyId=${companyId}`, { token: owner.token })).body as Schema<'Contact'>[];

test('a company enriched from its website gets contacts, and a re-run adds no duplicates', async () => {
  const c = await company({
    name: 'Bouwbedrijf Jansen B.V.',
    website: `${site.url}/`,
    domain: 'bouwjansen.nl',
    kvkNumber: '12345678',
    legalForm: 'bv',
    countryCode: 'NL',
  });
  expect(c).toMatchObject({ normalized_name: 'bouwbedrijf jansen', domain: 'bouwjansen.nl', recipient_kind: 'legal_person', enrichment_status: 'idle' });

  const result = await enrich(c.id);
  expect(result).toMatchObject({ status: 'done', errors: [] });
  expect(result.providers.map((p: { provider: string }) => p.provider)).toEqual(['website']);

  const contacts = await contactsOf(c.id);
  expect(contacts.map((x) => x.full_name).sort()).toEqual(['Kees de Boer', 'Petra Jansen', 'Sanne Visser']);
  const petra = contacts.find((x) => x.full_name === 'Petra Jansen')!;
  expect(petra).toMatchObject({
    title: 'Directeur',
    email: 'petra.jansen@bouwjansen.nl',
    linkedin_url: 'https://www.linkedin.com/in/petra-jansen-bouw',
    data_source: 'website',
  });
  expect(petra.source_description).toMatch(/^company website \(http:\/\/127\.0\.0\.1:\d+\/\)$/);
  expect(contacts.find((x) => x.full_name === 'Kees de Boer')).toMatchObject({
    email: 'k.deboer@bouwjansen.nl',
    phone: '+31612345678',
    title: 'Projectleider',
  });
  // The addresses the step found were checked before the waterfall decided to stop at it; the run lists the step.
  expect((await contactsOf(c.id)).map((x) => x.email_status)).toEqual(['valid', 'valid', 'valid']);
  expect(petra.found_by).toEqual({
    contact: { provider: 'website', run_id: result.runId, step: 0 },
    email: { provider: 'website', run_id: result.runId, step: 0 },
  });
  const runs = await api.call('GET', `/companies/${c.id}/enrichment-runs`, { token: owner.token });
  expect(runs.status).toBe(200);
  expect(runs.body).toEqual([
    expect.objectContaining({
      id: result.runId,
      status: 'done',
      stop_at: 'valid',
      stopped_at_step: 0,
      steps: [expect.objectContaining({ position: 0, provider: 'website', status: 'done', found: 3, verified: 3, cost_units: 0, error: null })],
    }),
  ]);
  // What was left unchecked (none of the people's addresses) is checked in a run the enrichment starts as its last step.
  const { runId } = await api.temporal.workflow.getHandle(`company/${c.id}/enrich`).describe();
  expect(await resultWithin(api.temporal.workflow.getHandle(`organization/${orgId}/verify-contacts/enrich-${runId}`))).toMatchObject({ valid: 0 });
  // robots.txt disallows /intern/: never fetched, its person never stored.
  expect(site.requests.some((r) => r.url.startsWith('/intern'))).toBe(false);
  expect(contacts.some((x) => x.email === 'geheim@bouwjansen.nl')).toBe(false);

  const after = (await api.call('GET', `/companies/${c.id}`, { token: owner.token })).body as Schema<'Company'>;
  expect(after).toMatchObject({
    enrichment_status: 'done',
    generic_email: 'info@bouwjansen.nl',
    phone: '+31301234567',
    address: 'Industrieweg 12, 3542 AD, Utrecht',
  });

  const again = await enrich(c.id);
  expect(again.providers[0]).toMatchObject({ created: 0, updated: 3 });
  expect(await contactsOf(c.id)).toHaveLength(3);
});

test('the waterfall goes on to the people-search integration until enough contacts are found', async () => {
  // Its own organization: the first test's contacts (same domain) would otherwise be found by e-mail.
  const { owner, orgId } = await newOrganization(api, 'Waterfall B.V.');
  const company = async (body: Record<string, unknown>) =>
    (await api.call('POST', '/companies', { token: owner.token, body: { organizationId: orgId, ...body } })).body as Schema<'Company'>;
  const contactsOf = async (companyId: string) =>
    (await api.call('GET', `/contacts?organizationId=${orgId}&companyId=${companyId}`, { token: owner.token })).body as Schema<'Contact'>[];
  const bad = await api.call('POST', '/integrations', {
    token: owner.token,
    body: { organizationId: orgId, providerKey: 'hunter', kind: 'enrichment', config: { baseUrl: hunter.url }, secret: 'wrong-key' },
  });
  expect(bad.status).toBe(201);
  const tested = await api.call('POST', `/integrations/${bad.body.id}/test`, { token: owner.token, body: {} });
  expect(tested.body).toMatchObject({ status: 'error', last_error: 'Hunter 401 authentication_failed: No user found for the API key supplied' });

  const good = await api.call('POST', '/integrations', {
    token: owner.token,
    body: { organizationId: orgId, providerKey: 'hunter', kind: 'enrichment', config: { baseUrl: hunter.url }, secret: 'hunter-key-123' },
  });
  const ok = await api.call('POST', `/integrations/${good.body.id}/test`, { token: owner.token, body: {} });
  expect(ok.body).toMatchObject({ status: 'connected', last_error: null, last_tested_at: expect.any(String) });

  // A company whose website is gone: the website step fails, Hunter still finds people.
  const c = await company({ name: 'Jansen Bouw Noord B.V.', website: 'http://127.0.0.1:9/', domain: 'bouwjansen.nl' });
  const result = await enrich(c.id, owner.token);
  expect(result.status).toBe('done');
  expect(result.errors[0]).toMatch(/^website: /);
  expect(result.providers).toEqual([expect.objectContaining({ provider: 'hunter', created: 2 })]);
  const contacts = await contactsOf(c.id);
  expect(contacts.map((x) => x.email).sort()).toEqual(['mark.bakker@bouwjansen.nl', 'petra.jansen@bouwjansen.nl']); // confidence 32 left out
  expect(contacts.find((x) => x.email === 'mark.bakker@bouwjansen.nl')).toMatchObject({
    full_name: 'Mark Bakker',
    title: 'Calculator',
    phone: '+31698765432',
    data_source: 'hunter',
  });
  expect(hunter.requests.filter((r) => r.url.startsWith('/v2/domain-search')).at(-1)!.url).toContain('domain=bouwjansen.nl');
});

test('a company no provider can reach ends failed with the reason', async () => {
  const c = await company({ name: 'Nergens B.V.', website: 'http://127.0.0.1:9/' });
  const result = await enrich(c.id);
  expect(result.status).toBe('failed');
  const after = (await api.call('GET', `/companies/${c.id}`, { token: owner.token })).body as Schema<'Company'>;
  expect(after.enrichment_status).toBe('failed');
  expect(after.enrichment_error).toMatch(/^website: GET http:\/\/127\.0\.0\.1:9\/robots\.txt failed/);
});

test('an erased person is not brought back by enrichment', async () => {
  const c = (await api.call('GET', `/companies?organizationId=${orgId}&kvkNumber=12345678`, { token: owner.token })).body[0] as Schema<'Company'>;
  const kees = (await contactsOf(c.id)).find((x) => x.full_name === 'Kees de Boer')!;
  expect((await api.call('DELETE', `/contacts/${kees.id}`, { token: owner.token })).status).toBe(200);
  const result = await enrich(c.id);
  expect(result.providers[0]).toMatchObject({ created: 0, skipped: 1 });
  const names = (await contactsOf(c.id)).map((x) => x.full_name).sort();
  expect(names).toEqual(['Petra Jansen', 'Sanne Visser', 'erased']);
});

test('a site without JSON-LD: people are read from the text of its pages, once each; its domain comes from the addresses it publishes', async () => {
  const { owner, orgId } = await newOrganization(api, 'Tekst B.V.');
  // The website is on an IP address: it names no domain.
  const created = await api.call('POST', '/companies', {
    token: owner.token,
    body: { organizationId: orgId, name: 'De Vries Installatietechniek B.V.', website: `${textSite.url}/` },
  });
  expect(created.body).toMatchObject({ domain: null });
  const c = created.body as Schema<'Company'>;
  const contacts = async () =>
    (await api.call('GET', `/contacts?organizationId=${orgId}&companyId=${c.id}`, { token: owner.token })).body as Schema<'Contact'>[];

  const result = await enrich(c.id, owner.token);
  expect(result).toMatchObject({ status: 'done', errors: [] });
  const byName = Object.fromEntries((await contacts()).map((x) => [x.full_name, x]));
  // Contact lines (one with its address in a link), a team list, a card, a table row; Jan de Vries is on two pages and is one contact.
  expect(Object.keys(byName).sort()).toEqual(['Fatima el Amrani', 'Henk Smit', 'Jan de Vries', 'Kim Jansen', 'Marieke Bos', 'Piet Bakker']);
  expect(byName['Jan de Vries']).toMatchObject({ title: 'Projectleider', email: 'j.devries@devries-installatie.nl', data_source: 'website' });
  expect(byName['Jan de Vries']!.source_description).toMatch(/^company website \(http:\/\/127\.0\.0\.1:\d+\/contact\)$/);
  expect(byName['Marieke Bos']).toMatchObject({ title: 'Werkvoorbereider', email: 'm.bos@devries-installatie.nl' });
  expect(byName['Henk Smit']).toMatchObject({ title: 'Monteur', email: null, phone: '+31623456789' });
  expect(byName['Fatima el Amrani']).toMatchObject({ title: 'Office manager', email: 'f.elamrani@devries-installatie.nl' });
  expect(byName['Kim Jansen']).toMatchObject({ title: 'Administratie', email: 'k.jansen@devries-installatie.nl' });
  expect(byName['Piet Bakker']).toMatchObject({ title: 'Calculator', email: 'pietbakker1970@gmail.com' });

  // Five of its six non-free-mail addresses are at one domain (the web designer's is not; gmail.com does not count).
  const after = (await api.call('GET', `/companies/${c.id}`, { token: owner.token })).body as Schema<'Company'>;
  expect(after).toMatchObject({ domain: 'devries-installatie.nl', generic_email: 'info@devries-installatie.nl', phone: '+31302345678' });

  const again = await enrich(c.id, owner.token);
  expect(again.providers[0]).toMatchObject({ created: 0, updated: 6 });
  expect(await contacts()).toHaveLength(6);

  // A person erased without an e-mail address stays erased: the next enrichment, naming him again, skips him.
  expect((await api.call('DELETE', `/contacts/${byName['Henk Smit']!.id}`, { token: owner.token })).status).toBe(200);
  const third = await enrich(c.id, owner.token);
  expect(third.providers[0]).toMatchObject({ created: 0, updated: 5, skipped: 1 });
  expect((await contacts()).map((x) => x.full_name).sort()).toEqual(['Fatima el Amrani', 'Jan de Vries', 'Kim Jansen', 'Marieke Bos', 'Piet Bakker', 'erased']);
});

test('a person erased without an e-mail address is not re-created by the people-search integration', async () => {
  const { owner, orgId } = await newOrganization(api, 'Zonder Adres B.V.');
  const integration = await api.call('POST', '/integrations', {
    token: owner.token,
    body: { organizationId: orgId, providerKey: 'hunter', kind: 'enrichment', config: { baseUrl: hunter.url }, secret: 'hunter-key-123' },
  });
  expect(integration.status).toBe(201);
  const c = (
    await api.call('POST', '/companies', {
      token: owner.token,
      body: { organizationId: orgId, name: 'Jansen Bouw Zuid B.V.', website: 'http://127.0.0.1:9/', domain: 'bouwjansen.nl' },
    })
  ).body as Schema<'Company'>;
  const mark = await api.call('POST', '/contacts', {
    token: owner.token,
    body: { organizationId: orgId, companyId: c.id, fullName: 'Mark Bakker', phone: '06 9876 5432' },
  });
  expect(mark.status).toBe(201);
  expect((await api.call('DELETE', `/contacts/${mark.body.id}`, { token: owner.token })).status).toBe(200);

  const result = await enrich(c.id, owner.token);
  expect(result.providers).toEqual([expect.objectContaining({ provider: 'hunter', created: 1, skipped: 1 })]);
  const contacts = (await api.call('GET', `/contacts?organizationId=${orgId}&companyId=${c.id}`, { token: owner.token })).body as Schema<'Contact'>[];
  expect(contacts.map((x) => x.full_name).sort()).toEqual(['Petra Jansen', 'erased']);
  expect(contacts.some((x) => x.email === 'mark.bakker@bouwjansen.nl')).toBe(false);
});

test('an erasure that commits while enrichment waits for the contact’s row is not undone', async () => {
  const { owner, orgId } = await newOrganization(api, 'Gelijktijdig B.V.');
  const c = (
    await api.call('POST', '/companies', {
      token: owner.token,
      body: { organizationId: orgId, name: 'Bouwbedrijf Jansen B.V.', website: `${site.url}/`, domain: 'bouwjansen.nl' },
    })
  ).body as Schema<'Company'>;
  await enrich(c.id, owner.token);
  const list = async () => (await api.call('GET', `/contacts?organizationId=${orgId}&companyId=${c.id}`, { token: owner.token })).body as Schema<'Contact'>[];
  const kees = (await list()).find((x) => x.full_name === 'Kees de Boer')!;

  // An erasure of Kees, as eraseContact does it, held open: it locks his row until it commits.
  const eraser = new Client({ connectionString: testEnv('TEST_OWNER_DB_URL') });
  await eraser.connect();
  try {
    await eraser.query('BEGIN');
    await eraser.query('SELECT id FROM contacts WHERE id = $1 FOR UPDATE', [kees.id]);
    await eraser.query(`INSERT INTO suppressions (organization_id, scope, value, reason) VALUES ($1, 'email_hash', $2, 'erasure')`, [
      orgId,
      emailHash('k.deboer@bouwjansen.nl'),
    ]);
    await eraser.query(`UPDATE contacts SET full_name = 'erased', email = NULL, phone = NULL, title = NULL, erased_at = now() WHERE id = $1`, [kees.id]);
    const running = enrich(c.id, owner.token);
    // Wait until the enrichment's update of Kees waits for the erasure's lock, then commit the erasure.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const waiting = await owners.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE 'update "contacts"%'`,
      );
      if (waiting.rows[0].n > 0) break;
      if (Date.now() > deadline) throw new Error('the enrichment never waited for the erasure');
      await new Promise((r) => setTimeout(r, 50));
    }
    await eraser.query('COMMIT');
    const result = await running;
    expect(result.providers[0]).toMatchObject({ created: 0, skipped: 1 });
  } finally {
    await eraser.end();
  }
  const after = (await owners.query('SELECT full_name, email, phone, title FROM contacts WHERE id = $1', [kees.id])).rows[0];
  expect(after).toEqual({ full_name: 'erased', email: null, phone: null, title: null });
  expect((await list()).some((x) => x.email === 'k.deboer@bouwjansen.nl')).toBe(false);
});

test('enrich needs a write role; another tenant gets 404', async () => {
  const c = (await api.call('GET', `/companies?organizationId=${orgId}&kvkNumber=12345678`, { token: owner.token })).body[0] as Schema<'Company'>;
  const viewer = await addMember(api, owner, orgId, 'viewer');
  expectProblem(await api.call('POST', `/companies/${c.id}/enrich`, { token: viewer.token, body: {} }), 403, 'FORBIDDEN');
  const other = await newOrganization(api, 'Other');
  expectProblem(await api.call('POST', `/companies/${c.id}/enrich`, { token: other.owner.token, body: {} }), 404, 'NOT_FOUND');
});

test('the enrichment stage matches the company a ready signal names (KvK, then domain, then name), links it, and enriches a new one', async () => {
  const feeds = await startFeedServer();
  try {
    const existing = (await api.call('GET', `/companies?organizationId=${orgId}&kvkNumber=12345678`, { token: owner.token })).body[0] as Schema<'Company'>;
    const now = new Date();
    feeds.set('/named.xml', {
      body: rssFeed('Named', [
        {
          guid: 'n-1',
          title: 'Aanvraag omgevingsvergunning: 60 woningen met warmtepompen, Leidsche Rijn',
          description: 'Aanvrager Bouwbedrijf Jansen B.V. (KvK 12345678), bouwsom EUR 18 mln.',
          pubDate: now,
        },
        {
          guid: 'n-2',
          title: 'Aanvraag omgevingsvergunning: nieuwbouw school met warmtepompen, Vleuten',
          description: 'Aanvraag door Scholenbouw Midden BV, bouwsom EUR 9 mln.',
          pubDate: now,
        },
      ]),
    });
    const src = await api.call('POST', '/sources', {
      token: owner.token,
      body: { organizationId: orgId, providerKey: 'rss', name: 'Named', config: { url: `${feeds.url}/named.xml` } },
    });
    const run = await api.call('POST', `/sources/${src.body.id}/run`, { token: owner.token, body: {} });
    const outcome = await api.temporal.workflow.getHandle(run.body.workflow_id, run.body.run_id).result();
    const results = await Promise.all(outcome.signalIds.map((id: string) => api.temporal.workflow.getHandle(`signal/${id}`).result()));
    const stages = results.map((r) => r.stages.find((s: { stage: string }) => s.stage === 'enrichment')?.detail);
    expect(stages).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ companyId: existing.id, created: false, matchedBy: 'kvk_number' }),
        expect.objectContaining({ created: true, enrich: true }),
      ]),
    );
    const school = stages.find((d) => d.created)!;
    const company = (await api.call('GET', `/companies/${school.companyId}`, { token: owner.token })).body as Schema<'Company'>;
    expect(company).toMatchObject({ name: 'Scholenbouw Midden BV', normalized_name: 'scholenbouw midden' });
    // Its enrichment ran as its own workflow (it has no website: it ends failed, saying why).
    const enrichment = await api.temporal.workflow.getHandle(`company/${school.companyId}/enrich`).result();
    expect(enrichment.status).toBe('failed');
    const opportunities = (await api.call('GET', `/opportunities?organizationId=${orgId}`, { token: owner.token })).body;
    expect(opportunities.map((o: Schema<'Opportunity'>) => o.company_id).sort()).toEqual([existing.id, school.companyId].sort());
  } finally {
    await feeds.close();
  }
});
