import {
  Client,
  Connection,
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
} from '@temporalio/client';
import type { Config } from './config';
import { temporalConnectionOptions, type TemporalConnectionConfig } from './temporal-connection';
import { searchAttributes, workflowIds } from '../../workflows/search-attributes';
import type { EmailStatus } from '../../domain/contacts/email-verification';
import type {
  bookingWorkflow,
  contactImportWorkflow,
  crmOutcomeWorkflow,
  enrichCompanyWorkflow,
  verifyContactsWorkflow,
  ingestSourceWorkflow,
  meetingWorkflow,
  processSignalWorkflow,
  sendMessageWorkflow,
  sequenceWorkflow,
  strategistWorkflow,
} from '../../workflows';
import type { webhookEndpointWorkflow } from '../../workflows/webhook-endpoint';
import { webhookWakeSignal } from '../../workflows/webhook-endpoint';
import { DEFAULT_RETRY_SCHEDULE_SECONDS, parseRetrySchedule } from '../../domain/webhooks/delivery';
import type { BookingEvent, BookingProvider } from '../../domain/meetings/bookings';
import { meetingChangedSignal } from '../../workflows/meeting-signals';
import { outcomeChangedSignal } from '../../workflows/crm-outcome-signals';
import type { PipelineStage } from '../../domain/signals/pipeline-stages';
import { enrollmentChangedSignal } from '../../workflows/sequence-signals';

/** How many signals notifyEnrollments sends at once. */
const NOTIFY_BATCH = 100;

/** A run for this workflow id is already in progress. */
export class WorkflowRunningError extends Error {}

export async function connectTemporal(config: TemporalConnectionConfig & Pick<Config, 'TEMPORAL_NAMESPACE'>): Promise<Client> {
  const connection = await Connection.connect(temporalConnectionOptions(config));
  return new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
}

/** The single place that starts workflows, so ids, task queue and search attributes never drift. */
export class WorkflowStarter {
  private readonly taskQueue: string;
  /** First retry delay of the workflows it starts (INGEST_RETRY_INITIAL_INTERVAL_MS; tests shorten it). */
  private readonly retryInitialIntervalMs: number;
  private readonly scheduleTimezone: string;
  private readonly reconcile: { intervalSeconds: number; stuckAfterSeconds: number; outreachIntervalSeconds: number };
  /** How often a sequence run and a held send look at the database when nothing wakes them. */
  private readonly sequenceTiming: { recheckMs?: number; holdRecheckMs?: number };
  /** How often each mailbox's inbox is read; 0 (not configured): no inbox schedules are made. */
  private readonly inboxPollSeconds: number;
  /** A contact import's chunk size and chunk timeout (tests shorten them; default the workflow's). */
  private readonly importRun: { chunkSize?: number; chunkTimeoutMs?: number };
  /** Delays after each failed webhook delivery (WEBHOOK_RETRY_SCHEDULE), an input of each endpoint's run. */
  private readonly webhookRetrySchedule: readonly number[];

  constructor(
    private readonly client: Client,
    config: Pick<Config, 'TEMPORAL_TASK_QUEUE' | 'INGEST_RETRY_INITIAL_INTERVAL_MS'> &
      Partial<
        Pick<
          Config,
          | 'SCHEDULE_TIMEZONE'
          | 'RECONCILE_INTERVAL_SECONDS'
          | 'RECONCILE_STUCK_AFTER_SECONDS'
          | 'RECONCILE_OUTREACH_INTERVAL_SECONDS'
          | 'SEQUENCE_RECHECK_SECONDS'
          | 'SEND_HOLD_RECHECK_SECONDS'
          | 'INBOX_POLL_SECONDS'
          | 'WEBHOOK_RETRY_SCHEDULE'
        >
      > & {
        importRun?: { chunkSize?: number; chunkTimeoutMs?: number };
      },
  ) {
    this.taskQueue = config.TEMPORAL_TASK_QUEUE;
    this.retryInitialIntervalMs = config.INGEST_RETRY_INITIAL_INTERVAL_MS;
    this.scheduleTimezone = config.SCHEDULE_TIMEZONE ?? 'UTC';
    this.sequenceTiming = {
      recheckMs: config.SEQUENCE_RECHECK_SECONDS ? config.SEQUENCE_RECHECK_SECONDS * 1000 : undefined,
      holdRecheckMs: config.SEND_HOLD_RECHECK_SECONDS ? config.SEND_HOLD_RECHECK_SECONDS * 1000 : undefined,
    };
    this.reconcile = {
      intervalSeconds: config.RECONCILE_INTERVAL_SECONDS ?? 300,
      stuckAfterSeconds: config.RECONCILE_STUCK_AFTER_SECONDS ?? 600,
      outreachIntervalSeconds: config.RECONCILE_OUTREACH_INTERVAL_SECONDS ?? 600,
    };
    this.inboxPollSeconds = config.INBOX_POLL_SECONDS ?? 0;
    this.importRun = config.importRun ?? {};
    this.webhookRetrySchedule = (config.WEBHOOK_RETRY_SCHEDULE && parseRetrySchedule(config.WEBHOOK_RETRY_SCHEDULE)) || DEFAULT_RETRY_SCHEDULE_SECONDS;
  }

  /**
   * Makes the mailbox's inbox schedule (`mailbox/<id>/inbox`, every INBOX_POLL_SECONDS, overlap skip)
   * match the mailbox: created or updated while it has an IMAP server, deleted when it has none.
   * Nothing when the starter has no INBOX_POLL_SECONDS (the API's tests).
   */
  async syncMailboxInboxSchedule(mailbox: { id: string; organization_id: string; address: string; imap: unknown }): Promise<void> {
    if (!this.inboxPollSeconds) return;
    const scheduleId = workflowIds.mailboxInbox(mailbox.id);
    const handle = this.client.schedule.getHandle(scheduleId);
    if (!mailbox.imap) {
      await handle.delete().catch((err) => {
        if (!(err instanceof ScheduleNotFoundError)) throw err;
      });
      return;
    }
    const spec = { intervals: [{ every: this.inboxPollSeconds * 1000 }] };
    const attributes = searchAttributes({ OrganizationId: mailbox.organization_id, MailboxId: mailbox.id });
    const action = {
      type: 'startWorkflow' as const,
      workflowType: 'mailboxInboxWorkflow',
      taskQueue: this.taskQueue,
      workflowId: scheduleId,
      args: [{ organizationId: mailbox.organization_id, mailboxId: mailbox.id, retryInitialIntervalMs: this.retryInitialIntervalMs }],
      typedSearchAttributes: attributes,
    };
    const note = `inbox of ${mailbox.address}`;
    try {
      await this.client.schedule.create({
        scheduleId,
        spec,
        action,
        policies: { overlap: ScheduleOverlapPolicy.SKIP },
        state: { note },
        typedSearchAttributes: attributes,
      });
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
      await handle.update((prev) => ({ ...prev, spec, action, policies: { ...prev.policies, overlap: ScheduleOverlapPolicy.SKIP } }));
    }
  }

  /**
   * The scheduled reconcile (`reconcile/signals`, every RECONCILE_INTERVAL_SECONDS, overlap skip):
   * starts processing for signals left unfinished longer than RECONCILE_STUCK_AFTER_SECONDS. Every
   * worker ensures it at start-up: created when missing, else updated to the current configuration.
   */
  async ensureReconcileSchedule(): Promise<void> {
    const scheduleId = workflowIds.reconcileSchedule;
    const spec = { intervals: [{ every: this.reconcile.intervalSeconds * 1000 }] };
    const action = {
      type: 'startWorkflow' as const,
      workflowType: 'reconcileSignalsWorkflow',
      taskQueue: this.taskQueue,
      workflowId: scheduleId,
      args: [{ stuckAfterSeconds: this.reconcile.stuckAfterSeconds, retryInitialIntervalMs: this.retryInitialIntervalMs }],
    };
    const note = 'starts processing for signals left ingested or mid-pipeline';
    try {
      await this.client.schedule.create({ scheduleId, spec, action, policies: { overlap: ScheduleOverlapPolicy.SKIP }, state: { note } });
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
      await this.client.schedule
        .getHandle(scheduleId)
        .update((prev) => ({ ...prev, spec, action, policies: { ...prev.policies, overlap: ScheduleOverlapPolicy.SKIP } }));
    }
  }

  /**
   * The scheduled outreach reconcile (`reconcile/outreach`, every RECONCILE_OUTREACH_INTERVAL_SECONDS,
   * overlap skip): active or paused enrollments whose sequence run is missing or closed are started
   * again where they stand, and approved or scheduled messages outside a sequence (reply drafts,
   * meeting reminders) whose send run is missing or closed get one. Only rows older than
   * RECONCILE_STUCK_AFTER_SECONDS are looked at (an accept or approve is starting their runs itself).
   * Ensured by every worker at start-up, like reconcile/signals.
   */
  async ensureOutreachReconcileSchedule(): Promise<void> {
    const scheduleId = workflowIds.reconcileOutreachSchedule;
    const spec = { intervals: [{ every: this.reconcile.outreachIntervalSeconds * 1000 }] };
    const action = {
      type: 'startWorkflow' as const,
      workflowType: 'reconcileOutreachWorkflow',
      taskQueue: this.taskQueue,
      workflowId: scheduleId,
      args: [{ olderThanSeconds: this.reconcile.stuckAfterSeconds, retryInitialIntervalMs: this.retryInitialIntervalMs, ...this.sequenceTiming }],
    };
    const note = 'starts the sequence runs and sends that are missing (nothing stranded)';
    try {
      await this.client.schedule.create({ scheduleId, spec, action, policies: { overlap: ScheduleOverlapPolicy.SKIP }, state: { note } });
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
      await this.client.schedule
        .getHandle(scheduleId)
        .update((prev) => ({ ...prev, spec, action, policies: { ...prev.policies, overlap: ScheduleOverlapPolicy.SKIP } }));
    }
  }

  /**
   * Makes the source's Temporal Schedule (`source/<id>`) match the source: created or updated for a
   * cron schedule, paused while the source is disabled, deleted when the schedule is removed.
   * Overlap SKIP: a fire while a run is still going is dropped.
   */
  async syncSourceSchedule(source: { id: string; organization_id: string; name: string; schedule: string | null; enabled: boolean }): Promise<void> {
    const scheduleId = workflowIds.sourceSchedule(source.id);
    const handle = this.client.schedule.getHandle(scheduleId);
    if (!source.schedule) {
      await handle.delete().catch((err) => {
        if (!(err instanceof ScheduleNotFoundError)) throw err;
      });
      return;
    }
    const spec = { cronExpressions: [source.schedule], timezone: this.scheduleTimezone };
    const action = {
      type: 'startWorkflow' as const,
      workflowType: 'ingestSourceWorkflow',
      taskQueue: this.taskQueue,
      workflowId: workflowIds.ingestSource(source.id),
      args: [{ organizationId: source.organization_id, sourceId: source.id, retryInitialIntervalMs: this.retryInitialIntervalMs }],
      typedSearchAttributes: searchAttributes({ OrganizationId: source.organization_id, SourceId: source.id }),
    };
    const note = `source "${source.name}"${source.enabled ? '' : ' (disabled)'}`;
    try {
      await this.client.schedule.create({
        scheduleId,
        spec,
        action,
        policies: { overlap: ScheduleOverlapPolicy.SKIP },
        state: { paused: !source.enabled, note },
        typedSearchAttributes: searchAttributes({ OrganizationId: source.organization_id, SourceId: source.id }),
      });
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
      await handle.update((prev) => ({
        ...prev,
        spec,
        action,
        policies: { ...prev.policies, overlap: ScheduleOverlapPolicy.SKIP },
        state: { ...prev.state, paused: !source.enabled, note },
      }));
    }
  }

  /** Starts an ingest run; while one runs for the source, that run is returned instead of a second one. */
  async startIngest(organizationId: string, sourceId: string) {
    const handle = await this.client.workflow.start<typeof ingestSourceWorkflow>('ingestSourceWorkflow', {
      taskQueue: this.taskQueue,
      workflowId: workflowIds.ingestSource(sourceId),
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      args: [{ organizationId, sourceId, retryInitialIntervalMs: this.retryInitialIntervalMs }],
      typedSearchAttributes: searchAttributes({ OrganizationId: organizationId, SourceId: sourceId }),
    });
    return { workflowId: handle.workflowId, runId: handle.firstExecutionRunId };
  }

  /** Runs a stored contact import (`import/<id>`); a second start of the same import is the running one. */
  async startImport(organizationId: string, importId: string) {
    const handle = await this.client.workflow.start<typeof contactImportWorkflow>('contactImportWorkflow', {
      taskQueue: this.taskQueue,
      workflowId: workflowIds.contactImport(importId),
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      args: [{ organizationId, importId, retryInitialIntervalMs: this.retryInitialIntervalMs, ...this.importRun }],
      typedSearchAttributes: searchAttributes({ OrganizationId: organizationId }),
    });
    return { workflowId: handle.workflowId, runId: handle.firstExecutionRunId };
  }

  /** Enriches a company; while a run for it is in progress, that run is returned. */
  async startEnrichment(organizationId: string, companyId: string) {
    const handle = await this.client.workflow.start<typeof enrichCompanyWorkflow>('enrichCompanyWorkflow', {
      taskQueue: this.taskQueue,
      workflowId: workflowIds.enrichCompany(companyId),
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      args: [{ organizationId, companyId, retryInitialIntervalMs: this.retryInitialIntervalMs }],
      typedSearchAttributes: searchAttributes({ OrganizationId: organizationId, CompanyId: companyId }),
    });
    return { workflowId: handle.workflowId, runId: handle.firstExecutionRunId };
  }

  /** Checks one contact's address; while a check of it is in progress, that run is returned. */
  async startContactVerification(organizationId: string, contactId: string) {
    const handle = await this.client.workflow.start<typeof verifyContactsWorkflow>('verifyContactsWorkflow', {
      taskQueue: this.taskQueue,
      workflowId: workflowIds.verifyContact(contactId),
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      args: [{ organizationId, contactIds: [contactId], retryInitialIntervalMs: this.retryInitialIntervalMs }],
      typedSearchAttributes: searchAttributes({ OrganizationId: organizationId }),
    });
    return { workflowId: handle.workflowId, runId: handle.firstExecutionRunId };
  }

  /** Checks an organization's contacts with an address (of a company, of a status), or the ones given: a run of its own per request. */
  async startContactsVerification(organizationId: string, runKey: string, filter: { companyId?: string; status?: EmailStatus; contactIds?: string[] }) {
    const handle = await this.client.workflow.start<typeof verifyContactsWorkflow>('verifyContactsWorkflow', {
      taskQueue: this.taskQueue,
      workflowId: workflowIds.verifyContacts(organizationId, runKey),
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      args: [{ organizationId, ...filter, retryInitialIntervalMs: this.retryInitialIntervalMs }],
      typedSearchAttributes: searchAttributes({ OrganizationId: organizationId, CompanyId: filter.companyId }),
    });
    return { workflowId: handle.workflowId, runId: handle.firstExecutionRunId };
  }

  /**
   * Asks the strategist for a proposal for an opportunity (`opportunity/<id>/strategist`); while a run
   * for it is in progress, that run is returned.
   */
  async startStrategist(organizationId: string, opportunityId: string, companyId: string | null, opts: { enrichmentPollMs?: number } = {}) {
    const handle = await this.client.workflow.start<typeof strategistWorkflow>('strategistWorkflow', {
      taskQueue: this.taskQueue,
      workflowId: workflowIds.strategist(opportunityId),
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      args: [{ organizationId, opportunityId, retryInitialIntervalMs: this.retryInitialIntervalMs, ...opts }],
      typedSearchAttributes: searchAttributes({ OrganizationId: organizationId, OpportunityId: opportunityId, CompanyId: companyId ?? undefined }),
    });
    return { workflowId: handle.workflowId, runId: handle.firstExecutionRunId };
  }

  /** The organization's daily retention sweep (`retention/<organizationId>`, 03:00 in SCHEDULE_TIMEZONE). */
  async ensureRetentionSchedule(organizationId: string): Promise<void> {
    try {
      await this.client.schedule.create({
        scheduleId: workflowIds.retention(organizationId),
        spec: { cronExpressions: ['0 3 * * *'], timezone: this.scheduleTimezone },
        action: {
          type: 'startWorkflow',
          workflowType: 'retentionSweepWorkflow',
          taskQueue: this.taskQueue,
          workflowId: workflowIds.retention(organizationId),
          args: [{ organizationId }],
          typedSearchAttributes: searchAttributes({ OrganizationId: organizationId }),
        },
        policies: { overlap: ScheduleOverlapPolicy.SKIP },
        state: { note: 'GDPR retention: erase contacts not engaged within retention_months' },
        typedSearchAttributes: searchAttributes({ OrganizationId: organizationId }),
      });
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    }
  }

  /**
   * Starts an enrollment's sequence (`enrollment/<id>`); a run already there for it is kept (an
   * accept retried by its client starts nothing twice). A closed run of the id may be followed by a
   * new one (reconcile/outreach restarts runs that died; it starts them from workflow code).
   */
  async startSequence(e: { organizationId: string; enrollmentId: string; campaignId: string; opportunityId: string | null; mailboxId: string | null }) {
    const handle = await this.client.workflow.start<typeof sequenceWorkflow>('sequenceWorkflow', {
      taskQueue: this.taskQueue,
      workflowId: workflowIds.sequence(e.enrollmentId),
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      args: [{ ...e, retryInitialIntervalMs: this.retryInitialIntervalMs, ...this.sequenceTiming }],
      typedSearchAttributes: searchAttributes({
        OrganizationId: e.organizationId,
        CampaignId: e.campaignId,
        EnrollmentId: e.enrollmentId,
        OpportunityId: e.opportunityId ?? undefined,
        MailboxId: e.mailboxId ?? undefined,
      }),
    });
    return { workflowId: handle.workflowId, runId: handle.firstExecutionRunId };
  }

  /**
   * Starts many enrollments' sequences (an accept), at most NOTIFY_BATCH starts in flight: all at once,
   * 10,000 starts made the production Temporal Server refuse some (bench/accept). A start that fails
   * goes to onError and is not retried here: the enrollment is stored, reconcile/outreach starts it.
   */
  async startSequences(
    enrollments: ReadonlyArray<Parameters<WorkflowStarter['startSequence']>[0]>,
    onError: (err: unknown, enrollmentId: string) => void,
  ): Promise<void> {
    for (let i = 0; i < enrollments.length; i += NOTIFY_BATCH) {
      await Promise.all(enrollments.slice(i, i + NOTIFY_BATCH).map((e) => this.startSequence(e).catch((err) => onError(err, e.enrollmentId))));
    }
  }

  /** Sends an approved message that has no sequence run (`message/<id>/send`): a reply or reminder draft. */
  async startMessageSend(organizationId: string, messageId: string, mailboxId: string | null) {
    await this.client.workflow.start<typeof sendMessageWorkflow>('sendMessageWorkflow', {
      taskQueue: this.taskQueue,
      workflowId: workflowIds.sendMessage(messageId),
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      args: [{ organizationId, messageId, retryInitialIntervalMs: this.retryInitialIntervalMs, holdRecheckMs: this.sequenceTiming.holdRecheckMs }],
      typedSearchAttributes: searchAttributes({ OrganizationId: organizationId, MailboxId: mailboxId ?? undefined }),
    });
  }

  /**
   * The mailbox's daily deliverability re-check (`mailbox/<id>/health`, 04:00 in SCHEDULE_TIMEZONE,
   * overlap skip): mailboxHealthWorkflow. Ensured when the mailbox is created; a second call keeps it.
   */
  async ensureMailboxHealthSchedule(organizationId: string, mailboxId: string): Promise<void> {
    const attributes = searchAttributes({ OrganizationId: organizationId, MailboxId: mailboxId });
    try {
      await this.client.schedule.create({
        scheduleId: workflowIds.mailboxHealth(mailboxId),
        spec: { cronExpressions: ['0 4 * * *'], timezone: this.scheduleTimezone },
        action: {
          type: 'startWorkflow',
          workflowType: 'mailboxHealthWorkflow',
          taskQueue: this.taskQueue,
          workflowId: workflowIds.mailboxHealth(mailboxId),
          args: [{ organizationId, mailboxId }],
          typedSearchAttributes: attributes,
        },
        policies: { overlap: ScheduleOverlapPolicy.SKIP },
        state: { note: 'deliverability: SPF, DKIM, DMARC and MX of the sending domain' },
        typedSearchAttributes: attributes,
      });
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    }
  }

  /**
   * Wakes the sequence workflows of these enrollments after their rows (or their drafts) changed: a
   * stop, pause, resume, approval or rejection already committed. A run that is not there (finished,
   * or never started) is fine: the database is the truth, the signal only saves waiting for a timer.
   * It never throws: the change is committed, so a signal that cannot be delivered (Temporal
   * unreachable) must not turn the answer into an error; the run reads the change at its next
   * recheck. Such failures go to onNotifyError. At most NOTIFY_BATCH signals are in flight at once.
   */
  async notifyEnrollments(enrollmentIds: readonly string[]): Promise<void> {
    for (let i = 0; i < enrollmentIds.length; i += NOTIFY_BATCH) {
      await Promise.all(
        enrollmentIds.slice(i, i + NOTIFY_BATCH).map((id) =>
          this.client.workflow
            .getHandle(workflowIds.sequence(id))
            .signal(enrollmentChangedSignal)
            .catch((err) => {
              if (!(err instanceof WorkflowNotFoundError)) this.onNotifyError(err, id);
            }),
        ),
      );
    }
  }

  /** Where a signal that could not be delivered after a commit is reported (the API sets its logger). */
  onNotifyError: (err: unknown, enrollmentId: string) => void = (err, enrollmentId) =>
    console.warn(`enrollmentChanged signal to ${workflowIds.sequence(enrollmentId)} failed: ${err instanceof Error ? err.message : String(err)}`);

  /**
   * Wakes an endpoint's delivery workflow (`webhook-endpoint/<id>`), starting it when none runs
   * (signalWithStart). The workers' dispatcher calls it after an event commits and from its sweep.
   */
  async wakeWebhookEndpoint(organizationId: string, endpointId: string) {
    const handle = await this.client.workflow.signalWithStart<typeof webhookEndpointWorkflow, []>('webhookEndpointWorkflow', {
      taskQueue: this.taskQueue,
      workflowId: workflowIds.webhookEndpoint(endpointId),
      args: [{ organizationId, endpointId, retryScheduleSeconds: [...this.webhookRetrySchedule], retryInitialIntervalMs: this.retryInitialIntervalMs }],
      signal: webhookWakeSignal,
      signalArgs: [],
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      typedSearchAttributes: searchAttributes({ OrganizationId: organizationId }),
    });
    return { workflowId: handle.workflowId, runId: handle.signaledRunId };
  }

  /**
   * Starts a meeting's workflow (`meeting/<id>`: reminder and CRM sync) or wakes the one that runs
   * (signalWithStart: a run that has ended starts again, e.g. for an outcome after the meeting).
   */
  async wakeMeeting(meeting: { id: string; organization_id: string; opportunity_id: string | null; enrollment_id: string | null }) {
    const handle = await this.client.workflow.signalWithStart<typeof meetingWorkflow, []>('meetingWorkflow', {
      taskQueue: this.taskQueue,
      workflowId: workflowIds.meeting(meeting.id),
      args: [{ organizationId: meeting.organization_id, meetingId: meeting.id, retryInitialIntervalMs: this.retryInitialIntervalMs }],
      signal: meetingChangedSignal,
      signalArgs: [],
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      typedSearchAttributes: searchAttributes({
        OrganizationId: meeting.organization_id,
        OpportunityId: meeting.opportunity_id ?? undefined,
        EnrollmentId: meeting.enrollment_id ?? undefined,
      }),
    });
    return { workflowId: handle.workflowId, runId: handle.signaledRunId };
  }

  /**
   * Starts an opportunity's CRM outcome run (`crm-outcome/<id>`: the linked Salesforce Opportunity's
   * stage) or wakes the one that runs (signalWithStart: a run that has ended starts again).
   */
  async syncOutcomeToCrm(opportunity: { id: string; organization_id: string }) {
    const handle = await this.client.workflow.signalWithStart<typeof crmOutcomeWorkflow, []>('crmOutcomeWorkflow', {
      taskQueue: this.taskQueue,
      workflowId: workflowIds.crmOutcome(opportunity.id),
      args: [{ organizationId: opportunity.organization_id, opportunityId: opportunity.id, retryInitialIntervalMs: this.retryInitialIntervalMs }],
      signal: outcomeChangedSignal,
      signalArgs: [],
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      typedSearchAttributes: searchAttributes({ OrganizationId: opportunity.organization_id, OpportunityId: opportunity.id }),
    });
    return { workflowId: handle.workflowId, runId: handle.signaledRunId };
  }

  /**
   * Hands a verified booking delivery to the worker (`booking/<integrationId>/<digest>`), which
   * records it acting for the integration's organization. The same delivery again (same digest) is
   * not run twice: duplicate true.
   */
  async startBooking(organizationId: string, integrationId: string, provider: BookingProvider, event: BookingEvent, digest: string) {
    const workflowId = workflowIds.booking(integrationId, digest);
    try {
      const handle = await this.client.workflow.start<typeof bookingWorkflow>('bookingWorkflow', {
        taskQueue: this.taskQueue,
        workflowId,
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
        args: [{ organizationId, integrationId, provider, event, retryInitialIntervalMs: this.retryInitialIntervalMs }],
        typedSearchAttributes: searchAttributes({ OrganizationId: organizationId }),
      });
      return { workflowId, runId: handle.firstExecutionRunId, duplicate: false };
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return { workflowId, runId: null, duplicate: true };
      throw err;
    }
  }

  /** (Re)processes a signal from a stage; refuses while a run for the signal is in progress. */
  async startSignalProcessing(organizationId: string, sourceId: string, signalId: string, fromStage: PipelineStage) {
    try {
      const handle = await this.client.workflow.start<typeof processSignalWorkflow>('processSignalWorkflow', {
        taskQueue: this.taskQueue,
        workflowId: workflowIds.processSignal(signalId),
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
        args: [{ organizationId, signalId, fromStage, retryInitialIntervalMs: this.retryInitialIntervalMs }],
        typedSearchAttributes: searchAttributes({ OrganizationId: organizationId, SourceId: sourceId, SignalId: signalId }),
      });
      return { workflowId: handle.workflowId, runId: handle.firstExecutionRunId };
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) throw new WorkflowRunningError(`signal ${signalId} is being processed`);
      throw err;
    }
  }
}
