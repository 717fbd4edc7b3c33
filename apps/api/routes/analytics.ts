import { Router } from 'express';
import { outreachAnalytics } from '../../../db/queries/analytics/outreach';
import { withRole } from '../access';
import type { ApiDeps } from '../deps';
import { bind } from '../bind';
import { operations } from './analytics.schemas';

/** Outreach analytics: attribution, deliverability and agent quality over a window (any member reads). */
export function analyticsRoutes({ db }: ApiDeps): Router {
  const r = Router();
  const serve = bind(r, operations);

  serve('getOutreachAnalytics', async (req, res, call) => {
    const q = call.query;
    res.json(await withRole(db, req, q.organizationId, call.role, (tx) => outreachAnalytics(tx, q.organizationId, q.window)));
  });

  return r;
}
