import { z } from 'zod';
import { emptyBody, id, listBase, nullable, record, stamps, timestamp, uuid, type Agrees, type Operation, type Row } from '../contract';
import { PIPELINE_STAGES } from '../../../domain/signals/pipeline-stages';
import type { getSignal, getSignalDetail } from '../../../db/queries/signals';

/**
 * The HTTP contract of apps/api/routes/signals.ts: publications turned into signals, classified and
 * scored. Its request schemas, the records it answers (registered with `record`) and its operations,
 * which apps/api/openapi.ts assembles into the OpenAPI document.
 */

export const signalStatuses = ['ingested', 'classified', 'scored', 'ignored', 'qualified', 'ready', 'failed'] as const;

export const listSignalsQuery = z
  .object({
    ...listBase,
    status: z.enum(signalStatuses).optional(),
    projectId: uuid.optional(),
    q: z.string().trim().min(1).max(200).optional(),
  })
  .strict();

export const reprocessBody = z.object({ fromStage: z.enum(PIPELINE_STAGES).optional() }).strict();

export const Signal = record(
  'Signal',
  'A publication turned into a signal, with its pipeline status',
  z.object({
    id,
    organization_id: id,
    source_id: id,
    raw_publication_id: nullable(id),
    project_id: nullable(id),
    external_id: z.string(),
    status: z.enum(signalStatuses),
    signal_type: z.string(),
    title: z.string(),
    summary: nullable(z.string()),
    published_at: nullable(timestamp),
    effective_start: nullable(timestamp),
    effective_end: nullable(timestamp),
    source_url: nullable(z.string()),
    current_score: nullable(z.number()),
    dedupe_key: z.string(),
    ...stamps,
  }),
);

export const Classification = record(
  'Classification',
  'The current classification of a signal',
  z.object({
    id,
    signal_id: id,
    organization_id: id,
    version: z.number().int(),
    model: z.string(),
    prompt_key: nullable(z.string()),
    prompt_version: nullable(z.string()),
    prompt_hash: nullable(z.string()),
    output: z.unknown().describe("The classifier's full answer (free-form JSON)"),
    confidence: nullable(z.number()),
    commercial_relevance: z.boolean(),
    relevance_reasons: z.array(z.string()),
    project_category: nullable(z.string()),
    project_stage: nullable(z.string()),
    estimated_size: nullable(z.number()).describe('Euros'),
    is_current: z.boolean(),
    ...stamps,
  }),
);

const decision = z.enum(['ignore', 'qualify', 'opportunity']);

export const Score = record(
  'Score',
  'The current score of a signal',
  z.object({ id, signal_id: id, scoring_config_id: id, organization_id: id, total: z.number(), decision, is_current: z.boolean(), ...stamps }),
);

export const ScoreComponent = record(
  'ScoreComponent',
  "One rule's points: min(max_points, raw_value x weight), with the reason",
  z.object({
    dimension: z.string(),
    rule_key: z.string(),
    origin: z.enum(['rule', 'model', 'manual']),
    raw_value: z.number(),
    weight: z.number(),
    points: z.number(),
    reason: z.string(),
  }),
);

export const ScoreBreakdown = record(
  'ScoreBreakdown',
  "The score's total, decision and components",
  z.object({ total: z.number(), decision, components: z.array(ScoreComponent) }),
);

export const SignalDetail = record(
  'SignalDetail',
  'A signal with its current classification and score; classification, score, components and breakdown are present when they exist',
  z.object({
    signal: Signal,
    classification: Classification.optional(),
    score: Score.optional(),
    components: z.array(ScoreComponent).optional(),
    breakdown: ScoreBreakdown.optional(),
  }),
);

export const SignalRun = record(
  'SignalRun',
  'The processSignalWorkflow run that was started',
  z.object({ workflow_id: z.string(), run_id: z.string(), from_stage: z.enum(PIPELINE_STAGES) }),
);

/** Fails to compile, naming the fields, when a query's column list and its response schema drift apart. */
export const ROWS_MATCH: {
  Signal: Agrees<Row<typeof getSignal>, typeof Signal>;
  Classification: Agrees<NonNullable<Row<typeof getSignalDetail>['classification']>, typeof Classification>;
  Score: Agrees<NonNullable<Row<typeof getSignalDetail>['score']>, typeof Score>;
  ScoreComponent: Agrees<NonNullable<Row<typeof getSignalDetail>['components']>[number], typeof ScoreComponent>;
} = { Signal: true, Classification: true, Score: true, ScoreComponent: true };

export const operations = [
  {
    id: 'listSignals',
    method: 'get',
    path: '/signals',
    tag: 'Signals',
    summary: 'List signals, newest first',
    role: 'viewer',
    query: listSignalsQuery,
    answer: z.array(Signal),
  },
  {
    id: 'getSignal',
    method: 'get',
    path: '/signals/{signalId}',
    tag: 'Signals',
    summary: 'A signal with its classification, score and breakdown',
    role: 'viewer',
    answer: SignalDetail,
  },
  {
    id: 'ignoreSignal',
    method: 'post',
    path: '/signals/{signalId}/ignore',
    tag: 'Signals',
    summary: 'Ignore a signal',
    role: 'member',
    body: emptyBody,
    answer: Signal,
  },
  {
    id: 'reprocessSignal',
    method: 'post',
    path: '/signals/{signalId}/reprocess',
    tag: 'Signals',
    summary: 'Run processSignalWorkflow from a stage (409 while a run is in progress)',
    role: 'member',
    body: reprocessBody,
    status: 202,
    answer: SignalRun,
    problems: [409],
  },
] as const satisfies readonly Operation[];
