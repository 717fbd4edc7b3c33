import { z } from 'zod';
import { emptyBody, id, listBase, nullable, reasonBody, record, stamps, timestamp, uuid, type Agrees, type Operation, type Row } from '../contract';
import type { getEnrollment } from '../../../db/queries/enrollments';

/**
 * The HTTP contract of apps/api/routes/enrollments.ts: contacts in a campaign's sequence. Its request
 * schemas, the records it answers (registered with `record`) and its operations, which
 * apps/api/openapi.ts assembles into the OpenAPI document.
 */

export const enrollmentStatuses = ['active', 'paused', 'stopped', 'completed', 'failed'] as const;

export const listEnrollmentsQuery = z
  .object({ ...listBase, campaignId: uuid.optional(), contactId: uuid.optional(), status: z.enum(enrollmentStatuses).optional() })
  .strict();

export const stopEnrollmentBody = reasonBody;

export const Enrollment = record(
  'Enrollment',
  "One contact in one campaign's sequence: where it is (current_step) and when it acts next",
  z.object({
    id,
    organization_id: id,
    campaign_id: id,
    contact_id: id,
    status: z.enum(['active', 'paused', 'stopped', 'completed', 'failed']),
    current_step: z.number().int().min(0).describe('The position of the last step acted on; 0 before the first'),
    next_action_at: nullable(timestamp),
    pause_reason: nullable(z.enum(['out_of_office', 'account_replied'])),
    resume_at: nullable(timestamp),
    stopped_reason: nullable(z.string()),
    workflow_id: nullable(z.string()).describe('The id of its sequence workflow: enrollment/<id>'),
    mailbox_id: nullable(id).describe('The pool mailbox every e-mail to this contact goes from: null until its first e-mail is booked, then fixed'),
    ...stamps,
  }),
);

/** Fails to compile, naming the fields, when a query's column list and its response schema drift apart. */
export const ROWS_MATCH: {
  Enrollment: Agrees<Row<typeof getEnrollment>, typeof Enrollment>;
} = { Enrollment: true };

export const operations = [
  {
    id: 'listEnrollments',
    method: 'get',
    path: '/enrollments',
    tag: 'Enrollments',
    summary: 'List enrollments',
    role: 'viewer',
    query: listEnrollmentsQuery,
    answer: z.array(Enrollment),
  },
  {
    id: 'getEnrollment',
    method: 'get',
    path: '/enrollments/{enrollmentId}',
    tag: 'Enrollments',
    summary: 'One enrollment',
    role: 'viewer',
    answer: Enrollment,
  },
  {
    id: 'stopEnrollment',
    method: 'post',
    path: '/enrollments/{enrollmentId}/stop',
    tag: 'Enrollments',
    summary: 'Stop an enrollment; its waiting drafts are skipped (409 when it has ended)',
    role: 'member',
    body: stopEnrollmentBody,
    answer: Enrollment,
    problems: [409],
  },
  {
    id: 'resumeEnrollment',
    mcp: { act: 'person', read: 'getEnrollment' },
    method: 'post',
    path: '/enrollments/{enrollmentId}/resume',
    tag: 'Enrollments',
    summary: 'Resume a paused enrollment (409 unless paused)',
    role: 'member',
    body: emptyBody,
    answer: Enrollment,
    problems: [409],
  },
] as const satisfies readonly Operation[];
