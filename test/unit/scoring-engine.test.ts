import { decide, distanceKm, scoreSignal, ScoringSubject } from '../../domain/scoring/engine';
import { DEFAULT_RULES, DEFAULT_THRESHOLDS } from '../../domain/scoring/defaults';

const now = new Date('2026-11-21T12:00:00Z');
const config = { ...DEFAULT_THRESHOLDS, homeLat: 52.0907, homeLng: 5.1214 }; // Utrecht
const subject = (over: Partial<ScoringSubject> = {}): ScoringSubject => ({
  commercialRelevance: true,
  confidence: 0.8,
  relevanceReasons: ['residential project'],
  projectStage: 'permit_application',
  estimatedSize: 3_000_000,
  fitMatches: ['warmtepomp'],
  publishedAt: new Date('2026-11-21T00:00:00Z'),
  lat: 52.1561, // Amersfoort
  lng: 5.3878,
  sourceKind: 'bekendmakingen',
  now,
  ...over,
});
const byDim = (r: ReturnType<typeof scoreSignal>, d: string) => r.components.find((c) => c.dimension === d)!;

test('great-circle distance', () => {
  expect(distanceKm(52.0907, 5.1214, 52.3676, 4.9041)).toBeCloseTo(34.6, 0); // Utrecht - Amsterdam
  expect(distanceKm(0, 0, 0, 0)).toBe(0);
});

test('points = min(max_points, raw × weight), reasons on every component, components add up to the total', () => {
  const r = scoreSignal(config, DEFAULT_RULES, subject());
  expect(byDim(r, 'commercial_relevance')).toMatchObject({ raw_value: 0.8, weight: 30, points: 24, origin: 'rule' });
  expect(byDim(r, 'distance')).toMatchObject({ raw_value: 1, points: 15 });
  expect(byDim(r, 'distance').reason).toMatch(/^19\.\d km from home \(within 25 km\)$/);
  expect(byDim(r, 'project_size')).toMatchObject({ raw_value: 0.75, points: 15 });
  expect(byDim(r, 'project_stage')).toMatchObject({ raw_value: 1, points: 10 });
  expect(byDim(r, 'recency').points).toBeGreaterThan(9.7);
  expect(byDim(r, 'fit')).toMatchObject({ raw_value: 1, points: 5, reason: 'matches warmtepomp' });
  expect(byDim(r, 'source')).toMatchObject({ raw_value: 1, points: 5 });
  expect(r.total).toBeCloseTo(
    r.components.reduce((s, c) => s + c.points, 0),
    9,
  );
  expect(r.decision).toBe('opportunity');
});

test('max_points caps a component', () => {
  const r = scoreSignal(config, DEFAULT_RULES, subject({ fitMatches: ['a', 'b', 'c', 'd', 'e'] }));
  expect(byDim(r, 'fit')).toMatchObject({ raw_value: 5, weight: 5, points: 10 });
});

test('without a location the distance component scores 0 and says why', () => {
  expect(byDim(scoreSignal(config, DEFAULT_RULES, subject({ lat: null, lng: null })), 'distance')).toMatchObject({
    points: 0,
    reason: 'the signal has no location',
  });
  expect(byDim(scoreSignal({ ...config, homeLat: null, homeLng: null }, DEFAULT_RULES, subject()), 'distance')).toMatchObject({
    points: 0,
    reason: 'no home location configured',
  });
  // Groningen is ~160 km from Utrecht: beyond every default band.
  expect(byDim(scoreSignal(config, DEFAULT_RULES, subject({ lat: 53.2194, lng: 6.5665 })), 'distance')).toMatchObject({ points: 0 });
});

test('recency halves every half-life', () => {
  const old = scoreSignal(config, DEFAULT_RULES, subject({ publishedAt: new Date('2026-11-07T12:00:00Z') }));
  expect(byDim(old, 'recency')).toMatchObject({ raw_value: 0.5, points: 5, reason: 'published 14 days ago (half-life 14 days)' });
});

test('an irrelevant signal scores no relevance points and is ignored', () => {
  const r = scoreSignal(
    config,
    DEFAULT_RULES,
    subject({ commercialRelevance: false, estimatedSize: null, projectStage: null, fitMatches: [], lat: null, lng: null }),
  );
  expect(byDim(r, 'commercial_relevance')).toMatchObject({ points: 0, reason: 'not commercially relevant' });
  expect(r.decision).toBe('ignore');
});

test('decisions follow the thresholds', () => {
  expect(decide(64.99, config)).toBe('qualify');
  expect(decide(65, config)).toBe('opportunity');
  expect(decide(45, config)).toBe('qualify');
  expect(decide(44.9, config)).toBe('ignore');
});
