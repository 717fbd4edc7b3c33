/**
 * A subject as threading compares it: reply and forward prefixes removed (Re:, RE:, AW:, Antw:,
 * Antwoord:, Fwd:, FW:, WG:, Doorst:, TR:, Réf:, and "[EXT]"-style tags), repeated and nested,
 * whitespace collapsed, lower case.
 */
const PREFIX = /^\s*(?:\[[^\]]{1,20}\]\s*)?(?:re|aw|antw|antwoord|sv|vs|fwd?|fw|wg|doorst|tr|réf|ref|r)\s*(?:\[\d+\])?\s*:\s*/i;

export function normalizeSubject(subject: string | null | undefined): string {
  let s = (subject ?? '').trim();
  for (let i = 0; i < 20; i++) {
    const next = s.replace(PREFIX, '');
    if (next === s) break;
    s = next;
  }
  return s.replace(/\s+/g, ' ').trim().toLowerCase();
}
