import { Context } from '@temporalio/activity';
import { Webhook } from 'standardwebhooks';
import { DELIVERY_TIMEOUT_MS, MAX_RESPONSE_BYTES, outcomeOf, retryDelaySeconds } from '../domain/webhooks/delivery';
import type { DB } from '../db/pool';
import { AttemptRecord, disableGoneEndpoint, dueDeliveries, endpointSecrets, nextDueInMsOf, recordAttempt } from '../db/queries/webhook-deliveries';
import { SecretBox, webhookSecretContext } from '../db/secrets';
import { asOrganization } from '../db/tenancy';
import { BlockedDestinationError, guardedFetch } from './providers/destination';

export interface DeliverWebhooksInput {
  organizationId: string;
  endpointId: string;
  retryScheduleSeconds: number[];
  /** Deliveries per activity (default 50), sent `concurrency` (default 8) at a time. */
  batchSize?: number;
  concurrency?: number;
}

export interface DeliverWebhooksResult {
  /** The endpoint is gone, disabled (or answered 410): the workflow ends. */
  stop: boolean;
  attempted: number;
  delivered: number;
  /** A full batch was due: more may be. */
  more: boolean;
  /** Milliseconds until the next pending delivery is due; null when none is pending. */
  nextDueInMs: number | null;
}

/**
 * Sends an endpoint's due deliveries, each signed per Standard Webhooks (the `standardwebhooks`
 * package; during a rotation's overlap the header carries both signatures), over guardedFetch (the
 * destination rule checked on the connection itself), 10 s for the whole exchange, reading at most
 * MAX_RESPONSE_BYTES of an answer. Each attempt is recorded in its own transaction: delivered, due
 * again after the schedule's delay, failed when the schedule is spent; 410 Gone disables the endpoint.
 */
export function createWebhookActivities(deps: { db: DB; secrets: SecretBox | null }) {
  return {
    async deliverDueWebhooks(input: DeliverWebhooksInput): Promise<DeliverWebhooksResult> {
      const { db } = deps;
      const org = input.organizationId;
      const ep = await asOrganization(db, org, (tx) => endpointSecrets(tx, input.endpointId));
      if (!ep || !ep.enabled) return { stop: true, attempted: 0, delivered: 0, more: false, nextDueInMs: null };
      if (!deps.secrets) throw new Error('INTEGRATION_SECRET_KEY is not configured: webhook secrets cannot be opened');
      const context = webhookSecretContext(org, ep.id);
      const signers = [new Webhook(deps.secrets.open(ep.secret_ciphertext, context))];
      if (ep.previous_live && ep.previous_secret_ciphertext) signers.push(new Webhook(deps.secrets.open(ep.previous_secret_ciphertext, context)));

      const batchSize = input.batchSize ?? 50;
      const due = await asOrganization(db, org, (tx) => dueDeliveries(tx, ep.id, batchSize));
      let delivered = 0;
      let gone = false;
      const queue = [...due];
      const worker = async () => {
        for (let d = queue.shift(); d && !gone; d = queue.shift()) {
          const body = JSON.stringify(d.payload);
          const attempt = await send(ep.url, d.event_id, body, signers);
          Context.current().heartbeat();
          if (attempt.kind === 'gone') {
            gone = true;
            await asOrganization(db, org, async (tx) => {
              await recordAttempt(tx, d.id, { kind: 'failed', statusCode: 410, error: 'HTTP 410 Gone: the endpoint is disabled' });
              await disableGoneEndpoint(tx, ep.id, 'The receiver answered 410 Gone');
            });
            return;
          }
          let record: AttemptRecord;
          if (attempt.kind === 'delivered') {
            record = { kind: 'delivered', statusCode: attempt.statusCode };
            delivered++;
          } else {
            const delay = retryDelaySeconds(d.attempts + 1, input.retryScheduleSeconds);
            // Up to a tenth more, at random: the endpoints of one receiver that was down do not all
            // come back in the same second.
            const jittered = delay === null ? null : delay + Math.floor(Math.random() * delay * 0.1);
            record =
              jittered === null
                ? { kind: 'failed', statusCode: attempt.statusCode, error: attempt.error }
                : { kind: 'retry', statusCode: attempt.statusCode, error: attempt.error, delaySeconds: jittered };
          }
          await asOrganization(db, org, (tx) => recordAttempt(tx, d.id, record));
        }
      };
      // Every worker ends before the activity answers: a failure of one must not leave the others
      // sending while a retry of the activity sends the same deliveries again.
      const settled = await Promise.allSettled(Array.from({ length: Math.min(input.concurrency ?? 8, Math.max(due.length, 1)) }, worker));
      const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failure) throw failure.reason;
      if (gone) return { stop: true, attempted: due.length, delivered, more: false, nextDueInMs: null };
      // Measured on the database's clock, which decides what is due: a worker whose clock runs ahead
      // would otherwise see 0 and run the activity again and again until the database caught up.
      const nextDueInMs = await asOrganization(db, org, (tx) => nextDueInMsOf(tx, ep.id));
      return { stop: false, attempted: due.length, delivered, more: due.length === batchSize, nextDueInMs };
    },
  };
}

type SendOutcome = { kind: 'delivered'; statusCode: number } | { kind: 'gone' } | { kind: 'failed'; statusCode: number | null; error: string };

async function send(url: string, eventId: string, body: string, signers: Webhook[]): Promise<SendOutcome> {
  const now = new Date();
  const signature = signers.map((s) => s.sign(eventId, now, body)).join(' ');
  const signal = AbortSignal.timeout(DELIVERY_TIMEOUT_MS);
  try {
    const res = await guardedFetch(url, {
      method: 'POST',
      redirect: 'manual',
      signal,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'OutreachSignalService-Webhooks/0.1',
        'webhook-id': eventId,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': signature,
      },
      body,
    });
    const excerpt = await readLimited(res, MAX_RESPONSE_BYTES);
    const outcome = outcomeOf(res.status);
    if (outcome.kind === 'delivered') return { kind: 'delivered', statusCode: res.status };
    if (outcome.kind === 'gone') return { kind: 'gone' };
    return { kind: 'failed', statusCode: res.status, error: `HTTP ${res.status}${excerpt ? `: ${excerpt.slice(0, 200)}` : ''}` };
  } catch (err) {
    if (err instanceof BlockedDestinationError) return { kind: 'failed', statusCode: null, error: err.message };
    const e = err as Error & { cause?: { code?: string } };
    const reason = e.name === 'TimeoutError' || signal.aborted ? `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s` : (e.cause?.code ?? e.message);
    return { kind: 'failed', statusCode: null, error: reason };
  }
}

/** At most maxBytes of the answer, as text; the rest is not read. */
async function readLimited(res: Response, maxBytes: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  // Invalid UTF-8 becomes U+FFFD; control characters (a binary or protobuf error body) are dropped.
  return (
    Buffer.concat(chunks)
      .subarray(0, maxBytes)
      .toString('utf8')
      // eslint-disable-next-line no-control-regex -- removing control characters is the point
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '')
      .trim()
  );
}
