import { condition, patched, proxyActivities, setHandler, sleep, uuid4 } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { SendOutcome } from '../activities/send';
import { dbActivityOptions, NON_RETRYABLE_STAGE_ERRORS } from './retry';
import { enrollmentChangedSignal } from './sequence-signals';

export interface SendMessageInput {
  organizationId: string;
  messageId: string;
  /** How long a held message (paused enrollment, mailbox not sendable) waits before looking again when nothing wakes it (default 15 minutes). */
  holdRecheckMs?: number;
  /**
   * The activities' start-to-close timeout: how long before the work of a worker that died is tried
   * again (default 2 minutes for booking, 3 for the send, above the SMTP client's own timeouts).
   */
  activityTimeoutMs?: number;
  retryInitialIntervalMs?: number;
}

/** Runs recorded before a never-checked mailbox was checked before its first send. */
const FIRST_CHECK_PATCH = 'mailbox-health-first-send';

/** The send errors no retry may repeat: a 5xx is final, and a send that may have been delivered is never tried again. */
const NON_RETRYABLE_SEND_ERRORS = [...NON_RETRYABLE_STAGE_ERRORS, 'SmtpPermanentError', 'SmtpAmbiguousError', 'SendConfiguration'];

/**
 * One approved message on its way out (`message/<id>/send`; a sequence run starts it as a child,
 * the API for a draft outside a sequence): book a send slot inside the mailbox's window and cap
 * (the reservation and the move to `scheduled` in one transaction), sleep until the slot (a durable
 * timer), then send once. A held message (its enrollment paused, its mailbox not sendable) waits
 * for a signal or holdRecheckMs and tries again; a send that finds the enrollment paused gives the
 * slot back and books again later.
 */
export async function sendMessageWorkflow(input: SendMessageInput): Promise<SendOutcome> {
  let wake = 0;
  setHandler(enrollmentChangedSignal, () => void (wake += 1));
  const db = proxyActivities<Activities>({
    ...dbActivityOptions(input.retryInitialIntervalMs),
    ...(input.activityTimeoutMs ? { startToCloseTimeout: input.activityTimeoutMs } : {}),
  });
  const smtp = proxyActivities<Activities>({
    ...dbActivityOptions(input.retryInitialIntervalMs),
    startToCloseTimeout: input.activityTimeoutMs ?? 3 * 60_000,
    retry: { ...dbActivityOptions(input.retryInitialIntervalMs).retry, nonRetryableErrorTypes: NON_RETRYABLE_SEND_ERRORS },
  });
  const ref = { organizationId: input.organizationId, messageId: input.messageId };
  for (;;) {
    const seen = wake;
    const booked = await db.scheduleSend(ref);
    if (booked.state === 'final') return { status: booked.status };
    if (booked.state === 'unchecked') {
      // The mailbox's first send: its deliverability is checked first (a failing check holds the message).
      if (patched(FIRST_CHECK_PATCH)) await db.checkMailboxHealth({ organizationId: input.organizationId, mailboxId: booked.mailboxId, checkId: uuid4() });
      continue;
    }
    if (booked.state === 'held') {
      await condition(() => wake !== seen, input.holdRecheckMs ?? 15 * 60_000);
      continue;
    }
    const wait = booked.slotAtMs - Date.now();
    if (wait > 0) await sleep(wait);
    const sent = await smtp.sendMessage(ref);
    if ('requeue' in sent && sent.requeue) {
      await condition(() => wake !== seen, input.holdRecheckMs ?? 15 * 60_000);
      continue;
    }
    return sent;
  }
}
