/**
 * The scoring engine: pure, deterministic, no I/O. Each rule turns one dimension of a classified
 * signal into a raw value; points = min(max_points, raw_value × weight); the total decides
 * against the config's thresholds. Every component says why it scored what it scored.
 */
export const DIMENSIONS = ['commercial_relevance', 'distance', 'project_size', 'project_stage', 'recency', 'fit', 'source'] as const;
export type Dimension = (typeof DIMENSIONS)[number];
export type Decision = 'ignore' | 'qualify' | 'opportunity';

export interface ScoringConfigInput {
  ignoreBelow: number;
  qualifyAt: number;
  opportunityAt: number;
  homeLat: number | null;
  homeLng: number | null;
}

export interface ScoringRuleInput {
  dimension: Dimension;
  ruleKey: string;
  weight: number;
  maxPoints: number;
  params: Record<string, unknown>;
}

export interface ScoringSubject {
  commercialRelevance: boolean;
  confidence: number;
  relevanceReasons: string[];
  projectStage: string | null;
  estimatedSize: number | null; // euros
  fitMatches: string[]; // product and persona keywords the text matched
  publishedAt: Date | null;
  lat: number | null;
  lng: number | null;
  sourceKind: string; // the source's provider_key
  now: Date;
}

export interface ScoreComponent {
  dimension: Dimension;
  rule_key: string;
  origin: 'rule';
  raw_value: number;
  weight: number;
  points: number;
  reason: string;
}

export interface ScoreResult {
  total: number;
  decision: Decision;
  components: ScoreComponent[];
}

interface Band {
  value: number;
  maxKm?: number;
  min?: number;
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/** Great-circle distance in kilometres (haversine, mean Earth radius). */
export function distanceKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const rad = (d: number) => (d * Math.PI) / 180;
  const dLat = rad(lat2 - lat1);
  const dLng = rad(lng2 - lng1);
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(dLng / 2) ** 2;
  return 2 * 6371.0088 * Math.asin(Math.min(1, Math.sqrt(a)));
}

const euros = (n: number) => `EUR ${Math.round(n).toLocaleString('en-GB')}`;

type Evaluate = (rule: ScoringRuleInput, s: ScoringSubject, c: ScoringConfigInput) => { raw: number; reason: string };

const evaluators: Record<Dimension, Evaluate> = {
  commercial_relevance: (_r, s) =>
    s.commercialRelevance
      ? {
          raw: round(s.confidence),
          reason: `commercially relevant (confidence ${round(s.confidence)})${s.relevanceReasons.length ? `: ${s.relevanceReasons.join('; ')}` : ''}`,
        }
      : { raw: 0, reason: 'not commercially relevant' },

  distance: (rule, s, c) => {
    if (c.homeLat === null || c.homeLng === null) return { raw: 0, reason: 'no home location configured' };
    if (s.lat === null || s.lng === null) return { raw: 0, reason: 'the signal has no location' };
    const km = distanceKm(c.homeLat, c.homeLng, s.lat, s.lng);
    const bands = ((rule.params.bands as Band[] | undefined) ?? []).slice().sort((a, b) => (a.maxKm ?? Infinity) - (b.maxKm ?? Infinity));
    const band = bands.find((b) => km <= (b.maxKm ?? Infinity));
    return band
      ? { raw: band.value, reason: `${round(km, 1)} km from home (within ${band.maxKm ?? '∞'} km)` }
      : { raw: 0, reason: `${round(km, 1)} km from home, beyond every band` };
  },

  project_size: (rule, s) => {
    if (s.estimatedSize === null) return { raw: 0, reason: 'no project size found' };
    const bands = ((rule.params.bands as Band[] | undefined) ?? []).slice().sort((a, b) => (b.min ?? 0) - (a.min ?? 0));
    const band = bands.find((b) => s.estimatedSize! >= (b.min ?? 0));
    return band
      ? { raw: band.value, reason: `estimated ${euros(s.estimatedSize)} (at least ${euros(band.min ?? 0)})` }
      : { raw: 0, reason: `estimated ${euros(s.estimatedSize)}, below every band` };
  },

  project_stage: (rule, s) => {
    if (!s.projectStage) return { raw: 0, reason: 'project stage unknown' };
    const values = (rule.params.values as Record<string, number> | undefined) ?? {};
    const raw = values[s.projectStage] ?? 0;
    return { raw, reason: `stage ${s.projectStage}` };
  },

  recency: (rule, s) => {
    if (!s.publishedAt) return { raw: 0, reason: 'publication date unknown' };
    const halfLife = Number(rule.params.halfLifeDays ?? 14);
    const days = Math.max(0, (s.now.getTime() - s.publishedAt.getTime()) / 86_400_000);
    return { raw: round(0.5 ** (days / halfLife), 3), reason: `published ${Math.floor(days)} days ago (half-life ${halfLife} days)` };
  },

  fit: (_r, s) =>
    s.fitMatches.length
      ? { raw: s.fitMatches.length, reason: `matches ${s.fitMatches.join(', ')}` }
      : { raw: 0, reason: 'matches no product or persona keyword' },

  source: (rule, s) => {
    const values = (rule.params.values as Record<string, number> | undefined) ?? {};
    const raw = values[s.sourceKind] ?? Number(rule.params.default ?? 0);
    return { raw, reason: `source kind ${s.sourceKind}` };
  },
};

export function decide(total: number, c: ScoringConfigInput): Decision {
  if (total >= c.opportunityAt) return 'opportunity';
  if (total >= c.qualifyAt) return 'qualify';
  return 'ignore';
}

export function scoreSignal(config: ScoringConfigInput, rules: ScoringRuleInput[], subject: ScoringSubject): ScoreResult {
  const components = rules.map((rule): ScoreComponent => {
    const { raw, reason } = evaluators[rule.dimension](rule, subject, config);
    const points = round(Math.max(0, Math.min(rule.maxPoints, raw * rule.weight)));
    return { dimension: rule.dimension, rule_key: rule.ruleKey, origin: 'rule', raw_value: raw, weight: rule.weight, points, reason };
  });
  // Rounded once more so that the components add up to the total exactly.
  const total = round(components.reduce((sum, c) => sum + c.points, 0));
  return { total, decision: decide(total, config), components };
}
