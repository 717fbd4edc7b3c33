import { estimateEuros, extractMeasures } from './amounts';
import type { ClassificationResult, Classifier, ClassifierInput, PROJECT_CATEGORIES, PROJECT_STAGES } from './types';

/**
 * The built-in classifier: deterministic keyword rules over the notice text and the organization's
 * industry profile. No external account needed; its `model` says what it is.
 */
export const RULES_MODEL = 'rules-classifier@1.0.0';

type Category = (typeof PROJECT_CATEGORIES)[number];
type Stage = (typeof PROJECT_STAGES)[number];

// First match wins, so more specific patterns come first.
const CATEGORY_RULES: Array<[Category, RegExp]> = [
  ['landscape', /\b(kapvergunning|kappen|bomen|tree felling|trees)\b/i],
  ['education', /\b(school|scholen|onderwijs|campus|university|universiteit|kinderopvang)\w*/i],
  ['healthcare', /\b(ziekenhuis|zorg\w*|hospital|clinic|kliniek|verpleeg\w*)\b/i],
  ['residential', /\b(woning\w*|appartement\w*|wooneenhe\w*|dwellings?|homes|apartments|housing)\b/i],
  ['office', /\b(kantoor\w*|office\w*)\b/i],
  ['industrial', /\b(bedrijfshal|bedrijfspand|loods|fabriek|warehouse|distributiecentrum|factory|industrial)\b/i],
  ['retail', /\b(winkel\w*|supermarkt|retail|shop)\b/i],
  ['infrastructure', /\b(brug|viaduct|wegreconstructie|riolering|bridge|road|railway|spoor)\b/i],
  ['energy', /\b(warmtepomp\w*|zonnepa\w*|zonnepark|windturbine|heat pumps?|solar|laadpa\w*)\b/i],
];

const STAGE_RULES: Array<[Stage, RegExp]> = [
  ['tender', /\b(aanbesteding|tender|inschrijving|offerteaanvraag|call for tenders?)\b/i],
  ['completed', /\b(opgeleverd|oplevering|completed|afgerond)\b/i],
  ['construction', /\b(start bouw|in aanbouw|under construction|bouw gestart)\b/i],
  ['permit_granted', /\b(verleend\w*|vergunning verleend|besluit|granted|approved)\b/i],
  ['permit_application', /\b(aanvraag|aangevraagd|ontvangen aanvraag|application|applied)\b/i],
  ['planning', /\b(bestemmingsplan|omgevingsplan|voorontwerp|principeverzoek|planning|plan)\b/i],
];

const IRRELEVANT_CATEGORIES: Category[] = ['landscape'];

function textMatches(text: string, keyword: string): boolean {
  const k = keyword.trim().toLowerCase();
  if (!k) return false;
  return new RegExp(`(^|[^\\p{L}\\p{N}])${k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'iu').test(text);
}

export class RulesClassifier implements Classifier {
  async classify(input: ClassifierInput): Promise<ClassificationResult> {
    const text = `${input.title}\n${input.summary ?? ''}`;
    const category = CATEGORY_RULES.find(([, re]) => re.test(text))?.[0] ?? 'other';
    const stage = STAGE_RULES.find(([, re]) => re.test(text))?.[0] ?? null;
    const measures = extractMeasures(text);
    const estimate = estimateEuros(measures);

    const productMatches = input.profile.products.flatMap((p) =>
      p.fitKeywords.filter((k) => textMatches(text, k)).map((k) => ({ product: p.key, keyword: k })),
    );
    const personaMatches = input.profile.personas.filter((p) => textMatches(text, p.segment) || p.titleKeywords.some((k) => textMatches(text, k)));
    const fitMatches = [...new Set([...productMatches.map((m) => m.keyword.toLowerCase()), ...personaMatches.map((p) => p.segment)])];

    const reasons: string[] = [];
    if (productMatches.length) reasons.push(`mentions ${[...new Set(productMatches.map((m) => m.keyword))].join(', ')}`);
    if (category !== 'other' && !IRRELEVANT_CATEGORIES.includes(category)) reasons.push(`${category} project`);
    if (stage) reasons.push(`stage: ${stage.replace('_', ' ')}`);
    if (estimate.euros !== null) reasons.push(`size: ${estimate.basis}`);
    const relevant =
      !IRRELEVANT_CATEGORIES.includes(category) && (productMatches.length > 0 || (category !== 'other' && (stage !== null || estimate.euros !== null)));

    // Confidence grows with independent evidence; rules never claim certainty.
    const evidence = [category !== 'other', stage !== null, estimate.euros !== null, productMatches.length > 0].filter(Boolean).length;
    const confidence = Math.min(0.9, 0.3 + 0.15 * evidence);

    return {
      model: RULES_MODEL,
      promptKey: null,
      promptVersion: null,
      promptHash: null,
      commercialRelevance: relevant,
      relevanceReasons: relevant
        ? reasons
        : IRRELEVANT_CATEGORIES.includes(category)
          ? [`${category} notice: outside the profile`]
          : ['no product, category or size evidence'],
      projectCategory: category,
      projectStage: stage,
      estimatedSize: estimate.euros,
      confidence: Math.round(confidence * 100) / 100,
      fitMatches,
      output: { measures, size_basis: estimate.basis, product_matches: productMatches, persona_matches: personaMatches.map((p) => p.segment) },
    };
  }
}
