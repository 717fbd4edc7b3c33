import { z } from 'zod';
import { emptyBody, id, listBase, nullable, record, stamps, timestamp, uuid, type Agrees, type Operation } from '../contract';
import type { listTasks } from '../../../db/queries/meetings';

/**
 * The HTTP contract of apps/api/routes/tasks.ts: reminders and other tasks. Its request schemas, the
 * records it answers (registered with `record`) and its operations, which apps/api/openapi.ts
 * assembles into the OpenAPI document.
 */

export const listTasksQuery = z
  .object({ ...listBase, assigneeUserId: uuid.optional(), meetingId: uuid.optional(), status: z.enum(['open', 'done', 'cancelled']).optional() })
  .strict();

export const Task = record(
  'Task',
  'Work for a person: the reminder to prepare a meeting, for the owner of the enrollment or campaign',
  z.object({
    id,
    organization_id: id,
    kind: z.enum(['meeting_reminder']),
    status: z.enum(['open', 'done', 'cancelled']),
    assignee_user_id: nullable(id),
    meeting_id: nullable(id),
    contact_id: nullable(id),
    title: z.string(),
    body: nullable(z.string()),
    due_at: nullable(timestamp),
    ...stamps,
  }),
);

/** Fails to compile, naming the fields, when a query's column list and its response schema drift apart. */
export const ROWS_MATCH: {
  Task: Agrees<Awaited<ReturnType<ReturnType<typeof listTasks>['execute']>>[number], typeof Task>;
} = { Task: true };

export const operations = [
  {
    id: 'listTasks',
    method: 'get',
    path: '/tasks',
    tag: 'Meetings',
    summary: "Tasks for people (a meeting's reminder for the owner of the enrollment or campaign)",
    role: 'viewer',
    query: listTasksQuery,
    answer: z.array(Task),
  },
  {
    id: 'completeTask',
    method: 'post',
    path: '/tasks/{taskId}/complete',
    tag: 'Meetings',
    summary: 'Mark an open task done (409 when it is done or cancelled)',
    role: 'member',
    body: emptyBody,
    answer: Task,
    problems: [409],
  },
] as const satisfies readonly Operation[];
