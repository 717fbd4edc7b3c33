import { createHash } from 'node:crypto';
import express, { Request, Router } from 'express';
import { webhookIntegration } from '../../../db/queries/webhooks';
import { secretContext } from '../../../db/secrets';
import { bookingEvent, BookingProvider, BookingShapeError, verifyCalcomSignature, verifyCalendlySignature } from '../../../domain/meetings/bookings';
import type { ApiDeps } from '../deps';
import { bind } from '../bind';
import { operations } from './webhooks.schemas';
import { notFound, ProblemError, validationFailed } from '../errors';
import { pathId, unsafeInputErrors } from '../validate';

/**
 * Booking webhooks (no bearer token): POST /webhooks/calcom/{calcomIntegrationId} and
 * POST /webhooks/calendly/{calendlyIntegrationId}. The integration id names the organization; its sealed
 * secret (read through app.webhook_integration, the API role only) verifies the signature on the raw
 * body, in constant time, before anything is parsed. Answers:
 * - 404: no calendar integration of that provider with that id (or not a UUID);
 * - 401: no signature, a wrong one, or (Calendly) one older than 3 minutes;
 * - 400: a verified body that is not JSON (MALFORMED_JSON) or not a booking (VALIDATION_FAILED);
 * - 200 BookingReceipt: the booking is handed to the worker (bookingWorkflow), which records it acting
 *   for that organization; the same delivery again is `duplicate` and changes nothing.
 * The API role itself never acts for the organization: it verifies and hands over.
 */
export function webhookRoutes({ db, secrets, workflows, bodyLimit }: ApiDeps): Router {
  const r = Router();
  const serve = bind(r, operations);
  const raw = express.raw({ type: () => true, limit: bodyLimit });

  const unauthenticated = (res: express.Response, detail: string) => {
    res.setHeader('WWW-Authenticate', 'Signature realm="booking-webhook"');
    return new ProblemError('UNAUTHENTICATED', detail);
  };

  const handle = (provider: BookingProvider) => async (req: Request, res: express.Response) => {
    const integrationId = pathId(req, `${provider}IntegrationId`, 'integration');
    const integration = await webhookIntegration(db, integrationId, provider);
    if (!integration) throw notFound('integration');
    if (!secrets) throw new ProblemError('SERVICE_UNAVAILABLE', 'Webhooks are not available: INTEGRATION_SECRET_KEY is not configured');
    const secret = secrets.open(integration.sealedSecret, secretContext(integration.organizationId, integrationId));
    const body: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);

    if (provider === 'calcom') {
      if (!verifyCalcomSignature(body, req.get('X-Cal-Signature-256'), secret))
        throw unauthenticated(res, 'The X-Cal-Signature-256 signature is missing or does not match the body');
    } else {
      const verdict = verifyCalendlySignature(body, req.get('Calendly-Webhook-Signature'), secret, Date.now());
      if (verdict === 'stale') throw unauthenticated(res, 'The Calendly-Webhook-Signature is older than 3 minutes');
      if (verdict !== 'ok') throw unauthenticated(res, 'The Calendly-Webhook-Signature is missing or does not match the body');
    }

    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      throw new ProblemError('MALFORMED_JSON', 'The webhook body is not valid JSON');
    }
    const unsafe = unsafeInputErrors(parsed, 'body');
    if (unsafe.length) throw validationFailed(unsafe);
    let event;
    try {
      event = bookingEvent(provider, parsed);
    } catch (err) {
      if (err instanceof BookingShapeError) throw validationFailed(err.errors);
      throw err;
    }
    if (event.kind === 'ignored') {
      res.json({ received: true, event: 'ignored', duplicate: false, workflow_id: null });
      return;
    }
    const digest = createHash('sha256').update(body).digest('hex').slice(0, 40);
    const run = await workflows.startBooking(integration.organizationId, integrationId, provider, { ...event, digest }, digest);
    req.log?.info({ integrationId, provider, event: event.kind, duplicate: run.duplicate, workflowId: run.workflowId }, 'booking webhook');
    res.json({ received: true, event: event.kind, duplicate: run.duplicate, workflow_id: run.workflowId });
  };

  // The parameters are named by provider (the id of a calcom or a calendly integration).
  serve('receiveCalcomWebhook', raw, handle('calcom'));
  serve('receiveCalendlyWebhook', raw, handle('calendly'));
  return r;
}
