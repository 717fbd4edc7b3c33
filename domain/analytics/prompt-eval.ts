import { codePoints, editDistance } from './edit-distance';

/**
 * Prompt evals: a model draft a person approved (as written, or after editing it) is one eval case of the prompt version
 * that wrote it. Its similarity is how much of the draft survived: 1 − distance / the longer text's
 * length (1 = sent as written, 0 = rewritten entirely). A prompt version's score is the mean
 * similarity of its cases, so a version whose drafts need less editing scores higher.
 */
export interface EvalCase {
  distance: number;
  similarity: number;
  original_chars: number;
  sent_chars: number;
}

const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

export function evalCase(original: string, sent: string): EvalCase {
  const distance = editDistance(original, sent);
  const longer = Math.max(codePoints(original), codePoints(sent));
  return { distance, similarity: longer === 0 ? 1 : round4(1 - distance / longer), original_chars: codePoints(original), sent_chars: codePoints(sent) };
}

/** The version's score: the mean similarity of its cases (null without cases). */
export function versionScore(similarities: readonly number[]): number | null {
  if (similarities.length === 0) return null;
  return round4(similarities.reduce((a, b) => a + b, 0) / similarities.length);
}

/** Whether an approved draft counts as edited: its sent text differs from what the model wrote. */
export const wasEdited = (original: string | null, sent: string | null): boolean => original !== null && sent !== null && original !== sent;
