import { expand, intern, sizeOf, stepsOf, twinAttributes, twinIds, type RunShape } from '../../bench/shapes';

/**
 * bench/pipeline's empty twin does the recorded run's work: the shape read from a history keeps what
 * each workflow task scheduled together, on which queue, its timers and the children that started.
 */
const ev = (eventId: number, attrs: Record<string, unknown>) => ({ eventId, ...attrs });

const patchData = (id: string) => ({
  'patch-data': { payloads: [{ metadata: {}, data: new TextEncoder().encode(JSON.stringify({ id, deprecated: false })) }] },
});

test("a history becomes steps: activities by queue, timers, started children and patch markers per workflow task; the start's search attribute names", () => {
  const events = [
    ev(1, { workflowExecutionStartedEventAttributes: { searchAttributes: { indexedFields: { SignalId: {}, OrganizationId: {} } } } }),
    ev(4, { workflowTaskCompletedEventAttributes: {} }),
    ev(5, { markerRecordedEventAttributes: { markerName: 'core_patch', workflowTaskCompletedEventId: 4, details: patchData('person-ignore-gate') } }),
    ev(5, { activityTaskScheduledEventAttributes: { workflowTaskCompletedEventId: 4, taskQueue: { name: 'q' } } }),
    ev(6, { activityTaskScheduledEventAttributes: { workflowTaskCompletedEventId: 4, taskQueue: { name: 'q-providers' } } }),
    ev(7, { activityTaskScheduledEventAttributes: { workflowTaskCompletedEventId: 4, taskQueue: { name: 'q' } } }),
    ev(12, { timerStartedEventAttributes: { workflowTaskCompletedEventId: 11, startToFireTimeout: { seconds: 2, nanos: 500_000_000 } } }),
    ev(16, { startChildWorkflowExecutionInitiatedEventAttributes: { workflowTaskCompletedEventId: 15 } }),
    ev(17, { startChildWorkflowExecutionInitiatedEventAttributes: { workflowTaskCompletedEventId: 15 } }),
    ev(18, { childWorkflowExecutionStartedEventAttributes: { initiatedEventId: 17, workflowExecution: { workflowId: 'b', runId: 'rb' } } }),
    ev(19, { startChildWorkflowExecutionFailedEventAttributes: { initiatedEventId: 16 } }), // already running: no twin
    ev(22, { activityTaskScheduledEventAttributes: { workflowTaskCompletedEventId: 21, taskQueue: { name: 'q' } } }),
    ev(23, { markerRecordedEventAttributes: { markerName: 'core_patch', workflowTaskCompletedEventId: 21, details: patchData('drafting-stage') } }),
    ev(24, { upsertWorkflowSearchAttributesEventAttributes: { workflowTaskCompletedEventId: 21 } }), // the patch's own upsert: the twin's patched() writes it
    ev(25, { markerRecordedEventAttributes: { markerName: 'other', workflowTaskCompletedEventId: 21, details: patchData('not-a-patch') } }),
  ];
  const { steps, started, attributes } = stepsOf(events as never, 'q');
  expect(steps).toEqual([
    { main: 2, providers: 1, timersMs: [], children: [], patches: ['person-ignore-gate'] },
    { main: 0, providers: 0, timersMs: [2500], children: [], patches: [] },
    { main: 0, providers: 0, timersMs: [], children: [], patches: [] },
    { main: 1, providers: 0, timersMs: [], children: [], patches: ['drafting-stage'] },
  ]);
  expect(started).toEqual([{ workflowId: 'b', runId: 'rb', step: 2 }]);
  expect(attributes).toEqual(['OrganizationId', 'SignalId']);
  // The twin starts with the same names, each holding its own id; names the service does not define are left out.
  const typed = twinAttributes([...attributes, 'Unknown'], 't/3');
  expect(typed.getAll().map((p) => [p.key.name, p.value])).toEqual([
    ['OrganizationId', 't/3'],
    ['SignalId', 't/3'],
  ]);
});

test('interned shapes expand to the same tree, and the twin ids are one per workflow', () => {
  const leaf = (n: number): RunShape => ({
    steps: [{ main: n, providers: 0, timersMs: [], children: [], patches: [] }],
    children: [],
    attributes: ['CompanyId'],
  });
  const signal = (n: number): RunShape => ({
    steps: [
      { main: 1, providers: 1, timersMs: [], children: [0], patches: ['person-ignore-gate'] },
      { main: 2, providers: 0, timersMs: [500], children: [], patches: [] },
    ],
    children: [leaf(n)],
    attributes: ['OrganizationId', 'SignalId'],
  });
  const root: RunShape = {
    steps: [
      { main: 1, providers: 0, timersMs: [], children: [0, 1], patches: [] },
      { main: 0, providers: 0, timersMs: [], children: [2], patches: [] },
    ],
    children: [signal(3), signal(3), signal(4)],
    attributes: [],
  };
  const interned = intern(root);
  expect(interned.table.length).toBe(5); // two leaves, two signals, the root
  expect(expand(interned)).toEqual(root);
  expect(sizeOf(root)).toEqual({ workflows: 7, activities: 1 + 3 * 4 + 3 + 3 + 4, timers: 3, patches: 3 });
  expect(twinIds(root, 't')).toEqual(['t', 't/0', 't/0/0', 't/1', 't/1/0', 't/2', 't/2/0']);
});
