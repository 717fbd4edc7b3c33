/**
 * Step variants: a step may carry 2 to 5 variants, each with its own
 * subject and instructions. Each enrollment gets one variant per step, chosen from the enrollment id
 * and the step's position alone, so a retried activity and a replayed run choose the same one. The
 * choice is FNV-1a (32 bit) of "<enrollmentId>:<position>", its bits mixed by MurmurHash3's finalizer
 * (so the low bits depend on every character, and one step's choice says nothing of the next),
 * modulo the number of variants: an even
 * split in expectation (each enrollment is an independent fair draw, so 100 enrollments over two
 * variants split 50 +/- 5 about two times in three and 50 +/- 10 almost always). Pure.
 */
export interface StepVariant {
  key: string;
  subject?: string | null;
  instructions?: string | null;
}

export const MIN_VARIANTS = 2;
export const MAX_VARIANTS = 5;

/** FNV-1a over the UTF-16 code units of s, as an unsigned 32-bit integer. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** MurmurHash3's fmix32: every input bit reaches every output bit. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The index (0..n-1) of the variant an enrollment gets at a step. */
export function variantIndex(enrollmentId: string, position: number, n: number): number {
  if (!Number.isInteger(n) || n < 1) throw new RangeError('n must be a positive integer');
  return fmix32(fnv1a(`${enrollmentId.toLowerCase()}:${position}`)) % n;
}

/** The variant an enrollment gets at a step; null when the step has none. */
export function chooseVariant<V extends StepVariant>(enrollmentId: string, position: number, variants: readonly V[] | null | undefined): V | null {
  if (!variants || variants.length === 0) return null;
  return variants[variantIndex(enrollmentId, position, variants.length)]!;
}
