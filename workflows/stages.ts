/**
 * The signal pipeline's stages, in order (api-contract `fromStage` values). A stage is run by the
 * activity named here; a stage without an activity yet is skipped, so later work plugs a stage in
 * by naming its activity, without touching the others.
 */
export const PIPELINE_STAGES = ['classification', 'scoring', 'opportunity', 'enrichment', 'drafting', 'strategist'] as const;
export type PipelineStage = (typeof PIPELINE_STAGES)[number];

export const STAGE_ACTIVITY: Record<PipelineStage, string | null> = {
  classification: 'classifySignal',
  scoring: 'scoreSignal',
  opportunity: 'openSignalOpportunity',
  enrichment: 'enrichSignalCompany',
  drafting: null,
  strategist: null,
};
