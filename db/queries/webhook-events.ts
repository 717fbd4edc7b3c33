import { sql } from 'kysely';
import type { Tx } from '../tenancy';

/**
 * The webhook outbox. Every event type is declared here once (its `data` is the record as the API
 * answers it, read by the caller's loader); apps/api/routes/webhook-endpoints.schemas.ts gives each the
 * payload schema of the OpenAPI `webhooks` section, keyed by this list (a type without a schema does
 * not compile).
 *
 * recordEvent runs in the transaction of the change it reports: when the organization has an enabled
 * endpoint subscribed to the type, it writes the event (the whole body that will be signed and sent)
 * and one pending delivery per such endpoint, and NOTIFYs the endpoints' ids, which PostgreSQL
 * delivers only when (and if) the transaction commits; the workers' dispatcher then wakes each
 * endpoint's delivery workflow. An organization without endpoints pays one indexed read.
 */
export const WEBHOOK_EVENT_TYPES = [
  'opportunity.created',
  'campaign.proposed',
  'message.pending_approval',
  'message.sent',
  'message.failed',
  'reply.received',
  'meeting.booked',
  'meeting.updated',
  'enrollment.stopped',
  'enrollment.paused',
  'mailbox.paused',
  'domain.bulk_threshold_near',
  'suppression.created',
  'webhook.test',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The NOTIFY channel that wakes an endpoint's delivery workflow (payload: `<organization id>:<endpoint id>`). */
export const WEBHOOK_CHANNEL = 'webhook_deliveries';

/** Reads the record an event reports, as the API answers it (the caller's own getter: getMessage, getMeeting, ...). */
export type EventRecordLoader = (tx: Tx, id: string) => Promise<unknown>;

export interface EventBody {
  type: WebhookEventType;
  timestamp: string;
  organization_id: string;
  data: unknown;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Erasure: the events about the person (their contact id, or their address anywhere in the payload,
 * as a suppression of it) are deleted, and with them their deliveries, pending ones included: nothing
 * of the person is sent or kept afterwards.
 */
export async function deleteContactEvents(tx: Tx, organizationId: string, contactId: string, email: string | null): Promise<void> {
  await tx
    .deleteFrom('webhook_events')
    .where('organization_id', '=', organizationId)
    .where(
      email
        ? sql<boolean>`(contact_id = ${contactId} OR strpos(lower(payload::text), ${email.trim().toLowerCase()}) > 0)`
        : sql<boolean>`contact_id = ${contactId}`,
    )
    .execute();
}

/** The record as the API answers it: JSON (dates as ISO strings), as res.json would send it. */
const asAnswered = (data: unknown): unknown => JSON.parse(JSON.stringify(data));

/**
 * Reports a change, in its own transaction: `ref` names the organization and the record's id, `load`
 * reads the record as the API answers it (only when an endpoint listens). Returns the event id, or
 * null when no endpoint listens (nothing is written).
 */
export async function recordEvent(
  tx: Tx,
  type: Exclude<WebhookEventType, 'webhook.test'>,
  ref: { organizationId: string; id: string },
  load: EventRecordLoader,
): Promise<string | null> {
  const endpoints = await tx
    .selectFrom('webhook_endpoints')
    .select('id')
    .where('organization_id', '=', ref.organizationId)
    .where('enabled', '=', true)
    .where((eb) => eb.or([sql<boolean>`events @> ARRAY[${type}]::text[]`, sql<boolean>`events @> ARRAY['*']::text[]`]))
    .execute();
  if (endpoints.length === 0) return null;
  const data = await load(tx, ref.id);
  if (data === undefined || data === null) return null;
  return writeEvent(
    tx,
    ref.organizationId,
    type,
    data,
    endpoints.map((e) => e.id),
  );
}

/** The webhook.test event, to one endpoint only. */
export function recordTestEvent(tx: Tx, organizationId: string, endpointId: string): Promise<string> {
  return writeEvent(tx, organizationId, 'webhook.test', { endpoint_id: endpointId, message: 'A test event from the Outreach Signal Service' }, [endpointId]);
}

async function writeEvent(tx: Tx, organizationId: string, type: WebhookEventType, data: unknown, endpointIds: string[]): Promise<string> {
  const body: EventBody = { type, timestamp: new Date().toISOString(), organization_id: organizationId, data: asAnswered(data) };
  // The person the record is about, so that erasing them deletes the event (eraseContact).
  const contactId = (body.data as { contact_id?: unknown } | null)?.contact_id;
  const event = await tx
    .insertInto('webhook_events')
    .values({
      organization_id: organizationId,
      type,
      payload: JSON.stringify(body),
      contact_id: typeof contactId === 'string' && UUID.test(contactId) ? contactId : null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await tx
    .insertInto('webhook_deliveries')
    .values(endpointIds.map((endpointId) => ({ organization_id: organizationId, endpoint_id: endpointId, event_id: event.id })))
    .execute();
  await sql`SELECT pg_notify(${WEBHOOK_CHANNEL}, ${organizationId} || ':' || e) FROM unnest(${endpointIds}::text[]) e`.execute(tx);
  return event.id;
}
