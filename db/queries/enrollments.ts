import { sql } from 'kysely';
import type { Reader, Tx } from '../tenancy';
import { enrollmentFrom, WAITING_MESSAGE_STATUSES, type EnrollmentAction, type PauseReason } from '../../domain/outreach/enrollments';
import { newestFirst } from './pagination';
import { recordEvent } from './webhook-events';

export const ENROLLMENT_COLUMNS = [
  'id', 'organization_id', 'campaign_id', 'contact_id', 'status', 'current_step', 'next_action_at', 'pause_reason', 'resume_at', 'stopped_reason',
  'workflow_id', 'created_at', 'updated_at',
] as const;

/** The id of an enrollment's sequence workflow (workflows/search-attributes.ts says the same). */
export const enrollmentWorkflowId = (enrollmentId: string) => `enrollment/${enrollmentId}`;

export function getEnrollment(tx: Tx, id: string) {
  return tx.selectFrom('enrollments').select(ENROLLMENT_COLUMNS).where('id', '=', id).executeTakeFirst();
}

/** The list query, unexecuted (the API runs it in one round trip: readWithRole). */
export function listEnrollments(tx: Reader, f: { organizationId: string; campaignId?: string; contactId?: string; status?: string; limit: number; before?: string }) {
  let q = tx.selectFrom('enrollments').select(ENROLLMENT_COLUMNS).where('organization_id', '=', f.organizationId);
  if (f.campaignId) q = q.where('campaign_id', '=', f.campaignId);
  if (f.contactId) q = q.where('contact_id', '=', f.contactId);
  if (f.status) q = q.where('status', '=', f.status);
  return newestFirst(q, 'enrollments', f);
}

/**
 * Of these contacts, those already enrolled: in this campaign (any status), or running (active or
 * paused) in another campaign; one sequence at a time per person.
 */
export async function alreadyEnrolled(tx: Tx, organizationId: string, campaignId: string, contactIds: string[]): Promise<Set<string>> {
  if (contactIds.length === 0) return new Set();
  const rows = await tx
    .selectFrom('enrollments')
    .select('contact_id')
    .where('organization_id', '=', organizationId)
    .where('contact_id', 'in', contactIds)
    .where((eb) => eb.or([eb('campaign_id', '=', campaignId), eb('status', 'in', ['active', 'paused'])]))
    .execute();
  return new Set(rows.map((r) => r.contact_id));
}

/**
 * A new enrollment, active, acting now: its workflow id is the one its sequence workflow runs under.
 * Undefined when the contact is already enrolled in the campaign (unique (campaign_id, contact_id)).
 */
export async function insertEnrollment(tx: Tx, e: { organizationId: string; campaignId: string; sequenceId: string; contactId: string }) {
  const row = await tx
    .insertInto('enrollments')
    .values({
      organization_id: e.organizationId,
      campaign_id: e.campaignId,
      sequence_id: e.sequenceId,
      contact_id: e.contactId,
      status: 'active',
      current_step: 0,
      next_action_at: sql`now()`,
    })
    .onConflict((oc) => oc.columns(['campaign_id', 'contact_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!row) return undefined;
  return tx
    .updateTable('enrollments')
    .set({ workflow_id: enrollmentWorkflowId(row.id) })
    .where('id', '=', row.id)
    .returning(ENROLLMENT_COLUMNS)
    .executeTakeFirstOrThrow();
}

/**
 * Moves an enrollment along ENROLLMENT_TRANSITIONS (domain/outreach/enrollments.ts) in one UPDATE
 * that only matches the statuses the action allows; undefined when it was not in one of them.
 * stop records the reason; pause needs its reason (and resume_at for an out-of-office); resume
 * clears them and acts now; complete and fail clear next_action_at.
 */
export async function transitionEnrollment(
  tx: Tx,
  id: string,
  action: EnrollmentAction,
  to: string,
  opts: { reason?: string | null; pauseReason?: PauseReason; resumeAt?: Date | null } = {},
) {
  const patch =
    action === 'stop'
      ? { stopped_reason: opts.reason ?? 'stopped', next_action_at: null, pause_reason: null, resume_at: null }
      : action === 'pause'
        ? { pause_reason: opts.pauseReason ?? 'out_of_office', resume_at: opts.resumeAt ?? null, next_action_at: opts.resumeAt ?? null }
        : action === 'resume'
          ? { pause_reason: null, resume_at: null, next_action_at: sql<Date>`now()` }
          : { next_action_at: null, pause_reason: null, resume_at: null, ...(action === 'fail' ? { stopped_reason: opts.reason ?? 'failed' } : {}) };
  const row = await tx
    .updateTable('enrollments')
    .set({ ...patch, status: to, updated_at: sql`now()` })
    .where('id', '=', id)
    .where('status', 'in', enrollmentFrom(action))
    .returning(ENROLLMENT_COLUMNS)
    .executeTakeFirst();
  if (row && (row.status === 'stopped' || row.status === 'paused')) await recordEvent(tx, row.status === 'stopped' ? 'enrollment.stopped' : 'enrollment.paused', { organizationId: row.organization_id, id });
  return row;
}

/** The enrollment's messages still waiting to go out become `skipped` (a stop), their send slots given back; answers how many. */
export async function skipWaitingMessages(tx: Tx, enrollmentId: string): Promise<number> {
  const rows = await tx
    .updateTable('messages')
    .set({ status: 'skipped', updated_at: sql`now()` })
    .where('enrollment_id', '=', enrollmentId)
    .where('status', 'in', [...WAITING_MESSAGE_STATUSES])
    // A message already handed to the SMTP server (claimed for sending) is left to its send, which records it.
    .where((eb) => eb.or([eb('status', '<>', 'scheduled'), eb('send_attempted_at', 'is', null)]))
    .returning('id')
    .execute();
  if (rows.length) await tx.deleteFrom('send_slots').where('message_id', 'in', rows.map((r) => r.id)).execute();
  return rows.length;
}

/** The sequence workflow's progress: the step it is at and when it acts next. */
export function recordEnrollmentProgress(tx: Tx, id: string, p: { currentStep: number; nextActionAt: Date | null }) {
  return tx
    .updateTable('enrollments')
    .set({ current_step: p.currentStep, next_action_at: p.nextActionAt, updated_at: sql`now()` })
    .where('id', '=', id)
    .returning(ENROLLMENT_COLUMNS)
    .executeTakeFirst();
}

/** A contact with what the accept decision needs: its addresses and its company's. */
export function contactsForEnrollment(tx: Tx, organizationId: string, contactIds: string[]) {
  if (contactIds.length === 0) return Promise.resolve([]);
  return tx
    .selectFrom('contacts')
    .innerJoin('companies', 'companies.id', 'contacts.company_id')
    .select(['contacts.id', 'contacts.email', 'contacts.phone', 'companies.generic_email', 'companies.phone as company_phone'])
    .where('contacts.organization_id', '=', organizationId)
    .where('contacts.id', 'in', contactIds)
    .execute();
}

/**
 * Stops every running (active or paused) enrollment of a contact, with the reason (`meeting_booked`,
 * `replied`, ...), and skips their messages still waiting to go out. Answers the stopped enrollments'
 * ids, so the caller can wake their sequence workflows once the transaction has committed.
 */
export async function stopContactEnrollments(tx: Tx, contactId: string, reason: string): Promise<string[]> {
  const running = await tx
    .selectFrom('enrollments')
    .select('id')
    .where('contact_id', '=', contactId)
    .where('status', 'in', enrollmentFrom('stop'))
    .forUpdate()
    .execute();
  const stopped: string[] = [];
  for (const { id } of running) {
    if (await transitionEnrollment(tx, id, 'stop', 'stopped', { reason })) {
      await skipWaitingMessages(tx, id);
      stopped.push(id);
    }
  }
  return stopped;
}
