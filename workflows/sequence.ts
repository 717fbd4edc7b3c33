import {
  ActivityFailure,
  CancellationScope,
  ChildWorkflowHandle,
  condition,
  continueAsNew,
  log,
  ParentClosePolicy,
  patched,
  proxyActivities,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { StepOutcome } from '../domain/outreach/messages';
import { dbActivityOptions, providerActivityOptions } from './retry';
import { searchAttributes, workflowIds } from './search-attributes';
import { enrollmentChangedSignal } from './sequence-signals';
import type { sendMessageWorkflow } from './send-message';

export interface SequenceInput {
  organizationId: string;
  enrollmentId: string;
  campaignId: string;
  opportunityId?: string | null;
  mailboxId?: string | null;
  /** Where a continued run picks up: the step, the draft attempt, and the instant its delay counts from. */
  resume?: { position: number; attempt: number; fromMs: number };
  /** The longest the run sleeps without looking at the database again when no signal wakes it (default 6 hours). */
  recheckMs?: number;
  /** How long a held send waits before looking again (default 15 minutes). */
  holdRecheckMs?: number;
  /** Continue as new after this many events (default: when Temporal suggests it). */
  maxHistoryEvents?: number;
  retryInitialIntervalMs?: number;
}

export interface SequenceResult {
  /** How the run ended: completed, stopped (or otherwise ended elsewhere), failed, missing. */
  ended: string;
  position: number;
}

const ENDED = new Set(['stopped', 'completed', 'failed']);

/** Runs recorded before an activity that finally failed marked the enrollment `failed` (before: the run failed, the enrollment stayed active). */
const FAIL_ENROLLMENT_PATCH = 'sequence-activity-failure-fails-enrollment';
/** Runs recorded before the step's wait ended at an out-of-office pause's resume_at (before: it waited recheckMs). */
const STEP_RESUME_AT_PATCH = 'sequence-step-wait-until-resume-at';
/** Runs recorded before a failed child send was started again after a back-off (before: at once). */
const CHILD_BACKOFF_PATCH = 'sequence-child-failure-backoff';
/** Runs recorded before the first step's wait used the state just read at the start (before: read again at once). */
const FIRST_STATE_REUSED_PATCH = 'sequence-first-state-reused';

/** The reason an activity's final failure gives the enrollment (the cause's message, bounded). */
function failureReason(err: ActivityFailure): string {
  const cause = err.cause?.message ?? err.message;
  return `${err.activityType ?? 'an activity'} failed: ${cause}`.slice(0, 500);
}

/**
 * One contact's sequence (`enrollment/<id>`). For each step: wait its business-day delay (a durable
 * timer; a pause holds it, an out-of-office pause ends by itself at resume_at), ask the compliance
 * gate again and write the draft (the organization's model or the template writer, on the providers
 * queue), wait for a person's decision (review mode; auto mode drafts start approved; tasks wait to
 * be completed), then send it through a child run (`message/<id>/send`: slot, send at most once).
 * The database is the truth: every change (stop, pause, resume, approve, reject, complete) is written
 * there first and then signalled (enrollmentChanged), which wakes the run to read it again; without a
 * signal it still looks every recheckMs. A stopped enrollment ends the run at once (its child send is
 * cancelled with it). A run whose history grows continues as new where it was.
 */
export async function sequenceWorkflow(input: SequenceInput): Promise<SequenceResult> {
  try {
    return await runSequence(input);
  } catch (err) {
    // An activity that used up its budget (or failed for good: a revoked model key) ends the
    // enrollment `failed` with the reason, even when the run is being cancelled; the run then ends
    // normally. Without this the enrollment stayed `active` with no run behind it.
    if (err instanceof ActivityFailure && patched(FAIL_ENROLLMENT_PATCH)) {
      const reason = failureReason(err);
      log.warn('an activity failed for good; the enrollment fails', { reason });
      const db = proxyActivities<Activities>(dbActivityOptions(input.retryInitialIntervalMs));
      await CancellationScope.nonCancellable(() =>
        db.finishEnrollment({ organizationId: input.organizationId, enrollmentId: input.enrollmentId, action: 'fail', reason }),
      );
      return { ended: 'failed', position: input.resume?.position ?? 0 };
    }
    throw err;
  }
}

async function runSequence(input: SequenceInput): Promise<SequenceResult> {
  let wake = 0;
  let child: ChildWorkflowHandle<typeof sendMessageWorkflow> | undefined;
  setHandler(enrollmentChangedSignal, () => {
    wake += 1;
    // A resume or a passing mailbox check also concerns the send waiting in the child.
    void child?.signal(enrollmentChangedSignal).catch(() => undefined);
  });
  const recheckMs = input.recheckMs ?? 6 * 3600_000;
  const db = proxyActivities<Activities>(dbActivityOptions(input.retryInitialIntervalMs));
  const providers = proxyActivities<Activities>(providerActivityOptions(workflowInfo().taskQueue, input.retryInitialIntervalMs));
  const ref = { organizationId: input.organizationId, enrollmentId: input.enrollmentId };
  const waitForChange = (seen: number, ms: number) => condition(() => wake !== seen, Math.max(1, Math.min(ms, recheckMs)));

  const wakeAtFirst = wake;
  const first = await db.sequenceState(ref);
  if (!first) return { ended: 'missing', position: 0 };
  // The state just read serves the first step's wait, unless a signal said it changed since.
  let fresh = patched(FIRST_STATE_REUSED_PATCH) ? first : null;
  const steps = first.steps;
  let position = input.resume?.position ?? first.currentStep + 1;
  let attempt = input.resume?.attempt ?? 1;
  let fromMs = input.resume?.fromMs ?? Date.now();

  while (position <= steps.length) {
    // 1. The step's delay, while the enrollment runs (a pause holds it).
    const { dueMs } = await db.planStep({ ...ref, position, fromMs });
    for (;;) {
      const seen = wake;
      const state = fresh && wake === wakeAtFirst ? fresh : await db.sequenceState(ref);
      fresh = null;
      if (!state || ENDED.has(state.status)) return { ended: state?.status ?? 'missing', position };
      if (state.status === 'paused') {
        // Until resume_at (read again at least a second later, so clocks apart by a little never spin the run).
        await waitForChange(seen, state.resumeAtMs !== null ? Math.max(state.resumeAtMs - Date.now(), 1000) : recheckMs);
        continue;
      }
      if (Date.now() >= dueMs) break;
      await waitForChange(seen, dueMs - Date.now());
    }

    // 2. The draft, with the gate asked again.
    const prepared = await db.prepareDraft({ ...ref, position, attempt });
    if ('stop' in prepared) return { ended: 'stopped', position };
    let outcome: StepOutcome;
    let rejected = false;
    if ('skip' in prepared) {
      log.info('step skipped', { position, reason: prepared.skip });
      outcome = 'skipped';
    } else {
      const messageId =
        'existing' in prepared
          ? prepared.existing
          : await db.storeDraft({
              ...ref,
              position,
              attempt,
              prepared,
              written: await providers.writeDraft({ organizationId: input.organizationId, input: prepared.input }),
            });

      // 3. A person's decision, then the send.
      let childFailures = 0;
      for (;;) {
        const seen = wake;
        const m = await db.stepMessageState({ organizationId: input.organizationId, messageId });
        if (m.enrollmentStatus && ENDED.has(m.enrollmentStatus)) return { ended: m.enrollmentStatus, position };
        // An out-of-office pause that ended by itself also concerns the send waiting in the child.
        if (m.resumed && child) void child.signal(enrollmentChangedSignal).catch(() => undefined);
        if (m.outcome) {
          outcome = m.outcome;
          rejected = m.status === 'rejected';
          break;
        }
        const sendable = (m.status === 'approved' || m.status === 'scheduled') && m.enrollmentStatus !== 'paused';
        if (sendable && !child) {
          child = await startChild<typeof sendMessageWorkflow>('sendMessageWorkflow', {
            workflowId: workflowIds.sendMessage(messageId),
            args: [
              { organizationId: input.organizationId, messageId, holdRecheckMs: input.holdRecheckMs, retryInitialIntervalMs: input.retryInitialIntervalMs },
            ],
            parentClosePolicy: ParentClosePolicy.TERMINATE,
            typedSearchAttributes: searchAttributes({
              OrganizationId: input.organizationId,
              EnrollmentId: input.enrollmentId,
              CampaignId: input.campaignId,
              MailboxId: input.mailboxId ?? undefined,
            }),
          });
        }
        // A paused enrollment with resume_at looks again then (it resumes by itself), at the latest after recheckMs.
        const untilResume =
          m.enrollmentStatus === 'paused' && m.resumeAtMs != null && patched(STEP_RESUME_AT_PATCH) ? Math.max(m.resumeAtMs - Date.now(), 1000) : recheckMs;
        if (child) {
          const running = child;
          let finished = false;
          let failed = false;
          void running.result().then(
            () => void (finished = true),
            () => void ((finished = true), (failed = true)),
          );
          await condition(() => finished || wake !== seen, Math.min(untilResume, recheckMs));
          if (finished) child = undefined;
          if (failed && patched(CHILD_BACKOFF_PATCH)) {
            // A child that failed (a send error no retry heals) is started again after a back-off, not at once.
            childFailures += 1;
            const backoff = Math.min(recheckMs, input.holdRecheckMs ?? 15 * 60_000, (input.retryInitialIntervalMs ?? 2000) * 2 ** Math.min(childFailures, 20));
            await condition(() => false, backoff);
          }
          continue;
        }
        await waitForChange(seen, untilResume);
      }
    }

    // 4. What the step's end means for the next one.
    if (outcome === 'redraft') {
      attempt += 1;
      continue;
    }
    if (outcome === 'failed') {
      await db.finishEnrollment({ ...ref, action: 'fail', reason: `step ${position} could not be sent` });
      return { ended: 'failed', position };
    }
    if (rejected && position === 1) {
      // A rejected first message ends the enrollment: there is nothing to follow up on.
      await db.finishEnrollment({ ...ref, action: 'stop', reason: 'the first message was rejected' });
      return { ended: 'stopped', position };
    }
    position += 1;
    attempt = 1;
    fromMs = Date.now();
    const info = workflowInfo();
    if (position <= steps.length && (info.continueAsNewSuggested || info.historyLength > (input.maxHistoryEvents ?? 10_000))) {
      await continueAsNew<typeof sequenceWorkflow>({ ...input, resume: { position, attempt, fromMs } });
    }
  }
  await db.finishEnrollment({ ...ref, action: 'complete' });
  return { ended: 'completed', position: steps.length };
}
