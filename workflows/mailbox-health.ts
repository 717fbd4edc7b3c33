import { proxyActivities, uuid4 } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { LIVENESS_TIMEOUT } from './retry';
import { notifySequences } from './sequence-signals';

/**
 * The daily deliverability re-check of one mailbox (Temporal Schedule `mailbox/<id>/health`): looks
 * up SPF, DKIM, DMARC and MX, stores the result as the mailbox's health, and when the mailbox is
 * sendable wakes the sequences whose approved sends it held.
 */
export async function mailboxHealthWorkflow(input: {
  organizationId: string;
  mailboxId: string;
}): Promise<{ score: number; sendable: boolean; woken: number }> {
  const { checkMailboxHealth } = proxyActivities<Activities>({
    startToCloseTimeout: '2 minutes',
    heartbeatTimeout: LIVENESS_TIMEOUT,
    retry: { maximumAttempts: 3 },
  });
  // One id for the check, made here: an activity retry stores it once.
  const { result, waitingEnrollmentIds } = await checkMailboxHealth({ ...input, checkId: uuid4() });
  if (waitingEnrollmentIds.length) await notifySequences(waitingEnrollmentIds);
  return { score: result.score, sendable: result.sendable, woken: waitingEnrollmentIds.length };
}
