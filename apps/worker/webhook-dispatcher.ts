import { Client as PgClient } from 'pg';
import type { Logger } from 'pino';
import type { DB } from '../../db/pool';
import { endpointsDue, purgeExpired } from '../../db/queries/webhook-deliveries';
import { WEBHOOK_CHANNEL } from '../../db/queries/webhook-events';
import type { WorkflowStarter } from '../shared/temporal';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Wakes webhook endpoints' delivery workflows. recordEvent NOTIFYs `<org>:<endpoint>` in
 * the transaction of the change, which PostgreSQL delivers after the commit: the dispatcher LISTENs
 * and signal-with-starts `webhook-endpoint/<id>` (wakes of one endpoint in a burst are coalesced).
 * The outbox's guarantee does not rest on the notification: a sweep at start and every
 * WEBHOOK_SWEEP_SECONDS wakes every endpoint with a delivery due (app.webhook_endpoints_due), so an
 * event whose wake was lost (a worker killed after the commit, the listener reconnecting) is still
 * delivered. Each sweep also deletes what is kept past its time: outbox events 30 days after their last
 * delivery, idempotency records past their 24 hours (purgeExpired). Runs in the workers of the
 * deployment's queue (RECONCILE_SCHEDULE=true).
 */
export function startWebhookDispatcher(deps: { db: DB; connectionString: string; starter: WorkflowStarter; logger: Logger; sweepSeconds: number }) {
  const { logger } = deps;
  const pending = new Map<string, string>(); // endpoint id -> organization id
  let flushing = false;
  let stopped = false;
  let listener: PgClient | undefined;

  const flush = async () => {
    if (flushing || stopped) return;
    flushing = true;
    try {
      while (pending.size && !stopped) {
        const batch = [...pending.entries()];
        pending.clear();
        await Promise.all(
          batch.map(([endpointId, organizationId]) =>
            deps.starter
              .wakeWebhookEndpoint(organizationId, endpointId)
              .catch((err) => logger.warn({ err, endpointId }, 'webhook endpoint wake failed; the sweep tries again')),
          ),
        );
      }
    } finally {
      flushing = false;
    }
  };
  const wake = (organizationId: string, endpointId: string) => {
    if (!UUID.test(organizationId) || !UUID.test(endpointId)) return;
    pending.set(endpointId, organizationId);
    void flush();
  };

  // One sweep at a time: on a slow database the interval would otherwise start sweeps on top of each other.
  let sweeping = false;
  const sweep = async () => {
    if (sweeping || stopped) return;
    sweeping = true;
    try {
      for (const r of await endpointsDue(deps.db, 1000)) wake(r.organization_id, r.endpoint_id);
    } catch (err) {
      logger.warn({ err }, 'webhook sweep failed');
    }
    try {
      const purged = await purgeExpired(deps.db, 1000);
      if (purged.events || purged.idempotencyKeys) logger.debug(purged, 'expired outbox events and idempotency records deleted');
    } catch (err) {
      logger.warn({ err }, 'purging expired outbox events and idempotency records failed');
    } finally {
      sweeping = false;
    }
  };

  const listen = async () => {
    if (stopped) return;
    const client = new PgClient({ connectionString: deps.connectionString, application_name: 'outreach-webhook-dispatcher' });
    client.on('notification', (n) => {
      if (n.channel !== WEBHOOK_CHANNEL || !n.payload) return;
      const [org, endpoint] = n.payload.split(':');
      if (org && endpoint) wake(org, endpoint);
    });
    const reconnect = (err?: Error) => {
      if (listener !== client || stopped) return;
      listener = undefined;
      if (err) logger.warn({ err }, 'webhook listener lost its connection; reconnecting');
      client.end().catch(() => undefined);
      setTimeout(() => void listen().then(sweep), 2000).unref();
    };
    client.on('error', reconnect);
    client.on('end', () => reconnect());
    listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${WEBHOOK_CHANNEL}`);
    } catch (err) {
      reconnect(err as Error);
    }
  };

  const timer = setInterval(() => void sweep(), deps.sweepSeconds * 1000);
  timer.unref();
  const ready = listen().then(sweep);
  return {
    ready,
    async stop() {
      stopped = true;
      clearInterval(timer);
      const l = listener;
      listener = undefined;
      await l?.end().catch(() => undefined);
    },
  };
}
