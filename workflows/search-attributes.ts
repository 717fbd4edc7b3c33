import { defineSearchAttributeKey, SearchAttributeType, TypedSearchAttributes } from '@temporalio/common';

/** The custom search attributes of temporal-dev.yml; every workflow of the service sets the ones it knows. */
export const SA = {
  OrganizationId: defineSearchAttributeKey('OrganizationId', SearchAttributeType.KEYWORD),
  SourceId: defineSearchAttributeKey('SourceId', SearchAttributeType.KEYWORD),
  SignalId: defineSearchAttributeKey('SignalId', SearchAttributeType.KEYWORD),
  OpportunityId: defineSearchAttributeKey('OpportunityId', SearchAttributeType.KEYWORD),
  CampaignId: defineSearchAttributeKey('CampaignId', SearchAttributeType.KEYWORD),
  EnrollmentId: defineSearchAttributeKey('EnrollmentId', SearchAttributeType.KEYWORD),
  CompanyId: defineSearchAttributeKey('CompanyId', SearchAttributeType.KEYWORD),
  MailboxId: defineSearchAttributeKey('MailboxId', SearchAttributeType.KEYWORD),
} as const;

export type SearchAttributeValues = Partial<Record<keyof typeof SA, string>>;

export function searchAttributes(values: SearchAttributeValues): TypedSearchAttributes {
  return new TypedSearchAttributes(
    Object.entries(values)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => ({ key: SA[k as keyof typeof SA], value: v as string })),
  );
}

/** Readable workflow ids, so operators can find a run in the Web UI by what it is about. */
export const workflowIds = {
  ingestSource: (sourceId: string) => `ingest/${sourceId}`,
  processSignal: (signalId: string) => `signal/${signalId}`,
  sourceSchedule: (sourceId: string) => `source/${sourceId}`,
  enrichCompany: (companyId: string) => `company/${companyId}/enrich`,
  /** One contact's address check (verifyContactsWorkflow). */
  verifyContact: (contactId: string) => `contact/${contactId}/verify`,
  /** A check of an organization's contacts started by POST /contacts/verify: one run per request. */
  verifyContacts: (organizationId: string, runKey: string) => `organization/${organizationId}/verify-contacts/${runKey}`,
  retention: (organizationId: string) => `retention/${organizationId}`,
  strategist: (opportunityId: string) => `opportunity/${opportunityId}/strategist`,
  /** The per-enrollment sequence workflow (accept stores this id on the enrollment). */
  sequence: (enrollmentId: string) => `enrollment/${enrollmentId}`,
  /** One approved message's booking and send (a child of its sequence run, or started by the API). */
  sendMessage: (messageId: string) => `message/${messageId}/send`,
  /** A meeting's reminder and CRM sync (meetingWorkflow). */
  meeting: (meetingId: string) => `meeting/${meetingId}`,
  /** An opportunity's won or lost outcome to the CRM (crmOutcomeWorkflow). */
  crmOutcome: (opportunityId: string) => `crm-outcome/${opportunityId}`,
  /** One verified booking webhook delivery (bookingWorkflow): the same body twice is one run. */
  booking: (integrationId: string, deliveryDigest: string) => `booking/${integrationId}/${deliveryDigest}`,
  /** A contact import's durable run (contactImportWorkflow). */
  contactImport: (importId: string) => `import/${importId}`,
  /** One webhook endpoint's deliveries (webhookEndpointWorkflow). */
  webhookEndpoint: (endpointId: string) => `webhook-endpoint/${endpointId}`,
  reconcileSchedule: 'reconcile/signals',
  /** The scheduled restart of sequence runs and sends that are missing (reconcileOutreachWorkflow). */
  reconcileOutreachSchedule: 'reconcile/outreach',
  /** The mailbox's daily health check: the Schedule and the runs it starts. */
  mailboxHealth: (mailboxId: string) => `mailbox/${mailboxId}/health`,
  /** A mailbox's inbox read: the workflow and its Temporal Schedule share the id. */
  mailboxInbox: (mailboxId: string) => `mailbox/${mailboxId}/inbox`,
};
