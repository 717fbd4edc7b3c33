import type { Activities } from '../activities';
import type { SignalRef, StageOutcome } from '../activities/signal-stages';
import type { PipelineStage } from '../domain/signals/pipeline-stages';

/** The activities that can run a stage: (ref) => StageOutcome. */
export type StageActivityName = {
  [K in keyof Activities]: Activities[K] extends (ref: SignalRef) => Promise<StageOutcome> ? K : never;
}[keyof Activities];
export type StageActivities = Pick<Activities, StageActivityName>;

/**
 * The stages of the first recorded runs. Every stage added since changes the commands of a running
 * workflow, so its entry must name the patch that guards it (workflows/process-signal.ts calls
 * `patched(patch)` before running it): the type below does not compile without one.
 */
type OriginalStage = 'classification' | 'scoring' | 'opportunity';

export type StageEntry<S extends PipelineStage> = {
  /** The stage's activity, picked from the activities (go-to-definition leads to it). */
  activity: (a: StageActivities) => StageActivities[StageActivityName];
  /** Model and provider calls run on the rate-limited providers task queue. */
  queue?: 'providers';
} & (S extends OriginalStage ? { patch?: never } : { patch: string });

export type StageTable = { [S in PipelineStage]?: StageEntry<S> };

export const STAGES: StageTable = {
  classification: { activity: (a) => a.classifySignal, queue: 'providers' },
  scoring: { activity: (a) => a.scoreSignal },
  opportunity: { activity: (a) => a.openSignalOpportunity },
  enrichment: { activity: (a) => a.enrichSignalCompany, patch: 'enrichment-stage' },
  // The outreach brief of the signal's opportunity (activities/strategist.ts).
  drafting: { activity: (a) => a.draftSignalBrief, patch: 'drafting-stage' },
  // Whether the opportunity gets a proposal; the workflow then starts strategistWorkflow (which waits for a running enrichment).
  strategist: { activity: (a) => a.strategistSignalStage, patch: 'strategist-stage' },
};
