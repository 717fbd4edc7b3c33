import { z } from 'zod';
import { jsonObject, nullable, record, type Operation } from '../contract';

/**
 * The HTTP contract of apps/api/routes/webhooks.ts: the booking webhooks of Cal.com and Calendly. Its
 * request schemas, the records it answers (registered with `record`) and its operations, which
 * apps/api/openapi.ts assembles into the OpenAPI document.
 */

/** What the booking webhooks document (the routes verify the raw body first, then read it: domain/meetings/bookings.ts). */
export const calcomWebhookBody = z
  .object({
    triggerEvent: z.string().describe('BOOKING_CREATED, BOOKING_RESCHEDULED, BOOKING_CANCELLED; others are ignored'),
    createdAt: z.string().optional(),
    payload: jsonObject,
  })
  .passthrough();

export const calendlyWebhookBody = z
  .object({ event: z.string().describe('invitee.created, invitee.canceled; others are ignored'), created_at: z.string().optional(), payload: jsonObject })
  .passthrough();

export const BookingReceipt = record(
  'BookingReceipt',
  'A verified booking delivery, handed to the worker (bookingWorkflow); a repeat of the same delivery is duplicate and changes nothing',
  z.object({
    received: z.literal(true),
    event: z.enum(['booked', 'cancelled', 'ignored']),
    duplicate: z.boolean(),
    workflow_id: nullable(z.string()),
  }),
);

export const operations = [
  {
    id: 'receiveCalcomWebhook',
    method: 'post',
    path: '/webhooks/calcom/{calcomIntegrationId}',
    tag: 'Meetings',
    summary:
      "Cal.com booking webhook: X-Cal-Signature-256 (hex HMAC-SHA256 of the raw body with the calendar integration's secret); 401 for a bad signature, 400 for a body that is not JSON",
    role: 'none',
    body: calcomWebhookBody,
    answer: BookingReceipt,
    problems: [401, 503],
  },
  {
    id: 'receiveCalendlyWebhook',
    method: 'post',
    path: '/webhooks/calendly/{calendlyIntegrationId}',
    tag: 'Meetings',
    summary:
      'Calendly booking webhook: Calendly-Webhook-Signature t=...,v1=... (HMAC-SHA256 of "t.body"); 401 for a bad signature or one older than 3 minutes, 400 for a body that is not JSON',
    role: 'none',
    body: calendlyWebhookBody,
    answer: BookingReceipt,
    problems: [401, 503],
  },
] as const satisfies readonly Operation[];
