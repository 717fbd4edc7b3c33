import { firstSendableMailbox } from './campaigns';
import { sql } from 'kysely';
import type { Reader, Tx } from '../tenancy';
import { stopContactEnrollments } from './enrollments';
import { newestFirst } from './pagination';
import { reminderAt, reminderEmail, reminderTask, type MeetingOutcome } from '../../domain/meetings/meetings';
import { getMessage } from './messages';
import { recordEvent } from './webhook-events';

/** The spec's Meeting fields, with reminder_at, the CRM record (crm_external_id, crm_synced_at, crm_error) and the names of the contact and company. */
const MEETING_SELECT = [
  'meetings.id',
  'meetings.organization_id',
  'meetings.contact_id',
  'meetings.enrollment_id',
  'meetings.opportunity_id',
  'meetings.thread_id',
  'meetings.provider',
  'meetings.external_id',
  'meetings.title',
  'meetings.starts_at',
  'meetings.ends_at',
  'meetings.status',
  'meetings.join_url',
  'meetings.attendee_email',
  'meetings.booked_via',
  'meetings.reminder_at',
  'meetings.reminded_at',
  'meetings.reminder_task_id',
  'meetings.reminder_message_id',
  'meetings.crm_external_id',
  'meetings.crm_synced_at',
  'meetings.crm_error',
  'meetings.created_by',
  'meetings.created_at',
  'meetings.updated_at',
  'contacts.full_name as contact_name',
  'companies.name as company_name',
] as const;

function meetingsWithNames(qb: Reader) {
  return qb
    .selectFrom('meetings')
    .leftJoin('contacts', (j) => j.onRef('contacts.id', '=', 'meetings.contact_id').onRef('contacts.organization_id', '=', 'meetings.organization_id'))
    .leftJoin('companies', (j) => j.onRef('companies.id', '=', 'contacts.company_id').onRef('companies.organization_id', '=', 'contacts.organization_id'))
    .select(MEETING_SELECT);
}

export function getMeeting(tx: Reader, id: string) {
  return meetingsWithNames(tx).where('meetings.id', '=', id).executeTakeFirst();
}
export type MeetingRow = NonNullable<Awaited<ReturnType<typeof getMeeting>>>;

/** The list query, unexecuted (the API runs it in one round trip: readWithRole). */
export function listMeetings(
  qb: Reader,
  f: { organizationId: string; contactId?: string; opportunityId?: string; enrollmentId?: string; status?: string; limit: number; before?: string },
) {
  let q = meetingsWithNames(qb).where('meetings.organization_id', '=', f.organizationId);
  if (f.contactId) q = q.where('meetings.contact_id', '=', f.contactId);
  if (f.opportunityId) q = q.where('meetings.opportunity_id', '=', f.opportunityId);
  if (f.enrollmentId) q = q.where('meetings.enrollment_id', '=', f.enrollmentId);
  if (f.status) q = q.where('meetings.status', '=', f.status);
  return newestFirst(q, 'meetings', f);
}

/** A record the meeting names (contact, enrollment, opportunity, thread) is not in the organization or not visible. */
export class MeetingReferenceError extends Error {
  constructor(
    readonly field: 'contactId' | 'enrollmentId' | 'opportunityId' | 'threadId',
    readonly what: string,
    readonly kind: 'not_found' | 'mismatch',
  ) {
    super(kind === 'not_found' ? `the ${what} does not exist or is not visible to you` : `the ${what} belongs to another contact`);
  }
}

export interface MeetingInput {
  organizationId: string;
  createdBy: string | null;
  title: string;
  startsAt: Date;
  endsAt: Date;
  contactId?: string | null;
  enrollmentId?: string | null;
  opportunityId?: string | null;
  threadId?: string | null;
  attendeeEmail?: string | null;
  provider: string;
  externalId?: string | null;
  /** A reschedule: the booking this one replaces; its meeting moves (and takes the new external id). */
  previousExternalId?: string | null;
  joinUrl?: string | null;
  bookedVia: 'link' | 'reply' | 'manual';
  /**
   * true (a person's request): a named record that is not visible is an error. false (a booking link's
   * metadata, which anyone can edit): it is ignored.
   */
  strictReferences: boolean;
}

export interface RecordedMeeting {
  meeting: MeetingRow;
  created: boolean;
  /** Something the meeting workflow should look at changed (times, links, a new meeting). */
  changed: boolean;
  /** Enrollments stopped because the meeting was booked (wake their sequence runs after commit). */
  stoppedEnrollmentIds: string[];
}

interface Links {
  contactId: string | null;
  enrollmentId: string | null;
  opportunityId: string | null;
  threadId: string | null;
  attendeeEmail: string | null;
}

/** The contact, enrollment, opportunity and thread of a meeting: those given, checked, and those that follow from them. */
async function resolveLinks(tx: Tx, m: MeetingInput): Promise<Links> {
  const org = m.organizationId;
  const missing = (field: MeetingReferenceError['field'], what: string) => {
    if (m.strictReferences) throw new MeetingReferenceError(field, what, 'not_found');
    return null;
  };
  let enrollment = m.enrollmentId
    ? await tx
        .selectFrom('enrollments')
        .innerJoin('campaigns', 'campaigns.id', 'enrollments.campaign_id')
        .select(['enrollments.id', 'enrollments.contact_id', 'campaigns.opportunity_id'])
        .where('enrollments.organization_id', '=', org)
        .where('enrollments.id', '=', m.enrollmentId)
        .executeTakeFirst()
    : undefined;
  if (m.enrollmentId && !enrollment) missing('enrollmentId', 'enrollment');

  let contact: { id: string; email: string | null } | undefined;
  if (m.contactId) {
    contact = await tx.selectFrom('contacts').select(['id', 'email']).where('organization_id', '=', org).where('id', '=', m.contactId).executeTakeFirst();
    if (!contact) missing('contactId', 'contact');
  }
  if (contact && enrollment && enrollment.contact_id !== contact.id) {
    if (m.strictReferences) throw new MeetingReferenceError('enrollmentId', 'enrollment', 'mismatch');
    enrollment = undefined;
  }
  if (!contact && enrollment) {
    contact = await tx.selectFrom('contacts').select(['id', 'email']).where('id', '=', enrollment.contact_id).executeTakeFirst();
  }
  if (!contact && m.attendeeEmail) {
    contact = await tx
      .selectFrom('contacts')
      .select(['id', 'email'])
      .where('organization_id', '=', org)
      .where(sql`lower(email)`, '=', m.attendeeEmail.toLowerCase())
      .where('erased_at', 'is', null)
      .orderBy('created_at', 'desc')
      .executeTakeFirst();
  }
  if (contact && !enrollment) {
    // The contact's running enrollment (the one the meeting stops), else its newest.
    enrollment = await tx
      .selectFrom('enrollments')
      .innerJoin('campaigns', 'campaigns.id', 'enrollments.campaign_id')
      .select(['enrollments.id', 'enrollments.contact_id', 'campaigns.opportunity_id'])
      .where('enrollments.organization_id', '=', org)
      .where('enrollments.contact_id', '=', contact.id)
      .orderBy(sql`enrollments.status IN ('active', 'paused')`, 'desc')
      .orderBy('enrollments.created_at', 'desc')
      .executeTakeFirst();
  }

  let opportunityId = enrollment?.opportunity_id ?? null;
  if (m.opportunityId) {
    const found = await tx.selectFrom('opportunities').select('id').where('organization_id', '=', org).where('id', '=', m.opportunityId).executeTakeFirst();
    opportunityId = found ? found.id : (missing('opportunityId', 'opportunity') ?? opportunityId);
  }
  let threadId: string | null = null;
  if (m.threadId) {
    const found = await tx
      .selectFrom('threads')
      .select(['id', 'contact_id'])
      .where('organization_id', '=', org)
      .where('id', '=', m.threadId)
      .executeTakeFirst();
    if (!found) missing('threadId', 'thread');
    else if (contact && found.contact_id !== contact.id) {
      if (m.strictReferences) throw new MeetingReferenceError('threadId', 'thread', 'mismatch');
    } else threadId = found.id;
  } else if (contact) {
    const newest = await tx
      .selectFrom('threads')
      .select('id')
      .where('organization_id', '=', org)
      .where('contact_id', '=', contact.id)
      .orderBy('updated_at', 'desc')
      .executeTakeFirst();
    threadId = newest?.id ?? null;
  }
  return {
    contactId: contact?.id ?? null,
    enrollmentId: enrollment?.id ?? null,
    opportunityId,
    threadId,
    attendeeEmail: m.attendeeEmail?.toLowerCase() ?? contact?.email?.toLowerCase() ?? null,
  };
}

/** How long before a meeting its reminder comes, in minutes (organizations.meeting_reminder_lead_minutes). */
export async function reminderLeadMinutes(tx: Tx, organizationId: string): Promise<number> {
  const row = await tx.selectFrom('organizations').select('meeting_reminder_lead_minutes').where('id', '=', organizationId).executeTakeFirst();
  return row?.meeting_reminder_lead_minutes ?? 24 * 60;
}

export function meetingSettings(tx: Tx, organizationId: string) {
  return tx
    .selectFrom('organizations')
    .select(['id as organization_id', 'meeting_reminder_lead_minutes as reminder_lead_minutes'])
    .where('id', '=', organizationId)
    .executeTakeFirst();
}

/** Changes the lead time; the reminders of meetings not yet reminded move with it (their workflows are woken by the caller). */
export async function changeMeetingSettings(tx: Tx, organizationId: string, s: { reminderLeadMinutes?: number }) {
  if (s.reminderLeadMinutes !== undefined) {
    await tx
      .updateTable('organizations')
      .set({ meeting_reminder_lead_minutes: s.reminderLeadMinutes, updated_at: sql`now()` })
      .where('id', '=', organizationId)
      .execute();
    await tx
      .updateTable('meetings')
      .set({ reminder_at: sql`starts_at - make_interval(mins => ${s.reminderLeadMinutes})` })
      .where('organization_id', '=', organizationId)
      .where('status', '=', 'proposed')
      .where('reminded_at', 'is', null)
      .where('starts_at', '>', sql<Date>`now()`)
      .execute();
  }
  return meetingSettings(tx, organizationId);
}

/** Meetings whose reminders are still to come (to wake their workflows after the lead time changed). */
export async function upcomingMeetingIds(
  tx: Tx,
  organizationId: string,
): Promise<Array<{ id: string; opportunity_id: string | null; enrollment_id: string | null }>> {
  return tx
    .selectFrom('meetings')
    .select(['id', 'opportunity_id', 'enrollment_id'])
    .where('organization_id', '=', organizationId)
    .where('status', '=', 'proposed')
    .where('reminded_at', 'is', null)
    .where('starts_at', '>', sql<Date>`now()`)
    .execute();
}

/** The open reminder of a meeting is withdrawn: its task cancelled, its e-mail draft skipped when not yet sent (a send under way goes on). */
export async function withdrawReminder(tx: Tx, meetingId: string): Promise<void> {
  await tx
    .updateTable('tasks')
    .set({ status: 'cancelled', updated_at: sql`now()` })
    .where('meeting_id', '=', meetingId)
    .where('kind', '=', 'meeting_reminder')
    .where('status', '=', 'open')
    .execute();
  await tx
    .updateTable('messages')
    .set({ status: 'skipped', updated_at: sql`now()` })
    .where('id', '=', (eb) => eb.selectFrom('meetings').select('reminder_message_id').where('id', '=', meetingId))
    .where('status', 'in', ['pending_approval', 'approved', 'scheduled'])
    // A claimed reminder (its SMTP conversation under way) is left to its send: recordSent records the truth.
    .where((eb) => eb.not(eb.and([eb('status', '=', 'scheduled'), eb('send_attempted_at', 'is not', null)])))
    .execute();
}

/**
 * Records a meeting, or updates the one with the same (provider, externalId) (a repeat, or a
 * reschedule naming previousExternalId). A new meeting for a contact stops the contact's running
 * enrollments (reason meeting_booked; their waiting drafts skipped). Moving the start withdraws a
 * reminder already made and plans the next one. A repeat with the same content changes nothing.
 */
export async function recordMeeting(tx: Tx, m: MeetingInput): Promise<RecordedMeeting> {
  const org = m.organizationId;
  const links = await resolveLinks(tx, m);
  const lead = await reminderLeadMinutes(tx, org);
  const findBy = (externalId: string) =>
    tx
      .selectFrom('meetings')
      .select([
        'id',
        'title',
        'starts_at',
        'ends_at',
        'join_url',
        'attendee_email',
        'external_id',
        'contact_id',
        'enrollment_id',
        'opportunity_id',
        'thread_id',
      ])
      .where('organization_id', '=', org)
      .where('provider', '=', m.provider)
      .where('external_id', '=', externalId)
      .forUpdate()
      .executeTakeFirst();
  let existing = m.externalId ? await findBy(m.externalId) : undefined;
  if (!existing && m.previousExternalId) existing = await findBy(m.previousExternalId);

  if (!existing) {
    const inserted = await tx
      .insertInto('meetings')
      .values({
        organization_id: org,
        contact_id: links.contactId,
        enrollment_id: links.enrollmentId,
        opportunity_id: links.opportunityId,
        thread_id: links.threadId,
        provider: m.provider,
        external_id: m.externalId ?? null,
        title: m.title,
        starts_at: m.startsAt,
        ends_at: m.endsAt,
        status: 'proposed',
        join_url: m.joinUrl ?? null,
        attendee_email: links.attendeeEmail,
        booked_via: m.bookedVia,
        created_by: m.createdBy,
        reminder_at: reminderAt(m.startsAt, lead),
        status_changed_at: sql`now()`,
      })
      .onConflict((oc) => oc.columns(['organization_id', 'provider', 'external_id']).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!inserted) return recordMeeting(tx, m); // a concurrent first recording won: this is now a repeat
    const stopped = links.contactId ? await stopContactEnrollments(tx, links.contactId, 'meeting_booked') : [];
    await recordEvent(tx, 'meeting.booked', { organizationId: org, id: inserted.id }, getMeeting);
    return { meeting: (await getMeeting(tx, inserted.id))!, created: true, changed: true, stoppedEnrollmentIds: stopped };
  }

  const next = {
    external_id: m.externalId ?? existing.external_id,
    title: m.title,
    starts_at: m.startsAt,
    ends_at: m.endsAt,
    join_url: m.joinUrl ?? existing.join_url,
    attendee_email: links.attendeeEmail ?? existing.attendee_email,
    contact_id: existing.contact_id ?? links.contactId,
    enrollment_id: existing.enrollment_id ?? links.enrollmentId,
    opportunity_id: existing.opportunity_id ?? links.opportunityId,
    thread_id: existing.thread_id ?? links.threadId,
  };
  const same = (Object.keys(next) as Array<keyof typeof next>).every((k) => {
    const a = next[k];
    const b = existing[k];
    return a instanceof Date && b instanceof Date ? a.getTime() === b.getTime() : a === b;
  });
  if (same) return { meeting: (await getMeeting(tx, existing.id))!, created: false, changed: false, stoppedEnrollmentIds: [] };
  const moved = existing.starts_at.getTime() !== m.startsAt.getTime();
  if (moved) await withdrawReminder(tx, existing.id);
  await tx
    .updateTable('meetings')
    .set({
      ...next,
      ...(moved ? { reminder_at: reminderAt(m.startsAt, lead), reminded_at: null, reminder_task_id: null, reminder_message_id: null } : {}),
      updated_at: sql`now()`,
    })
    .where('id', '=', existing.id)
    .execute();
  await recordEvent(tx, 'meeting.updated', { organizationId: org, id: existing.id }, getMeeting);
  return { meeting: (await getMeeting(tx, existing.id))!, created: false, changed: true, stoppedEnrollmentIds: [] };
}

/**
 * Keeps a processed booking delivery (booking_events, migration 0017): answers false when the same
 * delivery (its body digest) was processed before, which then changes nothing.
 */
export async function recordBookingEvent(
  tx: Tx,
  e: { organizationId: string; provider: string; externalId: string; kind: 'booked' | 'cancelled'; occurredAt: string | null; digest: string },
): Promise<boolean> {
  const row = await tx
    .insertInto('booking_events')
    .values({ organization_id: e.organizationId, provider: e.provider, external_id: e.externalId, kind: e.kind, occurred_at: e.occurredAt, digest: e.digest })
    .onConflict((oc) => oc.columns(['organization_id', 'provider', 'digest']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return !!row;
}

/**
 * Whether a cancellation of this booking was processed (a tombstone) that a booking dated `occurredAt`
 * does not outlive: cancel wins unless the provider dated the booking after it (both times known).
 */
export async function bookingCancelled(tx: Tx, organizationId: string, provider: string, externalId: string, occurredAt: string | null): Promise<boolean> {
  const row = await tx
    .selectFrom('booking_events')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('provider', '=', provider)
    .where('external_id', '=', externalId)
    .where('kind', '=', 'cancelled')
    .where((eb) => (occurredAt === null ? eb.val(true) : eb.or([eb('occurred_at', 'is', null), eb('occurred_at', '>=', new Date(occurredAt))])))
    .executeTakeFirst();
  return !!row;
}

/** The meeting recorded under (provider, externalId), when there is one. */
export function findMeetingByExternalId(tx: Tx, organizationId: string, provider: string, externalId: string) {
  return tx
    .selectFrom('meetings')
    .select(['id'])
    .where('organization_id', '=', organizationId)
    .where('provider', '=', provider)
    .where('external_id', '=', externalId)
    .executeTakeFirst();
}

/**
 * Sets a meeting's outcome. Cancelling withdraws its reminder (and clears reminder_at); completed and
 * no_show count for analytics and the learning loop (status_changed_at). Setting the status it
 * already has changes nothing. A stopped sequence is never restarted.
 */
export async function changeMeetingStatus(tx: Tx, id: string, status: MeetingOutcome): Promise<{ meeting: MeetingRow; changed: boolean } | undefined> {
  const updated = await tx
    .updateTable('meetings')
    .set({ status, status_changed_at: sql`now()`, updated_at: sql`now()`, ...(status === 'cancelled' ? { reminder_at: null } : {}) })
    .where('id', '=', id)
    .where('status', '<>', status)
    .returning('id')
    .executeTakeFirst();
  if (updated && status === 'cancelled') await withdrawReminder(tx, id);
  const meeting = await getMeeting(tx, id);
  if (updated && meeting) await recordEvent(tx, 'meeting.updated', { organizationId: meeting.organization_id, id }, getMeeting);
  return meeting ? { meeting, changed: !!updated } : undefined;
}

// The meeting workflow's reads and writes ------------------------------------------------------------

/** What the meeting workflow decides on: the status, when the reminder is due and whether it was made. */
export async function meetingSchedule(tx: Tx, id: string) {
  const m = await tx.selectFrom('meetings').select(['status', 'starts_at', 'ends_at', 'reminder_at', 'reminded_at']).where('id', '=', id).executeTakeFirst();
  if (!m) return undefined;
  return {
    status: m.status,
    startsAt: m.starts_at.toISOString(),
    endsAt: m.ends_at.toISOString(),
    reminderAt: m.reminder_at?.toISOString() ?? null,
    reminded: m.reminded_at !== null,
  };
}

/** How long after its start a meeting may still get its reminder (a lead time of 0 reminds at the start). */
export const REMINDER_GRACE = '5 minutes';

/**
 * The reminder, once per start time: a task for the owner (the campaign's creator, else whoever
 * recorded the meeting, else the organization's first owner) and, with an attendee address that is
 * not suppressed, a short reminder e-mail draft that follows the campaign's mode (review:
 * pending_approval; auto: approved). Nothing when the meeting is no longer proposed, was already
 * reminded, moved (startsAt is the start the caller planned for), or already under way for more than
 * REMINDER_GRACE (a past meeting recorded late, a late booking, a worker that was down): nobody is
 * reminded of a meeting that has begun; its reminder_at is cleared, so the meeting's run waits for
 * its end instead (a move to a new start plans a reminder again). The grace keeps a lead time of 0
 * (a reminder at the start) working.
 */
export async function createMeetingReminder(tx: Tx, id: string, startsAt: string): Promise<{ created: boolean; taskId?: string; messageId?: string }> {
  const m = await tx
    .selectFrom('meetings')
    .selectAll()
    .select(sql<boolean>`starts_at < now() - ${REMINDER_GRACE}::interval`.as('started'))
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  if (!m || m.status !== 'proposed' || m.reminded_at || m.starts_at.toISOString() !== startsAt) return { created: false };
  if (m.started) {
    await tx
      .updateTable('meetings')
      .set({ reminder_at: null, updated_at: sql`now()` })
      .where('id', '=', id)
      .execute();
    return { created: false };
  }
  const org = m.organization_id;
  const contact = m.contact_id
    ? await tx
        .selectFrom('contacts')
        .innerJoin('companies', 'companies.id', 'contacts.company_id')
        .select(['contacts.full_name', 'companies.name as company_name', 'companies.locale'])
        .where('contacts.id', '=', m.contact_id)
        .executeTakeFirst()
    : undefined;
  const campaign = m.enrollment_id
    ? await tx
        .selectFrom('enrollments')
        .innerJoin('campaigns', 'campaigns.id', 'enrollments.campaign_id')
        .leftJoin('mailboxes', 'mailboxes.id', 'campaigns.mailbox_id')
        .select(['campaigns.created_by', 'campaigns.mode', 'campaigns.mailbox_id', 'mailboxes.timezone'])
        .where('enrollments.id', '=', m.enrollment_id)
        .executeTakeFirst()
    : undefined;
  const settings = await tx.selectFrom('compliance_settings').select('default_locale').where('organization_id', '=', org).executeTakeFirst();
  const firstOwner = await tx
    .selectFrom('memberships')
    .select('user_id')
    .where('organization_id', '=', org)
    .where('role', '=', 'owner')
    .orderBy('created_at')
    .executeTakeFirst();
  const input = {
    title: m.title,
    startsAt: m.starts_at,
    endsAt: m.ends_at,
    joinUrl: m.join_url,
    contactName: contact?.full_name ?? null,
    companyName: contact?.company_name ?? null,
    timezone: campaign?.timezone ?? 'Europe/Amsterdam',
    locale: contact?.locale ?? settings?.default_locale ?? 'nl-NL',
  };
  const taskText = reminderTask(input);
  const task = await tx
    .insertInto('tasks')
    .values({
      organization_id: org,
      kind: 'meeting_reminder',
      assignee_user_id: campaign?.created_by ?? m.created_by ?? firstOwner?.user_id ?? null,
      meeting_id: m.id,
      contact_id: m.contact_id,
      title: taskText.title,
      body: taskText.body,
      due_at: m.starts_at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();

  let messageId: string | undefined;
  const address = m.attendee_email?.toLowerCase();
  if (address) {
    const domain = address.split('@')[1] ?? '';
    const suppressed = await tx
      .selectFrom('suppressions')
      .select('id')
      .where('organization_id', '=', org)
      .where((eb) => eb.or([eb.and([eb('scope', '=', 'email'), eb('value', '=', address)]), eb.and([eb('scope', '=', 'domain'), eb('value', '=', domain)])]))
      .executeTakeFirst();
    if (!suppressed) {
      const mail = reminderEmail(input);
      const message = await tx
        .insertInto('messages')
        .values({
          organization_id: org,
          direction: 'outbound',
          channel: 'email',
          status: campaign?.mode === 'auto' ? 'approved' : 'pending_approval',
          contact_id: m.contact_id,
          enrollment_id: m.enrollment_id,
          thread_id: m.thread_id,
          mailbox_id: campaign?.mailbox_id ?? (await firstSendableMailbox(tx, org))?.id ?? null,
          to_address: address,
          subject: mail.subject,
          body: mail.body,
          why: JSON.stringify({
            meeting_reminder: { meeting_id: m.id, starts_at: m.starts_at.toISOString(), summary: 'A reminder of a booked meeting, sent before it starts' },
          }),
        })
        .returning(['id', 'status'])
        .executeTakeFirstOrThrow();
      messageId = message.id;
      if (message.status === 'pending_approval') await recordEvent(tx, 'message.pending_approval', { organizationId: org, id: message.id }, getMessage);
    }
  }
  await tx
    .updateTable('meetings')
    .set({ reminded_at: sql`now()`, reminder_task_id: task.id, reminder_message_id: messageId ?? null })
    .where('id', '=', m.id)
    .execute();
  return { created: true, taskId: task.id, messageId };
}

/** What the CRM sync sends: the meeting, its contact's address and name. */
export function meetingForCrm(tx: Tx, id: string) {
  return tx
    .selectFrom('meetings')
    .leftJoin('contacts', 'contacts.id', 'meetings.contact_id')
    .select([
      'meetings.id',
      'meetings.organization_id',
      'meetings.title',
      'meetings.starts_at',
      'meetings.ends_at',
      'meetings.status',
      'meetings.join_url',
      'meetings.attendee_email',
      'meetings.crm_external_id',
      'meetings.updated_at',
      'contacts.email as contact_email',
      'contacts.full_name as contact_name',
    ])
    .where('meetings.id', '=', id)
    .executeTakeFirst();
}

/** The CRM's answer: the record it holds (crm_external_id, crm_synced_at), or why it refused (crm_error). */
export function recordCrmSync(tx: Tx, id: string, r: { externalId: string } | { error: string }) {
  return tx
    .updateTable('meetings')
    .set('externalId' in r ? { crm_external_id: r.externalId, crm_synced_at: sql`now()`, crm_error: null } : { crm_error: r.error.slice(0, 1000) })
    .where('id', '=', id)
    .execute();
}

// Tasks -------------------------------------------------------------------------------------------------
export const TASK_COLUMNS = [
  'id',
  'organization_id',
  'kind',
  'status',
  'assignee_user_id',
  'meeting_id',
  'contact_id',
  'title',
  'body',
  'due_at',
  'created_at',
  'updated_at',
] as const;

export function listTasks(
  qb: Reader,
  f: { organizationId: string; assigneeUserId?: string; meetingId?: string; status?: string; limit: number; before?: string },
) {
  let q = qb.selectFrom('tasks').select(TASK_COLUMNS).where('organization_id', '=', f.organizationId);
  if (f.assigneeUserId) q = q.where('assignee_user_id', '=', f.assigneeUserId);
  if (f.meetingId) q = q.where('meeting_id', '=', f.meetingId);
  if (f.status) q = q.where('status', '=', f.status);
  return newestFirst(q, 'tasks', f);
}

export function getTask(tx: Tx, id: string) {
  return tx.selectFrom('tasks').select(TASK_COLUMNS).where('id', '=', id).executeTakeFirst();
}

/** An open task is done (undefined when it was not open: done already, or cancelled). */
export function completeTask(tx: Tx, id: string) {
  return tx
    .updateTable('tasks')
    .set({ status: 'done', updated_at: sql`now()` })
    .where('id', '=', id)
    .where('status', '=', 'open')
    .returning(TASK_COLUMNS)
    .executeTakeFirst();
}
