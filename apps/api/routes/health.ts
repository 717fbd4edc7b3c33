import { Router } from 'express';
import { sql } from 'kysely';
import type { ApiDeps } from '../app';
import { sendProblem } from '../errors';

/** Liveness (the process answers) and readiness (PostgreSQL and Temporal answer). No token needed. */
export function healthRoutes({ db, temporalClient }: ApiDeps): Router {
  const r = Router();
  r.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  r.get('/readyz', async (_req, res) => {
    const [postgres, temporal] = await Promise.all([
      sql`SELECT 1`.execute(db).then(() => 'ok', (e: Error) => `unavailable: ${e.message}`),
      temporalClient.workflowService
        .getSystemInfo({})
        .then(() => 'ok', (e: Error) => `unavailable: ${e.message}`),
    ]);
    const checks = { postgres, temporal };
    if (postgres === 'ok' && temporal === 'ok') return void res.json({ status: 'ready', checks });
    sendProblem(res, 'SERVICE_UNAVAILABLE', 'A dependency is not reachable', { checks });
  });
  return r;
}
