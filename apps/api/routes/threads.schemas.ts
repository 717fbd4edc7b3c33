import { z } from 'zod';
import { id, listBase, nullable, record, timestamp, uuid, type Operation } from '../contract';
import { REPLY_INTENTS } from '../../../domain/replies/types';
import { Message } from './messages.schemas';

/**
 * The HTTP contract of apps/api/routes/threads.ts: conversations with one contact from one mailbox.
 * Its request schemas, the records it answers (registered with `record`) and its operations, which
 * apps/api/openapi.ts assembles into the OpenAPI document.
 */

export const listThreadsQuery = z
  .object({
    ...listBase,
    status: z.enum(['open', 'replied', 'closed']).optional(),
    mailboxId: uuid.optional(),
    assignedTo: uuid.optional(),
    intent: z.enum(REPLY_INTENTS).optional(),
  })
  .strict();

export const patchThreadBody = z
  .object({ status: z.enum(['open', 'closed']).optional(), assignedTo: uuid.nullable().optional().describe("a member's user id, or null to unassign") })
  .strict()
  .refine((v) => v.status !== undefined || v.assignedTo !== undefined, 'must change status or assignedTo');

export const threadReplyBody = z
  .object({ body: z.string().trim().min(1, 'must not be empty').max(20000), subject: z.string().trim().min(1).max(300).optional() })
  .strict();

const threadFields = {
  id,
  organization_id: id,
  contact_id: id,
  contact_name: z.string(),
  company_name: z.string(),
  mailbox_id: nullable(id),
  subject: nullable(z.string()),
  status: z.enum(['open', 'replied', 'closed']),
  last_message_at: timestamp.describe("the last activity: the newest message, else the thread's creation"),
  last_inbound_at: nullable(timestamp),
  last_intent: nullable(z.string()).describe('the intent of the last classified inbound message'),
  assigned_to: nullable(id),
  message_count: z.number().int(),
};

export const Thread = record('Thread', 'An e-mail conversation with one contact from one mailbox: the last activity first in the list', z.object(threadFields));

export const ThreadDetail = record(
  'ThreadDetail',
  'A thread with its messages, both directions, oldest first',
  z.object({ ...threadFields, messages: z.array(Message) }),
);

export const operations = [
  {
    id: 'listThreads',
    method: 'get',
    path: '/threads',
    tag: 'Threads',
    summary: 'List threads, the last activity first',
    role: 'viewer',
    query: listThreadsQuery,
    answer: z.array(Thread),
  },
  {
    id: 'getThread',
    method: 'get',
    path: '/threads/{threadId}',
    tag: 'Threads',
    summary: 'One thread with its messages, both directions, oldest first',
    role: 'viewer',
    answer: ThreadDetail,
  },
  {
    id: 'updateThread',
    method: 'patch',
    path: '/threads/{threadId}',
    tag: 'Threads',
    summary: 'Open or close a thread, assign it to a member (or null)',
    role: 'member',
    body: patchThreadBody,
    answer: Thread,
  },
  {
    id: 'replyToThread',
    mcp: { act: 'person', read: 'getThread' },
    method: 'post',
    path: '/threads/{threadId}/reply',
    tag: 'Threads',
    summary:
      "Reply as a person: an approved outbound message from the thread's mailbox with In-Reply-To and References of the last inbound message, sent through the send path (suppression, window, cap); 409 when the thread has no mailbox or the contact no address",
    role: 'member',
    body: threadReplyBody,
    status: 201,
    answer: Message,
    problems: [409],
  },
] as const satisfies readonly Operation[];
