import { sql } from 'kysely';
import type { Tx } from '../tenancy';
import { campaignFrom, type CampaignAction, type StepChannel } from '../../domain/outreach/enrollments';
import type { StepVariant } from '../../domain/outreach/variants';
import { newestFirst } from './pagination';
import { recordEvent } from './webhook-events';

/** The spec's Campaign fields, plus who wrote it (model, prompt_*), the per-contact plan and a dismissal's reason. */
export const CAMPAIGN_COLUMNS = [
  'campaigns.id',
  'campaigns.organization_id',
  'campaigns.name',
  'campaigns.status',
  'campaigns.mode',
  'campaigns.goal',
  'campaigns.brief',
  'campaigns.country_code',
  'campaigns.persona_keys',
  'campaigns.product_keys',
  'campaigns.min_score',
  'campaigns.mailbox_id',
  'campaigns.send_in',
  'campaigns.allow_risky',
  'campaigns.proposed_by',
  'campaigns.opportunity_id',
  'campaigns.suggested_contact_ids',
  'campaigns.suggested_contacts',
  'campaigns.rationale',
  'campaigns.model',
  'campaigns.prompt_key',
  'campaigns.prompt_version',
  'campaigns.prompt_hash',
  'campaigns.dismissed_reason',
  'campaigns.created_by',
  'campaigns.created_at',
  'campaigns.updated_at',
] as const;

export const STEP_COLUMNS = ['id', 'sequence_id', 'position', 'channel', 'delay_days', 'instructions', 'variants'] as const;

export interface StepInput {
  channel: StepChannel;
  delayDays: number;
  instructions?: string | null;
  /** 2 to 5 variants, each enrollment getting one (domain/outreach/variants.ts). */
  variants?: StepVariant[];
}

export interface CampaignInput {
  organizationId: string;
  name: string;
  status?: 'proposed';
  proposedBy: 'user' | 'agent';
  opportunityId?: string | null;
  mailboxId?: string | null;
  /** The pool (campaign_mailboxes), first = mailboxId; without it a mailboxId alone is a pool of one. */
  mailboxIds?: string[];
  mode?: 'review' | 'auto';
  /** Sending in the recipient's time (default mailbox). */
  sendIn?: 'mailbox' | 'recipient';
  /** Enroll contacts whose address is risky (default no). */
  allowRisky?: boolean;
  goal?: string | null;
  brief?: string | null;
  countryCode?: string | null;
  personaKeys?: string[];
  productKeys?: string[];
  minScore?: number | null;
  suggestedContactIds?: string[];
  suggestedContacts?: unknown[];
  rationale?: string | null;
  model?: string | null;
  promptKey?: string | null;
  promptVersion?: string | null;
  promptHash?: string | null;
  createdBy?: string | null;
  steps: StepInput[];
}

function campaignRow(tx: Tx) {
  return tx
    .selectFrom('campaigns')
    .select(CAMPAIGN_COLUMNS)
    .select((eb) => eb.selectFrom('sequences').select('sequences.id').whereRef('sequences.campaign_id', '=', 'campaigns.id').as('sequence_id'))
    .select(
      sql<string[]>`coalesce((SELECT array_agg(cm.mailbox_id ORDER BY cm.position) FROM campaign_mailboxes cm WHERE cm.campaign_id = campaigns.id), '{}')`.as(
        'mailbox_ids',
      ),
    );
}

/** A campaign with its sequence's steps and its enrollments counted by status (the Campaign answer). */
async function withDetail<R extends { id: string; sequence_id: string | null }>(tx: Tx, rows: R[]) {
  if (rows.length === 0) return [];
  const sequenceIds = rows.map((r) => r.sequence_id).filter((s): s is string => s !== null);
  const [steps, counts] = await Promise.all([
    sequenceIds.length
      ? tx.selectFrom('sequence_steps').select(STEP_COLUMNS).where('sequence_id', 'in', sequenceIds).orderBy('sequence_id').orderBy('position').execute()
      : Promise.resolve([]),
    tx
      .selectFrom('enrollments')
      .select(['campaign_id', 'status', sql<number>`count(*)::int`.as('n')])
      .where(
        'campaign_id',
        'in',
        rows.map((r) => r.id),
      )
      .groupBy(['campaign_id', 'status'])
      .execute(),
  ]);
  return rows.map((r) => ({
    ...r,
    steps: steps.filter((s) => s.sequence_id === r.sequence_id),
    enrollment_counts: Object.fromEntries(counts.filter((c) => c.campaign_id === r.id).map((c) => [c.status, c.n])) as Record<string, number>,
  }));
}

export async function getCampaign(tx: Tx, id: string) {
  const row = await campaignRow(tx).where('campaigns.id', '=', id).executeTakeFirst();
  return row ? (await withDetail(tx, [row]))[0] : undefined;
}

export async function listCampaigns(tx: Tx, f: { organizationId: string; opportunityId?: string; status?: string; limit: number; before?: string }) {
  let q = campaignRow(tx).where('campaigns.organization_id', '=', f.organizationId);
  if (f.opportunityId) q = q.where('campaigns.opportunity_id', '=', f.opportunityId);
  if (f.status) q = q.where('campaigns.status', '=', f.status);
  return withDetail(tx, await newestFirst(q, 'campaigns', f).execute());
}

/** The opportunity's live proposal (at most one: campaigns_live_proposal_idx). */
export function liveProposal(tx: Tx, organizationId: string, opportunityId: string) {
  return tx
    .selectFrom('campaigns')
    .select(['id', 'status'])
    .where('organization_id', '=', organizationId)
    .where('opportunity_id', '=', opportunityId)
    .where('status', '=', 'proposed')
    .executeTakeFirst();
}

/** Whether any campaign (live, accepted or dismissed) was ever made for the opportunity. */
export async function hasAnyCampaign(tx: Tx, organizationId: string, opportunityId: string): Promise<boolean> {
  const row = await tx
    .selectFrom('campaigns')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('opportunity_id', '=', opportunityId)
    .limit(1)
    .executeTakeFirst();
  return !!row;
}

/**
 * Stores a proposal with its sequence and steps. With an opportunity, at most one live proposal
 * exists (the unique index decides, also between concurrent requests): when one does, nothing is
 * written and `existing` names it.
 */
export async function insertCampaign(tx: Tx, c: CampaignInput): Promise<{ created: true; id: string } | { created: false; existing: string }> {
  const inserted = await tx
    .insertInto('campaigns')
    .values({
      organization_id: c.organizationId,
      name: c.name,
      status: 'proposed',
      mode: c.mode ?? 'review',
      send_in: c.sendIn ?? 'mailbox',
      allow_risky: c.allowRisky ?? false,
      goal: c.goal ?? null,
      brief: c.brief ?? null,
      country_code: c.countryCode ?? null,
      persona_keys: c.personaKeys ?? [],
      product_keys: c.productKeys ?? [],
      min_score: c.minScore ?? null,
      mailbox_id: c.mailboxIds?.[0] ?? c.mailboxId ?? null,
      proposed_by: c.proposedBy,
      opportunity_id: c.opportunityId ?? null,
      suggested_contact_ids: c.suggestedContactIds ?? [],
      suggested_contacts: JSON.stringify(c.suggestedContacts ?? []),
      rationale: c.rationale ?? null,
      model: c.model ?? null,
      prompt_key: c.promptKey ?? null,
      prompt_version: c.promptVersion ?? null,
      prompt_hash: c.promptHash ?? null,
      created_by: c.createdBy ?? null,
    })
    .onConflict((oc) => oc.columns(['organization_id', 'opportunity_id']).where('status', '=', 'proposed').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!inserted) {
    const live = await liveProposal(tx, c.organizationId, c.opportunityId!);
    return { created: false, existing: live!.id };
  }
  const pool = c.mailboxIds ?? (c.mailboxId ? [c.mailboxId] : []);
  if (pool.length) await setCampaignPool(tx, c.organizationId, inserted.id, pool);
  const sequence = await tx
    .insertInto('sequences')
    .values({ organization_id: c.organizationId, campaign_id: inserted.id, name: c.name })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (c.steps.length) {
    await tx
      .insertInto('sequence_steps')
      .values(
        c.steps.map((s, i) => ({
          organization_id: c.organizationId,
          sequence_id: sequence.id,
          position: i + 1,
          channel: s.channel,
          delay_days: s.delayDays,
          instructions: s.instructions ?? null,
          variants: JSON.stringify(s.variants ?? []),
        })),
      )
      .execute();
  }
  await recordEvent(tx, 'campaign.proposed', { organizationId: c.organizationId, id: inserted.id }, getCampaign);
  return { created: true, id: inserted.id };
}

/**
 * Moves a campaign along CAMPAIGN_TRANSITIONS (domain/outreach/enrollments.ts): only from the
 * statuses the action allows, in one UPDATE, so two concurrent accepts cannot both win. Undefined
 * when the campaign was not in such a status.
 */
export function transitionCampaign(
  tx: Tx,
  id: string,
  action: CampaignAction,
  to: string,
  patch: { mailbox_id?: string | null; mode?: string; send_in?: string; allow_risky?: boolean; dismissed_reason?: string | null } = {},
) {
  return tx
    .updateTable('campaigns')
    .set({ ...patch, status: to, updated_at: sql`now()` })
    .where('id', '=', id)
    .where('status', 'in', campaignFrom(action))
    .returning('id')
    .executeTakeFirst();
}

/**
 * Replaces the campaign's pool (campaign_mailboxes, in the given order) and keeps campaigns.mailbox_id
 * its first. The caller checked the mailboxes are the organization's (mailboxesOf); the foreign key to
 * (organization_id, mailbox_id) says so again.
 */
export async function setCampaignPool(tx: Tx, organizationId: string, campaignId: string, mailboxIds: string[]) {
  await tx.deleteFrom('campaign_mailboxes').where('campaign_id', '=', campaignId).execute();
  await tx
    .insertInto('campaign_mailboxes')
    .values(mailboxIds.map((mailboxId, position) => ({ organization_id: organizationId, campaign_id: campaignId, mailbox_id: mailboxId, position })))
    .execute();
  await tx
    .updateTable('campaigns')
    .set({ mailbox_id: mailboxIds[0], updated_at: sql`now()` })
    .where('id', '=', campaignId)
    .execute();
}

/** A campaign's name, mode, send_in and allow_risky (PATCH /campaigns/{id}); its pool is setCampaignPool's. */
export function updateCampaign(tx: Tx, id: string, patch: { name?: string; mode?: string; send_in?: string; allow_risky?: boolean }) {
  return tx
    .updateTable('campaigns')
    .set({ ...patch, updated_at: sql`now()` })
    .where('id', '=', id)
    .execute();
}

/** A proposal's suggested contacts grow by these (in order, each once). */
export function addSuggestedContacts(tx: Tx, id: string, contactIds: string[]) {
  return tx
    .updateTable('campaigns')
    .set({
      suggested_contact_ids: sql<
        string[]
      >`(SELECT coalesce(array_agg(c ORDER BY o), '{}') FROM (SELECT DISTINCT ON (c) c, o FROM unnest(suggested_contact_ids || ${contactIds}::uuid[]) WITH ORDINALITY AS u(c, o) ORDER BY c, o) d)`,
      updated_at: sql`now()`,
    })
    .where('id', '=', id)
    .execute();
}

/** Locks the contacts an accept enrolls, in id order (FOR NO KEY UPDATE: foreign-key checks still pass). */
export async function lockContactsForEnrollment(tx: Tx, contactIds: string[]) {
  if (contactIds.length === 0) return;
  await tx.selectFrom('contacts').select('id').where('id', 'in', contactIds).orderBy('id').forNoKeyUpdate().execute();
}

/** Locks the campaign row: accepts of one campaign take turns. */
export function lockCampaign(tx: Tx, id: string) {
  return tx.selectFrom('campaigns').select(['id', 'status']).where('id', '=', id).forUpdate().executeTakeFirst();
}

export function stepsOf(tx: Tx, sequenceId: string) {
  return tx.selectFrom('sequence_steps').select(STEP_COLUMNS).where('sequence_id', '=', sequenceId).orderBy('position').execute();
}

/** A mailbox of the organization, visible to the caller (id only: the mailbox slice owns the rest). */
export function mailboxOf(tx: Tx, organizationId: string, mailboxId: string) {
  return tx
    .selectFrom('mailboxes')
    .select(['id', 'organization_id'])
    .where('id', '=', mailboxId)
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
}

/** Those of the given mailboxes that are the organization's and visible to the caller. */
export function mailboxesOf(tx: Tx, organizationId: string, mailboxIds: string[]) {
  return tx.selectFrom('mailboxes').select(['id']).where('id', 'in', mailboxIds).where('organization_id', '=', organizationId).execute();
}

/** The organization's first active (not paused) mailbox whose last health check did not say `sendable: false`. */
export function firstSendableMailbox(tx: Tx, organizationId: string) {
  return tx
    .selectFrom('mailboxes')
    .select(['id', 'timezone'])
    .where('organization_id', '=', organizationId)
    .where('status', '=', 'active')
    .where(sql<boolean>`sendable IS DISTINCT FROM false`)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
}

/** The pool the strategist proposes: the organization's active mailboxes that are not judged unsendable, oldest first (at most 50). */
export function activeSendableMailboxes(tx: Tx, organizationId: string) {
  return tx
    .selectFrom('mailboxes')
    .select(['id', 'timezone'])
    .where('organization_id', '=', organizationId)
    .where('status', '=', 'active')
    .where(sql<boolean>`sendable IS DISTINCT FROM false`)
    .orderBy('created_at')
    .orderBy('id')
    .limit(50)
    .execute();
}

/** An accepted campaign puts its opportunity in outreach (from ready only: a closed one stays closed). */
export function markOpportunityInOutreach(tx: Tx, opportunityId: string) {
  return tx
    .updateTable('opportunities')
    .set({ status: 'in_outreach', updated_at: sql`now()` })
    .where('id', '=', opportunityId)
    .where('status', '=', 'ready')
    .execute();
}

/** An opportunity of the organization, visible to the caller. */
export function opportunityOf(tx: Tx, organizationId: string, opportunityId: string) {
  return tx
    .selectFrom('opportunities')
    .select(['id', 'organization_id', 'status', 'company_id', 'created_from_signal_id'])
    .where('id', '=', opportunityId)
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
}

// What the drafting stage and the strategist read ------------------------------------------------------

/** The opportunity with its company and the signal it came from (with the signal's current classification and score reasons). */
export async function opportunityForStrategist(tx: Tx, opportunityId: string) {
  const opportunity = await tx
    .selectFrom('opportunities')
    .select(['id', 'organization_id', 'status', 'company_id', 'created_from_signal_id', 'project_id', 'brief', 'summary'])
    .where('id', '=', opportunityId)
    .executeTakeFirst();
  if (!opportunity) return undefined;
  const signalId = opportunity.created_from_signal_id;
  const signal = signalId
    ? await tx
        .selectFrom('signals')
        .select(['id', 'title', 'summary', 'source_url', 'published_at', 'location_text', 'municipality', 'company_id'])
        .where('id', '=', signalId)
        .executeTakeFirst()
    : undefined;
  const classification = signalId
    ? await tx
        .selectFrom('classifications')
        .select(['project_category', 'project_stage'])
        .where('signal_id', '=', signalId)
        .where('is_current', '=', true)
        .executeTakeFirst()
    : undefined;
  const reasons = signalId
    ? await tx
        .selectFrom('score_components')
        .innerJoin('scores', 'scores.id', 'score_components.score_id')
        .select(['score_components.reason'])
        .where('scores.signal_id', '=', signalId)
        .where('scores.is_current', '=', true)
        .where('score_components.points', '>', 0)
        .orderBy('score_components.position')
        .execute()
    : [];
  const companyId = opportunity.company_id ?? signal?.company_id ?? null;
  const company = companyId
    ? await tx
        .selectFrom('companies')
        .select(['id', 'name', 'country_code', 'generic_email', 'phone', 'enrichment_status', 'recipient_kind', 'timezone'])
        .where('id', '=', companyId)
        .executeTakeFirst()
    : undefined;
  return { opportunity, signal, classification, scoreReasons: reasons.map((r) => r.reason), company };
}

/** The company's contacts that are not erased, oldest first (the order the strategist ranks ties in). */
export function companyContacts(tx: Tx, companyId: string) {
  return tx
    .selectFrom('contacts')
    .select(['id', 'full_name', 'title', 'email', 'phone', 'timezone'])
    .where('company_id', '=', companyId)
    .where('erased_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .limit(200)
    .execute();
}

export function storeBrief(tx: Tx, opportunityId: string, brief: unknown) {
  return tx
    .updateTable('opportunities')
    .set({ brief: JSON.stringify(brief), updated_at: sql`now()` })
    .where('id', '=', opportunityId)
    .execute();
}
