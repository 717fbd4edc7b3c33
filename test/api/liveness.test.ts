import type { Context } from '@temporalio/activity';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor } from '@temporalio/worker';
import { livenessHeartbeats } from '../../apps/worker/liveness';
import { SELF_HEARTBEATING_ACTIVITIES } from '../../workflows/retry';

/**
 * The worker's liveness heartbeats (apps/worker/liveness.ts), on the interceptor itself: an activity
 * with a heartbeat timeout is beaten for while it runs, the short ones never, the self-heartbeating
 * ones never. What it is for (a worker SIGKILLed mid-send is retried after the heartbeat timeout, not
 * the start-to-close) is shown end to end in test/sending/sending-workers.test.ts.
 */
function run(activityType: string, heartbeatTimeoutMs: number | undefined, bodyMs: number) {
  let beats = 0;
  const ctx = { info: { activityType, heartbeatTimeoutMs }, heartbeat: () => void beats++ } as unknown as Context;
  const inbound = livenessHeartbeats(SELF_HEARTBEATING_ACTIVITIES)(ctx).inbound as ActivityInboundCallsInterceptor;
  const body = () => new Promise<string>((r) => setTimeout(() => r('done'), bodyMs));
  return inbound.execute!({ args: [], headers: {} } as unknown as ActivityExecuteInput, body).then((result) => ({ result, beats: () => beats }));
}

test('an activity running past its heartbeat timeout is beaten for while it runs, and no longer once it ends', async () => {
  const { result, beats } = await run('scheduleSend', 200, 600);
  expect(result).toBe('done');
  const atEnd = beats();
  expect(atEnd).toBeGreaterThanOrEqual(5); // every 50 ms of 600 (timers are not exact)
  await new Promise((r) => setTimeout(r, 200));
  expect(beats()).toBe(atEnd);
});

test('an activity that ends within a quarter of its timeout sends no beat', async () => {
  expect((await run('scheduleSend', 2000, 20)).beats()).toBe(0);
});

test('no heartbeat timeout, no beat; an activity that heartbeats with progress of its own is left alone', async () => {
  expect((await run('scheduleSend', undefined, 300)).beats()).toBe(0);
  expect((await run('ingestSource', 200, 600)).beats()).toBe(0);
  expect((await run('deliverDueWebhooks', 200, 600)).beats()).toBe(0);
});

test('a failing activity stops the beats too, and its error passes through', async () => {
  let beats = 0;
  const ctx = { info: { activityType: 'sendMessage', heartbeatTimeoutMs: 200 }, heartbeat: () => void beats++ } as unknown as Context;
  const inbound = livenessHeartbeats(new Set())(ctx).inbound as ActivityInboundCallsInterceptor;
  const failing = () => new Promise<never>((_r, reject) => setTimeout(() => reject(new Error('smtp 421')), 300));
  await expect(inbound.execute!({ args: [], headers: {} } as unknown as ActivityExecuteInput, failing)).rejects.toThrow('smtp 421');
  const atEnd = beats;
  expect(atEnd).toBeGreaterThanOrEqual(2);
  await new Promise((r) => setTimeout(r, 200));
  expect(beats).toBe(atEnd);
});
