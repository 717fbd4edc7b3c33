/**
 * Generated from the OpenAPI document (apps/api/openapi.ts, served at GET /openapi.json) by
 * `npm run openapi:types` with openapi-typescript. Do not edit: regenerate after changing an
 * endpoint; test/api/openapi.test.ts fails while this file is stale.
 */
export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness
         * @description No token needed.
         */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness: PostgreSQL and Temporal reachable
         * @description No token needed.
         */
        get: operations["getReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics (text exposition format)
         * @description The METRICS_TOKEN as a bearer token when it is set; without it, not served (404) unless METRICS_PUBLIC=true opens it to anyone.
         */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This document
         * @description No token needed.
         */
        get: operations["getOpenApiDocument"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Interactive API reference (HTML)
         * @description No token needed.
         */
        get: operations["getApiReference"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/u/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The unsubscribe page of an e-mail: a button that POSTs (changes nothing; 404 for an unknown link)
         * @description No token needed.
         */
        get: operations["showUnsubscribePage"];
        put?: never;
        /**
         * One-click unsubscribe: suppresses the address, skips its pending messages, stops its enrollments (a repeat changes nothing)
         * @description No token needed.
         */
        post: operations["unsubscribeRecipient"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/organizations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's organizations
         * @description Any authenticated user.
         */
        get: operations["listOrganizations"];
        put?: never;
        /**
         * Create an organization; the caller becomes owner
         * @description Any authenticated user.
         */
        post: operations["createOrganization"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/organizations/{organizationId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One organization
         * @description Any member of the organization (viewer or above).
         */
        get: operations["getOrganization"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/organizations/{organizationId}/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Add a member (201) or change a role (200)
         * @description The admin or owner role in the organization.
         */
        post: operations["addOrganizationMember"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sources": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List sources
         * @description Any member of the organization (viewer or above).
         */
        get: operations["listSources"];
        put?: never;
        /**
         * Create a signal source
         * @description The member role or above in the organization.
         */
        post: operations["createSource"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sources/{sourceId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One source
         * @description Any member of the organization (viewer or above).
         */
        get: operations["getSource"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change a source (schedule syncs its Temporal Schedule)
         * @description The member role or above in the organization.
         */
        patch: operations["updateSource"];
        trace?: never;
    };
    "/sources/{sourceId}/run": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start ingestSourceWorkflow (409 while the source is disabled)
         * @description The member role or above in the organization.
         */
        post: operations["runSource"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/signals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List signals, newest first
         * @description Any member of the organization (viewer or above).
         */
        get: operations["listSignals"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/signals/{signalId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A signal with its classification, score and breakdown
         * @description Any member of the organization (viewer or above).
         */
        get: operations["getSignal"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/signals/{signalId}/ignore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Ignore a signal
         * @description The member role or above in the organization.
         */
        post: operations["ignoreSignal"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/signals/{signalId}/reprocess": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Run processSignalWorkflow from a stage (409 while a run is in progress)
         * @description The member role or above in the organization.
         */
        post: operations["reprocessSignal"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/opportunities": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List opportunities
         * @description Any member of the organization (viewer or above).
         */
        get: operations["listOpportunities"];
        put?: never;
        /**
         * Create an opportunity from a signal or manually (409 when the project has an open one)
         * @description The member role or above in the organization.
         */
        post: operations["createOpportunity"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/opportunities/{opportunityId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One opportunity
         * @description Any member of the organization (viewer or above).
         */
        get: operations["getOpportunity"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/opportunities/{opportunityId}/outcome": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Record won, lost, or reopen (409 when the project has another open one)
         * @description The member role or above in the organization.
         */
        post: operations["recordOpportunityOutcome"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/settings/scoring": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The active scoring config and rules
         * @description Any member of the organization (viewer or above).
         */
        get: operations["getScoringSettings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * New scoring config version (thresholds, home, rule weights and caps)
         * @description The admin or owner role in the organization.
         */
        patch: operations["updateScoringSettings"];
        trace?: never;
    };
    "/settings/scoring/suggestions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Rule weights the outcomes suggest, with the evidence (changes nothing)
         * @description Any member of the organization (viewer or above).
         */
        get: operations["getScoringSuggestions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/analytics/outreach": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Attribution, deliverability and agent quality over 7, 30, 90 or 180 days
         * @description Any member of the organization (viewer or above).
         */
        get: operations["getOutreachAnalytics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/settings/industry-profile": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The industry profile
         * @description Any member of the organization (viewer or above).
         */
        get: operations["getIndustryProfile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change the industry profile
         * @description The admin or owner role in the organization.
         */
        patch: operations["updateIndustryProfile"];
        trace?: never;
    };
    "/companies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List companies
         * @description Any member of the organization (viewer or above).
         */
        get: operations["listCompanies"];
        put?: never;
        /**
         * Create a company (409 when its KvK number exists)
         * @description The member role or above in the organization.
         */
        post: operations["createCompany"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/companies/{companyId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One company
         * @description Any member of the organization (viewer or above).
         */
        get: operations["getCompany"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change name, address, website, phone, country, locale or time zone (timezone: IANA, the recipient time of its contacts); null clears an optional field
         * @description The member role or above in the organization.
         */
        patch: operations["patchCompany"];
        trace?: never;
    };
    "/companies/{companyId}/enrich": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start contact enrichment (answers the company, enrichment_status running)
         * @description The member role or above in the organization.
         */
        post: operations["enrichCompany"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/contacts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List contacts
         * @description Any member of the organization (viewer or above).
         */
        get: operations["listContacts"];
        put?: never;
        /**
         * Create a contact (409 when its e-mail address exists)
         * @description The member role or above in the organization.
         */
        post: operations["createContact"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/contacts/{contactId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One contact with its lawful basis
         * @description Any member of the organization (viewer or above).
         */
        get: operations["getContact"];
        put?: never;
        post?: never;
        /**
         * Erase a contact (GDPR Art. 17)
         * @description The member role or above in the organization.
         */
        delete: operations["eraseContact"];
        options?: never;
        head?: never;
        /**
         * Change name, title, phone, LinkedIn profile or time zone (timezone: IANA, the recipient time); null clears an optional field; 409 for an erased contact
         * @description The member role or above in the organization.
         */
        patch: operations["patchContact"];
        trace?: never;
    };
    "/imports": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List contact imports
         * @description Any member of the organization (viewer or above).
         */
        get: operations["listImports"];
        put?: never;
        /**
         * Import contacts from a CSV file (text/csv: UTF-8 with or without a BOM, UTF-16 with a BOM, or Windows-1252; header row, `,` or `;`, 20 MB and 200,000 rows at most; 408 when the upload stalls past IMPORT_IDLE_TIMEOUT_MS or takes over 10 minutes in all; 429 while four uploads of the organization are being received): a durable run in chunks, every row through the checks of POST /contacts and POST /companies (202, running)
         * @description The member role or above in the organization.
         */
        post: operations["createImport"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/imports/{importId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One contact import and its progress
         * @description Any member of the organization (viewer or above).
         */
        get: operations["getImport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/contacts/{contactId}/channels": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The compliance gate for a contact
         * @description Any member of the organization (viewer or above).
         */
        get: operations["getContactChannels"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/contacts/{contactId}/lawful-basis": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Record the lawful basis (409 for an erased contact)
         * @description The member role or above in the organization.
         */
        put: operations["recordLawfulBasis"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/compliance/suppressions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List suppressions
         * @description Any member of the organization (viewer or above).
         */
        get: operations["listSuppressions"];
        put?: never;
        /**
         * Add a suppression (201; 200 with the existing one on a repeat)
         * @description The member role or above in the organization.
         */
        post: operations["addSuppression"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/compliance/suppressions/{suppressionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a suppression (audited; 400 for an erasure hash)
         * @description The admin or owner role in the organization.
         */
        delete: operations["removeSuppression"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/compliance/settings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Compliance settings
         * @description Any member of the organization (viewer or above).
         */
        get: operations["getComplianceSettings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change compliance settings (audited)
         * @description The admin or owner role in the organization.
         */
        patch: operations["updateComplianceSettings"];
        trace?: never;
    };
    "/compliance/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The compliance audit log
         * @description Any member of the organization (viewer or above).
         */
        get: operations["listComplianceAudit"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/compliance/channel-policy": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The channel policy table
         * @description Any authenticated user.
         */
        get: operations["getChannelPolicy"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/integrations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List integrations
         * @description Any member of the organization (viewer or above).
         */
        get: operations["listIntegrations"];
        put?: never;
        /**
         * Add an integration (secret write-only; 503 without INTEGRATION_SECRET_KEY)
         * @description The admin or owner role in the organization.
         */
        post: operations["createIntegration"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/integrations/{integrationId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One integration
         * @description Any member of the organization (viewer or above).
         */
        get: operations["getIntegration"];
        put?: never;
        post?: never;
        /**
         * Remove an integration and its sealed secret: it leaves the enrichment order and new work does not use it (a call under way ends first); audited
         * @description The admin or owner role in the organization.
         */
        delete: operations["deleteIntegration"];
        options?: never;
        head?: never;
        /**
         * Change the config, mapping or secret (a rotated key; a changed URL needs the secret again); a new config or secret is untested (disconnected) until tested again; audited
         * @description The admin or owner role in the organization.
         */
        patch: operations["updateIntegration"];
        trace?: never;
    };
    "/integrations/{integrationId}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Verify the stored secret with the provider (400 naming config.baseUrl when the provider's answer exceeds the size limit; 409 when the integration was changed during the check)
         * @description The admin or owner role in the organization.
         */
        post: operations["testIntegration"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mailboxes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List mailboxes
         * @description Any member of the organization (viewer or above).
         */
        get: operations["listMailboxes"];
        put?: never;
        /**
         * Add a mailbox (secret write-only; 409 when the address exists in the organization; 503 without INTEGRATION_SECRET_KEY)
         * @description The member role or above in the organization.
         */
        post: operations["createMailbox"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mailboxes/{mailboxId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One mailbox
         * @description Any member of the organization (viewer or above).
         */
        get: operations["getMailbox"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change a mailbox (any field but organizationId and address; 503 for a secret without INTEGRATION_SECRET_KEY)
         * @description The member role or above in the organization.
         */
        patch: operations["updateMailbox"];
        trace?: never;
    };
    "/mailboxes/{mailboxId}/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Check the deliverability of the mailbox's domain now (SPF, DKIM, DMARC, MX) and store it as its health; 400 for an IDN or invalid domain
         * @description The member role or above in the organization.
         */
        post: operations["checkMailboxHealth"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mailboxes/{mailboxId}/inbound": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Hand over one received e-mail (raw RFC 822): stored, threaded and triaged like mail read from the IMAP inbox (202; 200 {duplicate: true} when its Message-ID is stored; 413 over INBOUND_MAX_BYTES)
         * @description The member role or above in the organization.
         */
        post: operations["receiveInboundMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mailboxes/oauth/start": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start connecting a Google or Microsoft mailbox: the authorization URL (code flow, PKCE S256, always with the provider's account screen; login_hint when `address` names the mailbox, which must be of a verified domain) and its single-use state (10 minutes, bound to the caller and organization); 503 without the provider's OAuth client
         * @description The member role or above in the organization.
         */
        post: operations["startMailboxOAuth"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mailboxes/oauth/callback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Where the provider sends the user back (no bearer token: the state authenticates): exchanges the code, creates the mailbox of the ID token's verified address (or gives the existing one the new grant and the provider's servers), answers a small HTML page; a reused or expired state is 400
         * @description No token needed.
         */
        get: operations["mailboxOAuthCallback"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mailboxes/{mailboxId}/pause": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Pause the mailbox by hand (paused_reason manual): it sends nothing, not even what is booked
         * @description The member role or above in the organization.
         */
        post: operations["pauseMailbox"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mailboxes/{mailboxId}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Resume a paused mailbox: its held e-mails go out again (409 unless paused)
         * @description The member role or above in the organization.
         */
        post: operations["resumeMailbox"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/campaigns": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List campaigns
         * @description Any member of the organization (viewer or above).
         */
        get: operations["listCampaigns"];
        put?: never;
        /**
         * A person's campaign (status proposed, proposed_by user; 409 when the opportunity has a live proposal)
         * @description The member role or above in the organization.
         */
        post: operations["createCampaign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/campaigns/{campaignId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One campaign with its steps and enrollment counts
         * @description Any member of the organization (viewer or above).
         */
        get: operations["getCampaign"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change name, mode, sendIn (mailbox or recipient time) or the mailbox pool (mailboxIds; 409 once archived)
         * @description The member role or above in the organization.
         */
        patch: operations["patchCampaign"];
        trace?: never;
    };
    "/campaigns/{campaignId}/accept": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Accept a proposal: enroll its contacts (409 when not proposed)
         * @description The member role or above in the organization.
         */
        post: operations["acceptCampaign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/campaigns/{campaignId}/contacts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Add contacts: a proposal suggests them, an active campaign enrolls them at once (409 otherwise)
         * @description The member role or above in the organization.
         */
        post: operations["addCampaignContacts"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/campaigns/{campaignId}/variants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Results per step variant: sent, replied, positive replies, meetings and won, counted per sent message of each variant (opens are not measured)
         * @description Any member of the organization (viewer or above).
         */
        get: operations["campaignVariants"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/campaigns/{campaignId}/dismiss": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Dismiss a proposal (archived; 409 when not proposed)
         * @description The member role or above in the organization.
         */
        post: operations["dismissCampaign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/enrollments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List enrollments
         * @description Any member of the organization (viewer or above).
         */
        get: operations["listEnrollments"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/enrollments/{enrollmentId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One enrollment
         * @description Any member of the organization (viewer or above).
         */
        get: operations["getEnrollment"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/enrollments/{enrollmentId}/stop": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Stop an enrollment; its waiting drafts are skipped (409 when it has ended)
         * @description The member role or above in the organization.
         */
        post: operations["stopEnrollment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/opportunities/{opportunityId}/strategist": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Ask the strategist for a campaign proposal (202 with the run; 409 with campaign_id while a live proposal exists)
         * @description The member role or above in the organization.
         */
        post: operations["askStrategist"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/enrollments/{enrollmentId}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Resume a paused enrollment (409 unless paused)
         * @description The member role or above in the organization.
         */
        post: operations["resumeEnrollment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List messages, newest first (status=pending_approval: the approval inbox)
         * @description Any member of the organization (viewer or above).
         */
        get: operations["listMessages"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/messages/{messageId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One message with its why, confidence, model and prompt version
         * @description Any member of the organization (viewer or above).
         */
        get: operations["getMessage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Edit a draft waiting for approval, which stays waiting (original_body keeps the text as first written); 409 unless pending_approval
         * @description The member role or above in the organization.
         */
        patch: operations["editMessage"];
        trace?: never;
    };
    "/messages/{messageId}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve a draft, optionally edited (original_body keeps the text before the edit); its sequence sends it in the mailbox window (409 unless pending_approval)
         * @description The member role or above in the organization.
         */
        post: operations["approveMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/messages/{messageId}/reject": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reject a draft; with redraft a new draft for the same step follows, else the step is skipped (409 unless pending_approval)
         * @description The member role or above in the organization.
         */
        post: operations["rejectMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/messages/{messageId}/complete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Complete a phone or LinkedIn task (409 unless task_open)
         * @description The member role or above in the organization.
         */
        post: operations["completeMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/meetings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List meetings
         * @description Any member of the organization (viewer or above).
         */
        get: operations["listMeetings"];
        put?: never;
        /**
         * Record a meeting (201); a repeat of (provider, externalId) updates it (200). Stops the contact's sequences, schedules the reminder, syncs to the CRM when auto-sync is on
         * @description The member role or above in the organization.
         */
        post: operations["recordMeeting"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/meetings/{meetingId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One meeting, with reminder_at and crm_external_id
         * @description Any member of the organization (viewer or above).
         */
        get: operations["getMeeting"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/threads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List threads, the last activity first
         * @description Any member of the organization (viewer or above).
         */
        get: operations["listThreads"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/threads/{threadId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One thread with its messages, both directions, oldest first
         * @description Any member of the organization (viewer or above).
         */
        get: operations["getThread"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Open or close a thread, assign it to a member (or null)
         * @description The member role or above in the organization.
         */
        patch: operations["updateThread"];
        trace?: never;
    };
    "/threads/{threadId}/reply": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reply as a person: an approved outbound message from the thread's mailbox with In-Reply-To and References of the last inbound message, sent through the send path (suppression, window, cap); 409 when the thread has no mailbox or the contact no address
         * @description The member role or above in the organization.
         */
        post: operations["replyToThread"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/meetings/{meetingId}/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Set the outcome: cancelled (withdraws the reminder), completed or no_show (count for analytics); the CRM outcome follows
         * @description The member role or above in the organization.
         */
        post: operations["changeMeetingStatus"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tasks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Tasks for people (a meeting's reminder for the owner of the enrollment or campaign)
         * @description Any member of the organization (viewer or above).
         */
        get: operations["listTasks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tasks/{taskId}/complete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mark an open task done (409 when it is done or cancelled)
         * @description The member role or above in the organization.
         */
        post: operations["completeTask"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/settings/meetings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The reminder's lead time
         * @description Any member of the organization (viewer or above).
         */
        get: operations["getMeetingSettings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change the reminder's lead time (reminders still to come move)
         * @description The admin or owner role in the organization.
         */
        patch: operations["updateMeetingSettings"];
        trace?: never;
    };
    "/webhooks/calcom/{calcomIntegrationId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cal.com booking webhook: X-Cal-Signature-256 (hex HMAC-SHA256 of the raw body with the calendar integration's secret); 401 for a bad signature, 400 for a body that is not JSON
         * @description No token needed.
         */
        post: operations["receiveCalcomWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhook-endpoints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The organization's webhook endpoints (without secrets)
         * @description The admin or owner role in the organization.
         */
        get: operations["listWebhookEndpoints"];
        put?: never;
        /**
         * Add a webhook endpoint; its signing secret (whsec_...) is answered here only. The url passes the outbound rule (no private networks unless allowed)
         * @description The admin or owner role in the organization.
         */
        post: operations["createWebhookEndpoint"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhook-endpoints/{endpointId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One webhook endpoint
         * @description The admin or owner role in the organization.
         */
        get: operations["getWebhookEndpoint"];
        put?: never;
        post?: never;
        /**
         * Remove an endpoint and its deliveries
         * @description The admin or owner role in the organization.
         */
        delete: operations["deleteWebhookEndpoint"];
        options?: never;
        head?: never;
        /**
         * Change the url, events, description or enabled (enabling again resumes its pending deliveries)
         * @description The admin or owner role in the organization.
         */
        patch: operations["updateWebhookEndpoint"];
        trace?: never;
    };
    "/webhook-endpoints/{endpointId}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A new signing secret, answered here only; the previous one still signs for 24 hours (webhook-signature carries both)
         * @description The admin or owner role in the organization.
         */
        post: operations["rotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhook-endpoints/{endpointId}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a webhook.test event to this endpoint
         * @description The admin or owner role in the organization.
         */
        post: operations["testWebhookEndpoint"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhook-endpoints/{endpointId}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The endpoint's deliveries with their attempts, newest first
         * @description The admin or owner role in the organization.
         */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhook-deliveries/{deliveryId}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a delivery again: pending, due now, with a fresh attempt budget
         * @description The admin or owner role in the organization.
         */
        post: operations["retryWebhookDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The organization's live keys (without the key)
         * @description The admin or owner role in the organization.
         */
        get: operations["listApiKeys"];
        put?: never;
        /**
         * Create a key (viewer, member or admin; not above your own role); the key (osk_...) is answered here only. A key cannot create keys
         * @description The admin or owner role in the organization.
         */
        post: operations["createApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api-keys/{apiKeyId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke a key: refused (401) from then on
         * @description The admin or owner role in the organization.
         */
        delete: operations["deleteApiKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/domains": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The organization's mail domains, pending and verified
         * @description Any member of the organization (viewer or above).
         */
        get: operations["listDomains"];
        put?: never;
        /**
         * Add a mail domain to prove (pending): publish the TXT record `verification.value` at `verification.name`, then verify it; 409 when the organization has it; OAuth mailboxes connect only for verified domains
         * @description The admin or owner role in the organization.
         */
        post: operations["createDomain"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/domains/{domainId}/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Look the TXT record up now: the domain, verified, when one record at `verification.name` is exactly `verification.value`; else 409 naming what was found (nothing changes)
         * @description The admin or owner role in the organization.
         */
        post: operations["verifyDomain"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/domains/{domainId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a domain: mailboxes already connected stay, no new OAuth connection for it
         * @description The admin or owner role in the organization.
         */
        delete: operations["deleteDomain"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/domains/{domainId}/volume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * E-mails sent from the domain's organizational domain per UTC day and receiving provider over the last `days` (default 7, at most 90), with the bulk-sender thresholds: above 4,000 a day to one provider the `domain.bulk_threshold_near` event, at 5,000 an unaligned domain waits for the next UTC day
         * @description Any member of the organization (viewer or above).
         */
        get: operations["domainVolume"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/calendly/{calendlyIntegrationId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Calendly booking webhook: Calendly-Webhook-Signature t=...,v1=... (HMAC-SHA256 of "t.body"); 401 for a bad signature or one older than 3 minutes, 400 for a body that is not JSON
         * @description No token needed.
         */
        post: operations["receiveCalendlyWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/settings/enrichment": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The enrichment waterfall's order of providers and where it stops
         * @description Any member of the organization (viewer or above).
         */
        get: operations["getEnrichmentSettings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Set the order of the organization's enrichment integrations (tried after the company's website) and where the waterfall stops; audited. 400 for an id that is not one of the organization's enrichment integrations
         * @description The admin or owner role in the organization.
         */
        patch: operations["updateEnrichmentSettings"];
        trace?: never;
    };
    "/settings/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What AI assistants may do through the MCP tools
         * @description Any member of the organization (viewer or above).
         */
        get: operations["getMcpSettings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Let AI assistants accept proposals and approve drafts, or not (default); audited
         * @description The admin or owner role in the organization.
         */
        patch: operations["updateMcpSettings"];
        trace?: never;
    };
    "/companies/{companyId}/enrichment-runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The company's enrichment runs, newest first, each with its steps ({provider, found, verified, cost_units, error})
         * @description Any member of the organization (viewer or above).
         */
        get: operations["listEnrichmentRuns"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/contacts/{contactId}/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Check the contact’s e-mail address again (answers the contact; email_status and email_check change when the check ends); 409 for an erased contact or one without an address
         * @description The member role or above in the organization.
         */
        post: operations["verifyContact"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/contacts/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Check the addresses of the organization’s contacts (of a company, of a status) in a durable run
         * @description The member role or above in the organization.
         */
        post: operations["verifyContacts"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The Model Context Protocol (streamable HTTP, stateless): initialize, tools/list, tools/call, resources/read. Every tool call is the API request it names, made as this caller (its role, its organizations); a notification is answered 202
         * @description Any authenticated user.
         */
        post: operations["postMcp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "opportunity.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * An opportunity was opened (from a ready signal or by hand)
         * @description Sent to every enabled endpoint subscribed to `opportunity.created` (or `*`). Verify it with any Standard Webhooks library; answer 2xx within 10 s, else it is retried with backoff for over 24 hours; 410 Gone disables the endpoint.
         */
        post: operations["opportunityCreatedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "campaign.proposed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A campaign was proposed (by the strategist or a person)
         * @description Sent to every enabled endpoint subscribed to `campaign.proposed` (or `*`). Verify it with any Standard Webhooks library; answer 2xx within 10 s, else it is retried with backoff for over 24 hours; 410 Gone disables the endpoint.
         */
        post: operations["campaignProposedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "message.pending_approval": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A draft was stored pending approval (a sequence step, a drafted answer to a reply, a meeting reminder)
         * @description Sent to every enabled endpoint subscribed to `message.pending_approval` (or `*`). Verify it with any Standard Webhooks library; answer 2xx within 10 s, else it is retried with backoff for over 24 hours; 410 Gone disables the endpoint.
         */
        post: operations["messagePendingApprovalWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "message.sent": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * An e-mail was sent
         * @description Sent to every enabled endpoint subscribed to `message.sent` (or `*`). Verify it with any Standard Webhooks library; answer 2xx within 10 s, else it is retried with backoff for over 24 hours; 410 Gone disables the endpoint.
         */
        post: operations["messageSentWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "message.failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * An e-mail failed: refused for good, bounced after it was sent, or its outcome unknown after a crash (needs_check)
         * @description Sent to every enabled endpoint subscribed to `message.failed` (or `*`). Verify it with any Standard Webhooks library; answer 2xx within 10 s, else it is retried with backoff for over 24 hours; 410 Gone disables the endpoint.
         */
        post: operations["messageFailedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "reply.received": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * An inbound message was stored, with its intent
         * @description Sent to every enabled endpoint subscribed to `reply.received` (or `*`). Verify it with any Standard Webhooks library; answer 2xx within 10 s, else it is retried with backoff for over 24 hours; 410 Gone disables the endpoint.
         */
        post: operations["replyReceivedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "meeting.booked": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A meeting was booked
         * @description Sent to every enabled endpoint subscribed to `meeting.booked` (or `*`). Verify it with any Standard Webhooks library; answer 2xx within 10 s, else it is retried with backoff for over 24 hours; 410 Gone disables the endpoint.
         */
        post: operations["meetingBookedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "meeting.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A meeting moved or changed status
         * @description Sent to every enabled endpoint subscribed to `meeting.updated` (or `*`). Verify it with any Standard Webhooks library; answer 2xx within 10 s, else it is retried with backoff for over 24 hours; 410 Gone disables the endpoint.
         */
        post: operations["meetingUpdatedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "enrollment.stopped": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * An enrollment's sequence stopped
         * @description Sent to every enabled endpoint subscribed to `enrollment.stopped` (or `*`). Verify it with any Standard Webhooks library; answer 2xx within 10 s, else it is retried with backoff for over 24 hours; 410 Gone disables the endpoint.
         */
        post: operations["enrollmentStoppedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "enrollment.paused": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * An enrollment's sequence paused
         * @description Sent to every enabled endpoint subscribed to `enrollment.paused` (or `*`). Verify it with any Standard Webhooks library; answer 2xx within 10 s, else it is retried with backoff for over 24 hours; 410 Gone disables the endpoint.
         */
        post: operations["enrollmentPausedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "mailbox.paused": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A mailbox was paused
         * @description Sent to every enabled endpoint subscribed to `mailbox.paused` (or `*`). Verify it with any Standard Webhooks library; answer 2xx within 10 s, else it is retried with backoff for over 24 hours; 410 Gone disables the endpoint.
         */
        post: operations["mailboxPausedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "domain.bulk_threshold_near": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A sending domain sent one receiving provider more than 4,000 e-mails in a UTC day (once per domain, provider and day); at 5,000 an unaligned domain is held
         * @description Sent to every enabled endpoint subscribed to `domain.bulk_threshold_near` (or `*`). Verify it with any Standard Webhooks library; answer 2xx within 10 s, else it is retried with backoff for over 24 hours; 410 Gone disables the endpoint.
         */
        post: operations["domainBulkThresholdNearWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "suppression.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * An address or domain was suppressed
         * @description Sent to every enabled endpoint subscribed to `suppression.created` (or `*`). Verify it with any Standard Webhooks library; answer 2xx within 10 s, else it is retried with backoff for over 24 hours; 410 Gone disables the endpoint.
         */
        post: operations["suppressionCreatedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "webhook.test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A test event (POST /webhook-endpoints/{id}/test)
         * @description Sent to every enabled endpoint subscribed to `webhook.test` (or `*`). Verify it with any Standard Webhooks library; answer 2xx within 10 s, else it is retried with backoff for over 24 hours; 410 Gone disables the endpoint.
         */
        post: operations["webhookTestWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        /** @description An error, as RFC 9457 application/problem+json with a machine-readable code. Extension members appear where they apply. */
        Problem: {
            /** @description A URI naming the problem type */
            type: string;
            title: string;
            status: number;
            detail: string;
            /** @enum {string} */
            code: "VALIDATION_FAILED" | "MALFORMED_JSON" | "UNAUTHENTICATED" | "FORBIDDEN" | "NOT_FOUND" | "CONFLICT" | "REQUEST_TIMEOUT" | "PAYLOAD_TOO_LARGE" | "UNSUPPORTED_MEDIA_TYPE" | "RATE_LIMITED" | "SERVICE_UNAVAILABLE" | "INTERNAL" | "IDEMPOTENCY_KEY_REUSED" | "IDEMPOTENCY_IN_PROGRESS";
            /** @description The request path */
            instance?: string;
            /** @description The X-Request-Id of the request, to find it in the logs */
            request_id?: string;
            /** @description VALIDATION_FAILED: one entry per invalid field */
            errors?: {
                path: string;
                message: string;
            }[];
            /** @description SERVICE_UNAVAILABLE from /readyz: each dependency and its state */
            checks?: {
                [key: string]: "ok" | "down";
            };
            /**
             * @description RATE_LIMITED: whose allowance ran out (address: the client address, on the public routes)
             * @enum {string}
             */
            scope?: "user" | "organization" | "address";
            /** @description RATE_LIMITED: seconds to wait, as the Retry-After header */
            retry_after?: number;
            /**
             * Format: uuid
             * @description CONFLICT: the existing company
             */
            company_id?: string;
            /**
             * Format: uuid
             * @description CONFLICT: the existing contact
             */
            contact_id?: string;
            /**
             * Format: uuid
             * @description CONFLICT: the existing open opportunity
             */
            opportunity_id?: string;
        } & {
            [key: string]: unknown;
        };
        /** @description The process answers */
        Health: {
            /** @constant */
            status: "ok";
        };
        /** @description PostgreSQL and Temporal answer */
        Readiness: {
            /** @constant */
            status: "ready";
            checks: {
                /** @enum {string} */
                postgres: "ok" | "down";
                /** @enum {string} */
                temporal: "ok" | "down";
            } & {
                [key: string]: "ok" | "down";
            };
        };
        /** @description An OpenAPI 3.1 document */
        OpenApiDocument: {
            openapi: string;
            info: {
                [key: string]: unknown;
            };
            paths: {
                [key: string]: unknown;
            };
        } & {
            [key: string]: unknown;
        };
        /** @description An organization (tenant) and the caller's role in it */
        Organization: {
            /** Format: uuid */
            id: string;
            name: string;
            /** @enum {string} */
            role: "owner" | "admin" | "member" | "viewer";
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description A user's role in an organization */
        Membership: {
            /** Format: uuid */
            organization_id: string;
            /** Format: uuid */
            user_id: string;
            /** @enum {string} */
            role: "owner" | "admin" | "member" | "viewer";
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description A signal source and the state of its last run */
        Source: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            organization_id: string;
            /** @enum {string} */
            provider_key: "rss" | "json_api" | "bekendmakingen";
            name: string;
            /** @description Provider settings (rss: url; json_api: url and field mapping; bekendmakingen: query) */
            config: {
                [key: string]: unknown;
            };
            enabled: boolean;
            /** @description Five-field cron expression, or null for manual runs only */
            schedule: string | null;
            country_code: string | null;
            language: string | null;
            /** @description json_api: the names of the request headers sent with every fetch (values are write-only) */
            header_names: string[];
            last_run_at: string | null;
            last_run_status: ("running" | "succeeded" | "not_modified" | "failed") | null;
            last_error: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description The source, with the ingest workflow run that was started */
        SourceRun: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            organization_id: string;
            /** @enum {string} */
            provider_key: "rss" | "json_api" | "bekendmakingen";
            name: string;
            /** @description Provider settings (rss: url; json_api: url and field mapping; bekendmakingen: query) */
            config: {
                [key: string]: unknown;
            };
            enabled: boolean;
            /** @description Five-field cron expression, or null for manual runs only */
            schedule: string | null;
            country_code: string | null;
            language: string | null;
            /** @description json_api: the names of the request headers sent with every fetch (values are write-only) */
            header_names: string[];
            last_run_at: string | null;
            last_run_status: ("running" | "succeeded" | "not_modified" | "failed") | null;
            last_error: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            workflow_id: string;
            run_id: string;
        };
        /** @description A publication turned into a signal, with its pipeline status */
        Signal: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            organization_id: string;
            /** Format: uuid */
            source_id: string;
            raw_publication_id: string | null;
            project_id: string | null;
            external_id: string;
            /** @enum {string} */
            status: "ingested" | "classified" | "scored" | "ignored" | "qualified" | "ready" | "failed";
            signal_type: string;
            title: string;
            summary: string | null;
            published_at: string | null;
            effective_start: string | null;
            effective_end: string | null;
            source_url: string | null;
            current_score: number | null;
            dedupe_key: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description The current classification of a signal */
        Classification: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            signal_id: string;
            /** Format: uuid */
            organization_id: string;
            version: number;
            model: string;
            prompt_key: string | null;
            prompt_version: string | null;
            prompt_hash: string | null;
            /** @description The classifier's full answer (free-form JSON) */
            output: unknown;
            confidence: number | null;
            commercial_relevance: boolean;
            relevance_reasons: string[];
            project_category: string | null;
            project_stage: string | null;
            /** @description Euros */
            estimated_size: number | null;
            is_current: boolean;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description The current score of a signal */
        Score: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            signal_id: string;
            /** Format: uuid */
            scoring_config_id: string;
            /** Format: uuid */
            organization_id: string;
            total: number;
            /** @enum {string} */
            decision: "ignore" | "qualify" | "opportunity";
            is_current: boolean;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description One rule's points: min(max_points, raw_value x weight), with the reason */
        ScoreComponent: {
            dimension: string;
            rule_key: string;
            /** @enum {string} */
            origin: "rule" | "model" | "manual";
            raw_value: number;
            weight: number;
            points: number;
            reason: string;
        };
        /** @description The score's total, decision and components */
        ScoreBreakdown: {
            total: number;
            /** @enum {string} */
            decision: "ignore" | "qualify" | "opportunity";
            components: components["schemas"]["ScoreComponent"][];
        };
        /** @description A signal with its current classification and score; classification, score, components and breakdown are present when they exist */
        SignalDetail: {
            signal: components["schemas"]["Signal"];
            classification?: components["schemas"]["Classification"];
            score?: components["schemas"]["Score"];
            components?: components["schemas"]["ScoreComponent"][];
            breakdown?: components["schemas"]["ScoreBreakdown"];
        };
        /** @description The processSignalWorkflow run that was started */
        SignalRun: {
            workflow_id: string;
            run_id: string;
            /** @enum {string} */
            from_stage: "classification" | "scoring" | "opportunity" | "enrichment" | "drafting" | "strategist";
        };
        /** @description A sales opportunity for a project */
        Opportunity: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            organization_id: string;
            project_id: string | null;
            created_from_signal_id: string | null;
            /** @description The company the enrichment stage linked */
            company_id: string | null;
            /** @enum {string} */
            status: "ready" | "in_outreach" | "closed";
            score: number | null;
            summary: string | null;
            /** @enum {string} */
            outcome: "open" | "won" | "lost";
            outcome_at: string | null;
            /** @description Deal value in euros (won only) */
            outcome_value: number | null;
            /** @description When the CRM last took the outcome (a Salesforce Opportunity's stage, when the CRM integration's mapping links one) */
            crm_synced_at: string | null;
            /** @description The CRM's last refusal of the outcome (a 4xx), else null */
            crm_error: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description A version of the scoring thresholds and home coordinates */
        ScoringConfig: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            organization_id: string;
            version: number;
            is_active: boolean;
            ignore_below: number;
            qualify_at: number;
            opportunity_at: number;
            home_lat: number | null;
            home_lng: number | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description A scoring rule of a config version */
        ScoringRule: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            scoring_config_id: string;
            /** Format: uuid */
            organization_id: string;
            /** @enum {string} */
            dimension: "commercial_relevance" | "distance" | "project_size" | "project_stage" | "recency" | "fit" | "source";
            rule_key: string;
            weight: number;
            max_points: number;
            params: {
                [key: string]: unknown;
            };
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description The active scoring config and its rules */
        ScoringSettings: {
            config: components["schemas"]["ScoringConfig"];
            rules: components["schemas"]["ScoringRule"][];
        };
        /** @description What the organization sells and to whom */
        IndustryProfile: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            organization_id: string;
            key: string;
            name: string;
            description: string | null;
            proposition_text: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description A buyer persona of the industry profile */
        Persona: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            industry_profile_id: string;
            segment: string;
            title_keywords: string[];
            priority: number;
        };
        /** @description A product of the industry profile */
        Product: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            industry_profile_id: string;
            key: string;
            name: string;
            description: string | null;
            fit_keywords: string[];
        };
        /** @description The industry profile with its personas and products */
        IndustryProfileSettings: {
            profile: components["schemas"]["IndustryProfile"];
            personas: components["schemas"]["Persona"][];
            products: components["schemas"]["Product"][];
        };
        /** @description What outcomes suggest for each scoring rule's weight, with the evidence; nothing changes until an admin applies one with PATCH /settings/scoring */
        ScoringSuggestions: {
            window_days: number;
            /** Format: uuid */
            scoring_config_id: string;
            scoring_config_version: number;
            based_on: {
                opportunities: number;
                won: number;
                lost: number;
                meetings_completed: number;
                no_shows: number;
            };
            suggestions: {
                rule_key: string;
                dimension: string;
                current_weight: number;
                suggested_weight: number;
                evidence: {
                    /** @description Signals that earned points on the rule */
                    earned: {
                        /** @description Decided signals in the group (won, lost, or a meeting that took place or was missed) */
                        signals: number;
                        /** @description Of which a meeting took place */
                        meetings: number;
                        won: number;
                        lost: number;
                        no_shows: number;
                        /** @description Mean success: won 1, else a meeting that took place 0.5, else 0 (null when empty) */
                        success_rate: number | null;
                    };
                    /** @description Signals that did not */
                    not_earned: {
                        /** @description Decided signals in the group (won, lost, or a meeting that took place or was missed) */
                        signals: number;
                        /** @description Of which a meeting took place */
                        meetings: number;
                        won: number;
                        lost: number;
                        no_shows: number;
                        /** @description Mean success: won 1, else a meeting that took place 0.5, else 0 (null when empty) */
                        success_rate: number | null;
                    };
                    /** @description earned.success_rate − not_earned.success_rate; null without enough outcomes on either side */
                    lift: number | null;
                    reason: string;
                };
            }[];
        };
        /** @description Outreach analytics over a window: attribution by source, deliverability per mailbox, agent quality */
        OutreachAnalytics: {
            window_days: number;
            attribution: {
                /** Format: uuid */
                source_id: string;
                source_name: string;
                /** @description Signals the source produced in the window */
                signals: number;
                /** @description Opportunities opened from those signals */
                opportunities: number;
                /** @description Of those opportunities, how many have a meeting booked and not cancelled or missed */
                meetings: number;
                won: number;
                /** @description Sum of the won opportunities' values, euros */
                won_value: number;
            }[];
            deliverability: {
                /** Format: uuid */
                mailbox_id: string;
                address: string;
                /** @description Delivery attempts in the window (status sent or failed) */
                sent: number;
                /** @description Of which failed */
                bounced: number;
                /** @description Replies received in the window */
                replied: number;
                /** @description Score of the newest health check */
                health_score: number | null;
                /** @description Whether the newest health check found the mailbox sendable */
                sendable: boolean | null;
                /** @description When the newest health check ran */
                checked_at: string | null;
                /** @description Of the attempts, those that drew a complaint (ARF feedback report) */
                complaints: number;
                /** @description bounced / sent, 4 decimals (0 without sends) */
                bounce_rate: number;
                /** @description complaints / sent, 4 decimals (0 without sends) */
                complaint_rate: number;
                /**
                 * @description The mailbox's status now
                 * @enum {string}
                 */
                status: "active" | "paused";
            }[];
            agent_quality: {
                /** @description Outbound e-mails written in the window */
                drafts: number;
                approved: number;
                rejected: number;
                /** @description approved / (approved + rejected) */
                approval_rate: number | null;
                /** @description Approved drafts whose sent text differs from what the model wrote */
                edited: number;
                /** @description edited / approved */
                edit_rate: number | null;
                /** @description Reply intent -> count */
                reply_intents: {
                    [key: string]: number;
                };
                by_prompt_version: {
                    prompt_version: string | null;
                    drafts: number;
                    approved: number;
                    rejected: number;
                    /** @description A fraction 0–1, null when there is nothing to divide by */
                    approval_rate: number | null;
                    edited: number;
                    /** @description A fraction 0–1, null when there is nothing to divide by */
                    edit_rate: number | null;
                    /** @description Intents of replies to this version's drafts */
                    reply_intents: {
                        [key: string]: number;
                    };
                }[];
                /** @description The newest score of each prompt version, newest first */
                prompt_evals: {
                    prompt_key: string;
                    prompt_version: string;
                    /** @description Mean similarity of the edited drafts to what was sent (1 = unchanged) */
                    score: number;
                    cases: number;
                    /** Format: date-time */
                    created_at: string;
                }[];
            };
        };
        /** @description A company, its identity (KvK number, registrable domain) and enrichment state */
        Company: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            organization_id: string;
            name: string;
            normalized_name: string;
            domain: string | null;
            kvk_number: string | null;
            address: string | null;
            website: string | null;
            generic_email: string | null;
            /** @description E.164 */
            phone: string | null;
            /** @enum {string} */
            enrichment_status: "idle" | "running" | "done" | "failed";
            enrichment_error: string | null;
            country_code: string | null;
            locale: string | null;
            /** @enum {string} */
            recipient_kind: "legal_person" | "natural_person";
            legal_form: string | null;
            sbi_codes: string[];
            /** @description IANA time zone of the company (recipient time) */
            timezone: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description A person at a company; an erased contact keeps only its id, company and timestamps */
        Contact: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            organization_id: string;
            /** Format: uuid */
            company_id: string;
            full_name: string;
            title: string | null;
            email: string | null;
            /**
             * @description valid; risky (a catch-all domain, a role address, a probe that could not decide); invalid; unknown until checked
             * @enum {string}
             */
            email_status: "unknown" | "valid" | "risky" | "invalid";
            /** @description when the address was last checked */
            email_checked_at: string | null;
            email_check: components["schemas"]["EmailCheck"] | null;
            phone: string | null;
            linkedin_url: string | null;
            source_description: string | null;
            /** @description manual, or the enrichment provider that found the contact */
            data_source: string;
            /** @description Which enrichment provider, run and step found the contact (`contact`) and the address and phone it brought, also when filled in later; empty for contacts not found by enrichment */
            found_by: {
                contact?: {
                    /** @description website, hunter, dropcontact or apollo */
                    provider: string;
                    /**
                     * Format: uuid
                     * @description the enrichment run (GET /companies/{companyId}/enrichment-runs)
                     */
                    run_id: string;
                    /** @description the step of that run, from 0 */
                    step: number;
                };
                email?: {
                    /** @description website, hunter, dropcontact or apollo */
                    provider: string;
                    /**
                     * Format: uuid
                     * @description the enrichment run (GET /companies/{companyId}/enrichment-runs)
                     */
                    run_id: string;
                    /** @description the step of that run, from 0 */
                    step: number;
                };
                phone?: {
                    /** @description website, hunter, dropcontact or apollo */
                    provider: string;
                    /**
                     * Format: uuid
                     * @description the enrichment run (GET /companies/{companyId}/enrichment-runs)
                     */
                    run_id: string;
                    /** @description the step of that run, from 0 */
                    step: number;
                };
            };
            last_engaged_at: string | null;
            erased_at: string | null;
            /** @description IANA time zone of the contact (recipient time) */
            timezone: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description A contact import from a CSV file: its progress, what it created and updated, the rows it skipped and refused (the first 1,000 of each) */
        Import: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            organization_id: string;
            /** @enum {string} */
            status: "running" | "completed" | "failed";
            total_rows: number;
            processed_rows: number;
            created_companies: number;
            created_contacts: number;
            updated_contacts: number;
            skipped: {
                /** @description the header is row 1 */
                row: number;
                /** @enum {string} */
                reason: "suppressed" | "erased" | "invalid_email" | "duplicate_in_file" | "missing_name";
            }[];
            errors: {
                row: number;
                field: string;
                message: string;
            }[];
            /** @description where the data comes from (the Art. 14 notice), recorded on every imported contact */
            source_description: string;
            workflow_id: string;
            created_by: string | null;
            /** Format: date-time */
            created_at: string;
            finished_at: string | null;
        };
        /** @description The GDPR Art. 6 basis on which a contact may be approached, with the Art. 14 data source */
        LawfulBasis: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            organization_id: string;
            /** Format: uuid */
            contact_id: string;
            /** @enum {string} */
            basis: "legitimate_interest" | "consent";
            /** @enum {string} */
            recipient_kind: "legal_person" | "natural_person";
            country: string;
            source_description: string | null;
            assessment: string | null;
            consent_evidence: string | null;
            /** Format: uuid */
            recorded_by: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description A contact with its current lawful basis (null when none is recorded) */
        ContactDetail: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            organization_id: string;
            /** Format: uuid */
            company_id: string;
            full_name: string;
            title: string | null;
            email: string | null;
            /**
             * @description valid; risky (a catch-all domain, a role address, a probe that could not decide); invalid; unknown until checked
             * @enum {string}
             */
            email_status: "unknown" | "valid" | "risky" | "invalid";
            /** @description when the address was last checked */
            email_checked_at: string | null;
            email_check: components["schemas"]["EmailCheck"] | null;
            phone: string | null;
            linkedin_url: string | null;
            source_description: string | null;
            /** @description manual, or the enrichment provider that found the contact */
            data_source: string;
            /** @description Which enrichment provider, run and step found the contact (`contact`) and the address and phone it brought, also when filled in later; empty for contacts not found by enrichment */
            found_by: {
                contact?: {
                    /** @description website, hunter, dropcontact or apollo */
                    provider: string;
                    /**
                     * Format: uuid
                     * @description the enrichment run (GET /companies/{companyId}/enrichment-runs)
                     */
                    run_id: string;
                    /** @description the step of that run, from 0 */
                    step: number;
                };
                email?: {
                    /** @description website, hunter, dropcontact or apollo */
                    provider: string;
                    /**
                     * Format: uuid
                     * @description the enrichment run (GET /companies/{companyId}/enrichment-runs)
                     */
                    run_id: string;
                    /** @description the step of that run, from 0 */
                    step: number;
                };
                phone?: {
                    /** @description website, hunter, dropcontact or apollo */
                    provider: string;
                    /**
                     * Format: uuid
                     * @description the enrichment run (GET /companies/{companyId}/enrichment-runs)
                     */
                    run_id: string;
                    /** @description the step of that run, from 0 */
                    step: number;
                };
            };
            last_engaged_at: string | null;
            erased_at: string | null;
            /** @description IANA time zone of the contact (recipient time) */
            timezone: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            lawful_basis: components["schemas"]["LawfulBasis"] | null;
        };
        /** @description Whether a channel may reach the contact: the policy rule, and the gate rules that close it whatever the policy says */
        ChannelDecision: {
            /** @enum {string} */
            channel: "email_generic" | "email_personal" | "phone" | "linkedin";
            allowed: boolean;
            rule_id: string;
            /** @enum {string} */
            rule: "allowed" | "consent" | "no";
            requirements: string[];
            reason: string;
            /** @description Gate rule ids that close this channel (empty when only the policy decides) */
            blocked_by: string[];
        };
        /** @description A gate rule that blocks outreach to the contact (or to anyone at its company) */
        GateBlock: {
            rule_id: string;
            /** @enum {string} */
            code: "erased" | "suppressed" | "no_lawful_basis" | "no_allowed_channel";
            /** @enum {string} */
            applies_to: "contact" | "company";
            reason: string;
            /** @description The suppression that matched, and what it matched on */
            suppression?: {
                /** Format: uuid */
                id: string;
                scope: string;
                reason: string;
                matched_on: string;
            };
        };
        /** @description The compliance gate for a contact: contactable or not, each block with its rule id and reason, the lawful basis and the channels the policy allows */
        ComplianceGate: {
            /** Format: uuid */
            contact_id: string;
            /** Format: uuid */
            company_id: string;
            contactable: boolean;
            reasons: ("erased" | "suppressed" | "no_lawful_basis" | "no_allowed_channel")[];
            blocks: components["schemas"]["GateBlock"][];
            suppression: {
                /** Format: uuid */
                id: string;
                scope: string;
                reason: string;
            } | null;
            lawful_basis: {
                /** @enum {string} */
                basis: "legitimate_interest" | "consent";
                /** @enum {string} */
                recipient_kind: "legal_person" | "natural_person";
                country: string;
            } | null;
            gate_version: string;
            policy_version: string;
            country: string;
            /** @enum {string} */
            recipient_kind: "legal_person" | "natural_person";
            channels: components["schemas"]["ChannelDecision"][];
            requirements: string[];
        };
        /** @description A suppressed address, domain, KvK number or erasure marker (email_hash, person_hash: sha256 of the company id and the name): never contacted */
        Suppression: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            organization_id: string;
            /** @enum {string} */
            scope: "email" | "domain" | "kvk_number" | "email_hash" | "person_hash";
            value: string;
            /** @enum {string} */
            reason: "unsubscribe" | "bounce" | "complaint" | "objection" | "manual" | "erasure";
            note: string | null;
            created_by: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The organization's compliance settings */
        ComplianceSettings: {
            /** Format: uuid */
            organization_id: string;
            default_country: string;
            default_locale: string;
            /** @enum {string} */
            default_formality: "formal" | "informal";
            retention_months: number;
            /** @enum {string} */
            ai_disclosure: "footer" | "none";
            sender_legal_name: string | null;
            sender_address: string | null;
            privacy_url: string | null;
            unsubscribe_mailto: string | null;
            /** @description The organization's own feedback loops: senders (an address, or '@domain') whose structured complaints, DKIM-signed by that domain, count toward a mailbox's complaint rate beside the providers' loops the service knows */
            feedback_loop_senders: string[];
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description One audited change of one field (actor, time, before, after) */
        AuditEntry: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            organization_id: string;
            actor_id: string | null;
            entity: string;
            entity_id: string | null;
            action: string;
            field: string | null;
            /** @description JSON value before the change, or null */
            before: unknown;
            /** @description JSON value after the change, or null */
            after: unknown;
            /** Format: date-time */
            created_at: string;
        };
        /** @description One row of the channel policy (country, recipient kind, channel), with its legal source */
        ChannelPolicyRule: {
            id: string;
            /** @description ISO 3166-1 alpha-2, or EU for the other member states */
            country: string;
            /** @enum {string} */
            recipient_kind: "legal_person" | "natural_person" | "any";
            /** @enum {string} */
            channel: "email_generic" | "email_personal" | "phone" | "linkedin";
            /** @enum {string} */
            rule: "allowed" | "consent" | "no";
            conditions?: "published_business_address"[];
            requirements: string[];
            note: string;
            source: string;
        };
        /** @description The channel policy table and its version */
        ChannelPolicy: {
            version: string;
            rules: components["schemas"]["ChannelPolicyRule"][];
        };
        /** @description A provider integration; its secret is write-only and never answered */
        Integration: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            organization_id: string;
            /** @enum {string} */
            provider_key: "hubspot" | "salesforce" | "calcom" | "calendly" | "hunter" | "dropcontact" | "apollo" | "openai_compatible" | "reacher" | "zerobounce";
            /** @enum {string} */
            kind: "crm" | "calendar" | "enrichment" | "llm" | "verification";
            /** @enum {string} */
            status: "connected" | "error" | "disconnected";
            config: {
                [key: string]: unknown;
            };
            mapping: {
                [key: string]: unknown;
            };
            last_error: string | null;
            last_tested_at: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description A sending mailbox: its SMTP (and IMAP) server, sending calendar and limits; the secret is write-only and never answered */
        Mailbox: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            organization_id: string;
            address: string;
            /** @description The domain of the address */
            domain: string;
            display_name: string | null;
            smtp: {
                host: string;
                port: number;
                secure: boolean;
                username: string | null;
            };
            imap: {
                host: string;
                port: number;
                secure: boolean;
                username: string | null;
            } | null;
            /** @description IANA time zone of the window and the sending days */
            timezone: string;
            /** @description Local HH:MM; end may be 24:00 */
            sending_window: {
                start: string;
                end: string;
            };
            /** @description ISO weekdays, Monday 1 */
            sending_days: number[];
            holiday_country: string;
            holiday_region: string | null;
            daily_cap: number;
            min_gap_seconds: number;
            dkim_selector: string | null;
            /** @description Messages of this mailbox sent (sent_at) since the start of its local day */
            sent_today: number;
            /** @description The newest health check, or null before the first */
            health: {
                score: number;
                sendable: boolean;
                /** Format: date-time */
                checked_at: string;
            } | null;
            /** @description Why its inbox could not be read last time (wrong IMAP credentials, server unreachable), null when it could */
            last_error: string | null;
            /**
             * @description A paused mailbox sends nothing, not even what is booked
             * @enum {string}
             */
            status: "active" | "paused";
            paused_reason: ("bounce_rate" | "complaint_rate" | "block_rate" | "health" | "auth" | "manual") | null;
            paused_at: string | null;
            /** @description Pause limits over the last 7 days */
            protection: {
                maxBounceRate: number;
                maxComplaintRate: number;
                maxBlockRate: number;
                minSample: number;
            };
            ramp_up: {
                startCap: number;
                dailyIncrease: number;
                startsOn: string;
            } | null;
            /** @description The cap in force today in the mailbox's zone: min(daily_cap, startCap + dailyIncrease × sending days since startsOn) */
            cap_today: number;
            /** @description A random extra wait (0..this) on top of min_gap_seconds */
            gap_jitter_seconds: number;
            /** @description How it logs in; never a token */
            auth: {
                /** @enum {string} */
                type: "password" | "oauth2";
                provider: ("google" | "microsoft") | null;
            };
            stats_7d: {
                sent: number;
                hard_bounces: number;
                complaints: number;
                bounce_rate: number;
                complaint_rate: number;
                /** @description Soft bounces that refused the sender (blocked, spam, policy, auth_failure) */
                blocks: number;
                block_rate: number;
            };
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description The deliverability of a mailbox's domain (docs/features/deliverability.md, "How deliverability is scored"): SPF, DKIM, DMARC and MX, a score out of 100 and whether it may send */
        MailboxHealth: {
            domain: string;
            /** @description One deliverability check */
            spf: {
                /** @enum {string} */
                status: "pass" | "warn" | "fail";
                /** @description The DNS record read; empty when there is none */
                record: string;
                /** @description Why this status */
                detail: string;
            };
            /** @description One deliverability check */
            dkim: {
                /** @enum {string} */
                status: "pass" | "warn" | "fail";
                /** @description The DNS record read; empty when there is none */
                record: string;
                /** @description Why this status */
                detail: string;
            };
            /** @description One deliverability check */
            dmarc: {
                /** @enum {string} */
                status: "pass" | "warn" | "fail";
                /** @description The DNS record read; empty when there is none */
                record: string;
                /** @description Why this status */
                detail: string;
            };
            /** @description One deliverability check */
            mx: {
                /** @enum {string} */
                status: "pass" | "warn" | "fail";
                /** @description The DNS record read; empty when there is none */
                record: string;
                /** @description Why this status */
                detail: string;
            };
            score: number;
            /** @description False: the mailbox sends nothing, its approved messages wait, until a check passes */
            sendable: boolean;
        };
        /** @description A received e-mail handed over: the stored inbound message (202), or duplicate: true when the mailbox already has its Message-ID (200) */
        InboundReceipt: {
            /**
             * Format: uuid
             * @description The inbound message (202)
             */
            message_id?: string;
            /**
             * @description Already stored: nothing changed (200)
             * @constant
             */
            duplicate?: true;
        };
        /** @description Where to send the user to connect a mailbox, and the single-use state of that request */
        OAuthStart: {
            /** @description The provider's authorization URL (code flow, PKCE S256) */
            authorization_url: string;
            /** @description Single-use, bound to the caller and organization, valid 10 minutes */
            state: string;
        };
        /** @description A step of a campaign's sequence: its channel (phone and linkedin steps are tasks), the business days to wait before it, and what to write or do */
        CampaignStep: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            sequence_id: string;
            position: number;
            /** @enum {string} */
            channel: "email" | "phone" | "linkedin";
            /** @description Business days of the mailbox (its sending days, less public holidays) after the previous step */
            delay_days: number;
            instructions: string | null;
            /** @description 2 to 5 variants of the step, each enrollment getting one (chosen from the enrollment id and the step); [] when none */
            variants: {
                key: string;
                subject?: string;
                instructions?: string;
            }[];
        };
        /** @description A campaign: proposed by the strategist (proposed_by agent) or a person, then accepted (active) or dismissed (archived); with its steps and its enrollments counted by status */
        Campaign: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            organization_id: string;
            name: string;
            /** @enum {string} */
            status: "proposed" | "active" | "paused" | "completed" | "archived";
            /** @enum {string} */
            mode: "review" | "auto";
            goal: string | null;
            brief: string | null;
            country_code: string | null;
            persona_keys: string[];
            product_keys: string[];
            min_score: number | null;
            /** @description The pool's first mailbox */
            mailbox_id: string | null;
            /** @description The pool: 1..50 mailboxes of the organization that share the sending, in order */
            mailbox_ids: string[];
            /**
             * @description Whose time the e-mails go in: the mailbox's window and sending days in the mailbox's zone, or (recipient) in the recipient's zone with the recipient country's holidays; the daily cap stays the mailbox's day
             * @enum {string}
             */
            send_in: "mailbox" | "recipient";
            /** @description Whether contacts with a risky address are enrolled (invalid ones never are) */
            allow_risky: boolean;
            /** @enum {string} */
            proposed_by: "user" | "agent";
            opportunity_id: string | null;
            suggested_contact_ids: string[];
            /** @description The strategist's plan per contact (empty for a person's campaign) */
            suggested_contacts: {
                /** Format: uuid */
                contact_id: string;
                full_name: string;
                title: string | null;
                /** @description The industry-profile persona (segment) the title matched */
                persona: string | null;
                rank: number;
                /** @description The step channels the compliance gate allows for this contact in the company’s country */
                channels: ("email" | "phone" | "linkedin")[];
                /** @description Where an e-mail step goes: the person’s address, or the company’s published generic address */
                email_route: ("personal" | "generic") | null;
                /** @description The channel-policy rows that allow those channels */
                rule_ids: string[];
            }[];
            rationale: string | null;
            /** @description What wrote goal, brief, rationale and instructions: a model, or 'template-writer@1.0.0' */
            model: string | null;
            prompt_key: string | null;
            prompt_version: string | null;
            prompt_hash: string | null;
            dismissed_reason: string | null;
            created_by: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            sequence_id: string | null;
            steps: components["schemas"]["CampaignStep"][];
            /** @description Enrollments by status */
            enrollment_counts: {
                [key: string]: number;
            };
        };
        /** @description An accepted campaign and who was enrolled or skipped, with the reason */
        CampaignAcceptance: {
            campaign: components["schemas"]["Campaign"];
            result: {
                enrolled: {
                    /** Format: uuid */
                    enrollmentId: string;
                    /** Format: uuid */
                    contactId: string;
                }[];
                skipped: {
                    /** Format: uuid */
                    contactId: string;
                    /**
                     * @description invalid_email and risky_email: the address the e-mail steps would go to, as its check found it (email_status)
                     * @enum {string}
                     */
                    reason: "already_enrolled" | "erased" | "suppressed" | "no_lawful_basis" | "no_allowed_channel" | "channel_not_allowed" | "no_email" | "invalid_email" | "risky_email";
                }[];
            };
        };
        /** @description One contact in one campaign's sequence: where it is (current_step) and when it acts next */
        Enrollment: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            organization_id: string;
            /** Format: uuid */
            campaign_id: string;
            /** Format: uuid */
            contact_id: string;
            /** @enum {string} */
            status: "active" | "paused" | "stopped" | "completed" | "failed";
            /** @description The position of the last step acted on; 0 before the first */
            current_step: number;
            next_action_at: string | null;
            pause_reason: ("out_of_office" | "account_replied") | null;
            resume_at: string | null;
            stopped_reason: string | null;
            /** @description The id of its sequence workflow: enrollment/<id> */
            workflow_id: string | null;
            /** @description The pool mailbox every e-mail to this contact goes from: null until its first e-mail is booked, then fixed */
            mailbox_id: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description The strategistWorkflow run that was started (opportunity/<id>/strategist) */
        StrategistRun: {
            workflow_id: string;
            run_id: string;
        };
        /** @description An outbound draft, sent e-mail or task, or an inbound reply; the approval inbox is GET /messages?status=pending_approval */
        Message: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            organization_id: string;
            enrollment_id: string | null;
            thread_id: string | null;
            contact_id: string | null;
            step_id: string | null;
            mailbox_id: string | null;
            campaign_id: string | null;
            /** @enum {string} */
            direction: "outbound" | "inbound";
            /** @enum {string} */
            channel: "email" | "phone" | "linkedin";
            /** @enum {string} */
            status: "pending_approval" | "approved" | "scheduled" | "sent" | "failed" | "rejected" | "received" | "task_open" | "task_done" | "skipped";
            subject: string | null;
            body: string | null;
            /** @description The text before a person edited it (kept for learning) */
            original_body: string | null;
            from_address: string | null;
            to_address: string | null;
            /** @description Why the message says what it says: the signal and the sourced facts, the score's reasons, the compliance rule it goes out under (art14_notice on the first e-mail to a person), why a person reviews it, the writer's risks; on a reply, its intent and triage */
            why: {
                signal?: {
                    /** Format: uuid */
                    id: string;
                    title: string;
                    url: string | null;
                } | null;
                facts?: {
                    claim: string;
                    sourceUrl: string;
                }[];
                scoreReasons?: string[];
                compliance?: {
                    country: string;
                    locale: string;
                    rule: string;
                    requirements: string[];
                };
                reviewReasons?: string[];
                risks?: string[];
                reply?: {
                    /** Format: uuid */
                    inboundMessageId: string;
                    intent: string;
                    summary: string;
                };
                offeredSlots?: {
                    /** Format: date-time */
                    start: string;
                    end: string | null;
                }[];
                triage?: {
                    summary: string;
                    referral?: {
                        name: string | null;
                        email: string | null;
                    } | null;
                };
            } & {
                [key: string]: unknown;
            };
            intent: string | null;
            confidence: number | null;
            /** @description What wrote it: a model, or 'template-writer@1.0.0' */
            model: string | null;
            prompt_version: string | null;
            approved_by: string | null;
            approved_at: string | null;
            /** @description The booked send slot */
            scheduled_for: string | null;
            sent_at: string | null;
            received_at: string | null;
            /** @description The Message-ID header it was sent with (<message id@mailbox domain>), or a reply’s */
            provider_message_id: string | null;
            /** @description Why it failed, or what holds it (a paused enrollment, a mailbox that is not sendable) */
            error: string | null;
            /** @description The send may or may not have reached the server (the worker stopped mid-send): check before sending again */
            needs_check: boolean;
            rejected_reason: string | null;
            /** @description The rejected draft this one rewrites */
            redraft_of: string | null;
            completed_note: string | null;
            /** @description The step variant it was written from (its step's variants), else null */
            variant_key: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            contact_name: string | null;
            company_name: string | null;
            campaign_name: string | null;
            step_position: number | null;
            thread_status: ("open" | "replied" | "closed") | null;
            /** @description Why its enrollment is paused (its draft waits), else null */
            pause_reason: ("out_of_office" | "account_replied") | null;
        };
        /** @description An e-mail conversation with one contact from one mailbox: the last activity first in the list */
        Thread: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            organization_id: string;
            /** Format: uuid */
            contact_id: string;
            contact_name: string;
            company_name: string;
            mailbox_id: string | null;
            subject: string | null;
            /** @enum {string} */
            status: "open" | "replied" | "closed";
            /**
             * Format: date-time
             * @description the last activity: the newest message, else the thread's creation
             */
            last_message_at: string;
            last_inbound_at: string | null;
            /** @description the intent of the last classified inbound message */
            last_intent: string | null;
            assigned_to: string | null;
            message_count: number;
        };
        /** @description A thread with its messages, both directions, oldest first */
        ThreadDetail: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            organization_id: string;
            /** Format: uuid */
            contact_id: string;
            contact_name: string;
            company_name: string;
            mailbox_id: string | null;
            subject: string | null;
            /** @enum {string} */
            status: "open" | "replied" | "closed";
            /**
             * Format: date-time
             * @description the last activity: the newest message, else the thread's creation
             */
            last_message_at: string;
            last_inbound_at: string | null;
            /** @description the intent of the last classified inbound message */
            last_intent: string | null;
            assigned_to: string | null;
            message_count: number;
            messages: components["schemas"]["Message"][];
        };
        /** @description A meeting with a contact: booked through a link (Cal.com, Calendly), a reply, or recorded by hand; its reminder and its CRM record */
        Meeting: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            organization_id: string;
            contact_id: string | null;
            enrollment_id: string | null;
            opportunity_id: string | null;
            thread_id: string | null;
            /** @description calcom, calendly, google, microsoft, manual, ... */
            provider: string;
            /** @description The provider's id of the booking; (provider, external_id) is unique, a repeat updates */
            external_id: string | null;
            title: string;
            /** Format: date-time */
            starts_at: string;
            /** Format: date-time */
            ends_at: string;
            /** @enum {string} */
            status: "proposed" | "cancelled" | "completed" | "no_show";
            join_url: string | null;
            attendee_email: string | null;
            /** @enum {string} */
            booked_via: "link" | "reply" | "manual";
            /** @description When the reminder is due: the organization's lead time before starts_at (null once cancelled) */
            reminder_at: string | null;
            /** @description When the reminder was created */
            reminded_at: string | null;
            /** @description The owner's reminder task (GET /tasks) */
            reminder_task_id: string | null;
            /** @description The reminder e-mail draft to the attendee (pending_approval, or approved in an auto campaign) */
            reminder_message_id: string | null;
            /** @description The CRM's id of the meeting (HubSpot), once synced */
            crm_external_id: string | null;
            crm_synced_at: string | null;
            /** @description Why the CRM refused the last sync (a 4xx), if it did */
            crm_error: string | null;
            /** @description Who recorded it; null for a booking webhook */
            created_by: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            contact_name: string | null;
            company_name: string | null;
        };
        /** @description The organization's meeting settings: how long before a meeting its reminder comes */
        MeetingSettings: {
            /** Format: uuid */
            organization_id: string;
            /** @description Default 1440 (24 hours) */
            reminder_lead_minutes: number;
        };
        /** @description Work for a person: the reminder to prepare a meeting, for the owner of the enrollment or campaign */
        Task: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            organization_id: string;
            /** @enum {string} */
            kind: "meeting_reminder";
            /** @enum {string} */
            status: "open" | "done" | "cancelled";
            assignee_user_id: string | null;
            meeting_id: string | null;
            contact_id: string | null;
            title: string;
            body: string | null;
            due_at: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description A verified booking delivery, handed to the worker (bookingWorkflow); a repeat of the same delivery is duplicate and changes nothing */
        BookingReceipt: {
            /** @constant */
            received: true;
            /** @enum {string} */
            event: "booked" | "cancelled" | "ignored";
            duplicate: boolean;
            workflow_id: string | null;
        };
        /** @description A receiver of signed webhooks (Standard Webhooks); the secret is answered only on creation and rotation */
        WebhookEndpoint: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            organization_id: string;
            url: string;
            events: string[];
            description: string | null;
            enabled: boolean;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description A webhook endpoint with its signing secret (`whsec_...`), answered only here: keep it */
        WebhookEndpointWithSecret: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            organization_id: string;
            url: string;
            events: string[];
            description: string | null;
            enabled: boolean;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            secret: string;
        };
        /** @description One event to one endpoint: pending (next_attempt_at set), delivered or failed */
        WebhookDelivery: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            event_id: string;
            event_type: string;
            /** @enum {string} */
            status: "pending" | "delivered" | "failed";
            attempts: number;
            last_status_code: number | null;
            last_error: string | null;
            next_attempt_at: string | null;
            delivered_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description A webhook.test event was written for the endpoint */
        WebhookTestReceipt: {
            /** Format: uuid */
            event_id: string;
        };
        /** @description A key for a machine client, acting in its organization with its role; the key itself is answered only on creation */
        ApiKey: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            organization_id: string;
            name: string;
            /** @enum {string} */
            role: "viewer" | "member" | "admin";
            prefix: string;
            /** Format: uuid */
            created_by: string;
            /** Format: date-time */
            created_at: string;
            last_used_at: string | null;
        };
        /** @description A new API key with the key (`osk_...`), answered only here: keep it */
        ApiKeyWithSecret: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            organization_id: string;
            name: string;
            /** @enum {string} */
            role: "viewer" | "member" | "admin";
            prefix: string;
            /** Format: uuid */
            created_by: string;
            /** Format: date-time */
            created_at: string;
            last_used_at: string | null;
            key: string;
        };
        /** @description The data of a webhook.test event */
        WebhookTestData: {
            /** Format: uuid */
            endpoint_id: string;
            message: string;
        };
        /** @description One variant of a campaign step and what followed its sent messages, each counted once per sent message (one per enrollment and step), from the message's sending until the enrollment's next message was sent. Opens are not measured */
        VariantResult: {
            /** @description The step's position */
            position: number;
            variant_key: string;
            /** @description Messages of the variant sent */
            sent: number;
            /** @description Of those, answered by a reply of the contact with an intent (as analytics counts replies; out-of-office answers left out) */
            replied: number;
            /** @description Of those, answered by a reply with intent interested or meeting_request */
            positive_replies: number;
            /** @description Of those, followed by a meeting of the contact that was not cancelled */
            meetings: number;
            /** @description Of those followed by a meeting, the ones whose campaign's opportunity is won */
            won: number;
        };
        /** @description A mail domain of the organization: `pending` until the TXT record `verification.value` is found at `verification.name`, then `verified`. OAuth mailboxes connect only for addresses of a verified domain */
        Domain: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            organization_id: string;
            /** @description Lower case, without a trailing dot */
            domain: string;
            /** @enum {string} */
            status: "pending" | "verified";
            /** @description What to publish in DNS to prove the domain */
            verification: {
                /** @constant */
                type: "dns_txt";
                /** @description Where to publish the TXT record */
                name: string;
                /** @description The TXT record's exact text */
                value: string;
            };
            verified_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The e-mails sent from the domain's organizational domain (its subdomains' mailboxes add up under it), per UTC day and receiving provider, newest day first; a day and provider with nothing sent is left out */
        DomainVolume: {
            /** Format: uuid */
            domain_id: string;
            /** @description The organizational domain the counts are of (mail.acme.nl counts under acme.nl) */
            domain: string;
            days: {
                /**
                 * Format: date
                 * @description The UTC day
                 */
                day: string;
                /**
                 * @description The receiving provider: google (gmail.com, or MX at google.com), yahoo (Yahoo, AOL, MX at yahoodns.net), microsoft (Outlook.com, Hotmail, Live, MSN; not Microsoft 365 business), other (not counted toward the thresholds)
                 * @enum {string}
                 */
                provider: "google" | "yahoo" | "microsoft" | "other";
                sent: number;
            }[];
            /** @description The bulk-sender thresholds, per organizational domain, receiving provider and UTC day */
            thresholds: {
                /** @description Above this many e-mails in a UTC day to one provider: the `domain.bulk_threshold_near` event */
                near: number;
                /** @description From this many: the domain's further e-mails to that provider wait for the next UTC day, unless it passes SPF, DKIM and DMARC */
                hold: number;
            };
        };
        /** @description A sending domain passed the near threshold of the bulk-sender rules to one provider on a UTC day */
        DomainBulkThresholdNear: {
            /** Format: uuid */
            organization_id: string;
            /** @description The organizational sending domain */
            domain: string;
            /**
             * @description The receiving provider: google (gmail.com, or MX at google.com), yahoo (Yahoo, AOL, MX at yahoodns.net), microsoft (Outlook.com, Hotmail, Live, MSN; not Microsoft 365 business), other (not counted toward the thresholds)
             * @enum {string}
             */
            provider: "google" | "yahoo" | "microsoft" | "other";
            /**
             * Format: date
             * @description The UTC day
             */
            day: string;
            /** @description The e-mails sent to the provider that day when the event was written */
            sent: number;
            /** @description The bulk-sender thresholds, per organizational domain, receiving provider and UTC day */
            thresholds: {
                /** @description Above this many e-mails in a UTC day to one provider: the `domain.bulk_threshold_near` event */
                near: number;
                /** @description From this many: the domain's further e-mails to that provider wait for the next UTC day, unless it passes SPF, DKIM and DMARC */
                hold: number;
            };
        };
        /** @description The checks made on a contact’s address: each pass, fail, unknown (it ran and could not decide) or null (not run) */
        EmailCheck: {
            /** @description well formed, with a registrable domain */
            syntax: ("pass" | "fail" | "unknown") | null;
            /** @description the domain accepts mail (MX, or an A record without one; a null MX fails) */
            mx: ("pass" | "fail" | "unknown") | null;
            /** @description pass: not a disposable (throw-away) domain */
            disposable: ("pass" | "fail" | "unknown") | null;
            /** @description pass: a person’s address, not a role one such as info@ or sales@ */
            role: ("pass" | "fail" | "unknown") | null;
            /** @description pass: the domain refuses addresses that cannot exist; fail: it accepts every address */
            catch_all: ("pass" | "fail" | "unknown") | null;
            /** @description the recipient’s server at RCPT TO: pass accepted, fail refused, unknown could not tell */
            smtp: ("pass" | "fail" | "unknown") | null;
            /** @description the verifier that made the checks: builtin, reacher, or a provider */
            provider: string;
            /** @description what decided the status, for a person */
            detail: string | null;
        };
        /** @description One enrichment of a company: its steps in the order tried (the website, then the providers), what each found, how many of its addresses the check made valid, what it cost and why it failed */
        EnrichmentRun: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            organization_id: string;
            /** Format: uuid */
            company_id: string;
            /** @enum {string} */
            status: "running" | "done" | "failed";
            /** @enum {string} */
            stop_at: "valid" | "risky";
            /** @description The step whose address was good enough to stop; null when every step was tried */
            stopped_at_step: number | null;
            /** Format: date-time */
            started_at: string;
            finished_at: string | null;
            steps: {
                position: number;
                /** @description website, hunter, dropcontact or apollo */
                provider: string;
                integration_id: string | null;
                /**
                 * @description skipped: an earlier step stopped the run
                 * @enum {string}
                 */
                status: "pending" | "running" | "done" | "failed" | "skipped";
                /** @description Addresses this step found (new contacts with one, or known people given one) */
                found: number;
                /** @description Of those, how many the check found valid */
                verified: number;
                /** @description What the step cost at the provider, in its own units (Hunter searches, Dropcontact and Apollo credits) */
                cost_units: number;
                error: string | null;
                started_at: string | null;
                finished_at: string | null;
            }[];
        };
        /** @description The enrichment waterfall's settings: after the company's own website, the organization's enrichment integrations in this order, stopping at the first address whose check reaches stop_at */
        EnrichmentSettings: {
            /** Format: uuid */
            organization_id: string;
            /** @enum {string} */
            stop_at: "valid" | "risky";
            order: {
                /** Format: uuid */
                integration_id: string;
                provider_key: string;
                /** @description An integration whose last test failed (error) is left out of runs */
                status: string;
                /** @description Placed by PATCH /settings/enrichment; false: not placed, tried after those placed, oldest first */
                ordered: boolean;
            }[];
        };
        /** @description A JSON-RPC 2.0 answer of the MCP server: `result` (a tool's answer is `content`, `isError` when the API refused) or `error` */
        McpMessage: {
            /** @constant */
            jsonrpc: "2.0";
            id?: string | number | null;
        } & {
            [key: string]: unknown;
        };
        /** @description What AI assistants may do through the MCP tools: with allow_approve off (the default), accepting a proposal and approving a draft answer an id for a person */
        McpSettings: {
            /** Format: uuid */
            organization_id: string;
            allow_approve: boolean;
        };
        /** @description A durable run checking contacts’ addresses; each contact’s email_status changes as it is checked */
        VerificationRun: {
            /** @description the run in the Temporal Web UI */
            workflow_id: string;
            /** Format: uuid */
            organization_id: string;
            company_id: string | null;
            /** @description only contacts of this status are checked */
            status: ("unknown" | "valid" | "risky" | "invalid") | null;
        };
    };
    responses: {
        /** @description VALIDATION_FAILED (with errors[]) or MALFORMED_JSON */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description UNAUTHENTICATED: no bearer token, or one that is invalid or expired */
        Unauthorized: {
            headers: {
                /** @description Bearer */
                "WWW-Authenticate"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description FORBIDDEN: a member of the organization whose role is too low */
        Forbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description NOT_FOUND: absent or not visible to the caller (never says which) */
        NotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description REQUEST_TIMEOUT: the upload sent nothing for IMPORT_IDLE_TIMEOUT_MS, or took over 10 minutes in all; the connection is closed */
        RequestTimeout: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description CONFLICT: the request conflicts with the current state (the problem names the existing record); IDEMPOTENCY_IN_PROGRESS: a request with this Idempotency-Key is still running */
        Conflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description PAYLOAD_TOO_LARGE: the body exceeds BODY_LIMIT (a raw e-mail: INBOUND_MAX_BYTES) */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description UNSUPPORTED_MEDIA_TYPE: bodies must be application/json (a raw e-mail: message/rfc822) */
        UnsupportedMediaType: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description IDEMPOTENCY_KEY_REUSED: this Idempotency-Key was used for another request within 24 hours */
        UnprocessableContent: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description RATE_LIMITED: too many requests for this user or organization */
        TooManyRequests: {
            headers: {
                /** @description Seconds until a request will be accepted */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description INTERNAL: an unexpected error; request_id finds it in the logs */
        InternalError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description SERVICE_UNAVAILABLE: a dependency or a required setting is missing */
        ServiceUnavailable: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Liveness */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
        };
    };
    getReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Readiness: PostgreSQL and Temporal reachable */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Prometheus metrics (text exposition format) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
        };
    };
    getOpenApiDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description This document */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenApiDocument"];
                };
            };
        };
    };
    getApiReference: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Interactive API reference (HTML) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
        };
    };
    showUnsubscribePage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The unsubscribe page of an e-mail: a button that POSTs (changes nothing; 404 for an unknown link) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    unsubscribeRecipient: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/x-www-form-urlencoded": {
                    /** @constant */
                    "List-Unsubscribe"?: "One-Click";
                };
            };
        };
        responses: {
            /** @description One-click unsubscribe: suppresses the address, skips its pending messages, stops its enrollments (a repeat changes nothing) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listOrganizations: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The caller's organizations */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Organization"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    createOrganization: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                };
            };
        };
        responses: {
            /** @description Create an organization; the caller becomes owner */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Organization"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    getOrganization: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                organizationId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One organization */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Organization"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    addOrganizationMember: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path: {
                organizationId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uuid */
                    userId: string;
                    /** @enum {string} */
                    role: "owner" | "admin" | "member" | "viewer";
                };
            };
        };
        responses: {
            /** @description The existing record (a repeat) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Membership"];
                };
            };
            /** @description Add a member (201) or change a role (200) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Membership"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    listSources: {
        parameters: {
            query: {
                organizationId: string;
                limit?: number;
                before?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description List sources */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Source"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    createSource: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uuid */
                    organizationId: string;
                    /** @enum {string} */
                    providerKey: "rss" | "json_api" | "bekendmakingen";
                    name: string;
                    config: {
                        [key: string]: unknown;
                    };
                    enabled?: boolean;
                    schedule?: string | null;
                    countryCode?: string;
                    language?: string;
                };
            };
        };
        responses: {
            /** @description Create a signal source */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Source"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    getSource: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sourceId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One source */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Source"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    updateSource: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sourceId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    config?: {
                        [key: string]: unknown;
                    };
                    enabled?: boolean;
                    schedule?: string | null;
                };
            };
        };
        responses: {
            /** @description Change a source (schedule syncs its Temporal Schedule) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Source"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    runSource: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path: {
                sourceId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Start ingestSourceWorkflow (409 while the source is disabled) */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SourceRun"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    listSignals: {
        parameters: {
            query: {
                organizationId: string;
                limit?: number;
                before?: string;
                status?: "ingested" | "classified" | "scored" | "ignored" | "qualified" | "ready" | "failed";
                projectId?: string;
                q?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description List signals, newest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Signal"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    getSignal: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                signalId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A signal with its classification, score and breakdown */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SignalDetail"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    ignoreSignal: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path: {
                signalId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Ignore a signal */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Signal"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    reprocessSignal: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path: {
                signalId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    fromStage?: "classification" | "scoring" | "opportunity" | "enrichment" | "drafting" | "strategist";
                };
            };
        };
        responses: {
            /** @description Run processSignalWorkflow from a stage (409 while a run is in progress) */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SignalRun"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    listOpportunities: {
        parameters: {
            query: {
                organizationId: string;
                limit?: number;
                before?: string;
                status?: "ready" | "in_outreach" | "closed";
                outcome?: "open" | "won" | "lost";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description List opportunities */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Opportunity"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    createOpportunity: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uuid */
                    organizationId: string;
                    /** Format: uuid */
                    signalId?: string;
                    summary?: string;
                    score?: number;
                };
            };
        };
        responses: {
            /** @description Create an opportunity from a signal or manually (409 when the project has an open one) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Opportunity"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    getOpportunity: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                opportunityId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One opportunity */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Opportunity"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    recordOpportunityOutcome: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path: {
                opportunityId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    outcome: "won" | "lost" | "open";
                    value?: number;
                };
            };
        };
        responses: {
            /** @description Record won, lost, or reopen (409 when the project has another open one) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Opportunity"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    getScoringSettings: {
        parameters: {
            query: {
                organizationId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The active scoring config and rules */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScoringSettings"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    updateScoringSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uuid */
                    organizationId: string;
                    ignoreBelow?: number;
                    qualifyAt?: number;
                    opportunityAt?: number;
                    homeLat?: number | null;
                    homeLng?: number | null;
                    rules?: {
                        ruleKey: string;
                        weight?: number;
                        maxPoints?: number;
                    }[];
                };
            };
        };
        responses: {
            /** @description New scoring config version (thresholds, home, rule weights and caps) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScoringSettings"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    getScoringSuggestions: {
        parameters: {
            query: {
                organizationId: string;
                window?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Rule weights the outcomes suggest, with the evidence (changes nothing) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScoringSuggestions"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    getOutreachAnalytics: {
        parameters: {
            query: {
                organizationId: string;
                window?: "7" | "30" | "90" | "180";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Attribution, deliverability and agent quality over 7, 30, 90 or 180 days */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OutreachAnalytics"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    getIndustryProfile: {
        parameters: {
            query: {
                organizationId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The industry profile */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IndustryProfileSettings"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    updateIndustryProfile: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uuid */
                    organizationId: string;
                    key?: string;
                    name?: string;
                    description?: string | null;
                    propositionText?: string | null;
                    personas?: {
                        segment: string;
                        titleKeywords: string[];
                        priority: number;
                    }[];
                    products?: {
                        key: string;
                        name: string;
                        description?: string | null;
                        fitKeywords: string[];
                    }[];
                };
            };
        };
        responses: {
            /** @description Change the industry profile */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IndustryProfileSettings"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    listCompanies: {
        parameters: {
            query: {
                organizationId: string;
                limit?: number;
                before?: string;
                q?: string;
                kvkNumber?: string;
                domain?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description List companies */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Company"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    createCompany: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uuid */
                    organizationId: string;
                    name: string;
                    domain?: string;
                    kvkNumber?: string;
                    address?: string;
                    /** Format: uri */
                    website?: string;
                    genericEmail?: string;
                    phone?: string;
                    countryCode?: string;
                    locale?: string;
                    legalForm?: string;
                    sbiCodes?: string[];
                    timezone?: string;
                };
            };
        };
        responses: {
            /** @description Create a company (409 when its KvK number exists) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Company"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    getCompany: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                companyId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One company */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Company"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    patchCompany: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                companyId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    address?: string | null;
                    website?: string | null;
                    phone?: string | null;
                    countryCode?: string | null;
                    locale?: string | null;
                    timezone?: string | null;
                };
            };
        };
        responses: {
            /** @description Change name, address, website, phone, country, locale or time zone (timezone: IANA, the recipient time of its contacts); null clears an optional field */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Company"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    enrichCompany: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path: {
                companyId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Start contact enrichment (answers the company, enrichment_status running) */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Company"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    listContacts: {
        parameters: {
            query: {
                organizationId: string;
                limit?: number;
                before?: string;
                companyId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description List contacts */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Contact"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    createContact: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uuid */
                    organizationId: string;
                    /** Format: uuid */
                    companyId: string;
                    fullName: string;
                    title?: string;
                    email?: string;
                    phone?: string;
                    /** Format: uri */
                    linkedinUrl?: string;
                    sourceDescription?: string;
                    timezone?: string;
                };
            };
        };
        responses: {
            /** @description Create a contact (409 when its e-mail address exists) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Contact"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    getContact: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                contactId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One contact with its lawful basis */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ContactDetail"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    eraseContact: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                contactId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Erase a contact (GDPR Art. 17) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Contact"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    patchContact: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                contactId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    fullName?: string;
                    title?: string | null;
                    phone?: string | null;
                    linkedinUrl?: string | null;
                    timezone?: string | null;
                };
            };
        };
        responses: {
            /** @description Change name, title, phone, LinkedIn profile or time zone (timezone: IANA, the recipient time); null clears an optional field; 409 for an erased contact */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Contact"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    listImports: {
        parameters: {
            query: {
                organizationId: string;
                limit?: number;
                before?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description List contact imports */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Import"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    createImport: {
        parameters: {
            query: {
                organizationId: string;
                sourceDescription: string;
                dedupe?: "organization" | "none";
            };
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        /** @description The CSV file: a header row (full_name or name or first_name + last_name, email, title, phone, linkedin_url, company, domain, website, kvk_number, country, timezone), one row per contact */
        requestBody: {
            content: {
                "text/csv": string;
            };
        };
        responses: {
            /** @description Import contacts from a CSV file (text/csv: UTF-8 with or without a BOM, UTF-16 with a BOM, or Windows-1252; header row, `,` or `;`, 20 MB and 200,000 rows at most; 408 when the upload stalls past IMPORT_IDLE_TIMEOUT_MS or takes over 10 minutes in all; 429 while four uploads of the organization are being received): a durable run in chunks, every row through the checks of POST /contacts and POST /companies (202, running) */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Import"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    getImport: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                importId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One contact import and its progress */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Import"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    getContactChannels: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                contactId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The compliance gate for a contact */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ComplianceGate"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    recordLawfulBasis: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                contactId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uuid */
                    organizationId: string;
                    /** @enum {string} */
                    basis: "legitimate_interest" | "consent";
                    /** @enum {string} */
                    recipient_kind: "legal_person" | "natural_person";
                    country: string;
                    source_description?: string;
                    assessment?: string;
                    consent_evidence?: string;
                };
            };
        };
        responses: {
            /** @description Record the lawful basis (409 for an erased contact) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LawfulBasis"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    listSuppressions: {
        parameters: {
            query: {
                organizationId: string;
                limit?: number;
                before?: string;
                scope?: "email" | "domain" | "kvk_number" | "email_hash" | "person_hash";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description List suppressions */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Suppression"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    addSuppression: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uuid */
                    organizationId: string;
                    /** @enum {string} */
                    scope: "email" | "domain" | "kvk_number";
                    value: string;
                    /** @enum {string} */
                    reason?: "unsubscribe" | "bounce" | "complaint" | "objection" | "manual";
                    note?: string;
                };
            };
        };
        responses: {
            /** @description The existing record (a repeat) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Suppression"];
                };
            };
            /** @description Add a suppression (201; 200 with the existing one on a repeat) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Suppression"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    removeSuppression: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                suppressionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Remove a suppression (audited; 400 for an erasure hash) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Suppression"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    getComplianceSettings: {
        parameters: {
            query: {
                organizationId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Compliance settings */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ComplianceSettings"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    updateComplianceSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uuid */
                    organizationId: string;
                    defaultCountry?: string;
                    defaultLocale?: string;
                    /** @enum {string} */
                    defaultFormality?: "formal" | "informal";
                    retentionMonths?: number;
                    /** @enum {string} */
                    aiDisclosure?: "footer" | "none";
                    senderLegalName?: string | null;
                    senderAddress?: string | null;
                    privacyUrl?: string | null;
                    unsubscribeMailto?: string | null;
                    feedbackLoopSenders?: string[];
                };
            };
        };
        responses: {
            /** @description Change compliance settings (audited) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ComplianceSettings"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    listComplianceAudit: {
        parameters: {
            query: {
                organizationId: string;
                limit?: number;
                before?: string;
                entity?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The compliance audit log */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditEntry"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    getChannelPolicy: {
        parameters: {
            query?: {
                country?: string;
                recipientKind?: "legal_person" | "natural_person";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The channel policy table */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChannelPolicy"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    listIntegrations: {
        parameters: {
            query: {
                organizationId: string;
                limit?: number;
                before?: string;
                kind?: "crm" | "calendar" | "enrichment" | "llm" | "verification";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description List integrations */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Integration"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    createIntegration: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uuid */
                    organizationId: string;
                    /** @enum {string} */
                    providerKey: "hubspot" | "salesforce" | "calcom" | "calendly" | "hunter" | "dropcontact" | "apollo" | "openai_compatible" | "reacher" | "zerobounce";
                    /** @enum {string} */
                    kind: "crm" | "calendar" | "enrichment" | "llm" | "verification";
                    config?: {
                        [key: string]: unknown;
                    };
                    mapping?: {
                        [key: string]: unknown;
                    };
                    secret: string;
                };
            };
        };
        responses: {
            /** @description Add an integration (secret write-only; 503 without INTEGRATION_SECRET_KEY) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Integration"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getIntegration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                integrationId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One integration */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Integration"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    deleteIntegration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                integrationId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Remove an integration and its sealed secret: it leaves the enrichment order and new work does not use it (a call under way ends first); audited */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    updateIntegration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                integrationId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    config?: {
                        [key: string]: unknown;
                    };
                    mapping?: {
                        [key: string]: unknown;
                    };
                    secret?: string;
                };
            };
        };
        responses: {
            /** @description Change the config, mapping or secret (a rotated key; a changed URL needs the secret again); a new config or secret is untested (disconnected) until tested again; audited */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Integration"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    testIntegration: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path: {
                integrationId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Verify the stored secret with the provider (400 naming config.baseUrl when the provider's answer exceeds the size limit; 409 when the integration was changed during the check) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Integration"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listMailboxes: {
        parameters: {
            query: {
                organizationId: string;
                limit?: number;
                before?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description List mailboxes */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Mailbox"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    createMailbox: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uuid */
                    organizationId: string;
                    address: string;
                    displayName?: string;
                    smtp?: {
                        host: string;
                        port: number;
                        secure?: boolean;
                        username?: string;
                    };
                    imap?: {
                        host: string;
                        port: number;
                        secure?: boolean;
                        username?: string;
                    };
                    secret: string;
                    timezone?: string;
                    sendingWindow?: {
                        start: string;
                        end: string;
                    };
                    sendingDays?: number[];
                    holidayCountry?: string;
                    dailyCap?: number;
                    minGapSeconds?: number;
                    rampUp?: {
                        startCap: number;
                        dailyIncrease: number;
                        /** Format: date */
                        startsOn?: string;
                    } | null;
                    protection?: {
                        maxBounceRate?: number;
                        maxComplaintRate?: number;
                        maxBlockRate?: number;
                        minSample?: number;
                    };
                    gapJitterSeconds?: number;
                    auth?: {
                        /** @constant */
                        type: "password";
                    } | {
                        /** @constant */
                        type: "oauth2";
                        /** @enum {string} */
                        provider: "google" | "microsoft";
                    };
                    holidayRegion?: string;
                    dkimSelector?: string;
                };
            };
        };
        responses: {
            /** @description Add a mailbox (secret write-only; 409 when the address exists in the organization; 503 without INTEGRATION_SECRET_KEY) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Mailbox"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getMailbox: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One mailbox */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Mailbox"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    updateMailbox: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    displayName?: string | null;
                    smtp?: {
                        host: string;
                        port: number;
                        secure?: boolean;
                        username?: string;
                    };
                    imap?: {
                        host: string;
                        port: number;
                        secure?: boolean;
                        username?: string;
                    } | null;
                    secret?: string;
                    timezone?: string;
                    sendingWindow?: {
                        start: string;
                        end: string;
                    };
                    sendingDays?: number[];
                    holidayCountry?: string;
                    dailyCap?: number;
                    minGapSeconds?: number;
                    rampUp?: {
                        startCap: number;
                        dailyIncrease: number;
                        /** Format: date */
                        startsOn?: string;
                    } | null;
                    protection?: {
                        maxBounceRate?: number;
                        maxComplaintRate?: number;
                        maxBlockRate?: number;
                        minSample?: number;
                    };
                    gapJitterSeconds?: number;
                    holidayRegion?: string | null;
                    dkimSelector?: string | null;
                };
            };
        };
        responses: {
            /** @description Change a mailbox (any field but organizationId and address; 503 for a secret without INTEGRATION_SECRET_KEY) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Mailbox"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    checkMailboxHealth: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path: {
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Check the deliverability of the mailbox's domain now (SPF, DKIM, DMARC, MX) and store it as its health; 400 for an IDN or invalid domain */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MailboxHealth"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    receiveInboundMessage: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path: {
                mailboxId: string;
            };
            cookie?: never;
        };
        /** @description One raw RFC 822 message, headers and body, as received */
        requestBody: {
            content: {
                "message/rfc822": string;
            };
        };
        responses: {
            /** @description The existing record (a repeat) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InboundReceipt"];
                };
            };
            /** @description Hand over one received e-mail (raw RFC 822): stored, threaded and triaged like mail read from the IMAP inbox (202; 200 {duplicate: true} when its Message-ID is stored; 413 over INBOUND_MAX_BYTES) */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InboundReceipt"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    startMailboxOAuth: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uuid */
                    organizationId: string;
                    /** @enum {string} */
                    provider: "google" | "microsoft";
                    /** @description The mailbox to connect: sent as login_hint; the callback connects no other address */
                    address?: string;
                };
            };
        };
        responses: {
            /** @description Start connecting a Google or Microsoft mailbox: the authorization URL (code flow, PKCE S256, always with the provider's account screen; login_hint when `address` names the mailbox, which must be of a verified domain) and its single-use state (10 minutes, bound to the caller and organization); 503 without the provider's OAuth client */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthStart"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    mailboxOAuthCallback: {
        parameters: {
            query: {
                code?: string;
                state: string;
                iss?: string;
                error?: string;
                error_description?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Where the provider sends the user back (no bearer token: the state authenticates): exchanges the code, creates the mailbox of the ID token's verified address (or gives the existing one the new grant and the provider's servers), answers a small HTML page; a reused or expired state is 400 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description Nothing connected, and the page says why: the provider did not vouch for the address, it is not the address the start named, or its domain is not verified by the organization */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    pauseMailbox: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path: {
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description Pause the mailbox by hand (paused_reason manual): it sends nothing, not even what is booked */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Mailbox"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    resumeMailbox: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path: {
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Resume a paused mailbox: its held e-mails go out again (409 unless paused) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Mailbox"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    listCampaigns: {
        parameters: {
            query: {
                organizationId: string;
                limit?: number;
                before?: string;
                opportunityId?: string;
                status?: "proposed" | "active" | "paused" | "completed" | "archived";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description List campaigns */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    createCampaign: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uuid */
                    organizationId: string;
                    name: string;
                    /** Format: uuid */
                    opportunityId?: string;
                    /** Format: uuid */
                    mailboxId?: string;
                    mailboxIds?: string[];
                    /** @enum {string} */
                    mode?: "review" | "auto";
                    /** @enum {string} */
                    sendIn?: "mailbox" | "recipient";
                    /** @description Enroll contacts whose address is risky (a catch-all domain, a role address, a probe that could not decide); default false */
                    allowRisky?: boolean;
                    goal?: string;
                    brief?: string;
                    countryCode?: string;
                    personaKeys?: string[];
                    productKeys?: string[];
                    minScore?: number;
                    contactIds?: string[];
                    steps: {
                        /** @enum {string} */
                        channel: "email" | "phone" | "linkedin";
                        delayDays: number;
                        instructions?: string;
                        variants?: {
                            key: string;
                            subject?: string;
                            instructions?: string;
                        }[];
                    }[];
                };
            };
        };
        responses: {
            /** @description A person's campaign (status proposed, proposed_by user; 409 when the opportunity has a live proposal) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    getCampaign: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                campaignId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One campaign with its steps and enrollment counts */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    patchCampaign: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                campaignId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    mailboxIds?: string[];
                    /** @enum {string} */
                    mode?: "review" | "auto";
                    /** @enum {string} */
                    sendIn?: "mailbox" | "recipient";
                    /** @description Enroll contacts whose address is risky (a catch-all domain, a role address, a probe that could not decide); default false */
                    allowRisky?: boolean;
                };
            };
        };
        responses: {
            /** @description Change name, mode, sendIn (mailbox or recipient time) or the mailbox pool (mailboxIds; 409 once archived) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    acceptCampaign: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path: {
                campaignId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    contactIds?: string[];
                    /** Format: uuid */
                    mailboxId?: string;
                    mailboxIds?: string[];
                    /** @enum {string} */
                    mode?: "review" | "auto";
                    /** @enum {string} */
                    sendIn?: "mailbox" | "recipient";
                    /** @description Enroll contacts whose address is risky (a catch-all domain, a role address, a probe that could not decide); default false */
                    allowRisky?: boolean;
                };
            };
        };
        responses: {
            /** @description Accept a proposal: enroll its contacts (409 when not proposed) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CampaignAcceptance"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    addCampaignContacts: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path: {
                campaignId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    contactIds: string[];
                };
            };
        };
        responses: {
            /** @description Add contacts: a proposal suggests them, an active campaign enrolls them at once (409 otherwise) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CampaignAcceptance"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    campaignVariants: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                campaignId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Results per step variant: sent, replied, positive replies, meetings and won, counted per sent message of each variant (opens are not measured) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VariantResult"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    dismissCampaign: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path: {
                campaignId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description Dismiss a proposal (archived; 409 when not proposed) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    listEnrollments: {
        parameters: {
            query: {
                organizationId: string;
                limit?: number;
                before?: string;
                campaignId?: string;
                contactId?: string;
                status?: "active" | "paused" | "stopped" | "completed" | "failed";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description List enrollments */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Enrollment"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    getEnrollment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                enrollmentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One enrollment */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Enrollment"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    stopEnrollment: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path: {
                enrollmentId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description Stop an enrollment; its waiting drafts are skipped (409 when it has ended) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Enrollment"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    askStrategist: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path: {
                opportunityId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Ask the strategist for a campaign proposal (202 with the run; 409 with campaign_id while a live proposal exists) */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StrategistRun"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    resumeEnrollment: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path: {
                enrollmentId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Resume a paused enrollment (409 unless paused) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Enrollment"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    listMessages: {
        parameters: {
            query: {
                organizationId: string;
                limit?: number;
                before?: string;
                status?: "pending_approval" | "approved" | "scheduled" | "sent" | "failed" | "rejected" | "received" | "task_open" | "task_done" | "skipped";
                campaignId?: string;
                enrollmentId?: string;
                contactId?: string;
                direction?: "outbound" | "inbound";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description List messages, newest first (status=pending_approval: the approval inbox) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Message"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    getMessage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                messageId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One message with its why, confidence, model and prompt version */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Message"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    editMessage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                messageId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    subject?: string;
                    body?: string;
                };
            };
        };
        responses: {
            /** @description Edit a draft waiting for approval, which stays waiting (original_body keeps the text as first written); 409 unless pending_approval */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Message"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    approveMessage: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path: {
                messageId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    subject?: string;
                    body?: string;
                };
            };
        };
        responses: {
            /** @description Approve a draft, optionally edited (original_body keeps the text before the edit); its sequence sends it in the mailbox window (409 unless pending_approval) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Message"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    rejectMessage: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path: {
                messageId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    reason?: string;
                    redraft?: boolean;
                };
            };
        };
        responses: {
            /** @description Reject a draft; with redraft a new draft for the same step follows, else the step is skipped (409 unless pending_approval) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Message"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    completeMessage: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path: {
                messageId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    note?: string;
                };
            };
        };
        responses: {
            /** @description Complete a phone or LinkedIn task (409 unless task_open) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Message"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    listMeetings: {
        parameters: {
            query: {
                organizationId: string;
                limit?: number;
                before?: string;
                contactId?: string;
                opportunityId?: string;
                enrollmentId?: string;
                status?: "proposed" | "cancelled" | "completed" | "no_show";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description List meetings */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Meeting"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    recordMeeting: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uuid */
                    organizationId: string;
                    title: string;
                    startsAt: string;
                    endsAt: string;
                    /** Format: uuid */
                    contactId?: string;
                    /** Format: uuid */
                    enrollmentId?: string;
                    /** Format: uuid */
                    opportunityId?: string;
                    /** Format: uuid */
                    threadId?: string;
                    attendeeEmail?: string;
                    provider?: string;
                    externalId?: string;
                    /** Format: uri */
                    joinUrl?: string;
                    /** @enum {string} */
                    bookedVia?: "link" | "reply" | "manual";
                };
            };
        };
        responses: {
            /** @description The existing record (a repeat) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Meeting"];
                };
            };
            /** @description Record a meeting (201); a repeat of (provider, externalId) updates it (200). Stops the contact's sequences, schedules the reminder, syncs to the CRM when auto-sync is on */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Meeting"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    getMeeting: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                meetingId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One meeting, with reminder_at and crm_external_id */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Meeting"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    listThreads: {
        parameters: {
            query: {
                organizationId: string;
                limit?: number;
                before?: string;
                status?: "open" | "replied" | "closed";
                mailboxId?: string;
                assignedTo?: string;
                intent?: "interested" | "not_interested" | "meeting_request" | "referral" | "out_of_office" | "unsubscribe" | "other";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description List threads, the last activity first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Thread"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    getThread: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                threadId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One thread with its messages, both directions, oldest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ThreadDetail"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    updateThread: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                threadId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    status?: "open" | "closed";
                    /** @description a member's user id, or null to unassign */
                    assignedTo?: string | null;
                };
            };
        };
        responses: {
            /** @description Open or close a thread, assign it to a member (or null) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Thread"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    replyToThread: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path: {
                threadId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    body: string;
                    subject?: string;
                };
            };
        };
        responses: {
            /** @description Reply as a person: an approved outbound message from the thread's mailbox with In-Reply-To and References of the last inbound message, sent through the send path (suppression, window, cap); 409 when the thread has no mailbox or the contact no address */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Message"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    changeMeetingStatus: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path: {
                meetingId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    status: "cancelled" | "completed" | "no_show";
                };
            };
        };
        responses: {
            /** @description Set the outcome: cancelled (withdraws the reminder), completed or no_show (count for analytics); the CRM outcome follows */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Meeting"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    listTasks: {
        parameters: {
            query: {
                organizationId: string;
                limit?: number;
                before?: string;
                assigneeUserId?: string;
                meetingId?: string;
                status?: "open" | "done" | "cancelled";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Tasks for people (a meeting's reminder for the owner of the enrollment or campaign) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Task"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    completeTask: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path: {
                taskId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Mark an open task done (409 when it is done or cancelled) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Task"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    getMeetingSettings: {
        parameters: {
            query: {
                organizationId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The reminder's lead time */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MeetingSettings"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    updateMeetingSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uuid */
                    organizationId: string;
                    reminderLeadMinutes?: number;
                };
            };
        };
        responses: {
            /** @description Change the reminder's lead time (reminders still to come move) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MeetingSettings"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    receiveCalcomWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                calcomIntegrationId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description BOOKING_CREATED, BOOKING_RESCHEDULED, BOOKING_CANCELLED; others are ignored */
                    triggerEvent: string;
                    createdAt?: string;
                    payload: {
                        [key: string]: unknown;
                    };
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Cal.com booking webhook: X-Cal-Signature-256 (hex HMAC-SHA256 of the raw body with the calendar integration's secret); 401 for a bad signature, 400 for a body that is not JSON */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BookingReceipt"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listWebhookEndpoints: {
        parameters: {
            query: {
                organizationId: string;
                limit?: number;
                before?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The organization's webhook endpoints (without secrets) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    createWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uuid */
                    organizationId: string;
                    /** Format: uri */
                    url: string;
                    events: ("opportunity.created" | "campaign.proposed" | "message.pending_approval" | "message.sent" | "message.failed" | "reply.received" | "meeting.booked" | "meeting.updated" | "enrollment.stopped" | "enrollment.paused" | "mailbox.paused" | "domain.bulk_threshold_near" | "suppression.created" | "webhook.test" | "*")[];
                    description?: string | null;
                    /** @default true */
                    enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description Add a webhook endpoint; its signing secret (whsec_...) is answered here only. The url passes the outbound rule (no private networks unless allowed) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpointWithSecret"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                endpointId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One webhook endpoint */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    deleteWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                endpointId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Remove an endpoint and its deliveries */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    updateWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                endpointId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uri */
                    url?: string;
                    events?: ("opportunity.created" | "campaign.proposed" | "message.pending_approval" | "message.sent" | "message.failed" | "reply.received" | "meeting.booked" | "meeting.updated" | "enrollment.stopped" | "enrollment.paused" | "mailbox.paused" | "domain.bulk_threshold_near" | "suppression.created" | "webhook.test" | "*")[];
                    description?: string | null;
                    enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description Change the url, events, description or enabled (enabling again resumes its pending deliveries) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    rotateWebhookSecret: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path: {
                endpointId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description A new signing secret, answered here only; the previous one still signs for 24 hours (webhook-signature carries both) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpointWithSecret"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    testWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path: {
                endpointId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Send a webhook.test event to this endpoint */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookTestReceipt"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                limit?: number;
                before?: string;
                status?: "pending" | "delivered" | "failed";
            };
            header?: never;
            path: {
                endpointId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint's deliveries with their attempts, newest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDelivery"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    retryWebhookDelivery: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path: {
                deliveryId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Send a delivery again: pending, due now, with a fresh attempt budget */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDelivery"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    listApiKeys: {
        parameters: {
            query: {
                organizationId: string;
                limit?: number;
                before?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The organization's live keys (without the key) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKey"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    createApiKey: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uuid */
                    organizationId: string;
                    name: string;
                    /** @enum {string} */
                    role: "viewer" | "member" | "admin";
                };
            };
        };
        responses: {
            /** @description Create a key (viewer, member or admin; not above your own role); the key (osk_...) is answered here only. A key cannot create keys */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKeyWithSecret"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    deleteApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKeyId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoke a key: refused (401) from then on */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    listDomains: {
        parameters: {
            query: {
                organizationId: string;
                limit?: number;
                before?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The organization's mail domains, pending and verified */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Domain"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    createDomain: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uuid */
                    organizationId: string;
                    domain: string;
                };
            };
        };
        responses: {
            /** @description Add a mail domain to prove (pending): publish the TXT record `verification.value` at `verification.name`, then verify it; 409 when the organization has it; OAuth mailboxes connect only for verified domains */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Domain"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    verifyDomain: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path: {
                domainId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Look the TXT record up now: the domain, verified, when one record at `verification.name` is exactly `verification.value`; else 409 naming what was found (nothing changes) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Domain"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    deleteDomain: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                domainId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Remove a domain: mailboxes already connected stay, no new OAuth connection for it */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    domainVolume: {
        parameters: {
            query?: {
                days?: number;
            };
            header?: never;
            path: {
                domainId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description E-mails sent from the domain's organizational domain per UTC day and receiving provider over the last `days` (default 7, at most 90), with the bulk-sender thresholds: above 4,000 a day to one provider the `domain.bulk_threshold_near` event, at 5,000 an unaligned domain waits for the next UTC day */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DomainVolume"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    receiveCalendlyWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                calendlyIntegrationId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description invitee.created, invitee.canceled; others are ignored */
                    event: string;
                    created_at?: string;
                    payload: {
                        [key: string]: unknown;
                    };
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Calendly booking webhook: Calendly-Webhook-Signature t=...,v1=... (HMAC-SHA256 of "t.body"); 401 for a bad signature or one older than 3 minutes, 400 for a body that is not JSON */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BookingReceipt"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getEnrichmentSettings: {
        parameters: {
            query: {
                organizationId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The enrichment waterfall's order of providers and where it stops */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnrichmentSettings"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    updateEnrichmentSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uuid */
                    organizationId: string;
                    /** @description Enrichment integration ids in the order they are tried after the website; those not named follow, oldest first */
                    order?: string[];
                    /**
                     * @description Stop at the first address whose check is valid, or also risky (catch-all, role)
                     * @enum {string}
                     */
                    stopAt?: "valid" | "risky";
                };
            };
        };
        responses: {
            /** @description Set the order of the organization's enrichment integrations (tried after the company's website) and where the waterfall stops; audited. 400 for an id that is not one of the organization's enrichment integrations */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnrichmentSettings"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    getMcpSettings: {
        parameters: {
            query: {
                organizationId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description What AI assistants may do through the MCP tools */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["McpSettings"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    updateMcpSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uuid */
                    organizationId: string;
                    /** @description Let AI assistants (MCP tools) accept proposals and approve drafts, within their key's or token's role */
                    allowApprove: boolean;
                };
            };
        };
        responses: {
            /** @description Let AI assistants accept proposals and approve drafts, or not (default); audited */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["McpSettings"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    listEnrichmentRuns: {
        parameters: {
            query?: {
                limit?: number;
            };
            header?: never;
            path: {
                companyId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The company's enrichment runs, newest first, each with its steps ({provider, found, verified, cost_units, error}) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnrichmentRun"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    verifyContact: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path: {
                contactId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Check the contact’s e-mail address again (answers the contact; email_status and email_check change when the check ends); 409 for an erased contact or one without an address */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Contact"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    verifyContacts: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uuid */
                    organizationId: string;
                    /** Format: uuid */
                    companyId?: string;
                    /** @enum {string} */
                    status?: "unknown" | "valid" | "risky" | "invalid";
                };
            };
        };
        responses: {
            /** @description Check the addresses of the organization’s contacts (of a company, of a status) in a durable run */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VerificationRun"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    postMcp: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the POST safe to repeat: the first answer is kept 24 hours per caller and key and answered again (Idempotent-Replayed: true) to the same request */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    jsonrpc: "2.0";
                    id?: string | number;
                    method: string;
                    params?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description The Model Context Protocol (streamable HTTP, stateless): initialize, tools/list, tools/call, resources/read. Every tool call is the API request it names, made as this caller (its role, its organizations); a notification is answered 202 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["McpMessage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    opportunityCreatedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt (deduplicate on it) */
                "webhook-id": string;
                /** @description Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`; two during a rotation */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "opportunity.created";
                    /** Format: date-time */
                    timestamp: string;
                    /** Format: uuid */
                    organization_id: string;
                    data: components["schemas"]["Opportunity"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the endpoint is disabled and not called again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    campaignProposedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt (deduplicate on it) */
                "webhook-id": string;
                /** @description Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`; two during a rotation */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "campaign.proposed";
                    /** Format: date-time */
                    timestamp: string;
                    /** Format: uuid */
                    organization_id: string;
                    data: components["schemas"]["Campaign"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the endpoint is disabled and not called again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    messagePendingApprovalWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt (deduplicate on it) */
                "webhook-id": string;
                /** @description Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`; two during a rotation */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "message.pending_approval";
                    /** Format: date-time */
                    timestamp: string;
                    /** Format: uuid */
                    organization_id: string;
                    data: components["schemas"]["Message"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the endpoint is disabled and not called again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    messageSentWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt (deduplicate on it) */
                "webhook-id": string;
                /** @description Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`; two during a rotation */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "message.sent";
                    /** Format: date-time */
                    timestamp: string;
                    /** Format: uuid */
                    organization_id: string;
                    data: components["schemas"]["Message"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the endpoint is disabled and not called again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    messageFailedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt (deduplicate on it) */
                "webhook-id": string;
                /** @description Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`; two during a rotation */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "message.failed";
                    /** Format: date-time */
                    timestamp: string;
                    /** Format: uuid */
                    organization_id: string;
                    data: components["schemas"]["Message"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the endpoint is disabled and not called again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    replyReceivedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt (deduplicate on it) */
                "webhook-id": string;
                /** @description Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`; two during a rotation */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "reply.received";
                    /** Format: date-time */
                    timestamp: string;
                    /** Format: uuid */
                    organization_id: string;
                    data: components["schemas"]["Message"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the endpoint is disabled and not called again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    meetingBookedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt (deduplicate on it) */
                "webhook-id": string;
                /** @description Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`; two during a rotation */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "meeting.booked";
                    /** Format: date-time */
                    timestamp: string;
                    /** Format: uuid */
                    organization_id: string;
                    data: components["schemas"]["Meeting"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the endpoint is disabled and not called again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    meetingUpdatedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt (deduplicate on it) */
                "webhook-id": string;
                /** @description Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`; two during a rotation */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "meeting.updated";
                    /** Format: date-time */
                    timestamp: string;
                    /** Format: uuid */
                    organization_id: string;
                    data: components["schemas"]["Meeting"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the endpoint is disabled and not called again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    enrollmentStoppedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt (deduplicate on it) */
                "webhook-id": string;
                /** @description Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`; two during a rotation */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "enrollment.stopped";
                    /** Format: date-time */
                    timestamp: string;
                    /** Format: uuid */
                    organization_id: string;
                    data: components["schemas"]["Enrollment"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the endpoint is disabled and not called again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    enrollmentPausedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt (deduplicate on it) */
                "webhook-id": string;
                /** @description Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`; two during a rotation */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "enrollment.paused";
                    /** Format: date-time */
                    timestamp: string;
                    /** Format: uuid */
                    organization_id: string;
                    data: components["schemas"]["Enrollment"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the endpoint is disabled and not called again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    mailboxPausedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt (deduplicate on it) */
                "webhook-id": string;
                /** @description Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`; two during a rotation */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "mailbox.paused";
                    /** Format: date-time */
                    timestamp: string;
                    /** Format: uuid */
                    organization_id: string;
                    data: components["schemas"]["Mailbox"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the endpoint is disabled and not called again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    domainBulkThresholdNearWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt (deduplicate on it) */
                "webhook-id": string;
                /** @description Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`; two during a rotation */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "domain.bulk_threshold_near";
                    /** Format: date-time */
                    timestamp: string;
                    /** Format: uuid */
                    organization_id: string;
                    data: components["schemas"]["DomainBulkThresholdNear"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the endpoint is disabled and not called again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    suppressionCreatedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt (deduplicate on it) */
                "webhook-id": string;
                /** @description Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`; two during a rotation */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "suppression.created";
                    /** Format: date-time */
                    timestamp: string;
                    /** Format: uuid */
                    organization_id: string;
                    data: components["schemas"]["Suppression"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the endpoint is disabled and not called again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookTestWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt (deduplicate on it) */
                "webhook-id": string;
                /** @description Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`; two during a rotation */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "webhook.test";
                    /** Format: date-time */
                    timestamp: string;
                    /** Format: uuid */
                    organization_id: string;
                    data: components["schemas"]["WebhookTestData"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the endpoint is disabled and not called again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
