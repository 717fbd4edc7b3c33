import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { getApiKey, insertApiKey, listApiKeys, revokeApiKey } from '../../../db/queries/api-keys';
import type { Tx } from '../../../db/tenancy';
import { outranks, readWithRole, requireRole, userOf, withRecordRole, asCaller } from '../access';
import { forbidden } from '../errors';
import type { ApiDeps } from '../deps';
import { bind } from '../bind';
import { newApiKey, refuseApiKey } from '../auth';
import { pathId } from '../validate';
import { operations } from './api-keys.schemas';
import { markSecretAnswer } from '../idempotency';

/** API keys for machine clients: owners and admins manage them; the key is answered once. */
export function apiKeyRoutes({ db }: ApiDeps): Router {
  const r = Router();
  const serve = bind(r, operations);
  const loader = (id: string) => ({ what: 'API key', load: (tx: Tx) => getApiKey(tx, id) });

  serve('createApiKey', refuseApiKey, async (req, res, call) => {
    const body = call.body;
    const { key, prefix, keyHash } = newApiKey();
    const created = await asCaller(db, req, async (tx) => {
      const role = await requireRole(tx, req, body.organizationId, call.role);
      if (!outranks(role, body.role)) throw forbidden(`A key's role cannot be above yours (${role})`);
      return insertApiKey(tx, {
        id: randomUUID(),
        organizationId: body.organizationId,
        name: body.name,
        role: body.role,
        prefix,
        keyHash,
        createdBy: userOf(req),
      });
    });
    markSecretAnswer(res);
    res.status(201).json({ ...created, key });
  });

  serve('listApiKeys', async (req, res, call) => {
    const q = call.query;
    res.json(await readWithRole(db, req, q.organizationId, call.role, (qb) => listApiKeys(qb, q)));
  });

  serve('deleteApiKey', refuseApiKey, async (req, res, call) => {
    const id = pathId(req, 'apiKeyId', 'API key');
    await withRecordRole(db, req, loader(id), call.role, (tx, k) => revokeApiKey(tx, id, k.organization_id));
    res.status(204).end();
  });

  return r;
}
