import type { Activities } from '../activities';

/** Model and provider calls (LLM classification, enrichment providers) run on their own, rate-limited task queue. */
export function providerTaskQueue(taskQueue: string): string {
  return `${taskQueue}-providers`;
}

/**
 * The activities served from the providers queue: the only list. The worker registers exactly these
 * on its providers Worker, and a workflow may proxy only these to that queue (a stage marked
 * `queue: 'providers'` whose activity is missing here would never be served: test/platform/replay.test.ts checks).
 */
export const PROVIDER_ACTIVITIES = [
  'classifySignal',
  'enrichFromProvider',
  'submitEnrichmentBatch',
  'pollEnrichmentBatch',
  'verifyContactEmail',
  'writeProposal',
  'writeDraft',
  'syncMeetingToCrm',
  'syncOutcomeToCrm',
  'pollMailboxInbox',
] as const satisfies ReadonlyArray<keyof Activities>;
export type ProviderActivity = (typeof PROVIDER_ACTIVITIES)[number];

/**
 * Webhook deliveries run on their own task queue, served by a Worker with its own bounded slots: a
 * receiver that hangs for its 10 s holds a delivery slot, never one of the sends, imports or polls.
 */
export function webhookTaskQueue(taskQueue: string): string {
  return `${taskQueue}-webhooks`;
}

/** The activities served from the webhooks queue: the only list (the worker registers exactly these there). */
export const WEBHOOK_ACTIVITIES = ['deliverDueWebhooks'] as const satisfies ReadonlyArray<keyof Activities>;
