/**
 * The scoring learning loop, pure: for each scoring rule, the signals whose opportunity reached a
 * decided outcome are split into those that earned points on the rule and those that did not, and
 * the two groups' success rates are compared. A signal's success: its opportunity was won (1), else
 * a meeting on it took place (0.5), else 0 (lost, or the meeting was a no-show). The lift is the
 * difference of the two rates (−1 … 1) and the suggested weight is the current one scaled by
 * (1 + lift): a rule whose signals do better than the rest gains weight, one whose signals do worse
 * loses it. With fewer than MIN_GROUP decided signals on either side the suggestion keeps the weight.
 * Nothing here changes a rule; an admin applies a suggestion through PATCH /settings/scoring.
 */
export const MIN_GROUP = 3;

export interface SuggestionRule {
  ruleKey: string;
  dimension: string;
  weight: number;
}

/** One signal whose opportunity has an outcome: the points each rule gave it (its current score). */
export interface Observation {
  points: Record<string, number>;
  won: boolean;
  lost: boolean;
  meetingCompleted: boolean;
  noShow: boolean;
}

export interface GroupEvidence {
  signals: number;
  meetings: number;
  won: number;
  lost: number;
  no_shows: number;
  success_rate: number | null;
}

export interface Suggestion {
  rule_key: string;
  dimension: string;
  current_weight: number;
  suggested_weight: number;
  evidence: { earned: GroupEvidence; not_earned: GroupEvidence; lift: number | null; reason: string };
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;
const pct = (n: number | null) => (n === null ? '-' : `${Math.round(n * 100)}%`);

/** An outcome decides: won or lost, or a meeting that took place or was missed. Open ones wait. */
export const isDecided = (o: Observation): boolean => o.won || o.lost || o.meetingCompleted || o.noShow;

export const successOf = (o: Observation): number => (o.won ? 1 : o.meetingCompleted ? 0.5 : 0);

function group(obs: readonly Observation[]): GroupEvidence {
  const n = obs.length;
  return {
    signals: n,
    meetings: obs.filter((o) => o.meetingCompleted).length,
    won: obs.filter((o) => o.won).length,
    lost: obs.filter((o) => o.lost).length,
    no_shows: obs.filter((o) => o.noShow).length,
    success_rate: n === 0 ? null : round(obs.reduce((s, o) => s + successOf(o), 0) / n, 4),
  };
}

export function suggestWeights(rules: readonly SuggestionRule[], observations: readonly Observation[]): Suggestion[] {
  const decided = observations.filter(isDecided);
  return rules.map((rule) => {
    const earnedObs = decided.filter((o) => (o.points[rule.ruleKey] ?? 0) > 0);
    const otherObs = decided.filter((o) => !((o.points[rule.ruleKey] ?? 0) > 0));
    const earned = group(earnedObs);
    const notEarned = group(otherObs);
    const base = { rule_key: rule.ruleKey, dimension: rule.dimension, current_weight: rule.weight };
    if (earned.signals < MIN_GROUP || notEarned.signals < MIN_GROUP) {
      return {
        ...base,
        suggested_weight: rule.weight,
        evidence: {
          earned,
          not_earned: notEarned,
          lift: null,
          reason: `not enough outcomes yet: ${earned.signals} decided signals earned points on this rule and ${notEarned.signals} did not (at least ${MIN_GROUP} of each are needed); the weight stays`,
        },
      };
    }
    const lift = round(earned.success_rate! - notEarned.success_rate!, 4);
    const suggested = Math.max(0, round(rule.weight * (1 + lift), 1));
    const direction = suggested > rule.weight ? 'raise' : suggested < rule.weight ? 'lower' : 'keep';
    return {
      ...base,
      suggested_weight: suggested,
      evidence: {
        earned,
        not_earned: notEarned,
        lift,
        reason:
          `signals that earned points on this rule: ${earned.signals} decided, ${pct(earned.meetings / earned.signals)} met, ${pct(earned.won / earned.signals)} won (success ${pct(earned.success_rate)}); ` +
          `those that did not: ${notEarned.signals} decided, ${pct(notEarned.meetings / notEarned.signals)} met, ${pct(notEarned.won / notEarned.signals)} won (success ${pct(notEarned.success_rate)}); ` +
          `lift ${lift >= 0 ? '+' : ''}${lift}: ${direction} the weight`,
      },
    };
  });
}
