/** Model and provider calls (LLM classification, enrichment providers) run on their own, rate-limited task queue. */
export function providerTaskQueue(taskQueue: string): string {
  return `${taskQueue}-providers`;
}
