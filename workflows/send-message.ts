import {
  ActivityFailure,
  condition,
  continueAsNew,
  patched,
  proxyActivities,
  setHandler,
  sleep,
  TimeoutFailure,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
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
/**
 * Runs recorded before the send checked again at the moment of sending: the SMTP retries end at the
 * window's close, a requeue books again at once (a hold waits), a held run continues as new.
 */
const SEND_RECHECK_PATCH = 'send-recheck-at-send';
/** A held run continues as new after this many looks (or when Temporal suggests it), so its history stays bounded. */
const HELD_LOOPS_BEFORE_CONTINUE = 40;
/** A requeue that is no hold books again at once, at most this many times in a row before waiting. */
const IMMEDIATE_REQUEUES = 3;

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
  if (patched(SEND_RECHECK_PATCH)) return sendRechecked(input, ref, db, () => wake);
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

/**
 * The send as it is now (SEND_RECHECK_PATCH): the claim checks the moment again (window, slot, cap,
 * gap, mailbox) and answers requeue when it may not send; the SMTP activity's retries end at the
 * close of the slot's window (scheduleToClose), after which the message is booked again, never sent
 * late; a held message waits for a signal or holdRecheckMs and its run continues as new now and then.
 */
async function sendRechecked(
  input: SendMessageInput,
  ref: { organizationId: string; messageId: string },
  db: ReturnType<typeof proxyActivities<Activities>>,
  wake: () => number,
): Promise<SendOutcome> {
  const holdMs = input.holdRecheckMs ?? 15 * 60_000;
  let held = 0;
  let requeues = 0;
  const hold = async (seen: number) => {
    if (++held >= HELD_LOOPS_BEFORE_CONTINUE || workflowInfo().continueAsNewSuggested) await continueAsNew<typeof sendMessageWorkflow>(input);
    await condition(() => wake() !== seen, holdMs);
  };
  for (;;) {
    const seen = wake();
    const booked = await db.scheduleSend(ref);
    if (booked.state === 'final') return { status: booked.status };
    if (booked.state === 'unchecked') {
      await db.checkMailboxHealth({ organizationId: input.organizationId, mailboxId: booked.mailboxId, checkId: uuid4() });
      continue;
    }
    if (booked.state === 'held') {
      await hold(seen);
      continue;
    }
    const wait = booked.slotAtMs - Date.now();
    if (wait > 0) await sleep(wait);
    // The retries of a 4xx or a refused connection end when the slot's window closes; then it is booked again.
    const smtp = proxyActivities<Activities>({
      ...dbActivityOptions(input.retryInitialIntervalMs),
      startToCloseTimeout: input.activityTimeoutMs ?? 3 * 60_000,
      scheduleToCloseTimeout: Math.max(booked.windowEndsAtMs - Date.now(), 30_000),
      retry: { ...dbActivityOptions(input.retryInitialIntervalMs).retry, nonRetryableErrorTypes: NON_RETRYABLE_SEND_ERRORS },
    });
    let sent: SendOutcome;
    try {
      sent = await smtp.sendMessage(ref);
    } catch (err) {
      if (err instanceof ActivityFailure && err.cause instanceof TimeoutFailure) continue;
      throw err;
    }
    if ('requeue' in sent && sent.requeue) {
      if (sent.hold || ++requeues > IMMEDIATE_REQUEUES) {
        requeues = 0;
        await hold(seen);
      }
      continue;
    }
    return sent;
  }
}
