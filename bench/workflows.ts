// The benchmark's worker bundle: the real workflows plus an empty pipeline with the same shape
// (one ingest activity, then one child per signal with the same number of activities).
import { ParentClosePolicy, proxyActivities, startChild, workflowInfo } from '@temporalio/workflow';

export * from '../workflows';

const { benchNoop } = proxyActivities<{ benchNoop(): Promise<void> }>({ startToCloseTimeout: '1 minute' });

export async function emptySignalWorkflow(activities: number): Promise<void> {
  for (let i = 0; i < activities; i++) await benchNoop();
}

export async function emptyIngestWorkflow(signals: number, activitiesPerSignal: number): Promise<string[]> {
  await benchNoop();
  const ids = Array.from({ length: signals }, (_, i) => `${workflowInfo().workflowId}/${i}`);
  for (let i = 0; i < ids.length; i += 100) {
    await Promise.all(
      ids.slice(i, i + 100).map((workflowId) =>
        startChild(emptySignalWorkflow, { workflowId, args: [activitiesPerSignal], parentClosePolicy: ParentClosePolicy.ABANDON }),
      ),
    );
  }
  return ids;
}
