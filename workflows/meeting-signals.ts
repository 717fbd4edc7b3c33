import { defineSignal } from '@temporalio/workflow';

/**
 * The one signal of a meeting's workflow (`meeting/<id>`): "the meeting changed; read it again" (a
 * move, a cancellation, an outcome, a new lead time). The database is the truth; the signal wakes
 * the run so the reminder moves and the CRM hears of it at once. The API sends it with
 * signalWithStart (WorkflowStarter.wakeMeeting), so a run that has ended starts again.
 */
export const meetingChangedSignal = defineSignal('meetingChanged');
