import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { DB as Database } from '../database';
import type { Reader, Tx } from '../tenancy';
import { enrollmentFrom, WAITING_MESSAGE_STATUSES, type EnrollmentAction, type PauseReason } from '../../domain/outreach/enrollments';
import { newestFirst } from './pagination';
import { recordEvent } from './webhook-events';

export const ENROLLMENT_COLUMNS = [
  'id',
  'organization_id',
  'campaign_id',
  'contact_id',
  'status',
  'current_step',
  'next_action_at',
  'pause_reason',
  'resume_at',
  'stopped_reason',
  'workflow_id',
  'mailbox_id',
  'created_at',
  'updated_at',
] as const;

/** The id of an enrollment's sequence workflow (workflows/search-attributes.ts says the same). */
export const enrollmentWorkflowId = (enrollmentId: string) => `enrollment/${enrollmentId}`;

export function getEnrollment(tx: Tx, id: string) {
  return tx.selectFrom('enrollments').select(ENROLLMENT_COLUMNS).where('id', '=', id).executeTakeFirst();
}

/** The list query, unexecuted (the API runs it in one round trip: readWithRole). */
export function listEnrollments(
  tx: Reader,
  f: { organizationId: string; campaignId?: string; contactId?: string; status?: string; limit: number; before?: string },
) {
  let q = tx.selectFrom('enrollments').select(ENROLLMENT_COLUMNS).where('organization_id', '=', f.organizationId);
  if (f.campaignId) q = q.where('campaign_id', '=', f.campaignId);
  if (f.contactId) q = q.where('contact_id', '=', f.contactId);
  if (f.status) q = q.where('status', '=', f.status);
  return newestFirst(q, 'enrollments', f);
}

/**
 * New enrollments, active, acting now: each one's workflow id is the one its sequence workflow runs
 * under, routeAddress the e-mail address its e-mail steps go to. A row is not inserted when the contact
 * is already enrolled in the campaign (unique (campaign_id, contact_id)), or the contact or the address
 * is in a running enrollment already, an earlier row of the same call included (0016's partial unique
 * indexes: one sequence at a time per person and per inbox, decided by the database, so concurrent
 * accepts cannot both win). Rows go in their order, 1,000 to a statement. Answers the enrollment id
 * of each contact whose row went in.
 */
export async function insertEnrollments(
  tx: Tx,
  rows: Array<{ organizationId: string; campaignId: string; sequenceId: string; contactId: string; routeAddress: string | null }>,
): Promise<Map<string, string>> {
  const inserted = new Map<string, string>();
  for (let i = 0; i < rows.length; i += 1000) {
    const values = rows.slice(i, i + 1000).map((e) => {
      const id = randomUUID();
      return {
        id,
        organization_id: e.organizationId,
        campaign_id: e.campaignId,
        sequence_id: e.sequenceId,
        contact_id: e.contactId,
        route_address: e.routeAddress,
        status: 'active',
        current_step: 0,
        next_action_at: sql<Date>`now()`,
        workflow_id: enrollmentWorkflowId(id),
      };
    });
    const done = await tx
      .insertInto('enrollments')
      .values(values)
      .onConflict((oc) => oc.doNothing())
      .returning(['id', 'contact_id'])
      .execute();
    for (const r of done) inserted.set(r.contact_id, r.id);
  }
  return inserted;
}

/** Locks the enrollment row (a draft stored or a step recorded takes turns with a stop); answers its status. */
export function lockEnrollment(tx: Tx, id: string) {
  return tx.selectFrom('enrollments').select(['id', 'status']).where('id', '=', id).forUpdate().executeTakeFirst();
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
  if (row && (row.status === 'stopped' || row.status === 'paused'))
    await recordEvent(tx, row.status === 'stopped' ? 'enrollment.stopped' : 'enrollment.paused', { organizationId: row.organization_id, id }, getEnrollment);
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
  if (rows.length)
    await tx
      .deleteFrom('send_slots')
      .where(
        'message_id',
        'in',
        rows.map((r) => r.id),
      )
      .execute();
  return rows.length;
}

/** The sequence workflow's progress: the step it is at and when it acts next (a running enrollment only: a stopped one keeps next_action_at empty). */
export function recordEnrollmentProgress(tx: Tx, id: string, p: { currentStep: number; nextActionAt: Date | null }) {
  return tx
    .updateTable('enrollments')
    .set({ current_step: p.currentStep, next_action_at: p.nextActionAt, updated_at: sql`now()` })
    .where('id', '=', id)
    .where('status', 'in', ['active', 'paused'])
    .returning(ENROLLMENT_COLUMNS)
    .executeTakeFirst();
}

/** A contact with what the accept decision needs: its addresses and its company's. */
export function contactsForEnrollment(tx: Tx, organizationId: string, contactIds: string[]) {
  if (contactIds.length === 0) return Promise.resolve([]);
  return tx
    .selectFrom('contacts')
    .innerJoin('companies', 'companies.id', 'contacts.company_id')
    .select([
      'contacts.id',
      'contacts.email',
      'contacts.email_status',
      'contacts.email_checked_at',
      'contacts.phone',
      'companies.generic_email',
      'companies.phone as company_phone',
    ])
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

// What reconcile/outreach reads -----------------------------------------------------------------------

/**
 * Running (active or paused) enrollments created more than olderThanSeconds ago, in every
 * organization, after `afterId` in id order: ids only, through the SECURITY DEFINER function
 * app.running_enrollments (the caller has no tenant context).
 */
export async function runningEnrollmentIds(
  db: Kysely<Database>,
  olderThanSeconds: number,
  afterId: string | null,
  limit: number,
  onlyOrganizationId: string | null = null,
) {
  const rows = await sql<{ organization_id: string; enrollment_id: string }>`
    SELECT organization_id, enrollment_id FROM app.running_enrollments(${olderThanSeconds}::int, ${afterId}::uuid, ${limit}::int, ${onlyOrganizationId}::uuid)`.execute(
    db,
  );
  return rows.rows;
}

/** Approved or scheduled messages outside a sequence (reply drafts, meeting reminders) unchanged for olderThanSeconds, in every organization: ids only. */
export async function unsequencedWaitingMessageIds(db: Kysely<Database>, olderThanSeconds: number, limit: number, onlyOrganizationId: string | null = null) {
  const rows = await sql<{ organization_id: string; message_id: string }>`
    SELECT organization_id, message_id FROM app.unsequenced_waiting_messages(${olderThanSeconds}::int, ${limit}::int, ${onlyOrganizationId}::uuid)`.execute(db);
  return rows.rows;
}

/**
 * Where each of these running enrollments stands, read as its organization: what its sequence run
 * needs to start again, and the step to start at. With a draft stored, its step and attempt (the run
 * waits on that draft again, not on the next step); without, the step after current_step, its delay
 * counted from when the last message of the enrollment last changed (or the enrollment was created).
 */
export async function resumePoints(tx: Tx, enrollmentIds: string[]) {
  if (enrollmentIds.length === 0) return [];
  const rows = await tx
    .selectFrom('enrollments')
    .innerJoin('campaigns', 'campaigns.id', 'enrollments.campaign_id')
    .select([
      'enrollments.id',
      'enrollments.organization_id',
      'enrollments.campaign_id',
      'enrollments.current_step',
      'enrollments.created_at',
      'campaigns.opportunity_id',
      'campaigns.mailbox_id',
    ])
    .select((eb) => [
      eb
        .selectFrom('messages')
        .select('messages.draft_key')
        .whereRef('messages.enrollment_id', '=', 'enrollments.id')
        .where('messages.draft_key', 'is not', null)
        .orderBy(sql`split_part(messages.draft_key, ':', 2)::int`, 'desc')
        .orderBy(sql`split_part(messages.draft_key, ':', 3)::int`, 'desc')
        .limit(1)
        .as('last_draft_key'),
      eb
        .selectFrom('messages')
        .select(sql<string>`messages.status || ':' || (extract(epoch FROM messages.updated_at) * 1000)::bigint`.as('s'))
        .whereRef('messages.enrollment_id', '=', 'enrollments.id')
        .where('messages.draft_key', 'is not', null)
        .orderBy(sql`split_part(messages.draft_key, ':', 2)::int`, 'desc')
        .orderBy(sql`split_part(messages.draft_key, ':', 3)::int`, 'desc')
        .limit(1)
        .as('last_draft_state'),
      eb
        .selectFrom('messages')
        .select(sql<Date>`max(messages.updated_at)`.as('at'))
        .whereRef('messages.enrollment_id', '=', 'enrollments.id')
        .as('last_message_at'),
    ])
    .where('enrollments.id', 'in', enrollmentIds)
    .where('enrollments.status', 'in', ['active', 'paused'])
    .execute();
  return rows.map((r) => {
    const [, position, attempt] = (r.last_draft_key ?? '').split(':').map(Number);
    const [status, changedAt] = (r.last_draft_state ?? '').split(':');
    // A step whose draft was sent, done or skipped is behind the enrollment: the next one starts, its delay from then.
    const stepDone = status === 'sent' || status === 'task_done' || status === 'skipped';
    const resume =
      position && attempt && position >= r.current_step && !stepDone
        ? { position, attempt, fromMs: Date.now() }
        : position && stepDone && position >= r.current_step
          ? { position: position + 1, attempt: 1, fromMs: Number(changedAt) }
          : { position: r.current_step + 1, attempt: 1, fromMs: new Date(r.last_message_at ?? r.created_at).getTime() };
    return {
      enrollmentId: r.id,
      organizationId: r.organization_id,
      campaignId: r.campaign_id,
      opportunityId: r.opportunity_id,
      mailboxId: r.mailbox_id,
      resume,
    };
  });
}

/** Of these messages, those still approved or scheduled outside a sequence, read as their organization. */
export function unsequencedWaitingMessages(tx: Tx, messageIds: string[]) {
  if (messageIds.length === 0) return Promise.resolve([]);
  return tx
    .selectFrom('messages')
    .select(['id', 'organization_id', 'mailbox_id'])
    .where('id', 'in', messageIds)
    .where('enrollment_id', 'is', null)
    .where('direction', '=', 'outbound')
    .where('status', 'in', ['approved', 'scheduled'])
    .execute();
}
