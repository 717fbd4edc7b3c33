import { rate } from '../../../domain/analytics/windows';
import type { Tx } from '../../tenancy';
import { agentQuality } from './agent-quality';
import { attribution } from './attribution';
import { deliverability } from './deliverability';
import { analyticsSession } from './shared';

/** GET /analytics/outreach: the three sections, each one statement, in the caller's transaction. */
export async function outreachAnalytics(tx: Tx, organizationId: string, days: number) {
  await analyticsSession(tx);
  const sources = await attribution(tx, organizationId, days);
  const mailboxes = await deliverability(tx, organizationId, days);
  const quality = await agentQuality(tx, organizationId, days);
  return {
    window_days: days,
    attribution: sources,
    deliverability: mailboxes,
    agent_quality: {
      drafts: quality.drafts,
      approved: quality.approved,
      rejected: quality.rejected,
      approval_rate: rate(quality.approved, quality.approved + quality.rejected),
      edited: quality.edited,
      edit_rate: rate(quality.edited, quality.approved),
      reply_intents: quality.reply_intents,
      by_prompt_version: quality.by_prompt_version.map((v) => ({
        ...v,
        approval_rate: rate(v.approved, v.approved + v.rejected),
        edit_rate: rate(v.edited, v.approved),
      })),
      prompt_evals: quality.prompt_evals,
    },
  };
}
