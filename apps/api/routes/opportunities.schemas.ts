import { z } from 'zod';
import { emptyBody, id, listBase, nullable, record, stamps, timestamp, uuid, type Agrees, type Operation, type Row } from '../contract';
import type { getOpportunity } from '../../../db/queries/opportunities';

/**
 * The HTTP contract of apps/api/routes/opportunities.ts: sales opportunities and the strategist run
 * asked for one. Its request schemas, the records it answers (registered with `record`) and its
 * operations, which apps/api/openapi.ts assembles into the OpenAPI document.
 */

export const createOpportunityBody = z
  .object({
    organizationId: uuid,
    signalId: uuid.optional(),
    summary: z.string().trim().min(1).max(2000).optional(),
    score: z.number().min(0).max(1000).optional(),
  })
  .strict()
  .refine((v) => v.signalId || v.summary, { message: 'give a signalId, or a summary for a manual opportunity', path: ['summary'] });

export const outcomeBody = z
  .object({ outcome: z.enum(['won', 'lost', 'open']), value: z.number().min(0).max(1e12).optional() })
  .strict()
  .refine((v) => v.value === undefined || v.outcome === 'won', { message: 'a deal value goes only with outcome won', path: ['value'] });

export const listOpportunitiesQuery = z
  .object({ ...listBase, status: z.enum(['ready', 'in_outreach', 'closed']).optional(), outcome: z.enum(['open', 'won', 'lost']).optional() })
  .strict();

export const Opportunity = record(
  'Opportunity',
  'A sales opportunity for a project',
  z.object({
    id,
    organization_id: id,
    project_id: nullable(id),
    created_from_signal_id: nullable(id),
    company_id: nullable(id).describe('The company the enrichment stage linked'),
    status: z.enum(['ready', 'in_outreach', 'closed']),
    score: nullable(z.number()),
    summary: nullable(z.string()),
    outcome: z.enum(['open', 'won', 'lost']),
    outcome_at: nullable(timestamp),
    outcome_value: nullable(z.number()).describe('Deal value in euros (won only)'),
    crm_synced_at: nullable(timestamp).describe(
      "When the CRM last took the outcome (a Salesforce Opportunity's stage, when the CRM integration's mapping links one)",
    ),
    crm_error: nullable(z.string()).describe("The CRM's last refusal of the outcome (a 4xx), else null"),
    ...stamps,
  }),
);

export const StrategistRun = record(
  'StrategistRun',
  'The strategistWorkflow run that was started (opportunity/<id>/strategist)',
  z.object({ workflow_id: z.string(), run_id: z.string() }),
);

/** Fails to compile, naming the fields, when a query's column list and its response schema drift apart. */
export const ROWS_MATCH: {
  Opportunity: Agrees<Row<typeof getOpportunity>, typeof Opportunity>;
} = { Opportunity: true };

export const operations = [
  {
    id: 'createOpportunity',
    method: 'post',
    path: '/opportunities',
    tag: 'Opportunities',
    summary: 'Create an opportunity from a signal or manually (409 when the project has an open one)',
    role: 'member',
    body: createOpportunityBody,
    status: 201,
    answer: Opportunity,
    problems: [409],
  },
  {
    id: 'listOpportunities',
    method: 'get',
    path: '/opportunities',
    tag: 'Opportunities',
    summary: 'List opportunities',
    role: 'viewer',
    query: listOpportunitiesQuery,
    answer: z.array(Opportunity),
  },
  {
    id: 'getOpportunity',
    method: 'get',
    path: '/opportunities/{opportunityId}',
    tag: 'Opportunities',
    summary: 'One opportunity',
    role: 'viewer',
    answer: Opportunity,
  },
  {
    id: 'recordOpportunityOutcome',
    method: 'post',
    path: '/opportunities/{opportunityId}/outcome',
    tag: 'Opportunities',
    summary: 'Record won, lost, or reopen (409 when the project has another open one)',
    role: 'member',
    body: outcomeBody,
    answer: Opportunity,
    problems: [409],
  },
  {
    id: 'askStrategist',
    method: 'post',
    path: '/opportunities/{opportunityId}/strategist',
    tag: 'Opportunities',
    summary: 'Ask the strategist for a campaign proposal (202 with the run; 409 with campaign_id while a live proposal exists)',
    role: 'member',
    body: emptyBody,
    status: 202,
    answer: StrategistRun,
    problems: [409],
  },
] as const satisfies readonly Operation[];
