import { Router } from 'express';
import { sql } from 'kysely';
import type { ApiDeps } from '../deps';
import { bind } from '../bind';
import { operations } from './health.schemas';
import { sendProblem } from '../errors';

type Check = 'ok' | 'down';
const CHECK_TIMEOUT_MS = 3000;

/**
 * Liveness (the process answers) and readiness (PostgreSQL and Temporal answer). No token needed,
 * so readiness says which dependency is down and nothing more: the driver's message (host names,
 * ports, user names) goes to the log, never to the caller.
 */
export function healthRoutes({ db, temporalClient, logger }: ApiDeps): Router {
  const r = Router();
  const serve = bind(r, operations);
  serve('getHealth', (_req, res) => {
    res.json({ status: 'ok' });
  });
  serve('getReadiness', async (req, res) => {
    const log = req.log ?? logger;
    const check = async (dependency: string, probe: () => Promise<unknown>): Promise<Check> => {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          probe(),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
          }),
        ]);
        return 'ok';
      } catch (err) {
        log.warn({ err, dependency }, 'readiness check failed');
        return 'down';
      } finally {
        clearTimeout(timer);
      }
    };
    const [postgres, temporal] = await Promise.all([
      check('postgres', () => sql`SELECT 1`.execute(db)),
      check('temporal', () => temporalClient.connection.withDeadline(Date.now() + CHECK_TIMEOUT_MS, () => temporalClient.workflowService.getSystemInfo({}))),
    ]);
    const checks = { postgres, temporal };
    if (postgres === 'ok' && temporal === 'ok') return void res.json({ status: 'ready', checks });
    const down = Object.entries(checks)
      .filter(([, v]) => v === 'down')
      .map(([k]) => k);
    sendProblem(res, 'SERVICE_UNAVAILABLE', `Not ready: ${down.join(' and ')} not reachable`, { checks });
  });
  return r;
}
