import { z } from 'zod';
import { id, nullable, record, timestamp, uuid, type Agrees, type Operation, type Row } from '../contract';
import { ANALYTICS_WINDOWS, DEFAULT_ANALYTICS_WINDOW } from '../../../domain/analytics/windows';
import type { outreachAnalytics } from '../../../db/queries/analytics/outreach';

/**
 * The HTTP contract of apps/api/routes/analytics.ts: outreach analytics. Its request schemas, the
 * records it answers (registered with `record`) and its operations, which apps/api/openapi.ts
 * assembles into the OpenAPI document.
 */

export const analyticsQuery = z
  .object({
    organizationId: uuid,
    window: z
      .enum(ANALYTICS_WINDOWS.map(String) as [string, ...string[]], { message: `must be one of ${ANALYTICS_WINDOWS.join(', ')} (days)` })
      .default(String(DEFAULT_ANALYTICS_WINDOW))
      .transform(Number),
  })
  .strict();

const rate = nullable(z.number()).describe('A fraction 0–1, null when there is nothing to divide by');

const intents = z.record(z.string(), z.number().int()).describe('Reply intent -> count');

export const OutreachAnalytics = record(
  'OutreachAnalytics',
  'Outreach analytics over a window: attribution by source, deliverability per mailbox, agent quality',
  z.object({
    window_days: z.number().int(),
    attribution: z.array(
      z.object({
        source_id: id,
        source_name: z.string(),
        signals: z.number().int().describe('Signals the source produced in the window'),
        opportunities: z.number().int().describe('Opportunities opened from those signals'),
        meetings: z.number().int().describe('Of those opportunities, how many have a meeting booked and not cancelled or missed'),
        won: z.number().int(),
        won_value: z.number().describe("Sum of the won opportunities' values, euros"),
      }),
    ),
    deliverability: z.array(
      z.object({
        mailbox_id: id,
        address: z.string(),
        sent: z.number().int().describe('Delivery attempts in the window (status sent or failed)'),
        bounced: z.number().int().describe('Of which failed'),
        replied: z.number().int().describe('Replies received in the window'),
        health_score: nullable(z.number()).describe('Score of the newest health check'),
        sendable: nullable(z.boolean()).describe('Whether the newest health check found the mailbox sendable'),
        checked_at: nullable(timestamp).describe('When the newest health check ran'),
        complaints: z.number().int().describe('Of the attempts, those that drew a complaint (ARF feedback report)'),
        bounce_rate: z.number().describe('bounced / sent, 4 decimals (0 without sends)'),
        complaint_rate: z.number().describe('complaints / sent, 4 decimals (0 without sends)'),
        status: z.enum(['active', 'paused']).describe("The mailbox's status now"),
      }),
    ),
    agent_quality: z.object({
      drafts: z.number().int().describe('Outbound e-mails written in the window'),
      approved: z.number().int(),
      rejected: z.number().int(),
      approval_rate: rate.describe('approved / (approved + rejected)'),
      edited: z.number().int().describe('Approved drafts whose sent text differs from what the model wrote'),
      edit_rate: rate.describe('edited / approved'),
      reply_intents: intents,
      by_prompt_version: z.array(
        z.object({
          prompt_version: nullable(z.string()),
          drafts: z.number().int(),
          approved: z.number().int(),
          rejected: z.number().int(),
          approval_rate: rate,
          edited: z.number().int(),
          edit_rate: rate,
          reply_intents: intents.describe("Intents of replies to this version's drafts"),
        }),
      ),
      prompt_evals: z
        .array(
          z.object({
            prompt_key: z.string(),
            prompt_version: z.string(),
            score: z.number().describe('Mean similarity of the edited drafts to what was sent (1 = unchanged)'),
            cases: z.number().int(),
            created_at: timestamp,
          }),
        )
        .describe('The newest score of each prompt version, newest first'),
    }),
  }),
);

/** Fails to compile, naming the fields, when a query's column list and its response schema drift apart. */
export const ROWS_MATCH: {
  OutreachAnalytics: Agrees<Row<typeof outreachAnalytics>, typeof OutreachAnalytics>;
  AttributionRow: Agrees<Row<typeof outreachAnalytics>['attribution'][number], typeof OutreachAnalytics.shape.attribution.element>;
  DeliverabilityRow: Agrees<Row<typeof outreachAnalytics>['deliverability'][number], typeof OutreachAnalytics.shape.deliverability.element>;
  AgentQuality: Agrees<Row<typeof outreachAnalytics>['agent_quality'], typeof OutreachAnalytics.shape.agent_quality>;
} = { OutreachAnalytics: true, AttributionRow: true, DeliverabilityRow: true, AgentQuality: true };

export const operations = [
  {
    id: 'getOutreachAnalytics',
    method: 'get',
    path: '/analytics/outreach',
    tag: 'Analytics',
    summary: 'Attribution, deliverability and agent quality over 7, 30, 90 or 180 days',
    role: 'viewer',
    query: analyticsQuery,
    answer: OutreachAnalytics,
  },
] as const satisfies readonly Operation[];
