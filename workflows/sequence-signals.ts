import { defineSignal, getExternalWorkflowHandle } from '@temporalio/workflow';
import { workflowIds } from './search-attributes';

/**
 * The one signal of an enrollment's sequence workflow (`enrollment/<id>`): "the enrollment or one of
 * its messages changed; read it again". The database is the truth (a stop, a pause, a resume, an
 * approval or a rejection is written there first); the signal only wakes the run so it acts at once
 * instead of at its next timer. Whoever changes an enrollment or a draft sends it after committing:
 * the API through WorkflowStarter.notifyEnrollments, a workflow through notifySequences.
 */
export const enrollmentChangedSignal = defineSignal('enrollmentChanged');

/** From workflow code: wakes the sequence runs of these enrollments (a run that is not there is fine). */
export async function notifySequences(enrollmentIds: readonly string[]): Promise<void> {
  await Promise.all(
    enrollmentIds.map((id) =>
      getExternalWorkflowHandle(workflowIds.sequence(id))
        .signal(enrollmentChangedSignal)
        .catch(() => undefined),
    ),
  );
}
