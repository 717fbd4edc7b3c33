import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { getApiKey, insertApiKey, listApiKeys, revokeApiKey } from '../../../db/queries/api-keys';
import type { Tx } from '../../../db/tenancy';
import { outranks, readWithRole, requireRole, userOf, withRecordRole, asCaller } from '../access';
import { forbidden } from '../errors';
import type { ApiDeps } from '../app';
import { newApiKey } from '../auth';
import { organizationQuery } from '../schemas';
import { parseBody, parseQuery, pathId } from '../validate';
import { createApiKeyBody } from './webhook-endpoints.schemas';

/** API keys for machine clients (issue 17): owners and admins manage them; the key is answered once. */
export function apiKeyRoutes({ db }: ApiDeps): Router {
  const r = Router();
  const loader = (id: string) => ({ what: 'API key', load: (tx: Tx) => getApiKey(tx, id) });

  r.post('/api-keys', async (req, res) => {
    const body = parseBody(createApiKeyBody, req);
    const { key, prefix, keyHash } = newApiKey();
    const created = await asCaller(db, req, async (tx) => {
      const role = await requireRole(tx, req, body.organizationId, 'admin');
      if (!outranks(role, body.role)) throw forbidden(`A key's role cannot be above yours (${role})`);
      return insertApiKey(tx, { id: randomUUID(), organizationId: body.organizationId, name: body.name, role: body.role, prefix, keyHash, createdBy: userOf(req) });
    });
    res.status(201).json({ ...created, key });
  });

  r.get('/api-keys', async (req, res) => {
    const q = parseQuery(organizationQuery, req);
    res.json(await readWithRole(db, req, q.organizationId, 'admin', (qb) => listApiKeys(qb, q.organizationId)));
  });

  r.delete('/api-keys/:apiKeyId', async (req, res) => {
    const id = pathId(req, 'apiKeyId', 'API key');
    await withRecordRole(db, req, loader(id), 'admin', (tx, k) => revokeApiKey(tx, id, k.organization_id));
    res.status(204).end();
  });

  return r;
}
