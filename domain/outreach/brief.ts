import { extractMeasures } from '../classification/amounts';

/**
 * The outreach brief (the pipeline's drafting stage): what the messages of a campaign may say about
 * an opportunity. Facts are claims taken from the signal and its publication, each with the URL it
 * came from; a claim without a source URL is not a fact and is dropped. Beside them: the score's
 * reasons and the fit with the organization's products and personas. Pure: no I/O, no clock.
 */
export const BRIEF_VERSION = 1;

export interface BriefFact {
  claim: string;
  sourceUrl: string;
}

export interface OutreachBrief {
  version: number;
  opportunityId: string;
  signal: { id: string; title: string; url: string | null } | null;
  facts: BriefFact[];
  scoreReasons: string[];
  products: Array<{ key: string; name: string; matched: string[] }>;
  personas: Array<{ segment: string; titleKeywords: string[]; priority: number }>;
}

export interface BriefInput {
  opportunityId: string;
  signal: {
    id: string;
    title: string;
    summary: string | null;
    sourceUrl: string | null;
    publishedAt: Date | null;
    locationText: string | null;
    municipality: string | null;
  } | null;
  classification: { projectCategory: string | null; projectStage: string | null } | null;
  scoreReasons: string[];
  products: Array<{ key: string; name: string; fitKeywords: string[] }>;
  personas: Array<{ segment: string; titleKeywords: string[]; priority: number }>;
}

const euros = (n: number) => `EUR ${Math.round(n).toLocaleString('en-GB')}`;
const number = (n: number) => n.toLocaleString('en-GB');

/** Whether a keyword appears in the text as a word (or a word's start), case-insensitive. */
export function mentions(text: string, keyword: string): boolean {
  const k = keyword.trim().toLowerCase();
  if (!k) return false;
  return new RegExp(`(^|[^\\p{L}\\p{N}])${k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'iu').test(text);
}

export function buildBrief(input: BriefInput): OutreachBrief {
  const s = input.signal;
  const text = s ? `${s.title}\n${s.summary ?? ''}` : '';
  const claims: Array<{ claim: string; sourceUrl: string | null }> = [];
  if (s) {
    const url = s.sourceUrl;
    claims.push({ claim: `Published: "${s.title}"`, sourceUrl: url });
    if (s.publishedAt) claims.push({ claim: `Published on ${s.publishedAt.toISOString().slice(0, 10)}`, sourceUrl: url });
    const m = extractMeasures(text);
    if (m.amountEur !== null) claims.push({ claim: `Stated amount: ${euros(m.amountEur)}`, sourceUrl: url });
    if (m.dwellings !== null) claims.push({ claim: `${number(m.dwellings)} dwellings`, sourceUrl: url });
    if (m.areaM2 !== null) claims.push({ claim: `${number(m.areaM2)} m2 floor area`, sourceUrl: url });
    const place = s.locationText ?? s.municipality;
    if (place) claims.push({ claim: `Location: ${place}`, sourceUrl: url });
    const c = input.classification;
    if (c?.projectCategory && c.projectCategory !== 'other') claims.push({ claim: `Project kind: ${c.projectCategory}`, sourceUrl: url });
    if (c?.projectStage) claims.push({ claim: `Stage: ${c.projectStage.replace(/_/g, ' ')}`, sourceUrl: url });
  }
  return {
    version: BRIEF_VERSION,
    opportunityId: input.opportunityId,
    signal: s ? { id: s.id, title: s.title, url: s.sourceUrl } : null,
    // Nothing invented: a claim without the URL it came from is dropped.
    facts: claims.filter((c): c is BriefFact => typeof c.sourceUrl === 'string' && c.sourceUrl.length > 0),
    scoreReasons: input.scoreReasons.filter((r) => r.trim().length > 0),
    products: input.products
      .map((p) => ({ key: p.key, name: p.name, matched: p.fitKeywords.filter((k) => mentions(text, k)) }))
      .filter((p) => p.matched.length > 0),
    personas: [...input.personas].sort((a, b) => b.priority - a.priority),
  };
}
