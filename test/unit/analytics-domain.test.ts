import fc from 'fast-check';
import { codePoints, editDistance } from '../../domain/analytics/edit-distance';
import { evalCase, versionScore, wasEdited } from '../../domain/analytics/prompt-eval';
import { MIN_GROUP, suggestWeights, type Observation } from '../../domain/analytics/suggestions';
import { rate } from '../../domain/analytics/windows';

/** Analytics, pure: edit distance, prompt-eval scores and the learning loop's suggestion math. */

/** The textbook definition: the full (|a|+1)×(|b|+1) matrix over code points. */
function reference(a: string, b: string): number {
  const s = Array.from(a);
  const t = Array.from(b);
  const d = Array.from({ length: s.length + 1 }, (_, i) => Array.from({ length: t.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (s[i - 1] === t[j - 1] ? 0 : 1));
  }
  return d[s.length]![t.length]!;
}

const text = fc.string({ unit: fc.constantFrom('a', 'b', 'c', ' ', 'é', '😀'), maxLength: 24 });

describe('edit distance', () => {
  test('known pairs', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('Beste Jan,', 'Beste Jan,')).toBe(0);
    expect(editDistance('flaw', 'lawn')).toBe(2);
    // One emoji is one character, not two UTF-16 units.
    expect(editDistance('Hoi 😀', 'Hoi 😃')).toBe(1);
    expect(codePoints('😀é')).toBe(2);
  });

  test('agrees with the full-matrix definition', () => {
    fc.assert(
      fc.property(text, text, (a, b) => editDistance(a, b) === reference(a, b)),
      { numRuns: 500 },
    );
  });

  test('is a metric: zero only for equal texts, symmetric, triangle inequality, bounded by the longer length', () => {
    fc.assert(
      fc.property(text, text, text, (a, b, c) => {
        const ab = editDistance(a, b);
        expect(ab === 0).toBe(a === b);
        expect(ab).toBe(editDistance(b, a));
        expect(editDistance(a, c)).toBeLessThanOrEqual(ab + editDistance(b, c));
        expect(ab).toBeLessThanOrEqual(Math.max(codePoints(a), codePoints(b)));
        expect(ab).toBeGreaterThanOrEqual(Math.abs(codePoints(a) - codePoints(b)));
      }),
      { numRuns: 300 },
    );
  });
});

describe('prompt evals', () => {
  test('a case: distance, similarity 1 − distance / longer length, lengths', () => {
    expect(evalCase('Beste Jan, wij bouwen.', 'Beste Jan, wij bouwen!')).toEqual({ distance: 1, similarity: 0.9545, original_chars: 22, sent_chars: 22 });
    expect(evalCase('abc', 'xyz')).toMatchObject({ distance: 3, similarity: 0 });
    expect(evalCase('', '')).toMatchObject({ distance: 0, similarity: 1 });
  });

  test('similarity stays within 0..1 and is 1 exactly when nothing changed', () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        const { similarity } = evalCase(a, b);
        return similarity >= 0 && similarity <= 1 && (similarity === 1) === (a === b || editDistance(a, b) / Math.max(codePoints(a), codePoints(b)) < 0.00005);
      }),
    );
  });

  test("a version's score is the mean similarity of its cases", () => {
    expect(versionScore([])).toBeNull();
    expect(versionScore([1, 0.5])).toBe(0.75);
    expect(versionScore([0.9, 0.8, 0.4])).toBe(0.7);
  });

  test('edited means the sent text differs from what the model wrote', () => {
    expect(wasEdited('a', 'b')).toBe(true);
    expect(wasEdited('a', 'a')).toBe(false);
    expect(wasEdited(null, 'a')).toBe(false);
  });

  test('rates', () => {
    expect(rate(1, 3)).toBe(0.3333);
    expect(rate(0, 0)).toBeNull();
  });
});

describe('scoring suggestions', () => {
  const rules = [{ ruleKey: 'distance.bands', dimension: 'distance', weight: 20 }];
  const obs = (earned: boolean, outcome: 'won' | 'lost' | 'meeting' | 'no_show' | 'open'): Observation => ({
    points: { 'distance.bands': earned ? 12 : 0 },
    won: outcome === 'won',
    lost: outcome === 'lost',
    meetingCompleted: outcome === 'meeting',
    noShow: outcome === 'no_show',
  });

  test('worked example: earned 3 (won, won, meeting) against 3 (lost, lost, no-show)', () => {
    const [s] = suggestWeights(rules, [
      obs(true, 'won'),
      obs(true, 'won'),
      obs(true, 'meeting'),
      obs(false, 'lost'),
      obs(false, 'lost'),
      obs(false, 'no_show'),
      obs(false, 'open'),
    ]);
    // earned success (1 + 1 + 0.5) / 3 = 0.8333, the rest 0; lift 0.8333; 20 × 1.8333 = 36.7. The open one does not count.
    expect(s).toEqual({
      rule_key: 'distance.bands',
      dimension: 'distance',
      current_weight: 20,
      suggested_weight: 36.7,
      evidence: {
        earned: { signals: 3, meetings: 1, won: 2, lost: 0, no_shows: 0, success_rate: 0.8333 },
        not_earned: { signals: 3, meetings: 0, won: 0, lost: 2, no_shows: 1, success_rate: 0 },
        lift: 0.8333,
        reason: expect.stringContaining('raise the weight'),
      },
    });
  });

  test(`fewer than ${MIN_GROUP} decided signals on a side: the weight stays`, () => {
    const [s] = suggestWeights(rules, [obs(true, 'won'), obs(true, 'won'), obs(false, 'lost'), obs(false, 'lost'), obs(false, 'lost')]);
    expect(s!.suggested_weight).toBe(20);
    expect(s!.evidence.lift).toBeNull();
    expect(s!.evidence.reason).toMatch(/not enough outcomes/);
  });

  const outcome = fc.constantFrom<'won' | 'lost' | 'meeting' | 'no_show'>('won', 'lost', 'meeting', 'no_show');
  const side = fc.array(outcome, { minLength: MIN_GROUP, maxLength: 12 });
  const weight = fc.integer({ min: 0, max: 60 });
  const suggested = (w: number, earned: string[], other: string[]) =>
    suggestWeights([{ ...rules[0]!, weight: w }], [...earned.map((o) => obs(true, o as never)), ...other.map((o) => obs(false, o as never))])[0]!
      .suggested_weight;

  test('a won deal on a signal that earned the rule never lowers its suggestion; one on a signal that did not never raises it', () => {
    fc.assert(
      fc.property(weight, side, side, (w, earned, other) => {
        const before = suggested(w, earned, other);
        expect(suggested(w, [...earned, 'won'], other)).toBeGreaterThanOrEqual(before);
        expect(suggested(w, earned, [...other, 'won'])).toBeLessThanOrEqual(before);
        // and a loss the other way round
        expect(suggested(w, [...earned, 'lost'], other)).toBeLessThanOrEqual(before);
        expect(suggested(w, earned, [...other, 'lost'])).toBeGreaterThanOrEqual(before);
      }),
    );
  });

  test('suggestions stay between 0 and twice the current weight, and equal outcomes keep it', () => {
    fc.assert(
      fc.property(weight, side, side, (w, earned, other) => {
        const s = suggested(w, earned, other);
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(2 * w + 0.05);
        expect(suggested(w, earned, earned)).toBe(w);
      }),
    );
  });
});
