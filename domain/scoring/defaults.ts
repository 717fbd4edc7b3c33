import type { ScoringConfigInput, ScoringRuleInput } from './engine';

/**
 * What a new organization scores with until it changes the settings: 100 points in all.
 * Thresholds: below 30 a signal is ignored, from 45 it qualifies, from 65 it opens an opportunity.
 */
export const DEFAULT_THRESHOLDS: Omit<ScoringConfigInput, 'homeLat' | 'homeLng'> = { ignoreBelow: 30, qualifyAt: 45, opportunityAt: 65 };

export const DEFAULT_RULES: ScoringRuleInput[] = [
  { dimension: 'commercial_relevance', ruleKey: 'relevance.confidence', weight: 30, maxPoints: 30, params: {} },
  {
    dimension: 'distance',
    ruleKey: 'distance.bands',
    weight: 15,
    maxPoints: 15,
    params: {
      bands: [
        { maxKm: 25, value: 1 },
        { maxKm: 75, value: 0.6 },
        { maxKm: 150, value: 0.25 },
      ],
    },
  },
  {
    dimension: 'project_size',
    ruleKey: 'size.euro_bands',
    weight: 20,
    maxPoints: 20,
    params: {
      bands: [
        { min: 10_000_000, value: 1 },
        { min: 2_000_000, value: 0.75 },
        { min: 500_000, value: 0.5 },
        { min: 50_000, value: 0.2 },
      ],
    },
  },
  {
    dimension: 'project_stage',
    ruleKey: 'stage.values',
    weight: 10,
    maxPoints: 10,
    params: { values: { planning: 1, permit_application: 1, tender: 1, permit_granted: 0.7, construction: 0.3, completed: 0 } },
  },
  { dimension: 'recency', ruleKey: 'recency.half_life', weight: 10, maxPoints: 10, params: { halfLifeDays: 14 } },
  { dimension: 'fit', ruleKey: 'fit.keyword_matches', weight: 5, maxPoints: 10, params: {} },
  { dimension: 'source', ruleKey: 'source.kind', weight: 5, maxPoints: 5, params: { values: { bekendmakingen: 1, json_api: 0.6, rss: 0.6 }, default: 0.4 } },
];
