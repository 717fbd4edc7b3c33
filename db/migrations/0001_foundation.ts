import { Kysely, sql } from 'kysely';

/**
 * The whole data model in one coherent first migration.
 *
 * Tenancy rules every table follows:
 * - every tenant table has organization_id and UNIQUE (organization_id, id), and references other
 *   tenant rows through (organization_id, x_id), so a row can never point into another organization;
 * - row-level security is enabled AND forced, with policies that admit rows of organizations the
 *   caller (app.user_id) is a member of, or the organization a worker acts for (app.organization_id);
 * - the app role (outreach_app) has no BYPASSRLS; only the migration owner can see across tenants.
 *
 * Enum values are the API's (docs/api.md), as CHECK constraints.
 */

const TENANT_TABLES_WITH_GENERIC_POLICIES = [
  'sources',
  'raw_publications',
  'projects',
  'signals',
  'classifications',
  'scoring_configs',
  'scoring_rules',
  'scores',
  'score_components',
  'industry_profiles',
  'personas',
  'products',
  'opportunities',
  'companies',
  'contacts',
  'lawful_basis_records',
  'integrations',
  'mailboxes',
  'mailbox_health_checks',
  'campaigns',
  'sequences',
  'sequence_steps',
  'enrollments',
  'threads',
  'messages',
  'meetings',
  'prompt_evals',
];

const up_sql = String.raw`
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE SCHEMA IF NOT EXISTS app;

-- Who is asking: set per transaction by the API (user) or an activity (organization).
CREATE FUNCTION app.current_user_id() RETURNS uuid LANGUAGE sql STABLE AS
$$ SELECT nullif(current_setting('app.user_id', true), '')::uuid $$;
CREATE FUNCTION app.current_org_id() RETURNS uuid LANGUAGE sql STABLE AS
$$ SELECT nullif(current_setting('app.organization_id', true), '')::uuid $$;

CREATE FUNCTION app.role_rank(r text) RETURNS int LANGUAGE sql IMMUTABLE AS
$$ SELECT CASE r WHEN 'viewer' THEN 1 WHEN 'member' THEN 2 WHEN 'admin' THEN 3 WHEN 'owner' THEN 4 ELSE 0 END $$;

CREATE TABLE organizations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  created_by uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE memberships (
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id uuid NOT NULL,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX memberships_user_idx ON memberships (user_id);

-- SECURITY DEFINER: these read memberships as the owner, so policies that call them never
-- recurse into memberships' own policy. They only ever answer for the current caller.
CREATE FUNCTION app.member_role(org uuid) RETURNS text LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, public AS
$$ SELECT role FROM public.memberships WHERE organization_id = org AND user_id = app.current_user_id() $$;

CREATE FUNCTION app.is_member(org uuid) RETURNS boolean LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, public AS
$$ SELECT org = app.current_org_id() OR app.member_role(org) IS NOT NULL $$;

CREATE FUNCTION app.has_role(org uuid, min_role text) RETURNS boolean LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, public AS
$$ SELECT org = app.current_org_id() OR coalesce(app.role_rank(app.member_role(org)) >= app.role_rank(min_role), false) $$;

-- The one way to create an organization: the caller becomes its owner in the same statement.
CREATE FUNCTION app.create_organization(org_name text) RETURNS uuid LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, public AS
$$
DECLARE
  uid uuid := app.current_user_id();
  new_id uuid;
BEGIN
  IF uid IS NULL THEN RAISE EXCEPTION 'app.user_id is not set' USING ERRCODE = '42501'; END IF;
  INSERT INTO public.organizations (name, created_by) VALUES (org_name, uid) RETURNING id INTO new_id;
  INSERT INTO public.memberships (organization_id, user_id, role) VALUES (new_id, uid, 'owner');
  RETURN new_id;
END
$$;

-- Signal sources ------------------------------------------------------------------------------
CREATE TABLE sources (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  provider_key text NOT NULL CHECK (provider_key IN ('rss', 'json_api', 'bekendmakingen')),
  name text NOT NULL,
  config jsonb NOT NULL DEFAULT '{}'::jsonb,
  enabled boolean NOT NULL DEFAULT true,
  schedule text,
  country_code text CHECK (country_code ~ '^[A-Z]{2}$'),
  language text,
  etag text,
  last_modified text,
  last_run_at timestamptz,
  last_run_status text CHECK (last_run_status IN ('running', 'succeeded', 'not_modified', 'failed')),
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id)
);
CREATE INDEX sources_org_created_idx ON sources (organization_id, created_at DESC, id DESC);

CREATE TABLE raw_publications (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  source_id uuid NOT NULL,
  external_id text NOT NULL,
  url text,
  title text,
  payload jsonb NOT NULL,
  content_hash text NOT NULL,
  fetched_at timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id),
  UNIQUE (source_id, external_id),
  FOREIGN KEY (organization_id, source_id) REFERENCES sources (organization_id, id) ON DELETE CASCADE
);

-- One real-world project that several signals (from several sources) may describe.
CREATE TABLE projects (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  dedupe_key text NOT NULL,
  title text,
  location_text text,
  lat double precision,
  lng double precision,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id),
  UNIQUE (organization_id, dedupe_key)
);

CREATE TABLE signals (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  source_id uuid NOT NULL,
  raw_publication_id uuid,
  project_id uuid,
  external_id text NOT NULL,
  status text NOT NULL DEFAULT 'ingested'
    CHECK (status IN ('ingested', 'classified', 'scored', 'ignored', 'qualified', 'ready', 'failed')),
  signal_type text NOT NULL DEFAULT 'publication',
  title text NOT NULL,
  summary text,
  published_at timestamptz,
  effective_start timestamptz,
  effective_end timestamptz,
  source_url text,
  current_score numeric,
  dedupe_key text NOT NULL,
  location_text text,
  municipality text,
  lat double precision,
  lng double precision,
  failure_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id),
  UNIQUE (source_id, external_id),
  FOREIGN KEY (organization_id, source_id) REFERENCES sources (organization_id, id) ON DELETE CASCADE,
  FOREIGN KEY (organization_id, raw_publication_id) REFERENCES raw_publications (organization_id, id),
  FOREIGN KEY (organization_id, project_id) REFERENCES projects (organization_id, id)
);
-- Newest first with keyset pagination, and the filters of GET /signals.
CREATE INDEX signals_org_created_idx ON signals (organization_id, created_at DESC, id DESC);
CREATE INDEX signals_org_status_created_idx ON signals (organization_id, status, created_at DESC, id DESC);
CREATE INDEX signals_org_project_idx ON signals (organization_id, project_id, created_at DESC);
CREATE INDEX signals_org_dedupe_idx ON signals (organization_id, dedupe_key);
CREATE INDEX signals_title_trgm_idx ON signals USING gin (title gin_trgm_ops);

CREATE TABLE classifications (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  signal_id uuid NOT NULL,
  version int NOT NULL CHECK (version >= 1),
  model text NOT NULL,
  prompt_key text,
  prompt_version text,
  prompt_hash text,
  output jsonb NOT NULL DEFAULT '{}'::jsonb,
  confidence numeric CHECK (confidence BETWEEN 0 AND 1),
  commercial_relevance boolean NOT NULL,
  relevance_reasons text[] NOT NULL DEFAULT '{}',
  project_category text,
  project_stage text,
  estimated_size numeric,
  is_current boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id),
  UNIQUE (signal_id, version),
  FOREIGN KEY (organization_id, signal_id) REFERENCES signals (organization_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX classifications_current_idx ON classifications (signal_id) WHERE is_current;

CREATE TABLE scoring_configs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  version int NOT NULL CHECK (version >= 1),
  is_active boolean NOT NULL DEFAULT false,
  ignore_below int NOT NULL,
  qualify_at int NOT NULL,
  opportunity_at int NOT NULL,
  home_lat double precision CHECK (home_lat BETWEEN -90 AND 90),
  home_lng double precision CHECK (home_lng BETWEEN -180 AND 180),
  created_by uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id),
  UNIQUE (organization_id, version),
  CHECK (ignore_below <= qualify_at AND qualify_at <= opportunity_at)
);
CREATE UNIQUE INDEX scoring_configs_active_idx ON scoring_configs (organization_id) WHERE is_active;

CREATE TABLE scoring_rules (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  scoring_config_id uuid NOT NULL,
  dimension text NOT NULL CHECK (dimension IN
    ('commercial_relevance', 'distance', 'project_size', 'project_stage', 'recency', 'fit', 'source')),
  rule_key text NOT NULL,
  weight numeric NOT NULL,
  max_points numeric NOT NULL CHECK (max_points >= 0),
  params jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id),
  UNIQUE (scoring_config_id, rule_key),
  FOREIGN KEY (organization_id, scoring_config_id) REFERENCES scoring_configs (organization_id, id) ON DELETE CASCADE
);

CREATE TABLE scores (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  signal_id uuid NOT NULL,
  scoring_config_id uuid NOT NULL,
  version int NOT NULL CHECK (version >= 1),
  total numeric NOT NULL,
  decision text NOT NULL CHECK (decision IN ('ignore', 'qualify', 'opportunity')),
  is_current boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id),
  UNIQUE (signal_id, version),
  FOREIGN KEY (organization_id, signal_id) REFERENCES signals (organization_id, id) ON DELETE CASCADE,
  FOREIGN KEY (organization_id, scoring_config_id) REFERENCES scoring_configs (organization_id, id)
);
CREATE UNIQUE INDEX scores_current_idx ON scores (signal_id) WHERE is_current;

CREATE TABLE score_components (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  score_id uuid NOT NULL,
  position int NOT NULL,
  dimension text NOT NULL,
  rule_key text NOT NULL,
  origin text NOT NULL DEFAULT 'rule' CHECK (origin IN ('rule', 'model', 'manual')),
  raw_value numeric NOT NULL,
  weight numeric NOT NULL,
  points numeric NOT NULL,
  reason text NOT NULL,
  UNIQUE (organization_id, id),
  UNIQUE (score_id, position),
  FOREIGN KEY (organization_id, score_id) REFERENCES scores (organization_id, id) ON DELETE CASCADE
);

CREATE TABLE industry_profiles (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL UNIQUE REFERENCES organizations(id) ON DELETE CASCADE,
  key text NOT NULL,
  name text NOT NULL,
  description text,
  proposition_text text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id)
);

CREATE TABLE personas (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  industry_profile_id uuid NOT NULL,
  segment text NOT NULL,
  title_keywords text[] NOT NULL DEFAULT '{}',
  priority int NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id),
  FOREIGN KEY (organization_id, industry_profile_id) REFERENCES industry_profiles (organization_id, id) ON DELETE CASCADE
);

CREATE TABLE products (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  industry_profile_id uuid NOT NULL,
  key text NOT NULL,
  name text NOT NULL,
  description text,
  fit_keywords text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id),
  UNIQUE (industry_profile_id, key),
  FOREIGN KEY (organization_id, industry_profile_id) REFERENCES industry_profiles (organization_id, id) ON DELETE CASCADE
);

CREATE TABLE opportunities (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  project_id uuid,
  created_from_signal_id uuid,
  status text NOT NULL DEFAULT 'ready' CHECK (status IN ('ready', 'in_outreach', 'closed')),
  score numeric,
  summary text,
  outcome text NOT NULL DEFAULT 'open' CHECK (outcome IN ('open', 'won', 'lost')),
  outcome_at timestamptz,
  outcome_value numeric CHECK (outcome_value >= 0),
  created_by uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id),
  FOREIGN KEY (organization_id, project_id) REFERENCES projects (organization_id, id),
  FOREIGN KEY (organization_id, created_from_signal_id) REFERENCES signals (organization_id, id),
  CHECK (outcome_value IS NULL OR outcome = 'won')
);
-- At most one open opportunity per project.
CREATE UNIQUE INDEX opportunities_open_project_idx ON opportunities (organization_id, project_id)
  WHERE project_id IS NOT NULL AND status <> 'closed';
CREATE INDEX opportunities_org_created_idx ON opportunities (organization_id, created_at DESC, id DESC);
CREATE INDEX opportunities_org_status_idx ON opportunities (organization_id, status, outcome, created_at DESC);

-- Companies, contacts, compliance -------------------------------------------------------------
CREATE TABLE companies (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name text NOT NULL,
  normalized_name text NOT NULL,
  domain text,
  kvk_number text CHECK (kvk_number ~ '^[0-9]{8}$'),
  address text,
  website text,
  generic_email text,
  phone text,
  enrichment_status text NOT NULL DEFAULT 'idle' CHECK (enrichment_status IN ('idle', 'running', 'done', 'failed')),
  enrichment_error text,
  country_code text CHECK (country_code ~ '^[A-Z]{2}$'),
  locale text,
  recipient_kind text NOT NULL DEFAULT 'legal_person' CHECK (recipient_kind IN ('legal_person', 'natural_person')),
  legal_form text,
  sbi_codes text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id)
);
CREATE INDEX companies_org_created_idx ON companies (organization_id, created_at DESC, id DESC);
CREATE UNIQUE INDEX companies_org_kvk_idx ON companies (organization_id, kvk_number) WHERE kvk_number IS NOT NULL;
CREATE INDEX companies_org_domain_idx ON companies (organization_id, domain);
CREATE INDEX companies_org_normalized_idx ON companies (organization_id, normalized_name);

CREATE TABLE contacts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  company_id uuid NOT NULL,
  full_name text NOT NULL,
  title text,
  email text,
  phone text,
  linkedin_url text,
  source_description text,
  data_source text NOT NULL DEFAULT 'manual',
  last_engaged_at timestamptz,
  erased_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id),
  FOREIGN KEY (organization_id, company_id) REFERENCES companies (organization_id, id) ON DELETE CASCADE
);
CREATE INDEX contacts_org_created_idx ON contacts (organization_id, created_at DESC, id DESC);
CREATE INDEX contacts_org_company_idx ON contacts (organization_id, company_id, created_at DESC);
CREATE UNIQUE INDEX contacts_org_email_idx ON contacts (organization_id, lower(email)) WHERE email IS NOT NULL;

CREATE TABLE lawful_basis_records (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  contact_id uuid NOT NULL,
  basis text NOT NULL CHECK (basis IN ('legitimate_interest', 'consent')),
  recipient_kind text NOT NULL CHECK (recipient_kind IN ('legal_person', 'natural_person')),
  country text NOT NULL CHECK (country ~ '^[A-Z]{2}$'),
  source_description text,
  assessment text,
  consent_evidence text,
  recorded_by uuid NOT NULL,
  is_current boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id),
  FOREIGN KEY (organization_id, contact_id) REFERENCES contacts (organization_id, id) ON DELETE CASCADE,
  CHECK (basis <> 'consent' OR consent_evidence IS NOT NULL),
  CHECK (basis <> 'legitimate_interest' OR assessment IS NOT NULL)
);
CREATE UNIQUE INDEX lawful_basis_current_idx ON lawful_basis_records (contact_id) WHERE is_current;

CREATE TABLE suppressions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  scope text NOT NULL CHECK (scope IN ('email', 'domain', 'kvk_number', 'email_hash')),
  value text NOT NULL,
  reason text NOT NULL DEFAULT 'manual' CHECK (reason IN ('unsubscribe', 'bounce', 'complaint', 'objection', 'manual', 'erasure')),
  note text,
  created_by uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id),
  UNIQUE (organization_id, scope, value)
);
CREATE INDEX suppressions_org_created_idx ON suppressions (organization_id, created_at DESC, id DESC);

CREATE TABLE compliance_settings (
  organization_id uuid PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
  default_country text NOT NULL DEFAULT 'NL' CHECK (default_country ~ '^[A-Z]{2}$'),
  default_locale text NOT NULL DEFAULT 'nl-NL',
  default_formality text NOT NULL DEFAULT 'formal' CHECK (default_formality IN ('formal', 'informal')),
  retention_months int NOT NULL DEFAULT 24 CHECK (retention_months BETWEEN 1 AND 120),
  ai_disclosure text NOT NULL DEFAULT 'footer' CHECK (ai_disclosure IN ('footer', 'none')),
  sender_legal_name text,
  sender_address text,
  privacy_url text,
  unsubscribe_mailto text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Append-only: the app role may insert and read, never update or delete.
CREATE TABLE compliance_audit_log (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  actor_id uuid,
  entity text NOT NULL,
  entity_id uuid,
  action text NOT NULL,
  field text,
  before jsonb,
  after jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX compliance_audit_org_created_idx ON compliance_audit_log (organization_id, created_at DESC, id DESC);

CREATE TABLE integrations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  provider_key text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('crm', 'calendar', 'enrichment', 'llm')),
  status text NOT NULL DEFAULT 'disconnected' CHECK (status IN ('connected', 'error', 'disconnected')),
  config jsonb NOT NULL DEFAULT '{}'::jsonb,
  mapping jsonb NOT NULL DEFAULT '{}'::jsonb,
  secret_ciphertext bytea,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id)
);
CREATE INDEX integrations_org_kind_idx ON integrations (organization_id, kind, created_at DESC);

-- Sending ----------------------------------------------------------------------------------------
CREATE TABLE mailboxes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  address text NOT NULL,
  display_name text,
  domain text NOT NULL,
  smtp_config jsonb NOT NULL DEFAULT '{}'::jsonb,
  dkim_selector text,
  daily_cap int NOT NULL DEFAULT 30 CHECK (daily_cap BETWEEN 1 AND 2000),
  min_interval_seconds int NOT NULL DEFAULT 600 CHECK (min_interval_seconds >= 0),
  window_start time NOT NULL DEFAULT '09:00',
  window_end time NOT NULL DEFAULT '17:00',
  window_days int[] NOT NULL DEFAULT '{1,2,3,4,5}',
  timezone text NOT NULL DEFAULT 'Europe/Amsterdam',
  health_score numeric,
  sendable boolean,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id),
  UNIQUE (organization_id, address)
);

CREATE TABLE mailbox_health_checks (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  mailbox_id uuid NOT NULL,
  domain text NOT NULL,
  spf jsonb NOT NULL,
  dkim jsonb NOT NULL,
  dmarc jsonb NOT NULL,
  mx jsonb NOT NULL,
  score numeric NOT NULL,
  sendable boolean NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id),
  FOREIGN KEY (organization_id, mailbox_id) REFERENCES mailboxes (organization_id, id) ON DELETE CASCADE
);
CREATE INDEX mailbox_health_mailbox_idx ON mailbox_health_checks (organization_id, mailbox_id, created_at DESC);

CREATE TABLE campaigns (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name text NOT NULL,
  status text NOT NULL DEFAULT 'proposed' CHECK (status IN ('proposed', 'active', 'paused', 'completed', 'archived')),
  mode text NOT NULL DEFAULT 'review' CHECK (mode IN ('review', 'auto')),
  goal text,
  brief text,
  country_code text CHECK (country_code ~ '^[A-Z]{2}$'),
  persona_keys text[] NOT NULL DEFAULT '{}',
  product_keys text[] NOT NULL DEFAULT '{}',
  min_score int,
  mailbox_id uuid,
  proposed_by text NOT NULL DEFAULT 'user' CHECK (proposed_by IN ('user', 'agent')),
  opportunity_id uuid,
  suggested_contact_ids uuid[] NOT NULL DEFAULT '{}',
  rationale text,
  created_by uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id),
  FOREIGN KEY (organization_id, mailbox_id) REFERENCES mailboxes (organization_id, id),
  FOREIGN KEY (organization_id, opportunity_id) REFERENCES opportunities (organization_id, id)
);
-- At most one live proposal per opportunity.
CREATE UNIQUE INDEX campaigns_live_proposal_idx ON campaigns (organization_id, opportunity_id) WHERE status = 'proposed';
CREATE INDEX campaigns_org_created_idx ON campaigns (organization_id, created_at DESC, id DESC);
CREATE INDEX campaigns_org_opportunity_idx ON campaigns (organization_id, opportunity_id, status);

CREATE TABLE sequences (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  campaign_id uuid NOT NULL,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id),
  UNIQUE (campaign_id),
  FOREIGN KEY (organization_id, campaign_id) REFERENCES campaigns (organization_id, id) ON DELETE CASCADE
);

CREATE TABLE sequence_steps (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  sequence_id uuid NOT NULL,
  position int NOT NULL CHECK (position >= 1),
  channel text NOT NULL CHECK (channel IN ('email', 'phone', 'linkedin')),
  delay_days int NOT NULL DEFAULT 0 CHECK (delay_days >= 0),
  instructions text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id),
  UNIQUE (sequence_id, position),
  FOREIGN KEY (organization_id, sequence_id) REFERENCES sequences (organization_id, id) ON DELETE CASCADE
);

CREATE TABLE enrollments (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  campaign_id uuid NOT NULL,
  sequence_id uuid NOT NULL,
  contact_id uuid NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'stopped', 'completed', 'failed')),
  current_position int NOT NULL DEFAULT 0,
  stopped_reason text,
  workflow_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id),
  UNIQUE (campaign_id, contact_id),
  FOREIGN KEY (organization_id, campaign_id) REFERENCES campaigns (organization_id, id) ON DELETE CASCADE,
  FOREIGN KEY (organization_id, sequence_id) REFERENCES sequences (organization_id, id),
  FOREIGN KEY (organization_id, contact_id) REFERENCES contacts (organization_id, id)
);
CREATE INDEX enrollments_org_contact_idx ON enrollments (organization_id, contact_id, status);

CREATE TABLE threads (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  contact_id uuid NOT NULL,
  enrollment_id uuid,
  mailbox_id uuid,
  subject text,
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'replied', 'closed')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id),
  FOREIGN KEY (organization_id, contact_id) REFERENCES contacts (organization_id, id),
  FOREIGN KEY (organization_id, enrollment_id) REFERENCES enrollments (organization_id, id),
  FOREIGN KEY (organization_id, mailbox_id) REFERENCES mailboxes (organization_id, id)
);

CREATE TABLE messages (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  enrollment_id uuid,
  thread_id uuid,
  contact_id uuid,
  step_id uuid,
  mailbox_id uuid,
  direction text NOT NULL DEFAULT 'outbound' CHECK (direction IN ('outbound', 'inbound')),
  channel text NOT NULL DEFAULT 'email' CHECK (channel IN ('email', 'phone', 'linkedin')),
  status text NOT NULL CHECK (status IN ('pending_approval', 'approved', 'scheduled', 'sent', 'failed',
    'rejected', 'received', 'task_open', 'task_done', 'skipped')),
  subject text,
  body text,
  original_body text,
  from_address text,
  to_address text,
  why jsonb NOT NULL DEFAULT '{}'::jsonb,
  intent text CHECK (intent IN ('interested', 'not_interested', 'meeting_request', 'referral', 'out_of_office', 'unsubscribe', 'other')),
  confidence numeric,
  model text,
  prompt_version text,
  approved_by uuid,
  approved_at timestamptz,
  scheduled_for timestamptz,
  sent_at timestamptz,
  received_at timestamptz,
  provider_message_id text,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id),
  FOREIGN KEY (organization_id, enrollment_id) REFERENCES enrollments (organization_id, id),
  FOREIGN KEY (organization_id, thread_id) REFERENCES threads (organization_id, id),
  FOREIGN KEY (organization_id, contact_id) REFERENCES contacts (organization_id, id),
  FOREIGN KEY (organization_id, step_id) REFERENCES sequence_steps (organization_id, id),
  FOREIGN KEY (organization_id, mailbox_id) REFERENCES mailboxes (organization_id, id)
);
CREATE INDEX messages_org_created_idx ON messages (organization_id, created_at DESC, id DESC);
CREATE INDEX messages_org_status_idx ON messages (organization_id, status, created_at DESC, id DESC);
CREATE INDEX messages_org_enrollment_idx ON messages (organization_id, enrollment_id);
CREATE INDEX messages_mailbox_sent_idx ON messages (organization_id, mailbox_id, sent_at) WHERE sent_at IS NOT NULL;

CREATE TABLE meetings (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  contact_id uuid,
  enrollment_id uuid,
  opportunity_id uuid,
  thread_id uuid,
  provider text NOT NULL DEFAULT 'manual',
  external_id text,
  title text NOT NULL,
  starts_at timestamptz NOT NULL,
  ends_at timestamptz NOT NULL,
  status text NOT NULL DEFAULT 'proposed' CHECK (status IN ('proposed', 'cancelled', 'completed', 'no_show')),
  join_url text,
  attendee_email text,
  booked_via text NOT NULL DEFAULT 'manual' CHECK (booked_via IN ('link', 'reply', 'manual')),
  crm_synced_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id),
  UNIQUE (organization_id, provider, external_id),
  CHECK (ends_at >= starts_at),
  FOREIGN KEY (organization_id, contact_id) REFERENCES contacts (organization_id, id),
  FOREIGN KEY (organization_id, enrollment_id) REFERENCES enrollments (organization_id, id),
  FOREIGN KEY (organization_id, opportunity_id) REFERENCES opportunities (organization_id, id),
  FOREIGN KEY (organization_id, thread_id) REFERENCES threads (organization_id, id)
);
CREATE INDEX meetings_org_created_idx ON meetings (organization_id, created_at DESC, id DESC);
CREATE INDEX meetings_org_contact_idx ON meetings (organization_id, contact_id, starts_at DESC);

CREATE TABLE prompt_evals (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  prompt_key text NOT NULL,
  prompt_version text NOT NULL,
  score numeric NOT NULL,
  detail jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id)
);
CREATE INDEX prompt_evals_org_created_idx ON prompt_evals (organization_id, created_at DESC);

-- Row-level security ----------------------------------------------------------------------------
ALTER TABLE organizations ENABLE ROW LEVEL SECURITY;
ALTER TABLE organizations FORCE ROW LEVEL SECURITY;
CREATE POLICY organizations_read ON organizations FOR SELECT USING (app.is_member(id));
CREATE POLICY organizations_update ON organizations FOR UPDATE
  USING (app.has_role(id, 'admin')) WITH CHECK (app.has_role(id, 'admin'));

ALTER TABLE memberships ENABLE ROW LEVEL SECURITY;
ALTER TABLE memberships FORCE ROW LEVEL SECURITY;
CREATE POLICY memberships_read ON memberships FOR SELECT
  USING (user_id = app.current_user_id() OR app.is_member(organization_id));
CREATE POLICY memberships_insert ON memberships FOR INSERT WITH CHECK (app.has_role(organization_id, 'admin'));
CREATE POLICY memberships_update ON memberships FOR UPDATE
  USING (app.has_role(organization_id, 'admin')) WITH CHECK (app.has_role(organization_id, 'admin'));
CREATE POLICY memberships_delete ON memberships FOR DELETE USING (app.has_role(organization_id, 'admin'));

-- Compliance settings: read by members, written by owners and admins.
ALTER TABLE compliance_settings ENABLE ROW LEVEL SECURITY;
ALTER TABLE compliance_settings FORCE ROW LEVEL SECURITY;
CREATE POLICY compliance_settings_read ON compliance_settings FOR SELECT USING (app.is_member(organization_id));
CREATE POLICY compliance_settings_write ON compliance_settings FOR ALL
  USING (app.has_role(organization_id, 'admin')) WITH CHECK (app.has_role(organization_id, 'admin'));

-- Suppressions: any writer adds; only owners and admins remove.
ALTER TABLE suppressions ENABLE ROW LEVEL SECURITY;
ALTER TABLE suppressions FORCE ROW LEVEL SECURITY;
CREATE POLICY suppressions_read ON suppressions FOR SELECT USING (app.is_member(organization_id));
CREATE POLICY suppressions_insert ON suppressions FOR INSERT WITH CHECK (app.has_role(organization_id, 'member'));
CREATE POLICY suppressions_delete ON suppressions FOR DELETE USING (app.has_role(organization_id, 'admin'));

ALTER TABLE compliance_audit_log ENABLE ROW LEVEL SECURITY;
ALTER TABLE compliance_audit_log FORCE ROW LEVEL SECURITY;
CREATE POLICY compliance_audit_read ON compliance_audit_log FOR SELECT USING (app.is_member(organization_id));
CREATE POLICY compliance_audit_insert ON compliance_audit_log FOR INSERT WITH CHECK (app.has_role(organization_id, 'member'));
`;

function genericPolicies(table: string): string {
  return `
ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY;
ALTER TABLE ${table} FORCE ROW LEVEL SECURITY;
CREATE POLICY ${table}_read ON ${table} FOR SELECT USING (app.is_member(organization_id));
CREATE POLICY ${table}_write ON ${table} FOR ALL
  USING (app.has_role(organization_id, 'member')) WITH CHECK (app.has_role(organization_id, 'member'));`;
}

// The app role: may log in, holds no BYPASSRLS, owns nothing. Cluster-wide, so created only once.
const grants_sql = `
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'outreach_app') THEN
    CREATE ROLE outreach_app LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE;
  END IF;
END $$;
GRANT USAGE ON SCHEMA public, app TO outreach_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO outreach_app;
REVOKE UPDATE, DELETE ON compliance_audit_log FROM outreach_app;
REVOKE INSERT, DELETE ON organizations FROM outreach_app;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA app TO outreach_app;
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(up_sql).execute(db);
  await sql.raw(TENANT_TABLES_WITH_GENERIC_POLICIES.map(genericPolicies).join('\n')).execute(db);
  await sql.raw(grants_sql).execute(db);
}

const ALL_TABLES = [
  'prompt_evals',
  'meetings',
  'messages',
  'threads',
  'enrollments',
  'sequence_steps',
  'sequences',
  'campaigns',
  'mailbox_health_checks',
  'mailboxes',
  'integrations',
  'compliance_audit_log',
  'compliance_settings',
  'suppressions',
  'lawful_basis_records',
  'contacts',
  'companies',
  'opportunities',
  'products',
  'personas',
  'industry_profiles',
  'score_components',
  'scores',
  'scoring_rules',
  'scoring_configs',
  'classifications',
  'signals',
  'projects',
  'raw_publications',
  'sources',
  'memberships',
  'organizations',
];

export async function down(db: Kysely<unknown>): Promise<void> {
  // The role is cluster-wide and may serve other databases: only its grants here go.
  await sql
    .raw(
      `
    REVOKE ALL ON ALL TABLES IN SCHEMA public FROM outreach_app;
    ${ALL_TABLES.map((t) => `DROP TABLE IF EXISTS ${t} CASCADE;`).join('\n')}
    DROP SCHEMA IF EXISTS app CASCADE;
  `,
    )
    .execute(db);
}
