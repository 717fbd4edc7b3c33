/**
 * Webhook delivery rules, pure: when a failed attempt is tried again, and when it stops.
 *
 * The schedule is the delays after each failed attempt, in seconds: the default doubles from 30 s,
 * twelve retries over about 34 hours (the contract asks for at least 24), so thirteen attempts in all.
 * It is an input of each endpoint's delivery workflow (WEBHOOK_RETRY_SCHEDULE; tests use seconds).
 */
export const DEFAULT_RETRY_SCHEDULE_SECONDS: readonly number[] = Array.from({ length: 12 }, (_, i) => 30 * 2 ** i);

/** Parses WEBHOOK_RETRY_SCHEDULE ("30,60,120"): positive whole seconds; undefined when malformed. */
export function parseRetrySchedule(text: string): number[] | undefined {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length === 0 || parts.length > 100 || !parts.every((p) => /^[1-9][0-9]{0,6}$/.test(p))) return undefined;
  return parts.map(Number);
}

export type AttemptOutcome =
  | { kind: 'delivered' }
  /** 410 Gone: the receiver asks never to be called again; the endpoint is disabled. */
  | { kind: 'gone' }
  | { kind: 'failed'; statusCode: number | null; error: string };

/** What an HTTP answer means (2xx delivered; 410 gone; anything else a failure to retry). */
export function outcomeOf(status: number): AttemptOutcome {
  if (status >= 200 && status < 300) return { kind: 'delivered' };
  if (status === 410) return { kind: 'gone' };
  return { kind: 'failed', statusCode: status, error: `HTTP ${status}` };
}

/**
 * After the attempt numbered `attempts` (1 for the first) failed: the delay before the next one, or
 * null when the schedule is used up and the delivery is `failed`.
 */
export function retryDelaySeconds(attempts: number, schedule: readonly number[]): number | null {
  return attempts >= 1 && attempts <= schedule.length ? schedule[attempts - 1]! : null;
}

export const MAX_RESPONSE_BYTES = 64 * 1024;
export const DELIVERY_TIMEOUT_MS = 10_000;
