import { apiClient, ok, Schemas } from '../helpers/client';
import { startFeedServer, FeedServer } from '../helpers/feed-server';
import { rssFeed } from '../helpers/rss';
import { newUser } from '../helpers/tokens';
import { useStack } from '../helpers/stack';

/**
 * A client integrating from another service, on day one: only the typed client generated from the
 * OpenAPI document (no hand-typed shapes), through a realistic first run. Every answer is also
 * validated against the document by the client's middleware.
 */
const { api } = useStack({ api: true });
let feeds: FeedServer;

beforeAll(async () => {
  feeds = await startFeedServer();
});
afterAll(async () => {
  await feeds.close();
});

const HOUSING = 'Aanvraag omgevingsvergunning: nieuwbouw 48 woningen met warmtepompen, Merwedekanaalzone blok 4';

/** Lists the organization's signals until none is waiting for the pipeline. */
async function processedSignals(client: ReturnType<typeof apiClient>, organizationId: string, count: number): Promise<Schemas['Signal'][]> {
  const deadline = Date.now() + 45_000;
  for (;;) {
    const signals = ok(await client.GET('/signals', { params: { query: { organizationId } } }));
    if (signals.length >= count && signals.every((s) => s.status !== 'ingested' && s.status !== 'classified')) return signals;
    if (Date.now() > deadline) throw new Error(`signals not processed in time: ${JSON.stringify(signals.map((s) => s.status))}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

test('organization, source, signals, company, contact, compliance gate and settings through the typed client', async () => {
  const user = await newUser();
  const client = apiClient(api.url, user.token);

  const org: Schemas['Organization'] = ok(await client.POST('/organizations', { body: { name: 'Typed Client Installaties B.V.' } }));
  expect(org.role).toBe('owner');
  const mine = ok(await client.GET('/organizations'));
  expect(mine.map((o) => o.id)).toContain(org.id);

  // A source, run once: its publications become signals that the pipeline scores.
  feeds.set('/permits.xml', {
    body: rssFeed('permits', [{ guid: 'p-1', title: HOUSING, description: 'Geraamde bouwsom EUR 14,5 mln.', pubDate: new Date() }]),
  });
  const source = ok(
    await client.POST('/sources', { body: { organizationId: org.id, providerKey: 'rss', name: 'Permits', config: { url: `${feeds.url}/permits.xml` } } }),
  );
  expect(source).toMatchObject({ provider_key: 'rss', enabled: true, schedule: null, last_run_at: null });
  const run = ok(await client.POST('/sources/{sourceId}/run', { params: { path: { sourceId: source.id } }, body: {} }));
  expect(run.workflow_id).toBe(`ingest/${source.id}`);

  const [signal] = await processedSignals(client, org.id, 1);
  expect(signal).toMatchObject({ title: HOUSING, source_id: source.id, status: 'ready' });
  const detail = ok(await client.GET('/signals/{signalId}', { params: { path: { signalId: signal!.id } } }));
  expect(detail.score?.decision).toBe('opportunity');
  expect(detail.breakdown?.components.length).toBeGreaterThan(0);
  expect(detail.classification?.estimated_size).toBe(14_500_000);

  // The typed error: a problem with its code.
  const missing = await client.GET('/signals/{signalId}', { params: { path: { signalId: '00000000-0000-4000-8000-000000000000' } } });
  expect(missing.response.status).toBe(404);
  expect(missing.error?.code).toBe('NOT_FOUND');

  // A company and a contact; the gate opens once a lawful basis is recorded.
  const company = ok(
    await client.POST('/companies', {
      body: { organizationId: org.id, name: 'Bouwbedrijf Merwede B.V.', kvkNumber: '12345678', website: 'https://www.merwede-bouw.nl', legalForm: 'bv' },
    }),
  );
  expect(company).toMatchObject({ domain: 'merwede-bouw.nl', recipient_kind: 'legal_person', enrichment_status: 'idle' });
  const contact = ok(
    await client.POST('/contacts', {
      body: { organizationId: org.id, companyId: company.id, fullName: 'Jan de Vries', title: 'Projectleider', email: 'jan@merwede-bouw.nl' },
    }),
  );
  const closed = ok(await client.GET('/contacts/{contactId}/channels', { params: { path: { contactId: contact.id } } }));
  expect(closed.contactable).toBe(false);
  expect(closed.reasons).toContain('no_lawful_basis');
  ok(
    await client.PUT('/contacts/{contactId}/lawful-basis', {
      params: { path: { contactId: contact.id } },
      body: {
        organizationId: org.id,
        basis: 'legitimate_interest',
        recipient_kind: 'legal_person',
        country: 'NL',
        assessment: 'B2B installation offer relevant to the project',
      },
    }),
  );
  const withBasis = ok(await client.GET('/contacts/{contactId}', { params: { path: { contactId: contact.id } } }));
  expect(withBasis.lawful_basis?.basis).toBe('legitimate_interest');
  const gate = ok(await client.GET('/contacts/{contactId}/channels', { params: { path: { contactId: contact.id } } }));
  expect(gate.lawful_basis).toMatchObject({ basis: 'legitimate_interest', country: 'NL' });
  expect(gate.channels.find((c) => c.channel === 'phone')).toMatchObject({ allowed: true });

  // Settings: a new scoring version, compliance settings audited.
  const scoring = ok(await client.GET('/settings/scoring', { params: { query: { organizationId: org.id } } }));
  const next = ok(await client.PATCH('/settings/scoring', { body: { organizationId: org.id, qualifyAt: scoring.config.qualify_at + 1 } }));
  expect(next.config.version).toBe(scoring.config.version + 1);
  expect(next.rules).toHaveLength(scoring.rules.length);
  const settings = ok(
    await client.PATCH('/compliance/settings', { body: { organizationId: org.id, retentionMonths: 12, senderLegalName: 'Typed Client Installaties B.V.' } }),
  );
  expect(settings).toMatchObject({ retention_months: 12, sender_legal_name: 'Typed Client Installaties B.V.' });
  const audit = ok(await client.GET('/compliance/audit', { params: { query: { organizationId: org.id, entity: 'compliance_settings' } } }));
  expect(audit.map((a) => a.field).sort()).toEqual(['retention_months', 'sender_legal_name']);
});
