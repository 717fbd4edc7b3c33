import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  condition,
  getExternalWorkflowHandle,
  log,
  ParentClosePolicy,
  patched,
  proxyActivities,
  setHandler,
  startChild,
  WorkflowIdReusePolicy,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { BookingOutcome, CrmSyncOutcome } from '../activities/meetings';
import type { BookingEvent, BookingProvider } from '../domain/meetings/bookings';
import { meetingChangedSignal } from './meeting-signals';
import { dbActivityOptions, providerActivityOptions } from './retry';
import { searchAttributes, workflowIds } from './search-attributes';
import { notifySequences } from './sequence-signals';

/** Runs recorded before the reminder e-mail was handed to a send run created the draft only. */
const REMINDER_SEND_PATCH = 'meeting-reminder-send';

/** Starts `message/<id>/send` for the reminder draft, left to run on its own; one already there is fine. */
async function startReminderSend(input: MeetingWorkflowInput, messageId: string): Promise<void> {
  try {
    await startChild('sendMessageWorkflow', {
      workflowId: workflowIds.sendMessage(messageId),
      args: [{ organizationId: input.organizationId, messageId, retryInitialIntervalMs: input.retryInitialIntervalMs }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: searchAttributes({ OrganizationId: input.organizationId }),
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

export interface MeetingWorkflowInput {
  organizationId: string;
  meetingId: string;
  retryInitialIntervalMs?: number;
}

export interface MeetingWorkflowResult {
  /** The status the meeting had when the run ended. */
  status: string | null;
  remindersCreated: number;
  crm: CrmSyncOutcome | null;
}

/**
 * One meeting (`meeting/<id>`): sleeps (a durable timer) until its reminder is due (reminder_at: the
 * organization's lead time before the start; at once when that moment has passed), then creates the
 * reminder (a task for the owner, and an e-mail draft to the attendee); waits until the meeting has
 * ended for a move or a cancellation. Alongside, the CRM sync (on the providers queue) runs once at
 * the start and again after every change, without holding up the reminder. A signal
 * (meetingChanged) wakes it: it reads the meeting again. A cancelled or finished meeting ends it;
 * moving the start withdraws a reminder already made (in the database) and plans the next one.
 */
export async function meetingWorkflow(input: MeetingWorkflowInput): Promise<MeetingWorkflowResult> {
  const db = proxyActivities<Activities>(dbActivityOptions(input.retryInitialIntervalMs));
  const providers = proxyActivities<Activities>(providerActivityOptions(workflowInfo().taskQueue, input.retryInitialIntervalMs));
  const ref = { organizationId: input.organizationId, meetingId: input.meetingId };
  let changed = false;
  let crmDirty = true;
  let done = false;
  setHandler(meetingChangedSignal, () => {
    changed = true;
    crmDirty = true;
  });

  let crm: CrmSyncOutcome | null = null;
  const crmSync = (async () => {
    for (;;) {
      await condition(() => crmDirty || done);
      if (!crmDirty) return;
      crmDirty = false;
      try {
        crm = await providers.syncMeetingToCrm(ref);
      } catch (err) {
        log.warn('CRM sync gave up', { meetingId: ref.meetingId, error: (err as Error).message });
      }
    }
  })();

  let remindersCreated = 0;
  let status: string | null;
  for (;;) {
    changed = false;
    const s = await db.meetingSchedule(ref);
    status = s?.status ?? null;
    if (!s || s.status !== 'proposed') break;
    if (!s.reminded && s.reminderAt) {
      const wait = Date.parse(s.reminderAt) - Date.now();
      if (wait > 0 && (await condition(() => changed, wait))) continue;
      const reminder = await db.createMeetingReminder({ ...ref, startsAt: s.startsAt });
      if (reminder.created) remindersCreated += 1;
      // The reminder e-mail goes out through its own send run (in review mode it waits for approval there).
      if (reminder.messageId && patched(REMINDER_SEND_PATCH)) await startReminderSend(input, reminder.messageId);
      continue;
    }
    const untilEnd = Date.parse(s.endsAt) - Date.now();
    if (untilEnd <= 0) break;
    if (!(await condition(() => changed, untilEnd))) break;
  }
  done = true;
  await crmSync;
  return { status, remindersCreated, crm };
}

export interface BookingWorkflowInput {
  organizationId: string;
  integrationId: string;
  provider: BookingProvider;
  event: BookingEvent;
  retryInitialIntervalMs?: number;
}

/**
 * One verified booking delivery (`booking/<integrationId>/<digest of the body>`), acting for the
 * integration's organization: records, moves or cancels the meeting (recordBooking), wakes the
 * sequence runs it stopped, and starts the meeting's workflow (or wakes the one that runs).
 */
export async function bookingWorkflow(input: BookingWorkflowInput): Promise<BookingOutcome> {
  const db = proxyActivities<Activities>(dbActivityOptions(input.retryInitialIntervalMs));
  const outcome = await db.recordBooking({ organizationId: input.organizationId, provider: input.provider, event: input.event });
  if (outcome.stoppedEnrollmentIds.length) await notifySequences(outcome.stoppedEnrollmentIds);
  if (outcome.meetingId && outcome.changed) {
    const workflowId = workflowIds.meeting(outcome.meetingId);
    // Start the meeting's run, or wake the one that runs; a run that ends between the two is started anew.
    for (let attempt = 1; ; attempt++) {
      try {
        await startChild(meetingWorkflow, {
          workflowId,
          args: [{ organizationId: input.organizationId, meetingId: outcome.meetingId, retryInitialIntervalMs: input.retryInitialIntervalMs }],
          parentClosePolicy: ParentClosePolicy.ABANDON,
          workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
          typedSearchAttributes: searchAttributes({
            OrganizationId: input.organizationId,
            OpportunityId: outcome.opportunityId ?? undefined,
            EnrollmentId: outcome.enrollmentId ?? undefined,
          }),
        });
        break;
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
      try {
        await getExternalWorkflowHandle(workflowId).signal(meetingChangedSignal);
        break;
      } catch (err) {
        if (attempt >= 3) throw err;
        log.info('the meeting run ended before it could be woken: starting it again', { workflowId, error: (err as Error).message });
      }
    }
  }
  return outcome;
}
