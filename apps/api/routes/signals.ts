import { Router } from 'express';
import { getSignalDetail, listSignals } from '../../../db/queries/signals';
import { asCaller, requireRole } from '../access';
import { notFound } from '../errors';
import type { ApiDeps } from '../app';
import { listSignalsQuery } from '../schemas';
import { parseQuery, pathId } from '../validate';

export function signalRoutes({ db }: ApiDeps): Router {
  const r = Router();

  r.get('/signals', async (req, res) => {
    const q = parseQuery(listSignalsQuery, req);
    const rows = await asCaller(db, req, async (tx) => {
      await requireRole(tx, req, q.organizationId);
      return listSignals(tx, q);
    });
    res.json(rows);
  });

  r.get('/signals/:signalId', async (req, res) => {
    const id = pathId(req, 'signalId', 'signal');
    const detail = await asCaller(db, req, (tx) => getSignalDetail(tx, id));
    if (!detail) throw notFound('signal');
    const { signal, classification, score, components } = detail;
    // classification, score and components appear only when they exist (spec part 4).
    res.json({
      signal,
      ...(classification ? { classification } : {}),
      ...(score ? { score, components, breakdown: { total: score.total, decision: score.decision, components } } : {}),
    });
  });

  return r;
}
