/**
 * Which mailbox of a campaign's pool sends a contact's first e-mail (one sender per contact): among the pool's active, sendable mailboxes the one with the
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

/** What is left of a candidate's cap in force today (never below 0). */
function leftToday(c: PoolCandidate): number {
  return Math.max(0, c.capToday - c.bookedToday);
}

function better(a: PoolCandidate, b: PoolCandidate): boolean {
  const left = leftToday(a) - leftToday(b);
  if (left !== 0) return left > 0;
  const ta = a.lastSlotAt?.getTime() ?? Number.NEGATIVE_INFINITY;
  const tb = b.lastSlotAt?.getTime() ?? Number.NEGATIVE_INFINITY;
  if (ta !== tb) return ta < tb;
  return a.id < b.id;
}

/**
 * Concurrent bookers (db/queries/pool-choice.ts) do not lock the whole pool: each tries the mailboxes
 * in this order and takes the first whose lock is free, so that bookers running at once spread over
 * the pool instead of queueing on one mailbox. The order is the usable candidates with the most
 * capacity left today (no other may be booked while one of them has more left), best first: its head
 * is choosePoolMailbox's answer.
 */
export function poolTryOrder(candidates: readonly PoolCandidate[]): string[] {
  const usable = candidates.filter((c) => c.usable).sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0));
  if (usable.length === 0) return [];
  const most = leftToday(usable[0]!);
  return usable.filter((c) => leftToday(c) === most).map((c) => c.id);
}

/**
 * Whether the mailbox a booker locked is still a right choice on what it reads under that lock
 * (`fresh`, committed by the time the lock was granted): usable, no usable mailbox of the pool with
 * more capacity left today, and none as much left that ranks before it, except those the booker found
 * locked (`skipped`: being booked by another booker right now, so their turn is taken). Otherwise the
 * booker gives the lock back and chooses again. Capacity is never traded away: a mailbox with less
 * left today (a full one, booked for tomorrow) is not booked while another has more.
 */
export function poolChoiceHolds(chosen: string, fresh: readonly PoolCandidate[], skipped: readonly string[]): boolean {
  const x = fresh.find((c) => c.id === chosen);
  if (!x || !x.usable) return false;
  return fresh.every((y) => {
    if (y.id === chosen || !y.usable) return true;
    const diff = leftToday(y) - leftToday(x);
    if (diff !== 0) return diff < 0;
    return skipped.includes(y.id) || !better(y, x);
  });
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
