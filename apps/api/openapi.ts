import { z } from 'zod';
import * as r from './responses';
import * as s from './schemas';
import * as w from './routes/webhook-endpoints.schemas';
import * as v from './routes/variants.schemas';
import { WEBHOOK_EVENT_TYPES } from '../../db/queries/webhook-events';

/**
 * The OpenAPI 3.1 document (GET /openapi.json), built from the zod schemas that validate requests
 * (schemas.ts) and those of the records the API answers (responses.ts), so it cannot drift from
 * them. test/openapi.test.ts fails when a route is missing here or an operation has no answer, and
 * every response a test receives is validated against this document (test/helpers/api.ts).
 *
 * A new endpoint: add its zod response schema to responses.ts (registered with `record(...)`), then
 * one entry below naming it in `answer`, with its operationId, tag, role and the problems it can
 * answer beyond those its role and inputs imply.
 */
type Tag = 'Health' | 'Reference' | 'Organizations' | 'Sources' | 'Signals' | 'Opportunities' | 'Settings' | 'Companies' | 'Contacts' | 'Compliance' | 'Integrations' | 'Mailboxes' | 'Campaigns' | 'Enrollments' | 'Messages' | 'Threads' | 'Meetings' | 'Analytics' | 'Webhooks' | 'API keys';

export const TAGS: Record<Tag, string> = {
  Health: 'Liveness, readiness and metrics of the API process',
  Reference: 'This document and its interactive reference (no token)',
  Organizations: 'Tenants and their members; every other record belongs to one organization',
  Sources: 'Where signals come from: RSS/Atom feeds, JSON APIs, Dutch official publications',
  Signals: 'Publications turned into signals, classified and scored by the pipeline',
  Opportunities: 'Sales opportunities opened from ready signals or by hand',
  Settings: 'Scoring thresholds and rules, the learning loop\'s suggestions, and the industry profile',
  Companies: 'Companies and their enrichment with contacts',
  Contacts: 'People at companies, their lawful basis, the compliance gate and erasure',
  Compliance: 'Suppressions, compliance settings and their audit log, the channel policy',
  Integrations: 'CRM, enrichment and LLM providers (write-only secrets)',
  Campaigns: "Outreach campaigns: the strategist's proposals and a person's own, accepted or dismissed",
  Enrollments: "Contacts in a campaign's sequence: stop and resume",
  Messages: 'Drafts, sent e-mail, tasks and replies; the approval inbox',
  Threads: 'Conversations with one contact from one mailbox: read, assign, close and answer',
  Meetings: 'Meetings booked by link (Cal.com, Calendly webhooks), reply or by hand: outcomes, reminders (tasks) and the CRM record',
  Analytics: 'Outreach analytics: attribution by source, deliverability per mailbox, agent quality and prompt evals',
  Mailboxes: 'Sending mailboxes: SMTP/IMAP server (write-only secret), sending window, days, holidays and limits',
  Webhooks: 'Signed webhooks (Standard Webhooks) for every event: endpoints, secrets, deliveries and retries. The events are listed under `webhooks`',
  'API keys': 'Keys for machine clients (`Authorization: Bearer osk_...`), acting in one organization with one role',
};

type ProblemStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 500 | 503;

interface Operation {
  /** The operationId: a stable, readable verb + noun (listSignals, ignoreSignal). */
  id: string;
  method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  path: string; // OpenAPI form: /sources/{sourceId}
  tag: Tag;
  summary: string;
  /** Who may call it: 'none' needs no token; 'any user' any valid token; 'metrics token' METRICS_TOKEN; else the minimum role in the organization. */
  role: 'viewer' | 'member' | 'admin' | 'any user' | 'none' | 'metrics token';
  body?: z.ZodType;
  /** An optional application/x-www-form-urlencoded body instead of JSON (the one-click unsubscribe). */
  form?: z.ZodType;
  /** A required body of another media type, passed as bytes (a raw e-mail: message/rfc822). */
  raw?: { media: string; description: string };
  /** Path parameters that are not record ids (format uuid), with their own schema. */
  pathSchemas?: Record<string, Record<string, unknown>>;
  query?: z.ZodType;
  /** The success status (default 200) and, for an idempotent create, the status of a repeat. */
  status?: number;
  repeatStatus?: number;
  /** What a success answers: a schema registered in responses.ts, or an array of one. */
  answer: z.ZodType;
  /** Media type of the success answer (default application/json). */
  media?: 'application/json' | 'text/html' | 'text/plain';
  /** Problems beyond those implied by the token, role, inputs and body (see problemsOf). */
  problems?: ProblemStatus[];
  /** The success answers no body (204). */
  empty?: true;
}

/** The one-click unsubscribe token (domain/outreach/unsubscribe-token.ts). */
const UNSUBSCRIBE_TOKEN = { type: 'string', pattern: '^[A-Za-z0-9_-]{64}$', description: 'base64url(message id || HMAC-SHA256), from the List-Unsubscribe header' };

export const OPERATIONS: Operation[] = [
  { id: 'getHealth', method: 'get', path: '/healthz', tag: 'Health', summary: 'Liveness', role: 'none', answer: r.Health },
  { id: 'getReadiness', method: 'get', path: '/readyz', tag: 'Health', summary: 'Readiness: PostgreSQL and Temporal reachable', role: 'none', answer: r.Readiness, problems: [503] },
  { id: 'getMetrics', method: 'get', path: '/metrics', tag: 'Health', summary: 'Prometheus metrics (text exposition format)', role: 'metrics token', answer: z.string(), media: 'text/plain' },
  { id: 'getOpenApiDocument', method: 'get', path: '/openapi.json', tag: 'Reference', summary: 'This document', role: 'none', answer: r.OpenApiDocument },
  { id: 'getApiReference', method: 'get', path: '/docs', tag: 'Reference', summary: 'Interactive API reference (HTML)', role: 'none', answer: z.string(), media: 'text/html' },
  // One-click unsubscribe (outreach S2): no token, the link itself is the authority (RFC 8058).
  { id: 'showUnsubscribePage', method: 'get', path: '/u/{token}', tag: 'Compliance', summary: 'The unsubscribe page of an e-mail: a button that POSTs (changes nothing; 404 for an unknown link)', role: 'none', pathSchemas: { token: UNSUBSCRIBE_TOKEN }, answer: z.string(), media: 'text/html', problems: [503] },
  { id: 'unsubscribeRecipient', method: 'post', path: '/u/{token}', tag: 'Compliance', summary: 'One-click unsubscribe: suppresses the address, skips its pending messages, stops its enrollments (a repeat changes nothing)', role: 'none', pathSchemas: { token: UNSUBSCRIBE_TOKEN }, form: s.unsubscribeForm, answer: z.string(), media: 'text/html', problems: [503] },
  { id: 'createOrganization', method: 'post', path: '/organizations', tag: 'Organizations', summary: 'Create an organization; the caller becomes owner', role: 'any user', body: s.createOrganizationBody, status: 201, answer: r.Organization },
  { id: 'listOrganizations', method: 'get', path: '/organizations', tag: 'Organizations', summary: "The caller's organizations", role: 'any user', answer: z.array(r.Organization) },
  { id: 'getOrganization', method: 'get', path: '/organizations/{organizationId}', tag: 'Organizations', summary: 'One organization', role: 'viewer', answer: r.Organization },
  { id: 'addOrganizationMember', method: 'post', path: '/organizations/{organizationId}/members', tag: 'Organizations', summary: 'Add a member (201) or change a role (200)', role: 'admin', body: s.addMemberBody, status: 201, repeatStatus: 200, answer: r.Membership },
  { id: 'createSource', method: 'post', path: '/sources', tag: 'Sources', summary: 'Create a signal source', role: 'member', body: s.createSourceBody, status: 201, answer: r.Source },
  { id: 'listSources', method: 'get', path: '/sources', tag: 'Sources', summary: 'List sources', role: 'viewer', query: s.listSourcesQuery, answer: z.array(r.Source) },
  { id: 'getSource', method: 'get', path: '/sources/{sourceId}', tag: 'Sources', summary: 'One source', role: 'viewer', answer: r.Source },
  { id: 'updateSource', method: 'patch', path: '/sources/{sourceId}', tag: 'Sources', summary: 'Change a source (schedule syncs its Temporal Schedule)', role: 'member', body: s.patchSourceBody, answer: r.Source },
  { id: 'runSource', method: 'post', path: '/sources/{sourceId}/run', tag: 'Sources', summary: 'Start ingestSourceWorkflow (409 while the source is disabled)', role: 'member', body: s.emptyBody, status: 202, answer: r.SourceRun, problems: [409] },
  { id: 'listSignals', method: 'get', path: '/signals', tag: 'Signals', summary: 'List signals, newest first', role: 'viewer', query: s.listSignalsQuery, answer: z.array(r.Signal) },
  { id: 'getSignal', method: 'get', path: '/signals/{signalId}', tag: 'Signals', summary: 'A signal with its classification, score and breakdown', role: 'viewer', answer: r.SignalDetail },
  { id: 'ignoreSignal', method: 'post', path: '/signals/{signalId}/ignore', tag: 'Signals', summary: 'Ignore a signal', role: 'member', body: s.emptyBody, answer: r.Signal },
  { id: 'reprocessSignal', method: 'post', path: '/signals/{signalId}/reprocess', tag: 'Signals', summary: 'Run processSignalWorkflow from a stage (409 while a run is in progress)', role: 'member', body: s.reprocessBody, status: 202, answer: r.SignalRun, problems: [409] },
  { id: 'createOpportunity', method: 'post', path: '/opportunities', tag: 'Opportunities', summary: 'Create an opportunity from a signal or manually (409 when the project has an open one)', role: 'member', body: s.createOpportunityBody, status: 201, answer: r.Opportunity, problems: [409] },
  { id: 'listOpportunities', method: 'get', path: '/opportunities', tag: 'Opportunities', summary: 'List opportunities', role: 'viewer', query: s.listOpportunitiesQuery, answer: z.array(r.Opportunity) },
  { id: 'getOpportunity', method: 'get', path: '/opportunities/{opportunityId}', tag: 'Opportunities', summary: 'One opportunity', role: 'viewer', answer: r.Opportunity },
  { id: 'recordOpportunityOutcome', method: 'post', path: '/opportunities/{opportunityId}/outcome', tag: 'Opportunities', summary: 'Record won, lost, or reopen (409 when the project has another open one)', role: 'member', body: s.outcomeBody, answer: r.Opportunity, problems: [409] },
  { id: 'getScoringSettings', method: 'get', path: '/settings/scoring', tag: 'Settings', summary: 'The active scoring config and rules', role: 'viewer', query: s.organizationQuery, answer: r.ScoringSettings },
  { id: 'updateScoringSettings', method: 'patch', path: '/settings/scoring', tag: 'Settings', summary: 'New scoring config version (thresholds, home, rule weights and caps)', role: 'admin', body: s.patchScoringBody, answer: r.ScoringSettings },
  { id: 'getScoringSuggestions', method: 'get', path: '/settings/scoring/suggestions', tag: 'Settings', summary: 'Rule weights the outcomes suggest, with the evidence (changes nothing)', role: 'viewer', query: s.scoringSuggestionsQuery, answer: r.ScoringSuggestions },
  { id: 'getOutreachAnalytics', method: 'get', path: '/analytics/outreach', tag: 'Analytics', summary: 'Attribution, deliverability and agent quality over 7, 30, 90 or 180 days', role: 'viewer', query: s.analyticsQuery, answer: r.OutreachAnalytics },
  { id: 'getIndustryProfile', method: 'get', path: '/settings/industry-profile', tag: 'Settings', summary: 'The industry profile', role: 'viewer', query: s.organizationQuery, answer: r.IndustryProfileSettings },
  { id: 'updateIndustryProfile', method: 'patch', path: '/settings/industry-profile', tag: 'Settings', summary: 'Change the industry profile', role: 'admin', body: s.patchIndustryProfileBody, answer: r.IndustryProfileSettings },
  { id: 'createCompany', method: 'post', path: '/companies', tag: 'Companies', summary: 'Create a company (409 when its KvK number exists)', role: 'member', body: s.createCompanyBody, status: 201, answer: r.Company, problems: [409] },
  { id: 'listCompanies', method: 'get', path: '/companies', tag: 'Companies', summary: 'List companies', role: 'viewer', query: s.listCompaniesQuery, answer: z.array(r.Company) },
  { id: 'getCompany', method: 'get', path: '/companies/{companyId}', tag: 'Companies', summary: 'One company', role: 'viewer', answer: r.Company },
  { id: 'patchCompany', method: 'patch', path: '/companies/{companyId}', tag: 'Companies', summary: 'Change name, address, website, phone, country, locale or time zone (timezone: IANA, the recipient time of its contacts); null clears an optional field', role: 'member', body: s.patchCompanyBody, answer: r.Company },
  { id: 'enrichCompany', method: 'post', path: '/companies/{companyId}/enrich', tag: 'Companies', summary: 'Start contact enrichment (answers the company, enrichment_status running)', role: 'member', body: s.emptyBody, status: 202, answer: r.Company },
  { id: 'createContact', method: 'post', path: '/contacts', tag: 'Contacts', summary: 'Create a contact (409 when its e-mail address exists)', role: 'member', body: s.createContactBody, status: 201, answer: r.Contact, problems: [409] },
  { id: 'listContacts', method: 'get', path: '/contacts', tag: 'Contacts', summary: 'List contacts', role: 'viewer', query: s.listContactsQuery, answer: z.array(r.Contact) },
  { id: 'getContact', method: 'get', path: '/contacts/{contactId}', tag: 'Contacts', summary: 'One contact with its lawful basis', role: 'viewer', answer: r.ContactDetail },
  { id: 'patchContact', method: 'patch', path: '/contacts/{contactId}', tag: 'Contacts', summary: 'Change name, title, phone, LinkedIn profile or time zone (timezone: IANA, the recipient time); null clears an optional field; 409 for an erased contact', role: 'member', body: s.patchContactBody, answer: r.Contact, problems: [409] },
  { id: 'createImport', method: 'post', path: '/imports', tag: 'Contacts', summary: 'Import contacts from a CSV file (text/csv, UTF-8, header row, `,` or `;`, 20 MB at most): a durable run in chunks, every row through the checks of POST /contacts and POST /companies (202, running)', role: 'member', query: s.createImportQuery, raw: { media: 'text/csv', description: 'The CSV file: a header row (full_name or name or first_name + last_name, email, title, phone, linkedin_url, company, domain, website, kvk_number, country, timezone), one row per contact' }, status: 202, answer: r.Import },
  { id: 'listImports', method: 'get', path: '/imports', tag: 'Contacts', summary: 'List contact imports', role: 'viewer', query: s.listImportsQuery, answer: z.array(r.Import) },
  { id: 'getImport', method: 'get', path: '/imports/{importId}', tag: 'Contacts', summary: 'One contact import and its progress', role: 'viewer', answer: r.Import },
  { id: 'getContactChannels', method: 'get', path: '/contacts/{contactId}/channels', tag: 'Contacts', summary: 'The compliance gate for a contact', role: 'viewer', answer: r.ComplianceGate },
  { id: 'recordLawfulBasis', method: 'put', path: '/contacts/{contactId}/lawful-basis', tag: 'Contacts', summary: 'Record the lawful basis (409 for an erased contact)', role: 'member', body: s.lawfulBasisBody, answer: r.LawfulBasis, problems: [409] },
  { id: 'eraseContact', method: 'delete', path: '/contacts/{contactId}', tag: 'Contacts', summary: 'Erase a contact (GDPR Art. 17)', role: 'member', answer: r.Contact },
  { id: 'addSuppression', method: 'post', path: '/compliance/suppressions', tag: 'Compliance', summary: 'Add a suppression (201; 200 with the existing one on a repeat)', role: 'member', body: s.createSuppressionBody, status: 201, repeatStatus: 200, answer: r.Suppression },
  { id: 'listSuppressions', method: 'get', path: '/compliance/suppressions', tag: 'Compliance', summary: 'List suppressions', role: 'viewer', query: s.listSuppressionsQuery, answer: z.array(r.Suppression) },
  { id: 'removeSuppression', method: 'delete', path: '/compliance/suppressions/{suppressionId}', tag: 'Compliance', summary: 'Remove a suppression (audited; 400 for an erasure hash)', role: 'admin', answer: r.Suppression, problems: [400] },
  { id: 'getComplianceSettings', method: 'get', path: '/compliance/settings', tag: 'Compliance', summary: 'Compliance settings', role: 'viewer', query: s.organizationQuery, answer: r.ComplianceSettings },
  { id: 'updateComplianceSettings', method: 'patch', path: '/compliance/settings', tag: 'Compliance', summary: 'Change compliance settings (audited)', role: 'admin', body: s.patchComplianceSettingsBody, answer: r.ComplianceSettings },
  { id: 'listComplianceAudit', method: 'get', path: '/compliance/audit', tag: 'Compliance', summary: 'The compliance audit log', role: 'viewer', query: s.auditQuery, answer: z.array(r.AuditEntry) },
  { id: 'getChannelPolicy', method: 'get', path: '/compliance/channel-policy', tag: 'Compliance', summary: 'The channel policy table', role: 'any user', query: s.channelPolicyQuery, answer: r.ChannelPolicy },
  { id: 'createIntegration', method: 'post', path: '/integrations', tag: 'Integrations', summary: 'Add an integration (secret write-only; 503 without INTEGRATION_SECRET_KEY)', role: 'admin', body: s.createIntegrationBody, status: 201, answer: r.Integration, problems: [503] },
  { id: 'listIntegrations', method: 'get', path: '/integrations', tag: 'Integrations', summary: 'List integrations', role: 'viewer', query: s.listIntegrationsQuery, answer: z.array(r.Integration) },
  { id: 'getIntegration', method: 'get', path: '/integrations/{integrationId}', tag: 'Integrations', summary: 'One integration', role: 'viewer', answer: r.Integration },
  { id: 'testIntegration', method: 'post', path: '/integrations/{integrationId}/test', tag: 'Integrations', summary: "Verify the stored secret with the provider (400 naming config.baseUrl when the provider's answer exceeds the size limit)", role: 'admin', body: s.emptyBody, answer: r.Integration, problems: [503] },
  { id: 'createMailbox', method: 'post', path: '/mailboxes', tag: 'Mailboxes', summary: 'Add a mailbox (secret write-only; 409 when the address exists in the organization; 503 without INTEGRATION_SECRET_KEY)', role: 'member', body: s.createMailboxBody, status: 201, answer: r.Mailbox, problems: [409, 503] },
  { id: 'listMailboxes', method: 'get', path: '/mailboxes', tag: 'Mailboxes', summary: 'List mailboxes', role: 'viewer', query: s.listMailboxesQuery, answer: z.array(r.Mailbox) },
  { id: 'getMailbox', method: 'get', path: '/mailboxes/{mailboxId}', tag: 'Mailboxes', summary: 'One mailbox', role: 'viewer', answer: r.Mailbox },
  { id: 'checkMailboxHealth', method: 'post', path: '/mailboxes/{mailboxId}/health', tag: 'Mailboxes', summary: "Check the deliverability of the mailbox's domain now (SPF, DKIM, DMARC, MX) and store it as its health; 400 for an IDN or invalid domain", role: 'member', body: s.emptyBody, answer: r.MailboxHealth },
  { id: 'receiveInboundMessage', method: 'post', path: '/mailboxes/{mailboxId}/inbound', tag: 'Mailboxes', summary: 'Hand over one received e-mail (raw RFC 822): stored, threaded and triaged like mail read from the IMAP inbox (202; 200 {duplicate: true} when its Message-ID is stored; 413 over INBOUND_MAX_BYTES)', role: 'member', raw: { media: 'message/rfc822', description: 'One raw RFC 822 message, headers and body, as received' }, status: 202, repeatStatus: 200, answer: r.InboundReceipt },
  { id: 'startMailboxOAuth', method: 'post', path: '/mailboxes/oauth/start', tag: 'Mailboxes', summary: 'Start connecting a Google or Microsoft mailbox: the authorization URL (code flow, PKCE S256) and its single-use state (10 minutes, bound to the caller and organization); 503 without the provider\'s OAuth client', role: 'member', body: s.oauthStartBody, answer: r.OAuthStart, problems: [503] },
  { id: 'mailboxOAuthCallback', method: 'get', path: '/mailboxes/oauth/callback', tag: 'Mailboxes', summary: 'Where the provider sends the user back (no bearer token: the state authenticates): exchanges the code, creates the mailbox of the ID token\'s address (or gives the existing one the new grant), answers a small HTML page; a reused or expired state is 400', role: 'none', query: s.oauthCallbackQuery, media: 'text/html', answer: z.string(), problems: [400, 503] },
  { id: 'pauseMailbox', method: 'post', path: '/mailboxes/{mailboxId}/pause', tag: 'Mailboxes', summary: 'Pause the mailbox by hand (paused_reason manual): it sends nothing, not even what is booked', role: 'member', body: s.pauseMailboxBody, answer: r.Mailbox },
  { id: 'resumeMailbox', method: 'post', path: '/mailboxes/{mailboxId}/resume', tag: 'Mailboxes', summary: 'Resume a paused mailbox: its held e-mails go out again (409 unless paused)', role: 'member', body: s.emptyBody, answer: r.Mailbox, problems: [409] },
  { id: 'updateMailbox', method: 'patch', path: '/mailboxes/{mailboxId}', tag: 'Mailboxes', summary: 'Change a mailbox (any field but organizationId and address; 503 for a secret without INTEGRATION_SECRET_KEY)', role: 'member', body: s.patchMailboxBody, answer: r.Mailbox, problems: [503] },
  // Campaigns and enrollments (outreach: the strategist's slice)
  { id: 'createCampaign', method: 'post', path: '/campaigns', tag: 'Campaigns', summary: "A person's campaign (status proposed, proposed_by user; 409 when the opportunity has a live proposal)", role: 'member', body: s.createCampaignBody, status: 201, answer: r.Campaign, problems: [409] },
  { id: 'listCampaigns', method: 'get', path: '/campaigns', tag: 'Campaigns', summary: 'List campaigns', role: 'viewer', query: s.listCampaignsQuery, answer: z.array(r.Campaign) },
  { id: 'getCampaign', method: 'get', path: '/campaigns/{campaignId}', tag: 'Campaigns', summary: 'One campaign with its steps and enrollment counts', role: 'viewer', answer: r.Campaign },
  { id: 'acceptCampaign', method: 'post', path: '/campaigns/{campaignId}/accept', tag: 'Campaigns', summary: 'Accept a proposal: enroll its contacts (409 when not proposed)', role: 'member', body: s.acceptCampaignBody, answer: r.CampaignAcceptance, problems: [409] },
  { id: 'patchCampaign', method: 'patch', path: '/campaigns/{campaignId}', tag: 'Campaigns', summary: 'Change name, mode, sendIn (mailbox or recipient time) or the mailbox pool (mailboxIds; 409 once archived)', role: 'member', body: s.patchCampaignBody, answer: r.Campaign, problems: [409] },
  { id: 'addCampaignContacts', method: 'post', path: '/campaigns/{campaignId}/contacts', tag: 'Campaigns', summary: 'Add contacts: a proposal suggests them, an active campaign enrolls them at once (409 otherwise)', role: 'member', body: s.addCampaignContactsBody, answer: r.CampaignAcceptance, problems: [409] },
  { id: 'campaignVariants', method: 'get', path: '/campaigns/{campaignId}/variants', tag: 'Campaigns', summary: "Results per step variant: sent, replied, positive replies, meetings and won, counted per sent message of each variant (opens are not measured)", role: 'viewer', answer: z.array(v.VariantResult) },
  { id: 'dismissCampaign', method: 'post', path: '/campaigns/{campaignId}/dismiss', tag: 'Campaigns', summary: 'Dismiss a proposal (archived; 409 when not proposed)', role: 'member', body: s.dismissCampaignBody, answer: r.Campaign, problems: [409] },
  { id: 'listEnrollments', method: 'get', path: '/enrollments', tag: 'Enrollments', summary: 'List enrollments', role: 'viewer', query: s.listEnrollmentsQuery, answer: z.array(r.Enrollment) },
  { id: 'getEnrollment', method: 'get', path: '/enrollments/{enrollmentId}', tag: 'Enrollments', summary: 'One enrollment', role: 'viewer', answer: r.Enrollment },
  { id: 'stopEnrollment', method: 'post', path: '/enrollments/{enrollmentId}/stop', tag: 'Enrollments', summary: 'Stop an enrollment; its waiting drafts are skipped (409 when it has ended)', role: 'member', body: s.stopEnrollmentBody, answer: r.Enrollment, problems: [409] },
  { id: 'askStrategist', method: 'post', path: '/opportunities/{opportunityId}/strategist', tag: 'Opportunities', summary: 'Ask the strategist for a campaign proposal (202 with the run; 409 with campaign_id while a live proposal exists)', role: 'member', body: s.emptyBody, status: 202, answer: r.StrategistRun, problems: [409] },
  { id: 'resumeEnrollment', method: 'post', path: '/enrollments/{enrollmentId}/resume', tag: 'Enrollments', summary: 'Resume a paused enrollment (409 unless paused)', role: 'member', body: s.emptyBody, answer: r.Enrollment, problems: [409] },
  // Messages and the approval inbox
  { id: 'listMessages', method: 'get', path: '/messages', tag: 'Messages', summary: 'List messages, newest first (status=pending_approval: the approval inbox)', role: 'viewer', query: s.listMessagesQuery, answer: z.array(r.Message) },
  { id: 'getMessage', method: 'get', path: '/messages/{messageId}', tag: 'Messages', summary: 'One message with its why, confidence, model and prompt version', role: 'viewer', answer: r.Message },
  { id: 'approveMessage', method: 'post', path: '/messages/{messageId}/approve', tag: 'Messages', summary: 'Approve a draft, optionally edited (original_body keeps the text before the edit); its sequence sends it in the mailbox window (409 unless pending_approval)', role: 'member', body: s.approveMessageBody, answer: r.Message, problems: [409] },
  { id: 'rejectMessage', method: 'post', path: '/messages/{messageId}/reject', tag: 'Messages', summary: 'Reject a draft; with redraft a new draft for the same step follows, else the step is skipped (409 unless pending_approval)', role: 'member', body: s.rejectMessageBody, answer: r.Message, problems: [409] },
  { id: 'completeMessage', method: 'post', path: '/messages/{messageId}/complete', tag: 'Messages', summary: 'Complete a phone or LinkedIn task (409 unless task_open)', role: 'member', body: s.completeMessageBody, answer: r.Message, problems: [409] },
  // Meetings (issue 9): outcomes, reminders, CRM sync, booking webhooks
  { id: 'recordMeeting', method: 'post', path: '/meetings', tag: 'Meetings', summary: "Record a meeting (201); a repeat of (provider, externalId) updates it (200). Stops the contact's sequences, schedules the reminder, syncs to the CRM when auto-sync is on", role: 'member', body: s.createMeetingBody, status: 201, repeatStatus: 200, answer: r.Meeting },
  { id: 'listMeetings', method: 'get', path: '/meetings', tag: 'Meetings', summary: 'List meetings', role: 'viewer', query: s.listMeetingsQuery, answer: z.array(r.Meeting) },
  { id: 'getMeeting', method: 'get', path: '/meetings/{meetingId}', tag: 'Meetings', summary: 'One meeting, with reminder_at and crm_external_id', role: 'viewer', answer: r.Meeting },
  { id: 'listThreads', method: 'get', path: '/threads', tag: 'Threads', summary: 'List threads, the last activity first', role: 'viewer', query: s.listThreadsQuery, answer: z.array(r.Thread) },
  { id: 'getThread', method: 'get', path: '/threads/{threadId}', tag: 'Threads', summary: 'One thread with its messages, both directions, oldest first', role: 'viewer', answer: r.ThreadDetail },
  { id: 'updateThread', method: 'patch', path: '/threads/{threadId}', tag: 'Threads', summary: "Open or close a thread, assign it to a member (or null)", role: 'member', body: s.patchThreadBody, answer: r.Thread },
  { id: 'replyToThread', method: 'post', path: '/threads/{threadId}/reply', tag: 'Threads', summary: "Reply as a person: an approved outbound message from the thread's mailbox with In-Reply-To and References of the last inbound message, sent through the send path (suppression, window, cap); 409 when the thread has no mailbox or the contact no address", role: 'member', body: s.threadReplyBody, status: 201, answer: r.Message, problems: [409] },
  { id: 'changeMeetingStatus', method: 'post', path: '/meetings/{meetingId}/status', tag: 'Meetings', summary: 'Set the outcome: cancelled (withdraws the reminder), completed or no_show (count for analytics); the CRM outcome follows', role: 'member', body: s.meetingStatusBody, answer: r.Meeting },
  { id: 'listTasks', method: 'get', path: '/tasks', tag: 'Meetings', summary: "Tasks for people (a meeting's reminder for the owner of the enrollment or campaign)", role: 'viewer', query: s.listTasksQuery, answer: z.array(r.Task) },
  { id: 'completeTask', method: 'post', path: '/tasks/{taskId}/complete', tag: 'Meetings', summary: 'Mark an open task done (409 when it is done or cancelled)', role: 'member', body: s.emptyBody, answer: r.Task, problems: [409] },
  { id: 'getMeetingSettings', method: 'get', path: '/settings/meetings', tag: 'Settings', summary: "The reminder's lead time", role: 'viewer', query: s.organizationQuery, answer: r.MeetingSettings },
  { id: 'updateMeetingSettings', method: 'patch', path: '/settings/meetings', tag: 'Settings', summary: "Change the reminder's lead time (reminders still to come move)", role: 'admin', body: s.patchMeetingSettingsBody, answer: r.MeetingSettings },
  { id: 'receiveCalcomWebhook', method: 'post', path: '/webhooks/calcom/{calcomIntegrationId}', tag: 'Meetings', summary: "Cal.com booking webhook: X-Cal-Signature-256 (hex HMAC-SHA256 of the raw body with the calendar integration's secret); 401 for a bad signature, 400 for a body that is not JSON", role: 'none', body: s.calcomWebhookBody, answer: r.BookingReceipt, problems: [401, 503] },
  // Events out and machine clients (issue 17)
  { id: 'createWebhookEndpoint', method: 'post', path: '/webhook-endpoints', tag: 'Webhooks', summary: 'Add a webhook endpoint; its signing secret (whsec_...) is answered here only. The url passes the outbound rule (no private networks unless allowed)', role: 'admin', body: w.createWebhookEndpointBody, status: 201, answer: w.WebhookEndpointWithSecret, problems: [503] },
  { id: 'listWebhookEndpoints', method: 'get', path: '/webhook-endpoints', tag: 'Webhooks', summary: "The organization's webhook endpoints (without secrets)", role: 'admin', query: s.organizationQuery, answer: z.array(w.WebhookEndpoint) },
  { id: 'getWebhookEndpoint', method: 'get', path: '/webhook-endpoints/{endpointId}', tag: 'Webhooks', summary: 'One webhook endpoint', role: 'admin', answer: w.WebhookEndpoint },
  { id: 'updateWebhookEndpoint', method: 'patch', path: '/webhook-endpoints/{endpointId}', tag: 'Webhooks', summary: 'Change the url, events, description or enabled (enabling again resumes its pending deliveries)', role: 'admin', body: w.patchWebhookEndpointBody, answer: w.WebhookEndpoint },
  { id: 'deleteWebhookEndpoint', method: 'delete', path: '/webhook-endpoints/{endpointId}', tag: 'Webhooks', summary: 'Remove an endpoint and its deliveries', role: 'admin', status: 204, empty: true, answer: w.WebhookEndpoint },
  { id: 'rotateWebhookSecret', method: 'post', path: '/webhook-endpoints/{endpointId}/rotate-secret', tag: 'Webhooks', summary: 'A new signing secret, answered here only; the previous one still signs for 24 hours (webhook-signature carries both)', role: 'admin', body: s.emptyBody, answer: w.WebhookEndpointWithSecret, problems: [503] },
  { id: 'testWebhookEndpoint', method: 'post', path: '/webhook-endpoints/{endpointId}/test', tag: 'Webhooks', summary: 'Send a webhook.test event to this endpoint', role: 'admin', body: s.emptyBody, status: 202, answer: w.WebhookTestReceipt },
  { id: 'listWebhookDeliveries', method: 'get', path: '/webhook-endpoints/{endpointId}/deliveries', tag: 'Webhooks', summary: "The endpoint's deliveries with their attempts, newest first", role: 'admin', query: w.listDeliveriesQuery, answer: z.array(w.WebhookDelivery) },
  { id: 'retryWebhookDelivery', method: 'post', path: '/webhook-deliveries/{deliveryId}/retry', tag: 'Webhooks', summary: 'Send a delivery again: pending, due now, with a fresh attempt budget', role: 'admin', body: s.emptyBody, answer: w.WebhookDelivery },
  { id: 'createApiKey', method: 'post', path: '/api-keys', tag: 'API keys', summary: 'Create a key (viewer, member or admin; not above your own role); the key (osk_...) is answered here only. A key cannot create keys', role: 'admin', body: w.createApiKeyBody, status: 201, answer: w.ApiKeyWithSecret },
  { id: 'listApiKeys', method: 'get', path: '/api-keys', tag: 'API keys', summary: "The organization's live keys (without the key)", role: 'admin', query: s.organizationQuery, answer: z.array(w.ApiKey) },
  { id: 'deleteApiKey', method: 'delete', path: '/api-keys/{apiKeyId}', tag: 'API keys', summary: 'Revoke a key: refused (401) from then on', role: 'admin', status: 204, empty: true, answer: w.ApiKey },
  { id: 'receiveCalendlyWebhook', method: 'post', path: '/webhooks/calendly/{calendlyIntegrationId}', tag: 'Meetings', summary: 'Calendly booking webhook: Calendly-Webhook-Signature t=...,v1=... (HMAC-SHA256 of "t.body"); 401 for a bad signature or one older than 3 minutes, 400 for a body that is not JSON', role: 'none', body: s.calendlyWebhookBody, answer: r.BookingReceipt, problems: [401, 503] },
];

/** The named problem responses (components/responses), by status. */
const PROBLEM_RESPONSES: Record<ProblemStatus, { name: string; description: string; headers?: Record<string, unknown> }> = {
  400: { name: 'BadRequest', description: 'VALIDATION_FAILED (with errors[]) or MALFORMED_JSON' },
  401: {
    name: 'Unauthorized',
    description: 'UNAUTHENTICATED: no bearer token, or one that is invalid or expired',
    headers: { 'WWW-Authenticate': { description: 'Bearer', schema: { type: 'string' } } },
  },
  403: { name: 'Forbidden', description: 'FORBIDDEN: a member of the organization whose role is too low' },
  404: { name: 'NotFound', description: 'NOT_FOUND: absent or not visible to the caller (never says which)' },
  409: { name: 'Conflict', description: 'CONFLICT: the request conflicts with the current state (the problem names the existing record); IDEMPOTENCY_IN_PROGRESS: a request with this Idempotency-Key is still running' },
  413: { name: 'PayloadTooLarge', description: 'PAYLOAD_TOO_LARGE: the body exceeds BODY_LIMIT (a raw e-mail: INBOUND_MAX_BYTES)' },
  422: { name: 'UnprocessableContent', description: 'IDEMPOTENCY_KEY_REUSED: this Idempotency-Key was used for another request within 24 hours' },
  415: { name: 'UnsupportedMediaType', description: 'UNSUPPORTED_MEDIA_TYPE: bodies must be application/json (a raw e-mail: message/rfc822)' },
  429: {
    name: 'TooManyRequests',
    description: 'RATE_LIMITED: too many requests for this user or organization',
    headers: { 'Retry-After': { description: 'Seconds until a request will be accepted', schema: { type: 'integer' } } },
  },
  500: { name: 'InternalError', description: 'INTERNAL: an unexpected error; request_id finds it in the logs' },
  503: { name: 'ServiceUnavailable', description: 'SERVICE_UNAVAILABLE: a dependency or a required setting is missing' },
};

/** The problems an operation can answer: from its token, role, inputs and body, plus its own. */
export function problemsOf(op: Operation): ProblemStatus[] {
  const out = new Set<ProblemStatus>(op.problems ?? []);
  // GET /metrics: a wrong token is 401; not served without METRICS_TOKEN unless METRICS_PUBLIC=true (404).
  if (op.role === 'metrics token') [401, 404, 500].forEach((st) => out.add(st as ProblemStatus));
  if (op.role === 'metrics token') return [...out].sort();
  if (op.role !== 'none') [401, 429, 500].forEach((st) => out.add(st as ProblemStatus));
  // The public routes have a per-address limit (RATE_LIMIT_PUBLIC_PER_MINUTE).
  if (op.role === 'none' && /^\/(webhooks|u)\//.test(op.path)) out.add(429);
  if (op.body || op.form || op.query) out.add(400);
  if (op.body || op.form || op.raw) [413, 415].forEach((st) => out.add(st as ProblemStatus));
  if (op.raw) out.add(400);
  if (op.role === 'member' || op.role === 'admin') out.add(403);
  if (idempotent(op)) [409, 422].forEach((st) => out.add(st as ProblemStatus));
  // An API key may not create organizations (apps/api/auth.ts refuseForApiKeys).
  if (op.role === 'any user' && op.method === 'post') out.add(403);
  // Every record belongs to an organization the caller may not be a member of.
  if (op.path.includes('{') || ['viewer', 'member', 'admin'].includes(op.role)) out.add(404);
  return [...out].sort();
}

/** Every authenticated POST takes an Idempotency-Key (apps/api/idempotency.ts; a raw body, CSV or RFC 822, is compared byte for byte). */
const idempotent = (op: Operation) => op.method === 'post' && op.role !== 'none';

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: 'Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

const ROLE_TEXT: Record<Operation['role'], string> = {
  none: 'No token needed.',
  'any user': 'Any authenticated user.',
  viewer: 'Any member of the organization (viewer or above).',
  member: 'The member role or above in the organization.',
  admin: 'The admin or owner role in the organization.',
  'metrics token': 'The METRICS_TOKEN as a bearer token when it is set; without it, not served (404) unless METRICS_PUBLIC=true opens it to anyone.',
};

type Json = Record<string, unknown>;

/**
 * Drops what JSON Schema output of zod adds and a reader does not need: $schema and $id on each
 * component, the regular expressions behind `format: uuid` and `format: date-time`, and the
 * ±2^53 bounds of every integer. With `open`, objects stop saying additionalProperties: false:
 * a client must accept fields added later (the tests still refuse undocumented ones).
 */
function tidy(node: unknown, open: boolean): unknown {
  if (Array.isArray(node)) return node.map((n) => tidy(n, open));
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (k === '$schema' || k === '$id') continue;
    out[k] = tidy(v, open);
  }
  if (out.format === 'uuid' || out.format === 'date-time') delete out.pattern;
  if (out.type === 'integer' && out.minimum === Number.MIN_SAFE_INTEGER && out.maximum === Number.MAX_SAFE_INTEGER) {
    delete out.minimum;
    delete out.maximum;
  }
  if (open && out.additionalProperties === false) delete out.additionalProperties;
  return out;
}

function jsonSchema(schema: z.ZodType): Json {
  return tidy(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }), false) as Json;
}

function queryParameters(schema: z.ZodType) {
  const js = jsonSchema(schema) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(js.properties ?? {}).map(([name, sch]) => ({ name, in: 'query', required: js.required?.includes(name) ?? false, schema: sch }));
}

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

/** An answer is a registered record, or an array of one; anything else is a mistake in OPERATIONS. */
function answerSchema(op: Operation): Json {
  if (op.media && op.media !== 'application/json') return { type: 'string' };
  const named = r.records.get(op.answer)?.id;
  if (named) return ref(named);
  if (op.answer instanceof z.ZodArray) {
    const item = r.records.get(op.answer.element as z.ZodType)?.id;
    if (item) return { type: 'array', items: ref(item) };
  }
  throw new Error(`${op.id}: its answer must be a schema registered in apps/api/responses.ts (or an array of one)`);
}

function componentSchemas(): Record<string, Json> {
  const { schemas } = z.toJSONSchema(r.records, { io: 'output', uri: (id) => `#/components/schemas/${id}` }) as { schemas: Record<string, Json> };
  return Object.fromEntries(Object.entries(schemas).map(([id, sch]) => [id, { ...(tidy(sch, true) as Json), description: r.RECORD_DESCRIPTIONS.get(id) }]));
}

function operationObject(op: Operation): Json {
  const pathParams = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: op.pathSchemas?.[m[1]!] ?? { type: 'string', format: 'uuid' } }));
  const success = op.empty ? { description: op.summary } : { description: op.summary, content: { [op.media ?? 'application/json']: { schema: answerSchema(op) } } };
  const responses: Json = { [String(op.status ?? 200)]: success };
  if (op.repeatStatus) responses[String(op.repeatStatus)] = { ...success, description: 'The existing record (a repeat)' };
  for (const st of problemsOf(op)) responses[String(st)] = { $ref: `#/components/responses/${PROBLEM_RESPONSES[st].name}` };
  return {
    operationId: op.id,
    tags: [op.tag],
    summary: op.summary,
    description: ROLE_TEXT[op.role],
    security: op.role === 'none' ? [] : op.role === 'metrics token' ? [{ metricsToken: [] }] : [{ bearer: [] }],
    ...(pathParams.length || op.query || idempotent(op) ? { parameters: [...pathParams, ...(op.query ? queryParameters(op.query) : []), ...(idempotent(op) ? [IDEMPOTENCY_KEY] : [])] } : {}),
    ...(op.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(op.body) } } } } : {}),
    ...(op.form ? { requestBody: { required: false, content: { 'application/x-www-form-urlencoded': { schema: jsonSchema(op.form) } } } } : {}),
    ...(op.raw ? { requestBody: { required: true, description: op.raw.description, content: { [op.raw.media]: { schema: { type: 'string', format: 'binary' } } } } } : {}),
    responses,
  };
}

/**
 * The events sent to webhook endpoints (OpenAPI 3.1 `webhooks`): one POST per event type with its
 * body `{type, timestamp, organization_id, data}`, `data` the record as the API answers it, from
 * WEBHOOK_EVENT_DATA (apps/api/routes/webhook-endpoints.schemas.ts), and the Standard Webhooks headers.
 */
function webhooksSection(): Record<string, Json> {
  const header = (name: string, description: string) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } });
  return Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => {
      const { schema, summary } = w.WEBHOOK_EVENT_DATA[type];
      const dataId = r.records.get(schema)?.id;
      if (!dataId) throw new Error(`webhook ${type}: its data schema must be a registered record`);
      return [
        type,
        {
          post: {
            operationId: `${type.replace(/[._](\w)/g, (_m, c: string) => c.toUpperCase())}Webhook`,
            tags: ['Webhooks'],
            summary,
            description: `Sent to every enabled endpoint subscribed to \`${type}\` (or \`*\`). Verify it with any Standard Webhooks library; answer 2xx within 10 s, else it is retried with backoff for over 24 hours; 410 Gone disables the endpoint.`,
            security: [],
            parameters: [
              header('webhook-id', 'The event id: the same on every attempt (deduplicate on it)'),
              header('webhook-timestamp', 'Unix seconds of this attempt'),
              header('webhook-signature', 'Space-separated `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`; two during a rotation'),
            ],
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['type', 'timestamp', 'organization_id', 'data'],
                    properties: {
                      type: { type: 'string', const: type },
                      timestamp: { type: 'string', format: 'date-time' },
                      organization_id: { type: 'string', format: 'uuid' },
                      data: ref(dataId),
                    },
                  },
                },
              },
            },
            responses: {
              '200': { description: 'Received (any 2xx)' },
              '410': { description: 'Gone: the endpoint is disabled and not called again' },
            },
          },
        },
      ];
    }),
  );
}

let cached: Json | undefined;

export function openApiDocument(): Json {
  if (cached) return cached;
  const paths: Record<string, Json> = {};
  for (const op of OPERATIONS) (paths[op.path] ??= {})[op.method] = operationObject(op);
  const used = new Set(OPERATIONS.flatMap(problemsOf));
  cached = {
    openapi: '3.1.0',
    info: {
      title: 'Outreach Signal Service',
      version: '0.1.0',
      description:
        'A multi-tenant, signal-driven outbound-outreach backend. Requests are camelCase, answers snake_case; errors are ' +
        'RFC 9457 application/problem+json with a machine-readable `code`. Lists are newest first with keyset pagination ' +
        '(`limit`, `before`). See docs/api.md for the decisions behind each endpoint.',
      license: { name: 'Proprietary (UNLICENSED)', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: '/', description: 'The server that serves this document' }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    webhooks: webhooksSection(),
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An access token of the identity provider (JWKS or HS256), or an API key (osk_...)' },
        metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN, for GET /metrics only' },
      },
      schemas: componentSchemas(),
      responses: Object.fromEntries(
        [...used].sort().map((st) => {
          const p = PROBLEM_RESPONSES[st];
          return [p.name, { description: p.description, ...(p.headers ? { headers: p.headers } : {}), content: { 'application/problem+json': { schema: ref('Problem') } } }];
        }),
      ),
    },
  };
  return cached;
}
