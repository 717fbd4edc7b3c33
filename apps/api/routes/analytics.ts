import { Router } from 'express';
import { outreachAnalytics } from '../../../db/queries/analytics/outreach';
import { withRole } from '../access';
import type { ApiDeps } from '../app';
import { analyticsQuery } from '../schemas';
import { parseQuery } from '../validate';

/** Outreach analytics: attribution, deliverability and agent quality over a window (any member reads). */
export function analyticsRoutes({ db }: ApiDeps): Router {
  const r = Router();

  r.get('/analytics/outreach', async (req, res) => {
    const q = parseQuery(analyticsQuery, req);
    res.json(await withRole(db, req, q.organizationId, 'viewer', (tx) => outreachAnalytics(tx, q.organizationId, q.window)));
  });

  return r;
}
