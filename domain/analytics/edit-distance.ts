/**
 * Levenshtein edit distance (insertions, deletions and substitutions of one character, each costing
 * one) over Unicode code points, so an emoji or an accented letter counts as one character. Two rows
 * of the dynamic-programming table, O(|a|·|b|) time and O(min(|a|, |b|)) memory. No dependency of
 * the service provides one (the `leven` in node_modules comes with jest and counts UTF-16 units);
 * test/unit/analytics-domain.test.ts checks it against the textbook full-matrix definition.
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let s = Array.from(a);
  let t = Array.from(b);
  if (s.length < t.length) [s, t] = [t, s]; // t is the shorter: the rows are its length
  // Common prefix and suffix cost nothing.
  let start = 0;
  while (start < t.length && s[start] === t[start]) start++;
  let endS = s.length;
  let endT = t.length;
  while (endT > start && s[endS - 1] === t[endT - 1]) {
    endS--;
    endT--;
  }
  s = s.slice(start, endS);
  t = t.slice(start, endT);
  if (t.length === 0) return s.length;
  let prev = Array.from({ length: t.length + 1 }, (_, j) => j);
  let cur = new Array<number>(t.length + 1);
  for (let i = 1; i <= s.length; i++) {
    cur[0] = i;
    const si = s[i - 1];
    for (let j = 1; j <= t.length; j++) {
      const cost = si === t[j - 1] ? 0 : 1;
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[t.length]!;
}

/** Length in code points, the unit editDistance counts in. */
export const codePoints = (s: string): number => Array.from(s).length;
