import { sql } from 'kysely';
import type { Tx } from '../tenancy';
import { getCampaign } from './campaigns';
import { getSuppression } from './compliance/suppressions';
import { getEnrollment } from './enrollments';
import { getMailbox } from './mailboxes';
import { getMeeting } from './meetings';
import { getMessage } from './messages';
import { getOpportunity } from './opportunities';

/**
 * The webhook outbox (issue 17). Every event type is declared here once, with how its `data` (the
 * record as the API answers it) is read; apps/api/routes/webhook-endpoints.schemas.ts gives each the
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
  'suppression.created',
  'webhook.test',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The NOTIFY channel that wakes an endpoint's delivery workflow (payload: `<organization id>:<endpoint id>`). */
export const WEBHOOK_CHANNEL = 'webhook_deliveries';

type Loader = (tx: Tx, id: string) => Promise<unknown>;
// Closures, not the functions themselves: these modules import this one (circular imports).
const LOADERS: Record<Exclude<WebhookEventType, 'webhook.test'>, Loader> = {
  'opportunity.created': (tx, id) => getOpportunity(tx, id),
  'campaign.proposed': (tx, id) => getCampaign(tx, id),
  'message.pending_approval': (tx, id) => getMessage(tx, id),
  'message.sent': (tx, id) => getMessage(tx, id),
  'message.failed': (tx, id) => getMessage(tx, id),
  'reply.received': (tx, id) => getMessage(tx, id),
  'meeting.booked': (tx, id) => getMeeting(tx, id),
  'meeting.updated': (tx, id) => getMeeting(tx, id),
  'enrollment.stopped': (tx, id) => getEnrollment(tx, id),
  'enrollment.paused': (tx, id) => getEnrollment(tx, id),
  'mailbox.paused': (tx, id) => getMailbox(tx, id),
  'suppression.created': (tx, id) => getSuppression(tx, id),
};

export interface EventBody {
  type: WebhookEventType;
  timestamp: string;
  organization_id: string;
  data: unknown;
}

/** The record as the API answers it: JSON (dates as ISO strings), as res.json would send it. */
const asAnswered = (data: unknown): unknown => JSON.parse(JSON.stringify(data));

/**
 * Reports a change, in its own transaction: `ref` names the organization and the record's id. Returns
 * the event id, or null when no endpoint listens (nothing is written).
 */
export async function recordEvent(tx: Tx, type: Exclude<WebhookEventType, 'webhook.test'>, ref: { organizationId: string; id: string }): Promise<string | null> {
  const endpoints = await tx
    .selectFrom('webhook_endpoints')
    .select('id')
    .where('organization_id', '=', ref.organizationId)
    .where('enabled', '=', true)
    .where((eb) => eb.or([sql<boolean>`events @> ARRAY[${type}]::text[]`, sql<boolean>`events @> ARRAY['*']::text[]`]))
    .execute();
  if (endpoints.length === 0) return null;
  const data = await LOADERS[type](tx, ref.id);
  if (data === undefined || data === null) return null;
  return writeEvent(tx, ref.organizationId, type, data, endpoints.map((e) => e.id));
}

/** The webhook.test event, to one endpoint only. */
export function recordTestEvent(tx: Tx, organizationId: string, endpointId: string): Promise<string> {
  return writeEvent(tx, organizationId, 'webhook.test', { endpoint_id: endpointId, message: 'A test event from the Outreach Signal Service' }, [endpointId]);
}

async function writeEvent(tx: Tx, organizationId: string, type: WebhookEventType, data: unknown, endpointIds: string[]): Promise<string> {
  const body: EventBody = { type, timestamp: new Date().toISOString(), organization_id: organizationId, data: asAnswered(data) };
  const event = await tx
    .insertInto('webhook_events')
    .values({ organization_id: organizationId, type, payload: JSON.stringify(body) })
    .returning('id')
    .executeTakeFirstOrThrow();
  await tx
    .insertInto('webhook_deliveries')
    .values(endpointIds.map((endpointId) => ({ organization_id: organizationId, endpoint_id: endpointId, event_id: event.id })))
    .execute();
  await sql`SELECT pg_notify(${WEBHOOK_CHANNEL}, ${organizationId} || ':' || e) FROM unnest(${endpointIds}::text[]) e`.execute(tx);
  return event.id;
}
