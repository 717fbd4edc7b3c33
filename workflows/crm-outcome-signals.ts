import { defineSignal } from '@temporalio/workflow';

/**
 * The one signal of an opportunity's CRM outcome run (`crm-outcome/<opportunityId>`): "the outcome
 * changed; read it again". The API sends it with signalWithStart (WorkflowStarter.syncOutcomeToCrm),
 * so a run that has ended starts again.
 */
export const outcomeChangedSignal = defineSignal('outcomeChanged');
