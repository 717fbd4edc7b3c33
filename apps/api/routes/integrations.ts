import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { ProviderRequestError } from '../../../activities/providers/outcome';
import { storedMapping, verifyIntegration } from '../../../activities/providers/registry';
import { getIntegration, insertIntegration, integrationSecret, listIntegrations, recordIntegrationTest } from '../../../db/queries/integrations';
import { secretContext } from '../../../db/secrets';
import { asCaller, visibleOr404, withRecordRole, withRole } from '../access';
import { ProblemError } from '../errors';
import type { ApiDeps } from '../app';
import { createIntegrationBody, emptyBody, listIntegrationsQuery } from '../schemas';
import { parseBody, parseQuery, pathId } from '../validate';

/** Integrations hold credentials: owners and admins manage them; the secret is write-only. */
export function integrationRoutes({ db, secrets, salesforce }: ApiDeps): Router {
  const r = Router();
  const box = () => {
    if (!secrets) throw new ProblemError('SERVICE_UNAVAILABLE', 'Integrations are not available: INTEGRATION_SECRET_KEY is not configured');
    return secrets;
  };

  r.post('/integrations', async (req, res) => {
    const body = parseBody(createIntegrationBody, req);
    const sealer = box();
    const integration = await withRole(db, req, body.organizationId, 'admin', async (tx) => {
      const id = randomUUID();
      return insertIntegration(tx, {
        id,
        organizationId: body.organizationId,
        providerKey: body.providerKey,
        kind: body.kind,
        config: body.config ?? {},
        mapping: storedMapping(body.providerKey, body.mapping ?? {}),
        secret: sealer.seal(body.secret, secretContext(body.organizationId, id)),
      });
    });
    res.status(201).json(integration);
  });

  r.get('/integrations', async (req, res) => {
    const q = parseQuery(listIntegrationsQuery, req);
    const rows = await withRole(db, req, q.organizationId, 'viewer', (tx) => listIntegrations(tx, q));
    res.json(rows);
  });

  r.get('/integrations/:integrationId', async (req, res) => {
    const id = pathId(req, 'integrationId', 'integration');
    res.json(await visibleOr404(db, req, 'integration', (tx) => getIntegration(tx, id)));
  });

  /** Checks the stored secret against the provider; status becomes connected, or error with the provider's message. */
  r.post('/integrations/:integrationId/test', async (req, res) => {
    const id = pathId(req, 'integrationId', 'integration');
    parseBody(emptyBody, req);
    const sealer = box();
    const { integration, secret } = await withRecordRole(db, req, { what: 'integration', load: (tx) => getIntegration(tx, id) }, 'admin', async (tx, found) => {
      const row = await integrationSecret(tx, id);
      return { integration: found, secret: sealer.open(row!.secret_ciphertext!, secretContext(found.organization_id, id)) };
    });
    const outcome = await verifyIntegration(integration.provider_key, integration.config as Record<string, unknown>, secret, { salesforce }).catch((err: unknown) => {
      // An answer past the size limit is the configured base URL's fault: a 4xx naming it, and nothing recorded.
      if (err instanceof ProviderRequestError && err.tooLarge) {
        throw new ProblemError('VALIDATION_FAILED', `The provider's answer is too large: ${err.message}`, { errors: [{ path: 'config.baseUrl', message: err.message }] });
      }
      throw err;
    });
    const updated = await asCaller(db, req, (tx) => recordIntegrationTest(tx, id, outcome.ok ? { ok: true } : { ok: false, message: outcome.message }));
    res.json(updated);
  });

  return r;
}
