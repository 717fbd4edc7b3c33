import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES, WebhookEventType } from '../../../db/queries/webhook-events';
import * as r from '../responses';
import { uuid } from '../schemas';

/**
 * Events out and machine clients (issue 17): the request schemas, the records answered, and each
 * webhook event's payload schema. Registered with the OpenAPI document where it is built
 * (apps/api/openapi.ts: operations, components and the `webhooks` section).
 */
function record<S extends z.ZodType>(id: string, description: string, schema: S): S {
  r.records.add(schema, { id, description });
  r.RECORD_DESCRIPTIONS.set(id, description);
  return schema;
}

const id = z.uuid();
const timestamp = z.iso.datetime();

// Requests ------------------------------------------------------------------------------------------
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

export const apiKeyRoles = ['viewer', 'member', 'admin'] as const;
export const createApiKeyBody = z.object({ organizationId: uuid, name: z.string().trim().min(1, 'must not be empty').max(200), role: z.enum(apiKeyRoles) }).strict();

// Answers -------------------------------------------------------------------------------------------
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
export const WebhookEndpoint = record('WebhookEndpoint', 'A receiver of signed webhooks (Standard Webhooks); the secret is answered only on creation and rotation', z.object(endpointFields));
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
const apiKeyFields = {
  id,
  organization_id: id,
  name: z.string(),
  role: z.enum(apiKeyRoles),
  prefix: z.string(),
  created_by: id,
  created_at: timestamp,
  last_used_at: timestamp.nullable(),
};
export const ApiKey = record('ApiKey', 'A key for a machine client, acting in its organization with its role; the key itself is answered only on creation', z.object(apiKeyFields));
export const ApiKeyWithSecret = record('ApiKeyWithSecret', 'A new API key with the key (`osk_...`), answered only here: keep it', z.object({ ...apiKeyFields, key: z.string().regex(/^osk_/) }));

// Webhook payloads ----------------------------------------------------------------------------------
const WebhookTestData = record('WebhookTestData', 'The data of a webhook.test event', z.object({ endpoint_id: id, message: z.string() }));

/** Each event type's `data`: the record as the API answers it. A type missing here does not compile. */
export const WEBHOOK_EVENT_DATA: Record<WebhookEventType, { schema: z.ZodType; summary: string }> = {
  'opportunity.created': { schema: r.Opportunity, summary: 'An opportunity was opened (from a ready signal or by hand)' },
  'campaign.proposed': { schema: r.Campaign, summary: 'A campaign was proposed (by the strategist or a person)' },
  'message.pending_approval': { schema: r.Message, summary: 'A draft was stored pending approval (a sequence step, a drafted answer to a reply, a meeting reminder)' },
  'message.sent': { schema: r.Message, summary: 'An e-mail was sent' },
  'message.failed': { schema: r.Message, summary: 'An e-mail failed: refused for good, bounced after it was sent, or its outcome unknown after a crash (needs_check)' },
  'reply.received': { schema: r.Message, summary: 'An inbound message was stored, with its intent' },
  'meeting.booked': { schema: r.Meeting, summary: 'A meeting was booked' },
  'meeting.updated': { schema: r.Meeting, summary: 'A meeting moved or changed status' },
  'enrollment.stopped': { schema: r.Enrollment, summary: "An enrollment's sequence stopped" },
  'enrollment.paused': { schema: r.Enrollment, summary: "An enrollment's sequence paused" },
  'mailbox.paused': { schema: r.Mailbox, summary: 'A mailbox was paused' },
  'suppression.created': { schema: r.Suppression, summary: 'An address or domain was suppressed' },
  'webhook.test': { schema: WebhookTestData, summary: 'A test event (POST /webhook-endpoints/{id}/test)' },
};

/** The body of every webhook: `{type, timestamp, organization_id, data}`. */
export function webhookBodySchema(type: WebhookEventType): z.ZodType {
  return z.object({ type: z.literal(type), timestamp, organization_id: id, data: WEBHOOK_EVENT_DATA[type].schema });
}
