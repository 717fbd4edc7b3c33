import { randomBytes, randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import { Router } from 'express';
import { destinationPolicy } from '../../../activities/providers/destination';
import {
  endpointSecrets,
  getDelivery,
  getEndpoint,
  insertEndpoint,
  listDeliveries,
  listEndpoints,
  retryDelivery,
  rotateEndpointSecret,
  updateEndpoint,
  wakeEndpointOnCommit,
} from '../../../db/queries/webhook-deliveries';
import { recordTestEvent } from '../../../db/queries/webhook-events';
import { SecretBox, webhookSecretContext } from '../../../db/secrets';
import type { Tx } from '../../../db/tenancy';
import { asCaller, readWithRole, requireRole, userOf, withRecordRole, withRole } from '../access';
import { conflict, notFound, ProblemError, validationFailed } from '../errors';
import { markSecretAnswer } from '../idempotency';
import type { ApiDeps } from '../deps';
import { bind } from '../bind';
import { pathId } from '../validate';
import { operations } from './webhook-endpoints.schemas';

/** How long the previous secret still signs after a rotation. */
const ROTATION_OVERLAP_SECONDS = 24 * 3600;

/** Endpoints per organization: each event fans out to every one of them inside the change's transaction. */
export const MAX_ENDPOINTS_PER_ORGANIZATION = 20;

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/**
 * The url passes the outbound rule of sources before it is stored (no private networks unless
 * OUTBOUND_ALLOW_PRIVATE_NETWORKS=true): an IP literal is judged as it is, a name by what it resolves
 * to now. Each delivery checks again on its own connection (guardedFetch), so a name that later
 * resolves to a private address is refused then.
 */
async function checkWebhookUrl(url: string, field: string): Promise<void> {
  const policy = destinationPolicy();
  if (policy.allowPrivate) return;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await policy.resolve(host)).map((a) => a.address);
    } catch {
      addresses = [];
    }
  }
  // One answer for a name that does not resolve and one that resolves privately, without the address:
  // the check must not tell a caller what an internal name resolves to.
  if (addresses.length === 0 || addresses.some((a) => policy.isPrivate(a))) {
    throw validationFailed([{ path: field, message: 'is not a public address: webhooks go to public addresses only, never to private networks' }]);
  }
}

export function webhookEndpointRoutes({ db, secrets }: ApiDeps): Router {
  const r = Router();
  const serve = bind(r, operations);
  const box = (): SecretBox => {
    if (!secrets) throw new ProblemError('SERVICE_UNAVAILABLE', 'Webhooks are not available: INTEGRATION_SECRET_KEY is not configured');
    return secrets;
  };
  const loader = (id: string) => ({ what: 'webhook endpoint', load: (tx: Tx) => getEndpoint(tx, id) });

  serve('createWebhookEndpoint', async (req, res, call) => {
    const body = call.body;
    // The role first (an outsider learns nothing from the URL check), then the URL outside any transaction.
    await withRole(db, req, body.organizationId, call.role, async () => undefined);
    await checkWebhookUrl(body.url, 'body.url');
    const id = randomUUID();
    const secret = newSecret();
    const sealed = box().seal(secret, webhookSecretContext(body.organizationId, id));
    const endpoint = await withRole(db, req, body.organizationId, call.role, async (tx) => {
      try {
        return await insertEndpoint(tx, {
          id,
          organizationId: body.organizationId,
          url: body.url,
          events: body.events,
          description: body.description ?? null,
          enabled: body.enabled,
          secret: sealed,
          createdBy: userOf(req),
        });
      } catch (err) {
        // The limit is counted by the database (app.webhook_endpoints_limit), under a lock per organization.
        if ((err as { constraint?: string }).constraint === 'webhook_endpoints_per_organization') {
          throw conflict(`An organization has at most ${MAX_ENDPOINTS_PER_ORGANIZATION} webhook endpoints; delete one first`);
        }
        throw err;
      }
    });
    markSecretAnswer(res);
    res.status(201).json({ ...endpoint, secret });
  });

  serve('listWebhookEndpoints', async (req, res, call) => {
    const q = call.query;
    res.json(await readWithRole(db, req, q.organizationId, call.role, (qb) => listEndpoints(qb, q)));
  });

  serve('getWebhookEndpoint', async (req, res, call) => {
    const id = pathId(req, 'endpointId', 'webhook endpoint');
    res.json(await withRecordRole(db, req, loader(id), call.role, async (_tx, endpoint) => endpoint));
  });

  serve('updateWebhookEndpoint', async (req, res, call) => {
    const id = pathId(req, 'endpointId', 'webhook endpoint');
    const body = call.body;
    if (body.url) {
      await withRecordRole(db, req, loader(id), call.role, async () => undefined);
      await checkWebhookUrl(body.url, 'body.url');
    }
    res.json(
      await withRecordRole(db, req, loader(id), call.role, async (tx, endpoint) => {
        const updated = await updateEndpoint(tx, id, body);
        // Enabled again (or moved): what waited is due now.
        if (updated.enabled) await wakeEndpointOnCommit(tx, endpoint.organization_id, id);
        return updated;
      }),
    );
  });

  serve('deleteWebhookEndpoint', async (req, res, call) => {
    const id = pathId(req, 'endpointId', 'webhook endpoint');
    await withRecordRole(db, req, loader(id), call.role, (tx) => tx.deleteFrom('webhook_endpoints').where('id', '=', id).execute());
    res.status(204).end();
  });

  serve('rotateWebhookSecret', async (req, res, call) => {
    const id = pathId(req, 'endpointId', 'webhook endpoint');
    void call.body;
    const secret = newSecret();
    const endpoint = await withRecordRole(db, req, loader(id), call.role, async (tx, found) => {
      // Locked: two rotations at once take turns, so each answer's secret is the one that signs.
      const current = (await endpointSecrets(tx, id, { lock: true }))!;
      return rotateEndpointSecret(
        tx,
        id,
        box().seal(secret, webhookSecretContext(found.organization_id, id)),
        current.secret_ciphertext,
        ROTATION_OVERLAP_SECONDS,
      );
    });
    markSecretAnswer(res);
    res.json({ ...endpoint, secret });
  });

  serve('testWebhookEndpoint', async (req, res, call) => {
    const id = pathId(req, 'endpointId', 'webhook endpoint');
    void call.body;
    const eventId = await withRecordRole(db, req, loader(id), call.role, (tx, endpoint) => {
      if (!endpoint.enabled) throw conflict('The endpoint is disabled: enable it (PATCH enabled: true) first, or nothing is sent');
      return recordTestEvent(tx, endpoint.organization_id, id);
    });
    res.status(202).json({ event_id: eventId });
  });

  serve('listWebhookDeliveries', async (req, res, call) => {
    const id = pathId(req, 'endpointId', 'webhook endpoint');
    const q = call.query;
    res.json(await withRecordRole(db, req, loader(id), call.role, (tx) => listDeliveries(tx, { endpointId: id, ...q }).execute()));
  });

  serve('retryWebhookDelivery', async (req, res, call) => {
    const id = pathId(req, 'deliveryId', 'webhook delivery');
    void call.body;
    const delivery = await asCaller(db, req, async (tx) => {
      const found = await getDelivery(tx, id);
      if (!found) throw notFound('webhook delivery');
      await requireRole(tx, req, found.organization_id, call.role);
      const endpoint = await getEndpoint(tx, found.endpoint_id);
      if (!endpoint?.enabled) throw conflict('The endpoint is disabled: enable it (PATCH enabled: true) first, or nothing is sent');
      await retryDelivery(tx, id, found.organization_id, found.endpoint_id);
      const { organization_id: _o, endpoint_id: _e, ...answer } = (await getDelivery(tx, id))!;
      return answer;
    });
    res.json(delivery);
  });

  return r;
}
