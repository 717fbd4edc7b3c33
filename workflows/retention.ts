import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { LIVENESS_TIMEOUT } from './retry';

/**
 * The daily retention sweep of one organization (Temporal Schedule `retention/<organizationId>`):
 * contacts not engaged within retention_months are erased, leaving only a hashed suppression.
 */
export async function retentionSweepWorkflow(input: { organizationId: string; asOf?: string }): Promise<{ erased: number }> {
  const { eraseStaleContacts } = proxyActivities<Activities>({
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: LIVENESS_TIMEOUT,
    retry: { maximumAttempts: 5 },
  });
  return eraseStaleContacts(input);
}
