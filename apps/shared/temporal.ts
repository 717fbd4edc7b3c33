import { Client, Connection, WorkflowIdConflictPolicy } from '@temporalio/client';
import type { Config } from './config';
import { searchAttributes, workflowIds } from '../../workflows/search-attributes';
import type { ingestSourceWorkflow } from '../../workflows';

export async function connectTemporal(config: Pick<Config, 'TEMPORAL_ADDRESS' | 'TEMPORAL_NAMESPACE'>): Promise<Client> {
  const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
  return new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
}

/** The single place that starts workflows, so ids, task queue and search attributes never drift. */
export class WorkflowStarter {
  private readonly taskQueue: string;
  private readonly ingestRetryInitialIntervalMs: number;

  constructor(
    private readonly client: Client,
    config: Pick<Config, 'TEMPORAL_TASK_QUEUE' | 'INGEST_RETRY_INITIAL_INTERVAL_MS'>,
  ) {
    this.taskQueue = config.TEMPORAL_TASK_QUEUE;
    this.ingestRetryInitialIntervalMs = config.INGEST_RETRY_INITIAL_INTERVAL_MS;
  }

  /** Starts an ingest run; while one runs for the source, that run is returned instead of a second one. */
  async startIngest(organizationId: string, sourceId: string) {
    const handle = await this.client.workflow.start<typeof ingestSourceWorkflow>('ingestSourceWorkflow', {
      taskQueue: this.taskQueue,
      workflowId: workflowIds.ingestSource(sourceId),
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      args: [{ organizationId, sourceId, retryInitialIntervalMs: this.ingestRetryInitialIntervalMs }],
      typedSearchAttributes: searchAttributes({ OrganizationId: organizationId, SourceId: sourceId }),
    });
    return { workflowId: handle.workflowId, runId: handle.firstExecutionRunId };
  }
}
