import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildSruUrl, parseSruResponse } from '../../activities/providers/sources/bekendmakingen';
import { pointFromText, rdToWgs84 } from '../../activities/providers/sources/geo';
import { jsonApiConfigSchema, mapJsonItems } from '../../activities/providers/sources/json-api';
import { MalformedSourceError } from '../../activities/providers/sources/types';
import { startApi, newOrganization, TestApi, expectProblem } from '../helpers/api';
import { startFeedServer, FeedServer } from '../helpers/feed-server';
import type { TestUser } from '../helpers/tokens';

const fixture = (p: string) => readFileSync(path.join(__dirname, '../fixtures', p), 'utf8');

describe('Dutch national grid', () => {
  test('RD (EPSG:28992) to WGS84', () => {
    const amersfoort = rdToWgs84(155000, 463000); // the grid's origin, Onze Lieve Vrouwetoren
    expect(amersfoort.lat).toBeCloseTo(52.155, 2);
    expect(amersfoort.lng).toBeCloseTo(5.387, 2);
  });
  test('points from RD text, WKT and lat/lng', () => {
    expect(pointFromText('155000 463000')!.lat).toBeCloseTo(52.155, 2);
    expect(pointFromText('POINT(5.12 52.09)')).toEqual({ lat: 52.09, lng: 5.12 });
    expect(pointFromText('52.09 5.12')).toEqual({ lat: 52.09, lng: 5.12 });
    expect(pointFromText('nowhere')).toBeNull();
  });
});

describe('officielebekendmakingen SRU', () => {
  test('the request is an SRU 2.0 searchRetrieve with the CQL query', () => {
    const u = new URL(buildSruUrl('https://repository.overheid.nl/sru', 'dt.type=="omgevingsvergunning"', 50));
    expect(Object.fromEntries(u.searchParams)).toEqual({
      operation: 'searchRetrieve',
      version: '2.0',
      query: 'dt.type=="omgevingsvergunning"',
      maximumRecords: '50',
      startRecord: '1',
    });
  });

  test('records parse into publications with title, dates, municipality, location and category', () => {
    const pubs = parseSruResponse(fixture('sru/bekendmakingen-permits.xml'));
    expect(pubs).toHaveLength(3);
    const [flats, hall, solar] = pubs;
    expect(flats).toMatchObject({
      externalId: 'gmb-2026-481207',
      signalType: 'permit',
      municipality: 'Amersfoort',
      url: 'https://zoek.officielebekendmakingen.nl/gmb-2026-481207.html',
      publishedAt: '2026-11-18T00:00:00.000Z',
      locationText: '3818LE 12, Amersfoort',
    });
    expect(flats!.title).toContain('24 appartementen');
    expect(flats!.summary).toContain('EUR 6,2 mln');
    expect(flats!.payload.category).toBe('Bouwen en verbouwen');
    expect(flats!.lat).toBeCloseTo(52.156, 2);
    expect(flats!.lng).toBeCloseTo(5.39, 2);
    // A polygon in RD: its centre.
    expect(hall!.lat).toBeCloseTo(52.06, 1);
    expect(hall!.municipality).toBe('Utrecht');
    // No location: none is invented.
    expect(solar).toMatchObject({ lat: null, lng: null, municipality: 'Zwolle', publishedAt: '2026-11-15T00:00:00.000Z' });
  });

  test('an SRU diagnostic or a non-SRU document is malformed', () => {
    expect(() => parseSruResponse(fixture('sru/diagnostic.xml'))).toThrow(new MalformedSourceError('SRU diagnostic: Query syntax error'));
    expect(() => parseSruResponse('<html><body>maintenance</body></html>')).toThrow(MalformedSourceError);
  });
});

describe('JSON API mapping', () => {
  const config = jsonApiConfigSchema.parse({
    url: 'https://tenders.example.nl/api',
    itemsPath: 'data.results',
    signalType: 'tender',
    fields: {
      externalId: 'id',
      title: 'name',
      summary: 'description',
      url: 'links.self',
      publishedAt: 'published_at',
      municipality: 'buyer.city',
      lat: 'geo.lat',
      lng: 'geo.lon',
    },
  });
  test('maps fields by path, skips items without id or title', () => {
    const pubs = mapJsonItems(JSON.parse(fixture('json/tenders.json')), config);
    expect(pubs.map((p) => p.externalId)).toEqual(['TN-2026-1187', 'TN-2026-1190']);
    expect(pubs[0]).toMatchObject({
      signalType: 'tender',
      municipality: 'Zeist',
      lat: 52.0894,
      lng: 5.2318,
      url: 'https://tenders.example.nl/TN-2026-1187',
      publishedAt: '2026-11-19T08:00:00.000Z',
    });
    expect(pubs[0]!.summary).toBe('Vervanging klimaatinstallatie en plaatsing warmtepompen en zonnepanelen.');
    expect(pubs[1]).toMatchObject({ lat: null, lng: null, summary: null });
  });
  test('a path that is not an array is malformed', () => {
    expect(() => mapJsonItems({ data: {} }, config)).toThrow(MalformedSourceError);
  });
});

describe('through the worker', () => {
  let api: TestApi;
  let server: FeedServer;
  let owner: TestUser;
  let orgId: string;
  beforeAll(async () => {
    api = await startApi();
    server = await startFeedServer();
    ({ owner, orgId } = await newOrganization(api));
    // Home in Utrecht, so that distance scores from the notices' coordinates.
    await api.call('PATCH', '/settings/scoring', { token: owner.token, body: { organizationId: orgId, homeLat: 52.0907, homeLng: 5.1214 } });
  });
  afterAll(async () => {
    await server.close();
    await api.close();
  });

  async function runSource(body: Record<string, unknown>) {
    const src = await api.call('POST', '/sources', { token: owner.token, body: { organizationId: orgId, ...body } });
    expect(src.status).toBe(201);
    const run = await api.call('POST', `/sources/${src.body.id}/run`, { token: owner.token, body: {} });
    const outcome = await api.temporal.workflow.getHandle(run.body.workflow_id, run.body.run_id).result();
    await Promise.all(outcome.signalIds.map((id: string) => api.temporal.workflow.getHandle(`signal/${id}`).result()));
    return { source: src.body, outcome };
  }

  test('bekendmakingen: permit notices become signals whose distance is scored from their coordinates', async () => {
    server.set('/sru', { fixture: 'sru/bekendmakingen-permits.xml' });
    const { source, outcome } = await runSource({
      providerKey: 'bekendmakingen',
      name: 'Gemeenteblad',
      config: { url: `${server.url}/sru`, query: 'dt.type=="omgevingsvergunning"' },
      countryCode: 'NL',
    });
    expect(outcome).toMatchObject({ status: 'succeeded', fetched: 3, created: 3 });
    const signals = (await api.call('GET', `/signals?organizationId=${orgId}`, { token: owner.token })).body.filter(
      (s: { source_id: string }) => s.source_id === source.id,
    );
    const flats = signals.find((s: { external_id: string }) => s.external_id === 'gmb-2026-481207');
    expect(flats).toMatchObject({ signal_type: 'permit', source_url: 'https://zoek.officielebekendmakingen.nl/gmb-2026-481207.html' });
    const detail = (await api.call('GET', `/signals/${flats.id}`, { token: owner.token })).body;
    const distance = detail.components.find((c: { dimension: string }) => c.dimension === 'distance');
    expect(distance).toMatchObject({ raw_value: 1, points: 15 });
    expect(distance.reason).toMatch(/^\d+(\.\d)? km from home \(within 25 km\)$/);
    expect(detail.classification).toMatchObject({ project_category: 'residential', project_stage: 'permit_application', estimated_size: 6_200_000 });
  });

  test('json_api: a config without a field mapping is rejected; a mapped API is ingested', async () => {
    const bad = await api.call('POST', '/sources', {
      token: owner.token,
      body: { organizationId: orgId, providerKey: 'json_api', name: 'x', config: { url: `${server.url}/api` } },
    });
    expectProblem(bad, 400, 'VALIDATION_FAILED');
    expect(bad.body.errors.map((e: { path: string }) => e.path)).toContain('body.config.fields');
    server.set('/api', { fixture: 'json/tenders.json', contentType: 'application/json' });
    const { outcome } = await runSource({
      providerKey: 'json_api',
      name: 'Tenders API',
      config: {
        url: `${server.url}/api`,
        itemsPath: 'data.results',
        signalType: 'tender',
        fields: {
          externalId: 'id',
          title: 'name',
          summary: 'description',
          url: 'links.self',
          publishedAt: 'published_at',
          municipality: 'buyer.city',
          lat: 'geo.lat',
          lng: 'geo.lon',
        },
      },
    });
    expect(outcome).toMatchObject({ status: 'succeeded', fetched: 2, created: 2 });
  });
});
