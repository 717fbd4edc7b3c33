import { readFileSync } from 'node:fs';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { newOrganization } from '../helpers/api';
import type { Schema } from '../helpers/client';
import { Pool } from 'pg';
import { startFeedServer, FeedServer } from '../helpers/feed-server';
import { rssFeed } from '../helpers/rss';
import { testEnv, TestUser } from '../helpers/tokens';
import { linkProjects } from '../../domain/signals/projects';
import { useStack } from '../helpers/stack';
import { NoResultInTime, resultWithin } from '../helpers/workflow-result';

// A test here waits for several runs, each up to resultWithin's 30 s: room for the run that gets stuck to be described.
jest.setTimeout(120_000);

/** Ingest through the real worker process against recorded feeds served on 127.0.0.1. */
const { api } = useStack({ api: true });
let feeds: FeedServer;
let owner: TestUser;
let orgId: string;

beforeAll(async () => {
  feeds = await startFeedServer();
  ({ owner, orgId } = await newOrganization(api));
});
afterAll(async () => {
  await feeds.close();
});

async function createSource(name: string, url: string, extra: Record<string, unknown> = {}) {
  const res = await api.call('POST', '/sources', {
    token: owner.token,
    body: { organizationId: orgId, providerKey: 'rss', name, config: { url }, countryCode: 'NL', language: 'nl', ...extra },
  });
  expect(res.status).toBe(201);
  return res.body as Schema<'Source'>;
}

/** POST /sources/{id}/run, then wait for the workflow it started. */
async function run(sourceId: string) {
  const res = await api.call('POST', `/sources/${sourceId}/run`, { token: owner.token, body: {} });
  expect(res.status).toBe(202);
  expect(res.body).toMatchObject({ id: sourceId, workflow_id: `ingest/${sourceId}` });
  const handle = api.temporal.workflow.getHandle(res.body.workflow_id, res.body.run_id);
  return resultWithin(handle).then(
    (outcome) => ({ ok: true as const, outcome }),
    (err) => {
      if (err instanceof NoResultInTime) throw err;
      return { ok: false as const, err };
    },
  );
}

async function signalsOf(sourceId: string) {
  const res = await api.call('GET', `/signals?organizationId=${orgId}&limit=100`, { token: owner.token });
  expect(res.status).toBe(200);
  return (res.body as Schema<'Signal'>[]).filter((s) => s.source_id === sourceId);
}

test('an RSS 2.0 feed becomes ingested signals; a second run adds nothing', async () => {
  feeds.set('/permits.xml', { fixture: 'feeds/permits-rss.xml' });
  const source = await createSource('Utrecht permits', `${feeds.url}/permits.xml`);

  const first = await run(source.id);
  expect(first).toMatchObject({ ok: true, outcome: { status: 'succeeded', fetched: 3, created: 3 } });
  const signals = await signalsOf(source.id);
  expect(signals).toHaveLength(3);
  const housing = signals.find((s) => s.external_id === 'utrecht-2026-118233')!;
  // Processing (started by the run) may already have moved it past `ingested`.
  expect(['ingested', 'classified', 'scored', 'ignored', 'qualified', 'ready']).toContain(housing.status);
  expect(housing).toMatchObject({
    organization_id: orgId,
    title: 'Aanvraag omgevingsvergunning: nieuwbouw 48 woningen, Merwedekanaalzone blok 4',
    source_url: 'https://www.utrecht.nl/bekendmakingen/2026-118233',
    published_at: '2026-11-16T07:30:00.000Z',
    dedupe_key: 'title:aanvraag omgevingsvergunning nieuwbouw 48 woningen merwedekanaalzone blok 4',
    raw_publication_id: expect.any(String),
  });
  expect(housing.summary).toContain('48 woningen');
  expect(housing.summary).not.toContain('<p>');

  // The server answers 304 to the stored ETag: nothing is re-read, nothing is added.
  const second = await run(source.id);
  expect(second).toMatchObject({ ok: true, outcome: { status: 'not_modified', created: 0 } });
  expect(feeds.hits('/permits.xml').notModified).toBe(1);
  expect(await signalsOf(source.id)).toHaveLength(3);

  const detail = await api.call('GET', `/sources/${source.id}`, { token: owner.token });
  expect(detail.body).toMatchObject({ last_run_status: 'not_modified', last_error: null });
});

test('an Atom feed is ingested; a changed feed adds only its new entries; an entry re-published under a new id is a new signal of the same project', async () => {
  feeds.set('/tenders.atom', { fixture: 'feeds/tenders-atom.xml', contentType: 'application/atom+xml' });
  const source = await createSource('EU tenders', `${feeds.url}/tenders.atom`);
  expect(await run(source.id)).toMatchObject({ ok: true, outcome: { created: 2 } });
  const signals = await signalsOf(source.id);
  expect(signals.map((s) => s.external_id).sort()).toEqual(['urn:tender:2026-NL-44098', 'urn:tender:2026-NL-44120']);
  expect(signals.find((s) => s.external_id === 'urn:tender:2026-NL-44120')).toMatchObject({
    source_url: 'https://tenders.example.eu/notice/2026-NL-44120',
    published_at: '2026-11-17T06:45:00.000Z',
  });

  // A new entry, plus an old entry re-published under a new id (same title): both are new signals;
  // the re-published one joins the project of the original (same title, within the window).
  const changed = readFileSync(path.join(__dirname, '../fixtures/feeds/tenders-atom.xml'), 'utf8').replace(
    '</feed>',
    `<entry><title>Tender: roof-mounted solar installation, sports hall Zeist</title><id>urn:tender:2026-NL-45001</id>
        <link href="https://tenders.example.eu/notice/2026-NL-45001"/><updated>2026-11-18T09:00:00Z</updated></entry>
       <entry><title>Tender: maintenance of municipal heat pumps, lot 2</title><id>urn:tender:2026-NL-44098-r1</id>
        <link href="https://tenders.example.eu/notice/2026-NL-44098-r1"/><updated>2026-11-18T09:00:00Z</updated></entry>
      </feed>`,
  );
  feeds.set('/tenders.atom', { body: changed, contentType: 'application/atom+xml' });
  expect(await run(source.id)).toMatchObject({ ok: true, outcome: { status: 'succeeded', fetched: 4, created: 2 } });
  const after = await signalsOf(source.id);
  expect(after).toHaveLength(4);
  const byId = (id: string) => after.find((s) => s.external_id === id)!;
  expect(byId('urn:tender:2026-NL-44098-r1').project_id).toBe(byId('urn:tender:2026-NL-44098').project_id);
  expect(byId('urn:tender:2026-NL-45001').project_id).not.toBe(byId('urn:tender:2026-NL-44098').project_id);
});

test('a feed with the same guid, or the same link, twice in one document stores each publication once', async () => {
  const items = [
    { guid: 'dup-1', title: 'Aanvraag omgevingsvergunning: dakopbouw Oudegracht 1', pubDate: new Date('2026-11-18T08:00:00Z') },
    { guid: 'dup-1', title: 'Aanvraag omgevingsvergunning: dakopbouw Oudegracht 1', pubDate: new Date('2026-11-18T08:00:00Z') },
  ];
  // Without a guid the link is the external id: the same link twice is the same publication.
  const linkOnly = (title: string) =>
    `<item><title>${title}</title><link>https://example.org/same-link</link><pubDate>Wed, 18 Nov 2026 09:00:00 GMT</pubDate></item>`;
  const body = rssFeed('Duplicates', items).replace(
    '</channel>',
    `${linkOnly('Sloopmelding: loods Kanaalweg 5')}${linkOnly('Sloopmelding: loods Kanaalweg 5 (herzien)')}</channel>`,
  );
  feeds.set('/duplicates.xml', { body });
  const source = await createSource('Duplicates', `${feeds.url}/duplicates.xml`);
  const result = await run(source.id);
  expect(result).toMatchObject({ ok: true, outcome: { status: 'succeeded', fetched: 4, created: 2 } });
  expect((await signalsOf(source.id)).map((s) => s.external_id).sort()).toEqual(['dup-1', 'https://example.org/same-link']);
});

test('a yearly publication with the same title is a new signal; the title links signals to one project only within the window', async () => {
  const title = 'Aanbesteding: jaarlijks onderhoud warmtepompen gemeentehuis';
  feeds.set('/yearly.xml', {
    body: rssFeed('Yearly', [
      { guid: 'y-2024', title, pubDate: new Date('2024-11-10T08:00:00Z') },
      { guid: 'y-2025', title, pubDate: new Date('2025-11-10T08:00:00Z') },
      { guid: 'y-2025-correction', title, pubDate: new Date('2025-11-24T08:00:00Z') },
    ]),
  });
  const source = await createSource('Yearly tenders', `${feeds.url}/yearly.xml`);
  expect(await run(source.id)).toMatchObject({ ok: true, outcome: { status: 'succeeded', fetched: 3, created: 3 } });
  const signals = await signalsOf(source.id);
  const project = (id: string) => signals.find((s) => s.external_id === id)!.project_id;
  expect(signals).toHaveLength(3);
  expect(project('y-2025-correction')).toBe(project('y-2025')); // 14 days apart: one project
  expect(project('y-2024')).not.toBe(project('y-2025')); // a year apart: a new project
  expect(new Set(signals.map((s) => s.dedupe_key)).size).toBe(1);
});

test('a retried run returns every signal of its fetch still waiting to be processed, also those an earlier attempt stored', async () => {
  const owners = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 1 });
  // A real failure after the batches are stored: the first "succeeded" update of this source fails once.
  await owners.query(`
    CREATE SEQUENCE IF NOT EXISTS test_fail_once_seq;
    CREATE OR REPLACE FUNCTION test_fail_once() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
    BEGIN
      IF NEW.name = 'Fails once' AND NEW.last_run_status = 'succeeded' THEN
        IF nextval('test_fail_once_seq') = 1 THEN
          RAISE EXCEPTION 'simulated failure after the batches were stored';
        END IF;
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER test_fail_once BEFORE UPDATE ON sources FOR EACH ROW EXECUTE FUNCTION test_fail_once();`);
  try {
    feeds.set('/retried.xml', { fixture: 'feeds/permits-rss.xml' });
    const source = await createSource('Fails once', `${feeds.url}/retried.xml`);
    const result = await run(source.id);
    expect(result.ok).toBe(true);
    const outcome = (result as { outcome: any }).outcome;
    expect(outcome.status).toBe('succeeded');
    expect(feeds.hits('/retried.xml').total).toBe(2); // the activity was retried
    expect(outcome.signalIds).toHaveLength(3); // stored by the first attempt, returned by the second
    await Promise.all(outcome.signalIds.map((id: string) => resultWithin(api.temporal.workflow.getHandle(`signal/${id}`))));
    expect((await signalsOf(source.id)).filter((s) => s.status === 'ingested')).toEqual([]);

    // The fetch's validators moved, then the result was lost: the next run (304) returns what is still waiting.
    const waiting = outcome.signalIds[0];
    await owners.query(`UPDATE signals SET status = 'ingested' WHERE id = $1`, [waiting]);
    const again = await run(source.id);
    expect(again).toMatchObject({ ok: true, outcome: { status: 'not_modified', created: 0, signalIds: [waiting] } });
    await resultWithin(api.temporal.workflow.getHandle(`signal/${waiting}`));
    expect((await signalsOf(source.id)).find((s) => s.id === waiting)).toMatchObject({ status: expect.not.stringMatching(/^ingested$/) });
  } finally {
    await owners.query(
      'DROP TRIGGER IF EXISTS test_fail_once ON sources; DROP FUNCTION IF EXISTS test_fail_once(); DROP SEQUENCE IF EXISTS test_fail_once_seq;',
    );
    await owners.end();
  }
});

test('a malformed feed fails the run, records the error on the source and writes nothing', async () => {
  feeds.set('/broken.xml', { fixture: 'feeds/malformed.xml' });
  const source = await createSource('Broken feed', `${feeds.url}/broken.xml`);
  const result = await run(source.id);
  expect(result.ok).toBe(false);
  expect((result as { err: unknown }).err).toBeInstanceOf(WorkflowFailedError);
  // Not retried: a parse error cannot heal by itself.
  expect(feeds.hits('/broken.xml').total).toBe(1);
  const after = await api.call('GET', `/sources/${source.id}`, { token: owner.token });
  expect(after.body).toMatchObject({ last_run_status: 'failed', last_error: expect.stringContaining('not a valid RSS or Atom feed') });
  expect(await signalsOf(source.id)).toHaveLength(0);
  const raw = await api.db.selectFrom('raw_publications').select('id').where('source_id', '=', source.id).execute();
  expect(raw).toHaveLength(0); // the app role sees nothing without a tenant context either way
});

test('an unreachable feed is retried, then fails with the error recorded', async () => {
  const source = await createSource('Gone', 'http://127.0.0.1:9/feed.xml');
  const result = await run(source.id);
  expect(result.ok).toBe(false);
  const after = await api.call('GET', `/sources/${source.id}`, { token: owner.token });
  expect(after.body.last_run_status).toBe('failed');
  expect(after.body.last_error).toMatch(/ECONNREFUSED|failed/);
  expect(await signalsOf(source.id)).toHaveLength(0);
});

test('an HTTP 404 from the feed fails the run without retries', async () => {
  const source = await createSource('Missing', `${feeds.url}/nowhere.xml`);
  const result = await run(source.id);
  expect(result.ok).toBe(false);
  expect(feeds.hits('/nowhere.xml').total).toBe(1);
  const after = await api.call('GET', `/sources/${source.id}`, { token: owner.token });
  expect(after.body.last_error).toContain('HTTP 404');
});

test('a run is found in Temporal by a visibility query on OrganizationId and SourceId', async () => {
  feeds.set('/visible.xml', { fixture: 'feeds/permits-rss.xml' });
  const source = await createSource('Visible', `${feeds.url}/visible.xml`);
  await run(source.id);
  const query = `OrganizationId = '${orgId}' AND SourceId = '${source.id}'`;
  let found: string[] = [];
  for (let i = 0; i < 40 && found.length === 0; i++) {
    found = [];
    for await (const wf of api.temporal.workflow.list({ query })) found.push(wf.workflowId);
    if (found.length === 0) await new Promise((r) => setTimeout(r, 250));
  }
  expect(found).toContain(`ingest/${source.id}`);
});

test('a disabled source is not run (409)', async () => {
  const source = await createSource('Paused', `${feeds.url}/permits.xml`, { enabled: false });
  const res = await api.call('POST', `/sources/${source.id}/run`, { token: owner.token, body: {} });
  expect(res.status).toBe(409);
  expect(res.body.code).toBe('CONFLICT');
});

test('linkProjects (pure): the nearest project within the window, a new one beyond it, oldest first', () => {
  const day = 24 * 3600 * 1000;
  const at = (iso: string) => new Date(iso);
  const existing = [
    { id: 'p-2024', dedupeKey: 'k', lastSeenAt: at('2024-11-10T00:00:00Z') },
    { id: 'p-2025', dedupeKey: 'k', lastSeenAt: at('2025-11-10T00:00:00Z') },
    { id: 'p-other', dedupeKey: 'other', lastSeenAt: at('2025-11-10T00:00:00Z') },
  ];
  const items = [
    { name: 'late', dedupeKey: 'k', at: at('2026-11-10T00:00:00Z') },
    { name: 'near-2025', dedupeKey: 'k', at: at('2025-12-01T00:00:00Z') },
    { name: 'near-2024', dedupeKey: 'k', at: at('2024-10-01T00:00:00Z') },
    { name: 'late-again', dedupeKey: 'k', at: at('2026-12-20T00:00:00Z') },
  ];
  let n = 0;
  const links = linkProjects(items, existing, 60 * day, () => `new-${++n}`);
  const of = (name: string) => links.projectOf.get(items.find((i) => i.name === name)!);
  expect([of('near-2024'), of('near-2025'), of('late'), of('late-again')]).toEqual(['p-2024', 'p-2025', 'new-1', 'new-1']);
  expect(links.created).toEqual([{ id: 'new-1', dedupeKey: 'k', lastSeenAt: at('2026-12-20T00:00:00Z') }]);
  // Only a later signal moves a project's last sighting; an earlier one (near-2024) leaves it.
  expect(links.moved).toEqual([{ id: 'p-2025', dedupeKey: 'k', lastSeenAt: at('2025-12-01T00:00:00Z') }]);
  expect(existing[1]!.lastSeenAt).toEqual(at('2025-11-10T00:00:00Z')); // the input is not changed
});
