import { log, proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ProposalOutcome } from '../activities/strategist';
import { dbActivityOptions } from './retry';

export interface StrategistInput {
  organizationId: string;
  opportunityId: string;
  /** How often to look again while the company's enrichment runs (default 1 minute; tests shorten it). */
  enrichmentPollMs?: number;
  /** How long to wait for a running enrichment at most before proposing with the contacts there are (default 2 hours). */
  enrichmentWaitMs?: number;
  retryInitialIntervalMs?: number;
}

export interface StrategistResult extends ProposalOutcome {
  /** How many times the run looked at a running enrichment before proposing. */
  waited: number;
}

/**
 * The strategist for one opportunity (`opportunity/<id>/strategist`): while the company's enrichment
 * is running it waits (a durable timer, looking again every enrichmentPollMs), so the proposal
 * follows the enrichment whichever ends last; then it proposes and stores a campaign
 * (activities/strategist.ts proposeCampaign), or says why it proposed none.
 */
export async function strategistWorkflow(input: StrategistInput): Promise<StrategistResult> {
  const db = proxyActivities<Activities>(dbActivityOptions(input.retryInitialIntervalMs));
  const ref = { organizationId: input.organizationId, opportunityId: input.opportunityId };
  const poll = input.enrichmentPollMs ?? 60_000;
  const budget = input.enrichmentWaitMs ?? 2 * 3600_000;
  let waited = 0;
  while ((await db.strategistReadiness(ref)).waitForEnrichment && waited * poll < budget) {
    waited += 1;
    await sleep(poll);
  }
  if (waited * poll >= budget) log.warn('enrichment still running: proposing with the contacts there are', { waited });
  const outcome = await db.proposeCampaign(ref);
  return { ...outcome, waited };
}
