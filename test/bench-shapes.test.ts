import { expand, intern, sizeOf, stepsOf, twinIds, type RunShape } from '../bench/shapes';

/**
 * bench/pipeline's empty twin does the recorded run's work: the shape read from a history keeps what
 * each workflow task scheduled together, on which queue, its timers and the children that started.
 */
const ev = (eventId: number, attrs: Record<string, unknown>) => ({ eventId, ...attrs });

test('a history becomes steps: activities by queue, timers and started children per workflow task', () => {
  const events = [
    ev(1, { workflowExecutionStartedEventAttributes: {} }),
    ev(4, { workflowTaskCompletedEventAttributes: {} }),
    ev(5, { activityTaskScheduledEventAttributes: { workflowTaskCompletedEventId: 4, taskQueue: { name: 'q' } } }),
    ev(6, { activityTaskScheduledEventAttributes: { workflowTaskCompletedEventId: 4, taskQueue: { name: 'q-providers' } } }),
    ev(7, { activityTaskScheduledEventAttributes: { workflowTaskCompletedEventId: 4, taskQueue: { name: 'q' } } }),
    ev(12, { timerStartedEventAttributes: { workflowTaskCompletedEventId: 11, startToFireTimeout: { seconds: 2, nanos: 500_000_000 } } }),
    ev(16, { startChildWorkflowExecutionInitiatedEventAttributes: { workflowTaskCompletedEventId: 15 } }),
    ev(17, { startChildWorkflowExecutionInitiatedEventAttributes: { workflowTaskCompletedEventId: 15 } }),
    ev(18, { childWorkflowExecutionStartedEventAttributes: { initiatedEventId: 17, workflowExecution: { workflowId: 'b', runId: 'rb' } } }),
    ev(19, { startChildWorkflowExecutionFailedEventAttributes: { initiatedEventId: 16 } }), // already running: no twin
    ev(22, { activityTaskScheduledEventAttributes: { workflowTaskCompletedEventId: 21, taskQueue: { name: 'q' } } }),
  ];
  const { steps, started } = stepsOf(events as never, 'q');
  expect(steps).toEqual([
    { main: 2, providers: 1, timersMs: [], children: [] },
    { main: 0, providers: 0, timersMs: [2500], children: [] },
    { main: 0, providers: 0, timersMs: [], children: [] },
    { main: 1, providers: 0, timersMs: [], children: [] },
  ]);
  expect(started).toEqual([{ workflowId: 'b', runId: 'rb', step: 2 }]);
});

test('interned shapes expand to the same tree, and the twin ids are one per workflow', () => {
  const leaf = (n: number): RunShape => ({ steps: [{ main: n, providers: 0, timersMs: [], children: [] }], children: [] });
  const signal = (n: number): RunShape => ({ steps: [{ main: 1, providers: 1, timersMs: [], children: [0] }, { main: 2, providers: 0, timersMs: [500], children: [] }], children: [leaf(n)] });
  const root: RunShape = { steps: [{ main: 1, providers: 0, timersMs: [], children: [0, 1] }, { main: 0, providers: 0, timersMs: [], children: [2] }], children: [signal(3), signal(3), signal(4)] };
  const interned = intern(root);
  expect(interned.table.length).toBe(5); // two leaves, two signals, the root
  expect(expand(interned)).toEqual(root);
  expect(sizeOf(root)).toEqual({ workflows: 7, activities: 1 + 3 * 4 + 3 + 3 + 4, timers: 3 });
  expect(twinIds(root, 't')).toEqual(['t', 't/0', 't/0/0', 't/1', 't/1/0', 't/2', 't/2/0']);
});
