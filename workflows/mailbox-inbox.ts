import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { providerActivityOptions } from './retry';
import { notifySequences } from './sequence-signals';

export interface MailboxInboxInput {
  organizationId: string;
  mailboxId: string;
  /** Messages per read (one activity); default 50. */
  batchSize?: number;
  /** Reads per run at most (the next scheduled run takes the rest); default 20. */
  maxBatches?: number;
  retryInitialIntervalMs?: number;
}

export interface MailboxInboxResult {
  read: number;
  stored: number;
  duplicates: number;
  changedEnrollmentIds: string[];
  error: string | null;
}

/**
 * One read of a mailbox's IMAP inbox (`mailbox/<id>/inbox`, started by its Temporal Schedule every
 * INBOX_POLL_SECONDS, overlap skip): batches of new mail are stored, threaded and acted on by the
 * pollMailboxInbox activity, which keeps the UID position in the database; the sequences of the
 * enrollments a reply stopped or paused are woken. A login the server refuses ends the run with
 * the error (the mailbox's last_error); the next scheduled run tries again, so nothing loops hot.
 */
export async function mailboxInboxWorkflow(input: MailboxInboxInput): Promise<MailboxInboxResult> {
  // An outside server and possibly a model: on the rate-limited providers queue.
  const { pollMailboxInbox } = proxyActivities<Activities>({
    ...providerActivityOptions(workflowInfo().taskQueue, input.retryInitialIntervalMs),
    startToCloseTimeout: '5 minutes',
  });
  const result: MailboxInboxResult = { read: 0, stored: 0, duplicates: 0, changedEnrollmentIds: [], error: null };
  for (let i = 0; i < (input.maxBatches ?? 20); i++) {
    const r = await pollMailboxInbox({ organizationId: input.organizationId, mailboxId: input.mailboxId, batchSize: input.batchSize ?? 50 });
    result.read += r.read;
    result.stored += r.stored;
    result.duplicates += r.duplicates;
    result.error = r.error;
    if (r.changedEnrollmentIds.length) {
      await notifySequences(r.changedEnrollmentIds);
      result.changedEnrollmentIds.push(...r.changedEnrollmentIds);
    }
    if (!r.more || r.error) break;
  }
  return result;
}
