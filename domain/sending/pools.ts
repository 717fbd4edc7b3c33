/**
 * Which mailbox of a campaign's pool sends a contact's first e-mail (shared/api-contract.md, "Mailbox
 * pools and one sender per contact"): among the pool's active, sendable mailboxes the one with the
 * most of today's capacity left; ties go to the one that sent (or has a send booked) least recently,
 * a mailbox that never sent first; the id settles what is still equal, so the choice is
 * deterministic. Later e-mails to the contact never come here: they go from the pinned mailbox.
 */
export interface PoolCandidate {
  id: string;
  /** active (not paused) and not judged unsendable by its last health check. */
  usable: boolean;
  /** The cap in force today (ramp-up applied) and what is booked or sent against it today, in the mailbox's local day. */
  capToday: number;
  bookedToday: number;
  /** The latest send or booked send of the mailbox, null when it never sent. */
  lastSlotAt: Date | null;
}

export const POOL_LIMITS = { min: 1, max: 50 } as const;

/** The mailbox to pin, or null when no mailbox of the pool may send at all. */
export function choosePoolMailbox(candidates: readonly PoolCandidate[]): string | null {
  let best: PoolCandidate | null = null;
  for (const c of candidates) {
    if (!c.usable) continue;
    if (!best || better(c, best)) best = c;
  }
  return best?.id ?? null;
}

function better(a: PoolCandidate, b: PoolCandidate): boolean {
  const left = Math.max(0, a.capToday - a.bookedToday) - Math.max(0, b.capToday - b.bookedToday);
  if (left !== 0) return left > 0;
  const ta = a.lastSlotAt?.getTime() ?? Number.NEGATIVE_INFINITY;
  const tb = b.lastSlotAt?.getTime() ?? Number.NEGATIVE_INFINITY;
  if (ta !== tb) return ta < tb;
  return a.id < b.id;
}

/**
 * The gap before a mailbox's next send: minGapSeconds plus a random share of gapJitterSeconds, so
 * that sends do not leave on a fixed beat. The random number (0 <= random < 1) is an input: the
 * caller draws it once per booking (outside workflows), which keeps this pure.
 */
export function gapSeconds(minGapSeconds: number, gapJitterSeconds: number, random: number): number {
  if (!(random >= 0 && random < 1)) throw new RangeError(`random must be in [0, 1), not ${random}`);
  return minGapSeconds + Math.floor(random * (Math.max(0, gapJitterSeconds) + 1));
}
