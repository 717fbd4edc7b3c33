import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES, WebhookEventType } from '../../../db/queries/webhook-events';
import { emptyBody, id, pagedOrganizationQuery, record, timestamp, uuid, type Operation } from '../contract';
import { Opportunity } from './opportunities.schemas';
import { Campaign } from './campaigns.schemas';
import { Message } from './messages.schemas';
import { Meeting } from './meetings.schemas';
import { Enrollment } from './enrollments.schemas';
import { Mailbox } from './mailboxes.schemas';
import { DomainBulkThresholdNear } from './domains.schemas';
import { Suppression } from './compliance.schemas';

/**
 * The HTTP contract of apps/api/routes/webhook-endpoints.ts: signed webhooks: endpoints, secrets,
 * deliveries and retries; also each webhook event's payload schema (the document's `webhooks`
 * section). Its request schemas, the records it answers (registered with `record`) and its operations,
 * which apps/api/openapi.ts assembles into the OpenAPI document.
 */

const webhookUrl = z
  .string()
  .max(2048)
  .url('must be a URL')
  .refine((v) => /^https?:\/\//i.test(v), 'must be an http or https URL');

const eventList = z
  .array(z.enum([...WEBHOOK_EVENT_TYPES, '*']))
  .min(1, 'must name at least one event type, or "*"')
  .max(50)
  .refine((v) => new Set(v).size === v.length, 'must not repeat an event type');

const description = z.string().trim().max(500).nullable();

export const createWebhookEndpointBody = z
  .object({ organizationId: uuid, url: webhookUrl, events: eventList, description: description.optional(), enabled: z.boolean().default(true) })
  .strict();

export const patchWebhookEndpointBody = z
  .object({ url: webhookUrl.optional(), events: eventList.optional(), description: description.optional(), enabled: z.boolean().optional() })
  .strict()
  .refine((v) => Object.keys(v).length > 0, 'must change at least one field');

export const deliveryStatuses = ['pending', 'delivered', 'failed'] as const;

export const listDeliveriesQuery = z
  .object({ limit: z.coerce.number().int().min(1).max(100).default(50), before: uuid.optional(), status: z.enum(deliveryStatuses).optional() })
  .strict();

const endpointFields = {
  id,
  organization_id: id,
  url: z.string(),
  events: z.array(z.string()),
  description: z.string().nullable(),
  enabled: z.boolean(),
  created_at: timestamp,
  updated_at: timestamp,
};

export const WebhookEndpoint = record(
  'WebhookEndpoint',
  'A receiver of signed webhooks (Standard Webhooks); the secret is answered only on creation and rotation',
  z.object(endpointFields),
);

export const WebhookEndpointWithSecret = record(
  'WebhookEndpointWithSecret',
  'A webhook endpoint with its signing secret (`whsec_...`), answered only here: keep it',
  z.object({ ...endpointFields, secret: z.string().regex(/^whsec_[A-Za-z0-9+/=]+$/) }),
);

export const WebhookDelivery = record(
  'WebhookDelivery',
  'One event to one endpoint: pending (next_attempt_at set), delivered or failed',
  z.object({
    id,
    event_id: id,
    event_type: z.string(),
    status: z.enum(deliveryStatuses),
    attempts: z.number().int(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    next_attempt_at: timestamp.nullable(),
    delivered_at: timestamp.nullable(),
    created_at: timestamp,
  }),
);

export const WebhookTestReceipt = record('WebhookTestReceipt', 'A webhook.test event was written for the endpoint', z.object({ event_id: id }));

const WebhookTestData = record('WebhookTestData', 'The data of a webhook.test event', z.object({ endpoint_id: id, message: z.string() }));

/** Each event type's `data`: the record as the API answers it. A type missing here does not compile. */
export const WEBHOOK_EVENT_DATA: Record<WebhookEventType, { schema: z.ZodType; summary: string }> = {
  'opportunity.created': { schema: Opportunity, summary: 'An opportunity was opened (from a ready signal or by hand)' },
  'campaign.proposed': { schema: Campaign, summary: 'A campaign was proposed (by the strategist or a person)' },
  'message.pending_approval': {
    schema: Message,
    summary: 'A draft was stored pending approval (a sequence step, a drafted answer to a reply, a meeting reminder)',
  },
  'message.sent': { schema: Message, summary: 'An e-mail was sent' },
  'message.failed': {
    schema: Message,
    summary: 'An e-mail failed: refused for good, bounced after it was sent, or its outcome unknown after a crash (needs_check)',
  },
  'reply.received': { schema: Message, summary: 'An inbound message was stored, with its intent' },
  'meeting.booked': { schema: Meeting, summary: 'A meeting was booked' },
  'meeting.updated': { schema: Meeting, summary: 'A meeting moved or changed status' },
  'enrollment.stopped': { schema: Enrollment, summary: "An enrollment's sequence stopped" },
  'enrollment.paused': { schema: Enrollment, summary: "An enrollment's sequence paused" },
  'mailbox.paused': { schema: Mailbox, summary: 'A mailbox was paused' },
  'domain.bulk_threshold_near': {
    schema: DomainBulkThresholdNear,
    summary:
      'A sending domain sent one receiving provider more than 4,000 e-mails in a UTC day (once per domain, provider and day); at 5,000 an unaligned domain is held',
  },
  'suppression.created': { schema: Suppression, summary: 'An address or domain was suppressed' },
  'webhook.test': { schema: WebhookTestData, summary: 'A test event (POST /webhook-endpoints/{id}/test)' },
};

/** The body of every webhook: `{type, timestamp, organization_id, data}`. */
export function webhookBodySchema(type: WebhookEventType): z.ZodType {
  return z.object({ type: z.literal(type), timestamp, organization_id: id, data: WEBHOOK_EVENT_DATA[type].schema });
}

export const operations = [
  {
    id: 'createWebhookEndpoint',
    mcp: 'hidden',
    method: 'post',
    path: '/webhook-endpoints',
    tag: 'Webhooks',
    summary:
      'Add a webhook endpoint; its signing secret (whsec_...) is answered here only. The url passes the outbound rule (no private networks unless allowed)',
    role: 'admin',
    body: createWebhookEndpointBody,
    status: 201,
    answer: WebhookEndpointWithSecret,
    problems: [503],
  },
  {
    id: 'listWebhookEndpoints',
    method: 'get',
    path: '/webhook-endpoints',
    tag: 'Webhooks',
    summary: "The organization's webhook endpoints (without secrets)",
    role: 'admin',
    query: pagedOrganizationQuery,
    answer: z.array(WebhookEndpoint),
  },
  {
    id: 'getWebhookEndpoint',
    method: 'get',
    path: '/webhook-endpoints/{endpointId}',
    tag: 'Webhooks',
    summary: 'One webhook endpoint',
    role: 'admin',
    answer: WebhookEndpoint,
  },
  {
    id: 'updateWebhookEndpoint',
    mcp: 'hidden',
    method: 'patch',
    path: '/webhook-endpoints/{endpointId}',
    tag: 'Webhooks',
    summary: 'Change the url, events, description or enabled (enabling again resumes its pending deliveries)',
    role: 'admin',
    body: patchWebhookEndpointBody,
    answer: WebhookEndpoint,
  },
  {
    id: 'deleteWebhookEndpoint',
    mcp: 'hidden',
    method: 'delete',
    path: '/webhook-endpoints/{endpointId}',
    tag: 'Webhooks',
    summary: 'Remove an endpoint and its deliveries',
    role: 'admin',
    status: 204,
    empty: true,
    answer: WebhookEndpoint,
  },
  {
    id: 'rotateWebhookSecret',
    mcp: 'hidden',
    method: 'post',
    path: '/webhook-endpoints/{endpointId}/rotate-secret',
    tag: 'Webhooks',
    summary: 'A new signing secret, answered here only; the previous one still signs for 24 hours (webhook-signature carries both)',
    role: 'admin',
    body: emptyBody,
    answer: WebhookEndpointWithSecret,
    problems: [503],
  },
  {
    id: 'testWebhookEndpoint',
    mcp: 'hidden',
    method: 'post',
    path: '/webhook-endpoints/{endpointId}/test',
    tag: 'Webhooks',
    summary: 'Send a webhook.test event to this endpoint',
    role: 'admin',
    body: emptyBody,
    status: 202,
    answer: WebhookTestReceipt,
  },
  {
    id: 'listWebhookDeliveries',
    method: 'get',
    path: '/webhook-endpoints/{endpointId}/deliveries',
    tag: 'Webhooks',
    summary: "The endpoint's deliveries with their attempts, newest first",
    role: 'admin',
    query: listDeliveriesQuery,
    answer: z.array(WebhookDelivery),
  },
  {
    id: 'retryWebhookDelivery',
    mcp: 'hidden',
    method: 'post',
    path: '/webhook-deliveries/{deliveryId}/retry',
    tag: 'Webhooks',
    summary: 'Send a delivery again: pending, due now, with a fresh attempt budget',
    role: 'admin',
    body: emptyBody,
    answer: WebhookDelivery,
  },
] as const satisfies readonly Operation[];
