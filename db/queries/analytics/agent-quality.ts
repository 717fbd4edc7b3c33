import { sql } from 'kysely';
import type { Reader, Tx } from '../../tenancy';
import { receivedAt, REPLY_FILTER } from './deliverability';
import { isoUtc, windowStart } from './shared';

export interface AgentQualityVersionRow {
  prompt_version: string | null;
  drafts: number;
  approved: number;
  rejected: number;
  edited: number;
  reply_intents: Record<string, number>;
}

export interface AgentQualityRow {
  drafts: number;
  approved: number;
  rejected: number;
  edited: number;
  reply_intents: Record<string, number>;
  by_prompt_version: AgentQualityVersionRow[];
  prompt_evals: Array<{ prompt_key: string; prompt_version: string; score: number; cases: number; created_at: string }>;
}

/** How many prompt versions' newest evals the answer lists (newest first). */
export const PROMPT_EVALS_SHOWN = 20;

/**
 * Agent quality, one statement. Drafts: outbound e-mails a model wrote in the window (model set;
 * reminders and hand-written messages are not drafts of a prompt). Approved: a person
 * (or auto mode) let them go (approved_at set, or approved, scheduled, sent or failed). Rejected:
 * status rejected. Edited: approved with a sent text (body) that differs from what the model wrote
 * (original_body). Reply intents: the replies (REPLY_FILTER: a contact's, classified) received in the window, overall and per
 * prompt version of the newest draft the thread had sent before the reply. Prompt evals: the newest
 * score of each prompt version (any time), with how many eval cases it rests on.
 */
export function agentQualityQuery(organizationId: string, days: number) {
  const since = windowStart(days);
  return sql<AgentQualityRow>`
    WITH d AS (
      SELECT x.prompt_version,
             (x.approved_at IS NOT NULL OR x.status IN ('approved', 'scheduled', 'sent', 'failed')) AS approved,
             x.status = 'rejected' AS rejected,
             x.original_body IS NOT NULL AND x.body IS NOT NULL AND x.original_body <> x.body AS changed
        FROM messages x
       WHERE x.organization_id = ${organizationId} AND x.direction = 'outbound' AND x.channel = 'email' AND x.model IS NOT NULL AND x.created_at >= ${since}
    ), r AS (
      SELECT x.intent,
             (SELECT o.prompt_version FROM messages o
               WHERE o.organization_id = x.organization_id AND o.thread_id = x.thread_id AND o.direction = 'outbound'
                 AND o.sent_at <= ${receivedAt}
               ORDER BY o.sent_at DESC LIMIT 1) AS prompt_version
        FROM messages x
       WHERE x.organization_id = ${organizationId} AND ${REPLY_FILTER} AND ${receivedAt} >= ${since}
    ), v AS (
      SELECT d.prompt_version, count(*)::int AS drafts, count(*) FILTER (WHERE d.approved)::int AS approved,
             count(*) FILTER (WHERE d.rejected)::int AS rejected, count(*) FILTER (WHERE d.approved AND d.changed)::int AS edited
        FROM d GROUP BY d.prompt_version
    ), vi AS (
      SELECT i.prompt_version, jsonb_object_agg(i.intent, i.n) AS reply_intents
        FROM (SELECT r.prompt_version, r.intent, count(*)::int AS n FROM r GROUP BY r.prompt_version, r.intent) i
       GROUP BY i.prompt_version
    ), e AS (
      SELECT DISTINCT ON (p.prompt_key, p.prompt_version) p.prompt_key, p.prompt_version, p.score, p.detail, p.created_at
        FROM prompt_evals p
       WHERE p.organization_id = ${organizationId}
       ORDER BY p.prompt_key, p.prompt_version, p.created_at DESC
    )
    SELECT
      (SELECT coalesce(sum(v.drafts), 0) FROM v)::int AS drafts,
      (SELECT coalesce(sum(v.approved), 0) FROM v)::int AS approved,
      (SELECT coalesce(sum(v.rejected), 0) FROM v)::int AS rejected,
      (SELECT coalesce(sum(v.edited), 0) FROM v)::int AS edited,
      (SELECT coalesce(jsonb_object_agg(i.intent, i.n), '{}'::jsonb)
         FROM (SELECT r.intent, count(*)::int AS n FROM r GROUP BY r.intent) i) AS reply_intents,
      (SELECT coalesce(jsonb_agg(jsonb_build_object(
                'prompt_version', vv.prompt_version, 'drafts', coalesce(vv.drafts, 0), 'approved', coalesce(vv.approved, 0),
                'rejected', coalesce(vv.rejected, 0), 'edited', coalesce(vv.edited, 0), 'reply_intents', coalesce(vv.reply_intents, '{}'::jsonb))
              ORDER BY vv.prompt_version NULLS LAST), '[]'::jsonb)
         FROM (SELECT * FROM v FULL JOIN vi USING (prompt_version)) vv) AS by_prompt_version,
      (SELECT coalesce(jsonb_agg(jsonb_build_object(
                'prompt_key', ee.prompt_key, 'prompt_version', ee.prompt_version, 'score', ee.score,
                'cases', coalesce((ee.detail->>'cases')::int, 0), 'created_at', ${isoUtc(sql`ee.created_at`)})
              ORDER BY ee.created_at DESC, ee.prompt_key, ee.prompt_version), '[]'::jsonb)
         FROM (SELECT * FROM e ORDER BY e.created_at DESC LIMIT ${PROMPT_EVALS_SHOWN}) ee) AS prompt_evals`;
}

export async function agentQuality(tx: Tx | Reader, organizationId: string, days: number): Promise<AgentQualityRow> {
  return (await agentQualityQuery(organizationId, days).execute(tx)).rows[0]!;
}
