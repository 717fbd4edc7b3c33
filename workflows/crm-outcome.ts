import { proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { OutcomeSyncResult } from '../activities/crm-outcome';
import { outcomeChangedSignal } from './crm-outcome-signals';
import { providerActivityOptions } from './retry';

export interface CrmOutcomeInput {
  organizationId: string;
  opportunityId: string;
  retryInitialIntervalMs?: number;
}

/**
 * An opportunity's outcome to the CRM (`crm-outcome/<opportunityId>`): the sync activity (on the
 * providers queue, retried through an outage) writes the outcome as it is when it runs; an outcome
 * changed meanwhile (the signal) runs it once more before the run ends. The API starts or wakes it
 * with signalWithStart, so a run that has ended starts again for the next change.
 */
export async function crmOutcomeWorkflow(input: CrmOutcomeInput): Promise<OutcomeSyncResult | null> {
  const providers = proxyActivities<Activities>(providerActivityOptions(workflowInfo().taskQueue, input.retryInitialIntervalMs));
  let dirty = true;
  setHandler(outcomeChangedSignal, () => {
    dirty = true;
  });
  let result: OutcomeSyncResult | null = null;
  while (dirty) {
    dirty = false;
    // A signal that arrives while the run completes fails that completion: the run goes round again.
    result = await providers.syncOutcomeToCrm({ organizationId: input.organizationId, opportunityId: input.opportunityId });
  }
  return result;
}
