// The benchmark's worker bundle: the real workflows plus an empty pipeline of the same shape (one
// ingest activity, then one child per signal running as many activities as that signal's real run).
import { ParentClosePolicy, proxyActivities, startChild, workflowInfo } from '@temporalio/workflow';

export * from '../workflows';

const { benchNoop } = proxyActivities<{ benchNoop(): Promise<void> }>({ startToCloseTimeout: '1 minute' });

export async function emptySignalWorkflow(activities: number): Promise<void> {
  for (let i = 0; i < activities; i++) await benchNoop();
}

/** activitiesPerSignal[i]: the number of activities the real run of signal i took. */
export async function emptyIngestWorkflow(activitiesPerSignal: number[]): Promise<string[]> {
  await benchNoop();
  const ids = activitiesPerSignal.map((_, i) => `${workflowInfo().workflowId}/${i}`);
  for (let i = 0; i < ids.length; i += 100) {
    await Promise.all(
      ids.slice(i, i + 100).map((workflowId, j) =>
        startChild(emptySignalWorkflow, { workflowId, args: [activitiesPerSignal[i + j]!], parentClosePolicy: ParentClosePolicy.ABANDON }),
      ),
    );
  }
  return ids;
}
