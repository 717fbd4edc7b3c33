import { sql } from 'kysely';
import type { DB } from '../pool';
import type { Reader, Tx } from '../tenancy';
import { cleanText } from '../../domain/replies/text';
import { WEBHOOK_CHANNEL } from './webhook-events';

/**
 * Webhook endpoints and their deliveries: the API's reads and writes, and the delivery
 * workflow's. The outbox itself (recordEvent) is webhook-events.ts.
 */
export const ENDPOINT_COLUMNS = ['id', 'organization_id', 'url', 'events', 'description', 'enabled', 'created_at', 'updated_at'] as const;

export function getEndpoint(tx: Tx, id: string) {
  return tx.selectFrom('webhook_endpoints').select(ENDPOINT_COLUMNS).where('id', '=', id).executeTakeFirst();
}

/** Newest first (webhook_endpoints_org_idx); `before` (an endpoint id) pages on. */
export function listEndpoints(qb: Reader, f: { organizationId: string; limit: number; before?: string }) {
  let q = qb.selectFrom('webhook_endpoints').select(ENDPOINT_COLUMNS).where('organization_id', '=', f.organizationId);
  if (f.before) q = q.where(sql<boolean>`(created_at, id) < (SELECT b.created_at, b.id FROM webhook_endpoints b WHERE b.id = ${f.before})`);
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(f.limit);
}

export function insertEndpoint(
  tx: Tx,
  e: { id: string; organizationId: string; url: string; events: string[]; description: string | null; enabled: boolean; secret: Buffer; createdBy: string },
) {
  return tx
    .insertInto('webhook_endpoints')
    .values({
      id: e.id,
      organization_id: e.organizationId,
      url: e.url,
      events: e.events,
      description: e.description,
      enabled: e.enabled,
      secret_ciphertext: e.secret,
      created_by: e.createdBy,
    })
    .returning(ENDPOINT_COLUMNS)
    .executeTakeFirstOrThrow();
}

export function updateEndpoint(tx: Tx, id: string, patch: { url?: string; events?: string[]; description?: string | null; enabled?: boolean }) {
  return tx
    .updateTable('webhook_endpoints')
    .set({ ...patch, ...(patch.enabled ? { disabled_reason: null } : {}), updated_at: sql`now()` })
    .where('id', '=', id)
    .returning(ENDPOINT_COLUMNS)
    .executeTakeFirstOrThrow();
}

/** A new secret; the current one is kept (sealed) and signs too until `overlapSeconds` from now. */
export function rotateEndpointSecret(tx: Tx, id: string, sealedNew: Buffer, sealedCurrent: Buffer, overlapSeconds: number) {
  return tx
    .updateTable('webhook_endpoints')
    .set({
      secret_ciphertext: sealedNew,
      previous_secret_ciphertext: sealedCurrent,
      previous_secret_expires_at: sql`now() + make_interval(secs => ${overlapSeconds})`,
      updated_at: sql`now()`,
    })
    .where('id', '=', id)
    .returning(ENDPOINT_COLUMNS)
    .executeTakeFirstOrThrow();
}

export function endpointSecrets(tx: Tx, id: string, opts: { lock?: boolean } = {}) {
  const q = tx
    .selectFrom('webhook_endpoints')
    .select([
      'id',
      'organization_id',
      'url',
      'enabled',
      'secret_ciphertext',
      'previous_secret_ciphertext',
      sql<boolean>`previous_secret_expires_at > now()`.as('previous_live'),
    ])
    .where('id', '=', id);
  return (opts.lock ? q.forUpdate() : q).executeTakeFirst();
}

export const DELIVERY_COLUMNS = [
  'webhook_deliveries.id',
  'webhook_deliveries.event_id',
  'webhook_events.type as event_type',
  'webhook_deliveries.status',
  'webhook_deliveries.attempts',
  'webhook_deliveries.last_status_code',
  'webhook_deliveries.last_error',
  'webhook_deliveries.next_attempt_at',
  'webhook_deliveries.delivered_at',
  'webhook_deliveries.created_at',
] as const;

function deliveries(qb: Reader) {
  return qb.selectFrom('webhook_deliveries').innerJoin('webhook_events', 'webhook_events.id', 'webhook_deliveries.event_id').select(DELIVERY_COLUMNS);
}

export function listDeliveries(qb: Reader, f: { endpointId: string; status?: string; limit: number; before?: string }) {
  let q = deliveries(qb).where('webhook_deliveries.endpoint_id', '=', f.endpointId);
  if (f.status) q = q.where('webhook_deliveries.status', '=', f.status);
  if (f.before) {
    q = q.where(
      sql<boolean>`(webhook_deliveries.created_at, webhook_deliveries.id) < (SELECT b.created_at, b.id FROM webhook_deliveries b WHERE b.id = ${f.before})`,
    );
  }
  return q.orderBy('webhook_deliveries.created_at', 'desc').orderBy('webhook_deliveries.id', 'desc').limit(f.limit);
}

export function getDelivery(tx: Tx, id: string) {
  return deliveries(tx)
    .select(['webhook_deliveries.organization_id', 'webhook_deliveries.endpoint_id'])
    .where('webhook_deliveries.id', '=', id)
    .executeTakeFirst();
}

/** By hand: pending again, due now, with a fresh attempt budget; the endpoint's workflow is woken on commit. */
export async function retryDelivery(tx: Tx, id: string, organizationId: string, endpointId: string) {
  await tx
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', attempts: 0, next_attempt_at: sql`now()`, delivered_at: null, updated_at: sql`now()` })
    .where('id', '=', id)
    .execute();
  await wakeEndpointOnCommit(tx, organizationId, endpointId);
}

/** NOTIFY the endpoint's id: the workers' dispatcher wakes its delivery workflow once this transaction commits. */
export async function wakeEndpointOnCommit(tx: Tx, organizationId: string, endpointId: string): Promise<void> {
  await sql`SELECT pg_notify(${WEBHOOK_CHANNEL}, ${`${organizationId}:${endpointId}`})`.execute(tx);
}

// The delivery workflow's side ---------------------------------------------------------------------

/** Due deliveries of an endpoint with the body to send (the event as stored), oldest due first. */
export function dueDeliveries(tx: Tx, endpointId: string, limit: number) {
  return tx
    .selectFrom('webhook_deliveries')
    .innerJoin('webhook_events', 'webhook_events.id', 'webhook_deliveries.event_id')
    .select(['webhook_deliveries.id', 'webhook_deliveries.event_id', 'webhook_deliveries.attempts', 'webhook_events.payload'])
    .where('webhook_deliveries.endpoint_id', '=', endpointId)
    .where('webhook_deliveries.status', '=', 'pending')
    .where('webhook_deliveries.next_attempt_at', '<=', sql<Date>`now()`)
    .orderBy('webhook_deliveries.next_attempt_at')
    .limit(limit)
    .execute();
}

export type AttemptRecord =
  | { kind: 'delivered'; statusCode: number }
  | { kind: 'retry'; statusCode: number | null; error: string; delaySeconds: number }
  | { kind: 'failed'; statusCode: number | null; error: string };

/**
 * The error is a receiver's words (an excerpt of its answer) or a connection's: any bytes. NULs and lone
 * surrogates, which PostgreSQL refuses, are taken out, so every attempt is recorded whatever it held.
 */
export function recordAttempt(tx: Tx, deliveryId: string, r: AttemptRecord) {
  const lastError = r.kind === 'delivered' ? null : cleanText(r.error, 1000);
  const common = { attempts: sql<number>`attempts + 1`, last_status_code: r.statusCode, updated_at: sql<Date>`now()` };
  const set =
    r.kind === 'delivered'
      ? { ...common, status: 'delivered', last_error: null, next_attempt_at: null, delivered_at: sql<Date>`now()` }
      : r.kind === 'retry'
        ? { ...common, last_error: lastError, next_attempt_at: sql<Date>`now() + make_interval(secs => ${r.delaySeconds})` }
        : { ...common, status: 'failed', last_error: lastError, next_attempt_at: null };
  return tx.updateTable('webhook_deliveries').set(set).where('id', '=', deliveryId).where('status', '=', 'pending').execute();
}

/** 410 Gone: the endpoint is disabled, its pending deliveries failed. */
export async function disableGoneEndpoint(tx: Tx, endpointId: string, reason: string) {
  await tx
    .updateTable('webhook_endpoints')
    .set({ enabled: false, disabled_reason: reason, updated_at: sql`now()` })
    .where('id', '=', endpointId)
    .execute();
  await tx
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', last_error: reason, next_attempt_at: null, updated_at: sql`now()` })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .execute();
}

/**
 * Milliseconds until the endpoint's next pending delivery is due, by the database's clock; 0 when one
 * is due now, null when none is pending (the run then waits for a wake). The aggregate answers one row
 * even with no pending delivery, its minimum null: that null must stay null, or the run would take
 * "nothing pending" for "due now" and ask again without pause.
 */
export async function nextDueInMsOf(tx: Tx, endpointId: string): Promise<number | null> {
  const row = await tx
    .selectFrom('webhook_deliveries')
    .select(sql<number | null>`(extract(epoch FROM min(next_attempt_at) - now()) * 1000)::float8`.as('ms'))
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  const ms = row?.ms ?? null;
  return ms === null ? null : Math.max(0, Math.ceil(ms));
}

/** The workers' sweep: endpoints with a delivery due, across organizations (app.webhook_endpoints_due). */
export async function endpointsDue(db: DB, maxRows: number): Promise<Array<{ organization_id: string; endpoint_id: string }>> {
  const { rows } = await sql<{
    organization_id: string;
    endpoint_id: string;
  }>`SELECT organization_id, endpoint_id FROM app.webhook_endpoints_due(${maxRows})`.execute(db);
  return rows;
}

/**
 * Retention of what the outbox and the idempotent POSTs keep, across organizations (the workers'
 * sweep): events 30 days after their last delivery attempt (their deliveries go with them), and
 * idempotency records past their 24 hours. At most maxRows of each per call; answers how many went.
 */
export async function purgeExpired(db: DB, maxRows: number): Promise<{ events: number; idempotencyKeys: number }> {
  const events = await sql<{ n: number }>`SELECT app.purge_webhook_events(${maxRows}) AS n`.execute(db);
  const keys = await sql<{ n: number }>`SELECT app.purge_idempotency_keys(${maxRows}) AS n`.execute(db);
  return { events: events.rows[0]?.n ?? 0, idempotencyKeys: keys.rows[0]?.n ?? 0 };
}
