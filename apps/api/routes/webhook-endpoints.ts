import { randomBytes, randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import { Router } from 'express';
import { destinationPolicy } from '../../../activities/providers/destination';
import {
  endpointSecrets, getDelivery, getEndpoint, insertEndpoint, listDeliveries, listEndpoints, retryDelivery, rotateEndpointSecret, updateEndpoint, wakeEndpointOnCommit,
} from '../../../db/queries/webhook-deliveries';
import { recordTestEvent } from '../../../db/queries/webhook-events';
import { SecretBox, webhookSecretContext } from '../../../db/secrets';
import type { Tx } from '../../../db/tenancy';
import { asCaller, readWithRole, requireRole, userOf, withRecordRole, withRole } from '../access';
import { notFound, ProblemError, validationFailed } from '../errors';
import type { ApiDeps } from '../app';
import { emptyBody } from '../schemas';
import { parseBody, parseQuery, pathId } from '../validate';
import { organizationQuery } from '../schemas';
import { createWebhookEndpointBody, listDeliveriesQuery, patchWebhookEndpointBody } from './webhook-endpoints.schemas';

/** How long the previous secret still signs after a rotation. */
const ROTATION_OVERLAP_SECONDS = 24 * 3600;

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
      throw validationFailed([{ path: field, message: `${host} does not resolve` }]);
    }
  }
  const blocked = addresses.find((a) => policy.isPrivate(a));
  if (blocked) throw validationFailed([{ path: field, message: `${host} is a private network address (${blocked}); webhooks go to public addresses only` }]);
}

export function webhookEndpointRoutes({ db, secrets }: ApiDeps): Router {
  const r = Router();
  const box = (): SecretBox => {
    if (!secrets) throw new ProblemError('SERVICE_UNAVAILABLE', 'Webhooks are not available: INTEGRATION_SECRET_KEY is not configured');
    return secrets;
  };
  const loader = (id: string) => ({ what: 'webhook endpoint', load: (tx: Tx) => getEndpoint(tx, id) });

  r.post('/webhook-endpoints', async (req, res) => {
    const body = parseBody(createWebhookEndpointBody, req);
    await checkWebhookUrl(body.url, 'body.url');
    const id = randomUUID();
    const secret = newSecret();
    const sealed = box().seal(secret, webhookSecretContext(body.organizationId, id));
    const endpoint = await withRole(db, req, body.organizationId, 'admin', (tx) =>
      insertEndpoint(tx, { id, organizationId: body.organizationId, url: body.url, events: body.events, description: body.description ?? null, enabled: body.enabled, secret: sealed, createdBy: userOf(req) }),
    );
    res.status(201).json({ ...endpoint, secret });
  });

  r.get('/webhook-endpoints', async (req, res) => {
    const q = parseQuery(organizationQuery, req);
    res.json(await readWithRole(db, req, q.organizationId, 'admin', (qb) => listEndpoints(qb, q.organizationId)));
  });

  r.get('/webhook-endpoints/:endpointId', async (req, res) => {
    const id = pathId(req, 'endpointId', 'webhook endpoint');
    res.json(await withRecordRole(db, req, loader(id), 'admin', async (_tx, endpoint) => endpoint));
  });

  r.patch('/webhook-endpoints/:endpointId', async (req, res) => {
    const id = pathId(req, 'endpointId', 'webhook endpoint');
    const body = parseBody(patchWebhookEndpointBody, req);
    if (body.url) await checkWebhookUrl(body.url, 'body.url');
    res.json(
      await withRecordRole(db, req, loader(id), 'admin', async (tx, endpoint) => {
        const updated = await updateEndpoint(tx, id, body);
        // Enabled again (or moved): what waited is due now.
        if (updated.enabled) await wakeEndpointOnCommit(tx, endpoint.organization_id, id);
        return updated;
      }),
    );
  });

  r.delete('/webhook-endpoints/:endpointId', async (req, res) => {
    const id = pathId(req, 'endpointId', 'webhook endpoint');
    await withRecordRole(db, req, loader(id), 'admin', (tx) => tx.deleteFrom('webhook_endpoints').where('id', '=', id).execute());
    res.status(204).end();
  });

  r.post('/webhook-endpoints/:endpointId/rotate-secret', async (req, res) => {
    const id = pathId(req, 'endpointId', 'webhook endpoint');
    parseBody(emptyBody, req);
    const secret = newSecret();
    const endpoint = await withRecordRole(db, req, loader(id), 'admin', async (tx, found) => {
      const current = (await endpointSecrets(tx, id))!;
      return rotateEndpointSecret(tx, id, box().seal(secret, webhookSecretContext(found.organization_id, id)), current.secret_ciphertext, ROTATION_OVERLAP_SECONDS);
    });
    res.json({ ...endpoint, secret });
  });

  r.post('/webhook-endpoints/:endpointId/test', async (req, res) => {
    const id = pathId(req, 'endpointId', 'webhook endpoint');
    parseBody(emptyBody, req);
    const eventId = await withRecordRole(db, req, loader(id), 'admin', (tx, endpoint) => recordTestEvent(tx, endpoint.organization_id, id));
    res.status(202).json({ event_id: eventId });
  });

  r.get('/webhook-endpoints/:endpointId/deliveries', async (req, res) => {
    const id = pathId(req, 'endpointId', 'webhook endpoint');
    const q = parseQuery(listDeliveriesQuery, req);
    res.json(await withRecordRole(db, req, loader(id), 'admin', (tx) => listDeliveries(tx, { endpointId: id, ...q }).execute()));
  });

  r.post('/webhook-deliveries/:deliveryId/retry', async (req, res) => {
    const id = pathId(req, 'deliveryId', 'webhook delivery');
    parseBody(emptyBody, req);
    const delivery = await asCaller(db, req, async (tx) => {
      const found = await getDelivery(tx, id);
      if (!found) throw notFound('webhook delivery');
      await requireRole(tx, req, found.organization_id, 'admin');
      await retryDelivery(tx, id, found.organization_id, found.endpoint_id);
      const { organization_id: _o, endpoint_id: _e, ...answer } = (await getDelivery(tx, id))!;
      return answer;
    });
    res.json(delivery);
  });

  return r;
}
