// The workflows the worker bundles. Workflow code is deterministic and does no I/O:
// everything outside Temporal happens in activities.
export { ingestSourceWorkflow } from './ingest-source';
export { processSignalWorkflow } from './process-signal';
export { enrichCompanyWorkflow } from './enrich-company';
export { verifyContactsWorkflow } from './verify-contacts';
export { retentionSweepWorkflow } from './retention';
export { reconcileSignalsWorkflow } from './reconcile';
export { reconcileOutreachWorkflow } from './reconcile-outreach';
export { strategistWorkflow } from './strategist';
export { sequenceWorkflow } from './sequence';
export { sendMessageWorkflow } from './send-message';
export { mailboxHealthWorkflow } from './mailbox-health';
export { meetingWorkflow, bookingWorkflow } from './meeting';
export { crmOutcomeWorkflow } from './crm-outcome';
export { mailboxInboxWorkflow } from './mailbox-inbox';
export { contactImportWorkflow } from './contact-import';
export { webhookEndpointWorkflow } from './webhook-endpoint';
