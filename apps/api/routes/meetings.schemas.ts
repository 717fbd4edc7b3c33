import { BOOKED_VIA, MEETING_OUTCOMES, MEETING_STATUSES } from '../../../domain/meetings/meetings';
import { z } from 'zod';
import { id, listBase, nullable, record, stamps, timestamp, uuid, type Agrees, type Operation, type Row } from '../contract';
import { email, httpUrl } from '../../../domain/companies/fields';
import type { getMeeting } from '../../../db/queries/meetings';

/**
 * The HTTP contract of apps/api/routes/meetings.ts: meetings: outcomes and status. Its request
 * schemas, the records it answers (registered with `record`) and its operations, which
 * apps/api/openapi.ts assembles into the OpenAPI document.
 */

export const meetingStatuses = MEETING_STATUSES;

/** An ISO 8601 timestamp with a time zone (Z or an offset), 1970..9999. */
const instant = z
  .string()
  .max(40)
  .refine(
    (v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i.test(v) && !Number.isNaN(Date.parse(v)),
    'must be an ISO 8601 timestamp with a time zone, such as 2026-12-01T10:00:00Z',
  )
  .transform((v) => new Date(v));

export const createMeetingBody = z
  .object({
    organizationId: uuid,
    title: z.string().trim().min(1, 'must not be empty').max(500),
    startsAt: instant,
    endsAt: instant,
    contactId: uuid.optional(),
    enrollmentId: uuid.optional(),
    opportunityId: uuid.optional(),
    threadId: uuid.optional(),
    attendeeEmail: email.optional(),
    provider: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_.-]{0,49}$/, 'must be a provider key such as calcom, calendly, google, microsoft or manual')
      .optional(),
    externalId: z.string().trim().min(1).max(500).optional(),
    joinUrl: httpUrl.optional(),
    bookedVia: z.enum(BOOKED_VIA).optional(),
  })
  .strict()
  .superRefine((v, ctx) => {
    // zod runs this even when a timestamp failed its own check (then it is still the string).
    if (!(v.startsAt instanceof Date) || !(v.endsAt instanceof Date)) return;
    if (v.endsAt.getTime() < v.startsAt.getTime()) ctx.addIssue({ code: 'custom', path: ['endsAt'], message: 'must not be before startsAt' });
  });

export const listMeetingsQuery = z
  .object({
    ...listBase,
    contactId: uuid.optional(),
    opportunityId: uuid.optional(),
    enrollmentId: uuid.optional(),
    status: z.enum(MEETING_STATUSES).optional(),
  })
  .strict();

export const meetingStatusBody = z.object({ status: z.enum(MEETING_OUTCOMES) }).strict();

export const Meeting = record(
  'Meeting',
  'A meeting with a contact: booked through a link (Cal.com, Calendly), a reply, or recorded by hand; its reminder and its CRM record',
  z.object({
    id,
    organization_id: id,
    contact_id: nullable(id),
    enrollment_id: nullable(id),
    opportunity_id: nullable(id),
    thread_id: nullable(id),
    provider: z.string().describe('calcom, calendly, google, microsoft, manual, ...'),
    external_id: nullable(z.string()).describe("The provider's id of the booking; (provider, external_id) is unique, a repeat updates"),
    title: z.string(),
    starts_at: timestamp,
    ends_at: timestamp,
    status: z.enum(MEETING_STATUSES),
    join_url: nullable(z.string()),
    attendee_email: nullable(z.string()),
    booked_via: z.enum(BOOKED_VIA),
    reminder_at: nullable(timestamp).describe("When the reminder is due: the organization's lead time before starts_at (null once cancelled)"),
    reminded_at: nullable(timestamp).describe('When the reminder was created'),
    reminder_task_id: nullable(id).describe("The owner's reminder task (GET /tasks)"),
    reminder_message_id: nullable(id).describe('The reminder e-mail draft to the attendee (pending_approval, or approved in an auto campaign)'),
    crm_external_id: nullable(z.string()).describe("The CRM's id of the meeting (HubSpot), once synced"),
    crm_synced_at: nullable(timestamp),
    crm_error: nullable(z.string()).describe('Why the CRM refused the last sync (a 4xx), if it did'),
    created_by: nullable(id).describe('Who recorded it; null for a booking webhook'),
    ...stamps,
    contact_name: nullable(z.string()),
    company_name: nullable(z.string()),
  }),
);

/** Fails to compile, naming the fields, when a query's column list and its response schema drift apart. */
export const ROWS_MATCH: {
  Meeting: Agrees<Row<typeof getMeeting>, typeof Meeting>;
} = { Meeting: true };

export const operations = [
  {
    id: 'recordMeeting',
    method: 'post',
    path: '/meetings',
    tag: 'Meetings',
    summary:
      "Record a meeting (201); a repeat of (provider, externalId) updates it (200). Stops the contact's sequences, schedules the reminder, syncs to the CRM when auto-sync is on",
    role: 'member',
    body: createMeetingBody,
    status: 201,
    repeatStatus: 200,
    answer: Meeting,
  },
  {
    id: 'listMeetings',
    method: 'get',
    path: '/meetings',
    tag: 'Meetings',
    summary: 'List meetings',
    role: 'viewer',
    query: listMeetingsQuery,
    answer: z.array(Meeting),
  },
  {
    id: 'getMeeting',
    method: 'get',
    path: '/meetings/{meetingId}',
    tag: 'Meetings',
    summary: 'One meeting, with reminder_at and crm_external_id',
    role: 'viewer',
    answer: Meeting,
  },
  {
    id: 'changeMeetingStatus',
    method: 'post',
    path: '/meetings/{meetingId}/status',
    tag: 'Meetings',
    summary: 'Set the outcome: cancelled (withdraws the reminder), completed or no_show (count for analytics); the CRM outcome follows',
    role: 'member',
    body: meetingStatusBody,
    answer: Meeting,
  },
] as const satisfies readonly Operation[];
