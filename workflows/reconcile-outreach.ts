import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/common';
import { continueAsNew, ParentClosePolicy, patched, proxyActivities, startChild, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { dbActivityOptions } from './retry';
import { searchAttributes, workflowIds } from './search-attributes';

export interface ReconcileOutreachInput {
  /** Rows younger than this are left alone (their accept or approve is starting their run). */
  olderThanSeconds: number;
  /** Only this organization (an operator's targeted run; the schedule looks at all). */
  organizationId?: string;
  /** Enrollments per page. */
  pageSize?: number;
  /** Where this run goes on (a continued run: the last enrollment id the previous one looked at). */
  afterId?: string | null;
  /** What the runs it starts get (WorkflowStarter passes the same as to the runs it starts itself). */
  recheckMs?: number;
  holdRecheckMs?: number;
  retryInitialIntervalMs?: number;
}

export interface ReconcileOutreachResult {
  /** Sequence runs this run started (enrollment ids). */
  restarted: string[];
  /** Send runs this run started (message ids). */
  sends: string[];
  /** CRM outcome runs this run started (opportunity ids; the `reconcile-crm-outcomes` patch). */
  crmOutcomes: string[];
  /** How many had a run in progress and were left to it. */
  running: number;
}

const START_BATCH = 100;

/**
 * The scheduled outreach reconcile (Temporal Schedule `reconcile/outreach`): nothing is stranded.
 * Every active or paused enrollment whose sequence run is missing or closed (a start that failed
 * after the accept committed, a run whose activity used up its budget or that was terminated) gets a
 * new run where it stands: the draft of its current step (not the next step), or the next step when
 * that one is done. Every approved or scheduled message outside a sequence (a reply draft, a meeting
 * reminder) whose send run is missing or closed gets one. "Missing or closed" is decided by Temporal:
 * a start under the run's own id is refused while a run is in progress (left to it), and allowed
 * after a closed one (reuse policy ALLOW_DUPLICATE). The runs it starts outlive it (ABANDON).
 * Every won or lost outcome that goes to the CRM and whose sync has not succeeded since it was set
 * (a start that failed after the outcome committed) gets its run `crm-outcome/<opportunityId>`.
 */
export async function reconcileOutreachWorkflow(input: ReconcileOutreachInput): Promise<ReconcileOutreachResult> {
  const { findRunningEnrollments, findWaitingMessages, findUnsyncedCrmOutcomes } = proxyActivities<Activities>(dbActivityOptions(input.retryInitialIntervalMs));
  const timing = { retryInitialIntervalMs: input.retryInitialIntervalMs, recheckMs: input.recheckMs, holdRecheckMs: input.holdRecheckMs };
  const result: ReconcileOutreachResult = { restarted: [], sends: [], crmOutcomes: [], running: 0 };
  const start = async (started: () => Promise<unknown>, id: string, into: string[]) => {
    try {
      await started();
      into.push(id);
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      result.running += 1;
    }
  };

  if (!input.afterId) {
    const waiting = await findWaitingMessages({ olderThanSeconds: input.olderThanSeconds, limit: 1000, organizationId: input.organizationId });
    for (let i = 0; i < waiting.length; i += START_BATCH) {
      await Promise.all(
        waiting.slice(i, i + START_BATCH).map((m) =>
          start(
            () =>
              startChild('sendMessageWorkflow', {
                workflowId: workflowIds.sendMessage(m.messageId),
                args: [
                  {
                    organizationId: m.organizationId,
                    messageId: m.messageId,
                    holdRecheckMs: timing.holdRecheckMs,
                    retryInitialIntervalMs: timing.retryInitialIntervalMs,
                  },
                ],
                parentClosePolicy: ParentClosePolicy.ABANDON,
                workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
                typedSearchAttributes: searchAttributes({ OrganizationId: m.organizationId, MailboxId: m.mailboxId ?? undefined }),
              }),
            m.messageId,
            result.sends,
          ),
        ),
      );
    }
  }

  // Outcomes whose CRM sync never started (histories recorded before this patch never looked).
  if (!input.afterId && patched('reconcile-crm-outcomes')) {
    const unsynced = await findUnsyncedCrmOutcomes({ olderThanSeconds: input.olderThanSeconds, limit: 1000, organizationId: input.organizationId });
    for (let i = 0; i < unsynced.length; i += START_BATCH) {
      await Promise.all(
        unsynced.slice(i, i + START_BATCH).map((o) =>
          start(
            () =>
              startChild('crmOutcomeWorkflow', {
                workflowId: workflowIds.crmOutcome(o.opportunityId),
                args: [{ organizationId: o.organizationId, opportunityId: o.opportunityId, retryInitialIntervalMs: timing.retryInitialIntervalMs }],
                parentClosePolicy: ParentClosePolicy.ABANDON,
                workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
                typedSearchAttributes: searchAttributes({ OrganizationId: o.organizationId, OpportunityId: o.opportunityId }),
              }),
            o.opportunityId,
            result.crmOutcomes,
          ),
        ),
      );
    }
  }

  let afterId = input.afterId ?? null;
  for (;;) {
    const page = await findRunningEnrollments({
      olderThanSeconds: input.olderThanSeconds,
      afterId,
      limit: input.pageSize ?? 500,
      organizationId: input.organizationId,
    });
    for (let i = 0; i < page.enrollments.length; i += START_BATCH) {
      await Promise.all(
        page.enrollments.slice(i, i + START_BATCH).map((e) =>
          start(
            () =>
              startChild('sequenceWorkflow', {
                workflowId: workflowIds.sequence(e.enrollmentId),
                args: [
                  {
                    organizationId: e.organizationId,
                    enrollmentId: e.enrollmentId,
                    campaignId: e.campaignId,
                    opportunityId: e.opportunityId,
                    mailboxId: e.mailboxId,
                    resume: e.resume,
                    ...timing,
                  },
                ],
                parentClosePolicy: ParentClosePolicy.ABANDON,
                workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
                typedSearchAttributes: searchAttributes({
                  OrganizationId: e.organizationId,
                  CampaignId: e.campaignId,
                  EnrollmentId: e.enrollmentId,
                  OpportunityId: e.opportunityId ?? undefined,
                  MailboxId: e.mailboxId ?? undefined,
                }),
              }),
            e.enrollmentId,
            result.restarted,
          ),
        ),
      );
    }
    if (!page.next) return result;
    afterId = page.next;
    // Each start adds a few events: a long pass goes on in a fresh run from the cursor.
    if (workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > 5_000) {
      await continueAsNew<typeof reconcileOutreachWorkflow>({ ...input, afterId });
    }
  }
}
