// The benchmark's worker bundle: the real workflows plus their empty twin (bench/pipeline.ts): a
// workflow that replays the shape of a recorded run (bench/shapes.ts) with no-op activities; and
// bench/accept's ceiling, a run of no-op activities.
import { ParentClosePolicy, patched, proxyActivities, sleep, startChild, workflowInfo } from '@temporalio/workflow';
import { expand, type InternedShape, type RunShape, twinAttributes } from './shapes';
import { LIVENESS_TIMEOUT } from '../workflows/retry';
import { providerTaskQueue } from '../workflows/task-queues';

export * from '../workflows';

type Noop = { benchNoop(): Promise<void> };

/**
 * A recorded run's shape with empty bodies: each step as the real run took it (its activities at once,
 * each on the task queue the real one ran on, its timers, the patches it marked, and its children
 * started ABANDON as the real ones were, with the same search attributes, each running its own
 * recorded shape). A child's id is this run's id and its index
 * (twinIds in bench/shapes.ts).
 */
export async function emptyTwinWorkflow(input: RunShape | InternedShape): Promise<void> {
  // The root takes the shape interned (bench/shapes.ts) and hands each child its own part.
  const shape = 'table' in input ? expand(input) : input;
  // The heartbeat timeout the real activities are scheduled with (the same timer the server keeps).
  const main = proxyActivities<Noop>({ startToCloseTimeout: '1 minute', heartbeatTimeout: LIVENESS_TIMEOUT });
  const providers = proxyActivities<Noop>({
    startToCloseTimeout: '1 minute',
    heartbeatTimeout: LIVENESS_TIMEOUT,
    taskQueue: providerTaskQueue(workflowInfo().taskQueue),
  });
  const { workflowId } = workflowInfo();
  let child = 0;
  for (const step of shape.steps) {
    for (const patch of step.patches) patched(patch); // the marker and the TemporalChangeVersion upsert the real run wrote
    await Promise.all([
      ...Array.from({ length: step.main }, () => main.benchNoop()),
      ...Array.from({ length: step.providers }, () => providers.benchNoop()),
      ...step.timersMs.map((ms) => sleep(ms)),
      ...step.children.map((c) => {
        const id = `${workflowId}/${child++}`;
        const childShape = shape.children[c]!;
        return startChild(emptyTwinWorkflow, {
          workflowId: id,
          args: [childShape],
          parentClosePolicy: ParentClosePolicy.ABANDON,
          typedSearchAttributes: twinAttributes(childShape.attributes, id),
        });
      }),
    ]);
  }
}

/** bench/accept's ceiling: a run of `activities` no-op activities one after another. */
export async function emptySignalWorkflow(activities: number): Promise<void> {
  const { benchNoop } = proxyActivities<Noop>({ startToCloseTimeout: '1 minute' });
  for (let i = 0; i < activities; i++) await benchNoop();
}
