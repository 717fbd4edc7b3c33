/**
 * The shape of a recorded workflow run, read from its history, for bench/pipeline.ts's empty twin
 * (bench/workflows.ts): what each workflow task scheduled together (activities by task queue, timers,
 * children started, the patches it marked), the search attributes each run was started with, and each
 * started child's own shape. Retries and failed child starts (the id already running) add nothing: the
 * twin does the work the run did, once. A patch (`patched()`) writes a marker and upserts the
 * TemporalChangeVersion search attribute, a visibility write, so the twin marks the same patches; a
 * run's search attributes are indexed when it starts, so the twin sets the same ones (their values its
 * own workflow ids: the names, not the values, shape the work, and the shapes stay alike to intern).
 */
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import type { TypedSearchAttributes } from '@temporalio/common';
import { SA, searchAttributes, type SearchAttributeValues } from '../workflows/search-attributes';

export interface ShapeStep {
  /** Activities scheduled on the workflow's own task queue. */
  main: number;
  /** Activities scheduled on its providers queue. */
  providers: number;
  timersMs: number[];
  /** Indexes into RunShape.children, in the order they were started. */
  children: number[];
  /** The patch ids this workflow task marked (patched()). */
  patches: string[];
}

export interface RunShape {
  steps: ShapeStep[];
  children: RunShape[];
  /** The names of the search attributes the run was started with. */
  attributes: string[];
}

type Event = temporal.api.history.v1.IHistoryEvent;

const msOf = (d: { seconds?: unknown; nanos?: number | null } | null | undefined) => Number(d?.seconds ?? 0) * 1000 + Math.round((d?.nanos ?? 0) / 1e6);

/** One run's steps and the children it started (their workflow id and run id), from its history. */
export function stepsOf(
  events: Event[],
  taskQueue: string,
): { steps: ShapeStep[]; started: Array<{ workflowId: string; runId: string; step: number }>; attributes: string[] } {
  const byTask = new Map<number, ShapeStep>();
  const stepOfTask = (id: unknown) => {
    const key = Number(id);
    let step = byTask.get(key);
    if (!step) byTask.set(key, (step = { main: 0, providers: 0, timersMs: [], children: [], patches: [] }));
    return step;
  };
  const initiated = new Map<number, number>(); // initiated event id -> workflow task completed event id
  const started: Array<{ workflowId: string; runId: string; task: number }> = [];
  let attributes: string[] = [];
  for (const e of events) {
    const id = Number(e.eventId);
    if (e.workflowExecutionStartedEventAttributes) {
      attributes = Object.keys(e.workflowExecutionStartedEventAttributes.searchAttributes?.indexedFields ?? {}).sort();
    } else if (e.markerRecordedEventAttributes?.markerName === PATCH_MARKER) {
      const m = e.markerRecordedEventAttributes;
      const data = m.details?.['patch-data']?.payloads?.[0]?.data;
      const patch = data ? (JSON.parse(new TextDecoder().decode(data)) as { id?: unknown }).id : undefined;
      if (typeof patch === 'string') stepOfTask(m.workflowTaskCompletedEventId).patches.push(patch);
    } else if (e.activityTaskScheduledEventAttributes) {
      const a = e.activityTaskScheduledEventAttributes;
      const step = stepOfTask(a.workflowTaskCompletedEventId);
      if (a.taskQueue?.name === taskQueue) step.main += 1;
      else step.providers += 1;
    } else if (e.timerStartedEventAttributes) {
      const t = e.timerStartedEventAttributes;
      stepOfTask(t.workflowTaskCompletedEventId).timersMs.push(msOf(t.startToFireTimeout));
    } else if (e.startChildWorkflowExecutionInitiatedEventAttributes) {
      initiated.set(id, Number(e.startChildWorkflowExecutionInitiatedEventAttributes.workflowTaskCompletedEventId));
    } else if (e.childWorkflowExecutionStartedEventAttributes) {
      const c = e.childWorkflowExecutionStartedEventAttributes;
      const task = initiated.get(Number(c.initiatedEventId))!;
      stepOfTask(task);
      started.push({ workflowId: c.workflowExecution!.workflowId!, runId: c.workflowExecution!.runId!, task });
    }
  }
  const tasks = [...byTask.keys()].sort((a, b) => a - b);
  return {
    steps: tasks.map((t) => byTask.get(t)!),
    started: started.map((s) => ({ workflowId: s.workflowId, runId: s.runId, step: tasks.indexOf(s.task) })),
    attributes,
  };
}

/** The marker a patch writes (the SDK's core names it so; its payload is `{"id": …, "deprecated": …}`). */
const PATCH_MARKER = 'core_patch';

/** The shape of a run and of every run it started, read from the server (histories fetched `concurrency` at a time). */
export async function shapeOf(client: Client, root: { workflowId: string; runId?: string }, taskQueue: string, concurrency = 50): Promise<RunShape> {
  const shapes = new Map<string, { shape: RunShape; started: Array<{ key: string; step: number }> }>();
  let level = [root];
  const keyOf = (r: { workflowId: string; runId?: string }) => `${r.workflowId} ${r.runId ?? ''}`;
  while (level.length) {
    const next: typeof level = [];
    for (let i = 0; i < level.length; i += concurrency) {
      await Promise.all(
        level.slice(i, i + concurrency).map(async (run) => {
          const history = await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
          const { steps, started, attributes } = stepsOf(history.events ?? [], taskQueue);
          shapes.set(keyOf(run), { shape: { steps, children: [], attributes }, started: started.map((s) => ({ key: keyOf(s), step: s.step })) });
          next.push(...started);
        }),
      );
    }
    level = next;
  }
  const build = (key: string): RunShape => {
    const { shape, started } = shapes.get(key)!;
    for (const s of started) {
      shape.steps[s.step]!.children.push(shape.children.length);
      shape.children.push(build(s.key));
    }
    return shape;
  };
  return build(keyOf(root));
}

/**
 * A shape with its repeated parts stored once (most signals' runs look alike), small enough to start a
 * twin of thousands of runs with: `table[i].children` are indexes into the table.
 */
export interface InternedShape {
  table: Array<{ steps: ShapeStep[]; children: number[]; attributes: string[] }>;
  root: number;
}

export function intern(shape: RunShape): InternedShape {
  const table: InternedShape['table'] = [];
  const seen = new Map<string, number>();
  const add = (s: RunShape): number => {
    const entry = { steps: s.steps, children: s.children.map(add), attributes: s.attributes };
    const key = JSON.stringify(entry);
    let index = seen.get(key);
    if (index === undefined) seen.set(key, (index = table.push(entry) - 1));
    return index;
  };
  return { table, root: add(shape) };
}

export function expand(interned: InternedShape, index = interned.root): RunShape {
  const entry = interned.table[index]!;
  return { steps: entry.steps, children: entry.children.map((c) => expand(interned, c)), attributes: entry.attributes };
}

/** Every workflow id of the twin of `shape` started as `workflowId` (itself and its descendants). */
export function twinIds(shape: RunShape, workflowId: string): string[] {
  const ids = [workflowId];
  let child = 0;
  for (const step of shape.steps) for (const c of step.children) ids.push(...twinIds(shape.children[c]!, `${workflowId}/${child++}`));
  return ids;
}

/** Workflows, activities, timers and patch markers in a shape (itself and its descendants). */
export function sizeOf(shape: RunShape): { workflows: number; activities: number; timers: number; patches: number } {
  const size = { workflows: 1, activities: 0, timers: 0, patches: 0 };
  for (const step of shape.steps) {
    size.activities += step.main + step.providers;
    size.timers += step.timersMs.length;
    size.patches += step.patches.length;
  }
  for (const c of shape.children) {
    const s = sizeOf(c);
    size.workflows += s.workflows;
    size.activities += s.activities;
    size.timers += s.timers;
    size.patches += s.patches;
  }
  return size;
}

/** The search attributes a twin run starts with: the recorded run's names, each holding the twin's own id. */
export function twinAttributes(names: string[], workflowId: string): TypedSearchAttributes {
  return searchAttributes(Object.fromEntries(names.filter((n) => n in SA).map((n) => [n, workflowId])) as SearchAttributeValues);
}
