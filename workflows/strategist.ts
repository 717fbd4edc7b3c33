import { log, patched, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ProposalOutcome } from '../activities/strategist';
import { dbActivityOptions, providerActivityOptions } from './retry';

/** Runs recorded before it proposed in one activity; with it the words are written on the providers queue (a model call). */
const WRITER_QUEUE_PATCH = 'strategist-writer-queue';

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
 * follows the enrichment whichever ends last; then it decides the proposal (prepareProposal), has it
 * written (writeProposal, on the providers queue: the organization's model, else the template
 * writer) and stores it (storeProposal), or says why it proposed none.
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
  if (!patched(WRITER_QUEUE_PATCH)) return { ...(await db.proposeCampaign(ref)), waited };
  const prepared = await db.prepareProposal(ref);
  if ('done' in prepared) return { ...prepared.done, waited };
  const providers = proxyActivities<Activities>(providerActivityOptions(workflowInfo().taskQueue, input.retryInitialIntervalMs));
  const written = await providers.writeProposal({ organizationId: input.organizationId, input: prepared.writerInput });
  return { ...(await db.storeProposal({ ref, prepared, written })), waited };
}
