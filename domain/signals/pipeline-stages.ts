/**
 * The signal pipeline's stages, in order (the `fromStage` values of POST /signals/{id}/reprocess). Each is run by the activity its
 * entry in workflows/stages.ts names; a stage without an entry is skipped.
 */
export const PIPELINE_STAGES = ['classification', 'scoring', 'opportunity', 'enrichment', 'drafting', 'strategist'] as const;
export type PipelineStage = (typeof PIPELINE_STAGES)[number];

/** Where a pipeline left off, by the signal's status: the stage to resume from. */
export function resumeStage(status: string): PipelineStage | null {
  switch (status) {
    case 'ingested':
      return 'classification';
    case 'classified':
      return 'scoring';
    case 'scored':
    case 'qualified':
    case 'ready':
      return 'opportunity';
    default:
      return null;
  }
}
