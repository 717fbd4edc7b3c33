import { WAITING_MESSAGE_STATUSES } from './enrollments';

/**
 * An outbound message's statuses and the moves between them, as data: the queries that change a message's status only move along these edges, and
 * the API answers 409 for any other.
 *
 *   pending_approval -approve-> approved -schedule-> scheduled -send-> sent
 *                    -reject--> rejected            \-fail--> failed (with error)
 *   task_open -complete-> task_done
 *   any waiting status -skip-> skipped (the enrollment stopped, the contact became unreachable, a reply)
 */
export const MESSAGE_TRANSITIONS = {
  approve: { from: ['pending_approval'], to: 'approved' },
  reject: { from: ['pending_approval'], to: 'rejected' },
  complete: { from: ['task_open'], to: 'task_done' },
  schedule: { from: ['approved'], to: 'scheduled' },
  send: { from: ['scheduled'], to: 'sent' },
  fail: { from: ['approved', 'scheduled'], to: 'failed' },
  skip: { from: WAITING_MESSAGE_STATUSES, to: 'skipped' },
} as const;
export type MessageAction = keyof typeof MESSAGE_TRANSITIONS;

export function messageFrom(action: MessageAction): string[] {
  return [...MESSAGE_TRANSITIONS[action].from];
}

export const MESSAGE_STATUSES = [
  'pending_approval',
  'approved',
  'scheduled',
  'sent',
  'failed',
  'rejected',
  'received',
  'task_open',
  'task_done',
  'skipped',
] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** Where a sequence step's message ended up, as the sequence workflow sees it. */
export type StepOutcome =
  /** sent, or a task done: the step is over, the next one counts its delay from now */
  | 'done'
  /** a person rejected the draft and asked for another: write it again with the reason */
  | 'redraft'
  /** rejected without a redraft, or skipped: the step is over without a send */
  | 'skipped'
  /** the send failed for good (the server refused it; a hard bounce also suppresses the address) */
  | 'failed';

/** What a message's status means for the step waiting on it; null while it still waits (a person, or a send slot). */
export function stepOutcome(m: { status: string; redraft_requested?: boolean }): StepOutcome | null {
  switch (m.status) {
    case 'sent':
    case 'task_done':
      return 'done';
    case 'rejected':
      return m.redraft_requested ? 'redraft' : 'skipped';
    case 'skipped':
      return 'skipped';
    case 'failed':
      return 'failed';
    default:
      return null;
  }
}

/** The status a new draft starts in: e-mail waits for a person in review mode and not in auto mode; phone and LinkedIn steps are tasks. */
export function initialDraftStatus(channel: string, mode: string): 'pending_approval' | 'approved' | 'task_open' {
  if (channel !== 'email') return 'task_open';
  return mode === 'auto' ? 'approved' : 'pending_approval';
}

/**
 * Risks that put an e-mail draft in the approval inbox whatever the campaign's mode: a claim the
 * grounding check found in no fact (contract "Drafts that do not invent") is never sent unread.
 */
export const REVIEW_FORCING_RISKS = ['unsupported_claim'];

/** The status a written draft is stored in: initialDraftStatus, except that an approved e-mail with a forcing risk waits for a person. */
export function writtenDraftStatus(status: string, risks: string[]): string {
  if (status !== 'approved') return status;
  return risks.some((r) => REVIEW_FORCING_RISKS.some((k) => r === k || r.startsWith(`${k}:`))) ? 'pending_approval' : status;
}

/** The idempotency key of a step's draft: a retried activity finds the draft it already wrote. */
export function draftKey(enrollmentId: string, position: number, attempt: number): string {
  return `${enrollmentId}:${position}:${attempt}`;
}
