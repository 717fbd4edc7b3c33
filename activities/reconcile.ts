import { stuckSignalIds, unfinishedSignals } from '../db/queries/pipeline';
import { resumePoints, runningEnrollmentIds, unsequencedWaitingMessageIds, unsequencedWaitingMessages } from '../db/queries/enrollments';
import { unsyncedCrmOutcomeIds, unsyncedCrmOutcomes } from '../db/queries/opportunities';
import { crmIntegrationLink } from '../db/queries/integrations';
import { outcomeSyncsToCrm } from '../domain/crm/opportunity-stage';
import { asOrganization } from '../db/tenancy';
import { enrichingCompanies, stuckEnrichmentIds } from '../db/queries/enrichment';
import type { DB } from '../db/pool';

export interface StuckSignal {
  organizationId: string;
  sourceId: string;
  signalId: string;
  status: string;
}

/** A company left enriching (reconcile/signals starts its enrichment again, or finds it running). */
export interface StuckEnrichment {
  organizationId: string;
  companyId: string;
}

/** A running enrollment and where its sequence run would start again (reconcile/outreach). */
export interface RunningEnrollment {
  organizationId: string;
  enrollmentId: string;
  campaignId: string;
  opportunityId: string | null;
  mailboxId: string | null;
  resume: { position: number; attempt: number; fromMs: number };
}

/** An approved or scheduled message outside a sequence (a reply draft, a meeting reminder). */
export interface WaitingMessage {
  organizationId: string;
  messageId: string;
  mailboxId: string | null;
}

/** A won or lost outcome whose CRM sync (crm-outcome/<id>) may have never started. */
export interface UnsyncedOutcome {
  organizationId: string;
  opportunityId: string;
}

/** Groups (organization_id, id) rows by organization, so each organization's rows are read as it, under row-level security. */
function byOrganization<R extends { organization_id: string }>(rows: R[], id: (r: R) => string): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const r of rows) m.set(r.organization_id, [...(m.get(r.organization_id) ?? []), id(r)]);
  return m;
}

/** The scheduled reconciles' activities: which signals were left unfinished, which outreach may have lost its run, in every organization. */
export function createReconcileActivities(deps: { db: DB }) {
  return {
    async findStuckSignals(input: { stuckAfterSeconds: number; limit: number }): Promise<StuckSignal[]> {
      const ids = await stuckSignalIds(deps.db, input.stuckAfterSeconds, input.limit);
      const stuck: StuckSignal[] = [];
      // Each organization's signals are read as that organization, under row-level security.
      for (const [organizationId, signalIds] of byOrganization(ids, (r) => r.signal_id)) {
        const rows = await asOrganization(deps.db, organizationId, (tx) => unfinishedSignals(tx, signalIds));
        for (const r of rows) stuck.push({ organizationId: r.organization_id, sourceId: r.source_id, signalId: r.id, status: r.status });
      }
      return stuck;
    },

    async findStuckEnrichments(input: { stuckAfterSeconds: number; limit: number }): Promise<StuckEnrichment[]> {
      const ids = await stuckEnrichmentIds(deps.db, input.stuckAfterSeconds, input.limit);
      const stuck: StuckEnrichment[] = [];
      for (const [organizationId, companyIds] of byOrganization(ids, (r) => r.company_id)) {
        const rows = await asOrganization(deps.db, organizationId, (tx) => enrichingCompanies(tx, companyIds));
        for (const r of rows) stuck.push({ organizationId: r.organization_id, companyId: r.id });
      }
      return stuck;
    },

    /**
     * One page (in id order, after afterId) of the running enrollments older than olderThanSeconds,
     * each with where its run would start again; next is the cursor of the following page (null:
     * the last page). Whether a run is there is found out by starting it (workflow code).
     */
    async findRunningEnrollments(input: {
      olderThanSeconds: number;
      afterId: string | null;
      limit: number;
      organizationId?: string | null;
    }): Promise<{ enrollments: RunningEnrollment[]; next: string | null }> {
      const ids = await runningEnrollmentIds(deps.db, input.olderThanSeconds, input.afterId, input.limit, input.organizationId ?? null);
      const enrollments: RunningEnrollment[] = [];
      for (const [organizationId, enrollmentIds] of byOrganization(ids, (r) => r.enrollment_id)) {
        enrollments.push(...(await asOrganization(deps.db, organizationId, (tx) => resumePoints(tx, enrollmentIds))));
      }
      return { enrollments, next: ids.length === input.limit ? ids[ids.length - 1]!.enrollment_id : null };
    },

    /** Approved or scheduled messages outside a sequence, unchanged for olderThanSeconds (their send run may be gone). */
    async findWaitingMessages(input: { olderThanSeconds: number; limit: number; organizationId?: string | null }): Promise<WaitingMessage[]> {
      const ids = await unsequencedWaitingMessageIds(deps.db, input.olderThanSeconds, input.limit, input.organizationId ?? null);
      const waiting: WaitingMessage[] = [];
      for (const [organizationId, messageIds] of byOrganization(ids, (r) => r.message_id)) {
        const rows = await asOrganization(deps.db, organizationId, (tx) => unsequencedWaitingMessages(tx, messageIds));
        for (const r of rows) waiting.push({ organizationId: r.organization_id, messageId: r.id, mailboxId: r.mailbox_id });
      }
      return waiting;
    },

    /**
     * Won or lost outcomes unchanged for olderThanSeconds whose sync has not succeeded since they were
     * set and was not refused (no crm_error), linked in their organization's Salesforce integration with
     * autoSync (outcomeSyncsToCrm, as the outcome route decides), read as each organization.
     */
    async findUnsyncedCrmOutcomes(input: { olderThanSeconds: number; limit: number; organizationId?: string | null }): Promise<UnsyncedOutcome[]> {
      const ids = await unsyncedCrmOutcomeIds(deps.db, input.olderThanSeconds, input.limit, input.organizationId ?? null);
      const found: UnsyncedOutcome[] = [];
      for (const [organizationId, opportunityIds] of byOrganization(ids, (r) => r.opportunity_id)) {
        const { rows, crm } = await asOrganization(deps.db, organizationId, async (tx) => ({
          rows: await unsyncedCrmOutcomes(tx, opportunityIds),
          crm: await crmIntegrationLink(tx, organizationId),
        }));
        for (const r of rows) if (outcomeSyncsToCrm(crm, r.id)) found.push({ organizationId: r.organization_id, opportunityId: r.id });
      }
      return found;
    },
  };
}
