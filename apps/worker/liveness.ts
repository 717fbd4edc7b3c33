import type { ActivityInterceptorsFactory } from '@temporalio/worker';

/**
 * Liveness heartbeats (workflows/retry.ts, LIVENESS_TIMEOUT): while an activity scheduled with a
 * heartbeat timeout runs, the worker heartbeats for it every quarter of that timeout, the first beat
 * after a quarter, so the activities that end sooner (nearly all) send none. A beat says only that
 * this worker is alive and still running the activity: when the worker dies, the beats stop and the
 * server retries the activity elsewhere once the heartbeat timeout passes, not the start-to-close
 * timeout. Activities that heartbeat with progress of their own (`heartbeatsItself`) are left alone.
 */
export function livenessHeartbeats(heartbeatsItself: ReadonlySet<string>): ActivityInterceptorsFactory {
  return (ctx) => ({
    inbound: {
      execute: async (input, next) => {
        const timeoutMs = ctx.info.heartbeatTimeoutMs;
        if (!timeoutMs || heartbeatsItself.has(ctx.info.activityType)) return next(input);
        const beat = setInterval(() => ctx.heartbeat(), Math.max(Math.floor(timeoutMs / 4), 100));
        try {
          return await next(input);
        } finally {
          clearInterval(beat);
        }
      },
    },
  });
}
