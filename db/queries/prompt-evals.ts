import { sql } from 'kysely';
import { evalCase, versionScore } from '../../domain/analytics/prompt-eval';
import { lockFor } from '../locks';
import type { Tx } from '../tenancy';

export interface PromptEvalInput {
  organizationId: string;
  messageId: string;
  promptKey: string;
  promptVersion: string;
  /** What the model wrote (the message's original_body). */
  original: string;
  /** What was sent (the approved body). */
  sent: string;
}

const EVAL_COLUMNS = ['id', 'organization_id', 'message_id', 'prompt_key', 'prompt_version', 'score', 'detail', 'created_at'] as const;

/**
 * Records an approved model draft (edited or approved as written: similarity 1) as an eval case of the prompt version that wrote
 * it, and stores the version's new score (the mean similarity of all its cases, this one included)
 * on the case's row: the newest row of a version carries its current score. The texts stay on the
 * message (erasure redacts them there); the row keeps the message id and the case's figures. One row
 * per message: a repeat answers the existing row and changes nothing. Recordings of one prompt
 * version take turns (an advisory lock), so each score counts every case committed before it.
 */
export async function recordPromptEval(tx: Tx, input: PromptEvalInput) {
  const { organizationId, messageId, promptKey, promptVersion } = input;
  await lockFor(tx, `prompt_evals:${organizationId}:${promptKey}:${promptVersion}`);
  const existing = await tx
    .selectFrom('prompt_evals')
    .select(EVAL_COLUMNS)
    .where('organization_id', '=', organizationId)
    .where('message_id', '=', messageId)
    .executeTakeFirst();
  if (existing) return { eval: existing, created: false };
  const c = evalCase(input.original, input.sent);
  const earlier = await tx
    .selectFrom('prompt_evals')
    .select(sql<number>`(detail->'case'->>'similarity')::float8`.as('similarity'))
    .where('organization_id', '=', organizationId)
    .where('prompt_key', '=', promptKey)
    .where('prompt_version', '=', promptVersion)
    .where('message_id', 'is not', null)
    .execute();
  const similarities = [...earlier.map((r) => r.similarity), c.similarity];
  const row = await tx
    .insertInto('prompt_evals')
    .values({
      organization_id: organizationId,
      message_id: messageId,
      prompt_key: promptKey,
      prompt_version: promptVersion,
      score: versionScore(similarities)!,
      detail: JSON.stringify({ case: { message_id: messageId, ...c }, cases: similarities.length }),
    })
    .returning(EVAL_COLUMNS)
    .executeTakeFirstOrThrow();
  return { eval: row, created: true };
}
