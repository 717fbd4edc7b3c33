import { ApplicationFailure } from '@temporalio/activity';
import {
  activeSendableMailboxes,
  companyContacts,
  firstSendableMailbox,
  hasAnyCampaign,
  insertCampaign,
  liveProposal,
  opportunityForStrategist,
  storeBrief,
} from '../db/queries/campaigns';
import { complianceGate } from '../db/queries/compliance';
import { industryProfile } from '../db/queries/pipeline';
import { asOrganization, type Tx } from '../db/tenancy';
import type { DB } from '../db/pool';
import { DEFAULT_PROFILE } from '../domain/classification/default-profile';
import { buildBrief, type OutreachBrief } from '../domain/outreach/brief';
import { contactChannels } from '../domain/outreach/enrollments';
import { planContacts, planSteps, templateWriter, type CandidateContact, type WriterInput, type WrittenProposal } from '../domain/outreach/strategist';
import { InvalidModelOutputError } from '../domain/classification/types';
import { proposeSendIn, type SendIn } from '../domain/sending/recipient-time';
import { ProviderError } from './providers/llm/chat-json';
import type { SignalRef, StageOutcome } from './signal-stages';

export interface OpportunityRef {
  organizationId: string;
  opportunityId: string;
}

export interface ProposalOutcome {
  /** The proposal: new (created) or the live one that already existed. */
  campaignId: string | null;
  created: boolean;
  /** Why nothing was proposed (campaignId null). */
  reason?: string;
}

/** Writes goal, brief, rationale and step instructions over the template writer's proposal (a model). */
export interface ProposalWriter {
  write(input: WriterInput, base: WrittenProposal): Promise<WrittenProposal>;
}

/** What the strategist decided before the words are written: the contacts, channels and steps (or why none). */
export type PreparedProposal =
  | { done: ProposalOutcome }
  // mailboxIds: the proposed pool (absent in histories recorded before pools: mailboxId alone then).
  // sendIn: recipient time proposed when a contact's zone differs from the pool's (absent in histories recorded before: mailbox).
  | { writerInput: WriterInput; mailboxId: string | null; mailboxIds?: string[]; countryCode: string | null; sendIn?: SendIn };

export interface StrategistDeps {
  db: DB;
  /** The organization's writer (its LLM, or LLM_*); absent: the deterministic template writer. */
  writerFor?: (organizationId: string) => Promise<ProposalWriter | null>;
}

const notFound = (ref: OpportunityRef) => ApplicationFailure.nonRetryable(`opportunity ${ref.opportunityId} not found`, 'StagePrecondition');

async function profileOf(tx: Tx, organizationId: string) {
  const p = await industryProfile(tx, organizationId);
  if (!p) {
    const n = DEFAULT_PROFILE.personas.length;
    return {
      proposition: DEFAULT_PROFILE.propositionText,
      products: DEFAULT_PROFILE.products,
      personas: DEFAULT_PROFILE.personas.map((x, i) => ({ segment: x.segment, titleKeywords: x.titleKeywords, priority: n - i })),
    };
  }
  return {
    proposition: p.profile.proposition_text,
    products: p.products.map((x) => ({ key: x.key, name: x.name, fitKeywords: x.fit_keywords })),
    personas: p.personas.map((x) => ({ segment: x.segment, titleKeywords: x.title_keywords, priority: x.priority })),
  };
}

/** Builds the opportunity's brief from what is stored now (domain/outreach/brief.ts) and stores it. */
async function draftBrief(tx: Tx, loaded: NonNullable<Awaited<ReturnType<typeof opportunityForStrategist>>>, organizationId: string): Promise<OutreachBrief> {
  const profile = await profileOf(tx, organizationId);
  const s = loaded.signal;
  const brief = buildBrief({
    opportunityId: loaded.opportunity.id,
    signal: s
      ? {
          id: s.id,
          title: s.title,
          summary: s.summary,
          sourceUrl: s.source_url,
          publishedAt: s.published_at,
          locationText: s.location_text,
          municipality: s.municipality,
        }
      : null,
    classification: loaded.classification
      ? { projectCategory: loaded.classification.project_category, projectStage: loaded.classification.project_stage }
      : null,
    scoreReasons: loaded.scoreReasons,
    products: profile.products,
    personas: profile.personas,
  });
  await storeBrief(tx, loaded.opportunity.id, brief);
  return brief;
}

/** The signal's open opportunity (the one the opportunity stage opened or joined). */
async function signalOpportunity(tx: Tx, signalId: string) {
  const signal = await tx.selectFrom('signals').select(['id', 'status', 'project_id']).where('id', '=', signalId).executeTakeFirst();
  if (!signal) return { signal: undefined, opportunity: undefined };
  let q = tx.selectFrom('opportunities').select(['id', 'status', 'company_id']).where('status', '<>', 'closed');
  q = signal.project_id ? q.where('project_id', '=', signal.project_id) : q.where('created_from_signal_id', '=', signalId);
  return { signal, opportunity: await q.orderBy('created_at', 'desc').executeTakeFirst() };
}

export function createStrategistActivities(deps: StrategistDeps) {
  const { db } = deps;

  const activities = {
    /** The drafting stage's work for one opportunity: its brief, written anew from what is stored. */
    async draftOpportunityBrief(ref: OpportunityRef): Promise<OutreachBrief> {
      return asOrganization(db, ref.organizationId, async (tx) => {
        const loaded = await opportunityForStrategist(tx, ref.opportunityId);
        if (!loaded) throw notFound(ref);
        return draftBrief(tx, loaded, ref.organizationId);
      });
    },

    /** Whether the proposal should wait: the company's enrichment is still running. */
    async strategistReadiness(ref: OpportunityRef): Promise<{ waitForEnrichment: boolean }> {
      return asOrganization(db, ref.organizationId, async (tx) => {
        const loaded = await opportunityForStrategist(tx, ref.opportunityId);
        if (!loaded) throw notFound(ref);
        return { waitForEnrichment: loaded.company?.enrichment_status === 'running' };
      });
    },

    /**
     * Proposes and stores a campaign for the opportunity (status proposed, proposed_by agent): the
     * contacts ranked by persona that the compliance gate lets through, each with its channels; the
     * steps; the first sendable mailbox; the writer's goal, brief, rationale and instructions. A live
     * proposal is returned as it is (at most one per opportunity). Nothing is proposed for an
     * opportunity that is not ready, has no company, or whose company has no contact the gate allows.
     * This decides (prepareProposal); writeProposal words it; storeProposal stores it.
     */
    async prepareProposal(ref: OpportunityRef): Promise<PreparedProposal> {
      return asOrganization(db, ref.organizationId, async (tx) => {
        const loaded = await opportunityForStrategist(tx, ref.opportunityId);
        if (!loaded) throw notFound(ref);
        const live = await liveProposal(tx, ref.organizationId, ref.opportunityId);
        if (live) return { done: { campaignId: live.id, created: false } };
        if (loaded.opportunity.status !== 'ready')
          return { done: { campaignId: null, created: false, reason: `the opportunity is ${loaded.opportunity.status}` } };
        const company = loaded.company;
        if (!company) return { done: { campaignId: null, created: false, reason: 'the opportunity has no company' } };
        const brief = await draftBrief(tx, loaded, ref.organizationId);
        const profile = await profileOf(tx, ref.organizationId);
        const candidates: CandidateContact[] = [];
        const found = await companyContacts(tx, company.id);
        for (const c of found) {
          const gate = await complianceGate(tx, c.id);
          if (!gate?.contactable) continue;
          candidates.push({
            id: c.id,
            fullName: c.full_name,
            title: c.title,
            channels: contactChannels(gate, c, { generic_email: company.generic_email, phone: company.phone }),
            ruleIds: gate.channels.filter((x) => x.allowed).map((x) => x.rule_id),
          });
        }
        const contacts = planContacts(candidates, brief.personas);
        if (contacts.length === 0)
          return { done: { campaignId: null, created: false, reason: 'no contact at the company that the compliance gate lets through' } };
        // The pool: the organization's active, sendable mailboxes (else its first sendable one, as before pools).
        const boxes = await activeSendableMailboxes(tx, ref.organizationId);
        const pool = boxes.map((m) => m.id);
        const mailbox = pool.length ? { id: pool[0]!, timezone: boxes[0]!.timezone } : await firstSendableMailbox(tx, ref.organizationId);
        // Recipient time when a suggested contact's zone differs from a pool mailbox's (domain/sending/recipient-time.ts).
        const chosen = new Set(contacts.map((c) => c.contact_id));
        const places = found
          .filter((c) => chosen.has(c.id))
          .map((c) => ({ contactTimezone: c.timezone, companyTimezone: company.timezone, companyCountry: company.country_code }));
        const zones = boxes.length ? boxes.map((m) => m.timezone) : mailbox ? [mailbox.timezone] : [];
        const sendIn = proposeSendIn(zones, places, new Date());
        return {
          writerInput: {
            brief,
            company: { name: company.name, countryCode: company.country_code },
            contacts,
            steps: planSteps(contacts),
            proposition: profile.proposition,
          },
          mailboxId: mailbox?.id ?? null,
          mailboxIds: pool,
          countryCode: company.country_code,
          sendIn,
        };
      });
    },

    /**
     * The words of the proposal (on the providers task queue: it may call a model): the organization's
     * model (its llm integration, else LLM_*) over the template writer's proposal, or the template
     * writer alone. Invalid model output is retried; a provider's refusal ends the run.
     */
    async writeProposal(a: { organizationId: string; input: WriterInput }): Promise<WrittenProposal> {
      const base = templateWriter(a.input);
      const writer = (await deps.writerFor?.(a.organizationId)) ?? null;
      if (!writer) return base;
      try {
        return await writer.write(a.input, base);
      } catch (err) {
        if (err instanceof InvalidModelOutputError) throw ApplicationFailure.retryable(err.message, 'InvalidModelOutput');
        if (err instanceof ProviderError) {
          throw err.retryable ? ApplicationFailure.retryable(err.message, 'WriterUnavailable') : ApplicationFailure.nonRetryable(err.message, 'WriterRejected');
        }
        throw err;
      }
    },

    /** Stores the proposal (proposed, proposed_by agent); the live one, when another run stored one first. */
    async storeProposal(a: {
      ref: OpportunityRef;
      prepared: Exclude<PreparedProposal, { done: ProposalOutcome }>;
      written: WrittenProposal;
    }): Promise<ProposalOutcome> {
      const { ref, prepared, written } = a;
      const { writerInput } = prepared;
      return asOrganization(db, ref.organizationId, async (tx) => {
        const stored = await insertCampaign(tx, {
          organizationId: ref.organizationId,
          name: written.name,
          proposedBy: 'agent',
          opportunityId: ref.opportunityId,
          mailboxId: prepared.mailboxId,
          mailboxIds: prepared.mailboxIds?.length ? prepared.mailboxIds : undefined,
          sendIn: prepared.sendIn ?? 'mailbox',
          goal: written.goal,
          brief: written.brief,
          countryCode: prepared.countryCode,
          personaKeys: [...new Set(writerInput.contacts.map((c) => c.persona).filter((p): p is string => p !== null))],
          productKeys: writerInput.brief.products.map((p) => p.key),
          suggestedContactIds: writerInput.contacts.map((c) => c.contact_id),
          suggestedContacts: writerInput.contacts,
          rationale: written.rationale,
          model: written.model,
          promptKey: written.promptKey,
          promptVersion: written.promptVersion,
          promptHash: written.promptHash,
          steps: written.steps,
        });
        return stored.created ? { campaignId: stored.id, created: true } : { campaignId: stored.existing, created: false };
      });
    },

    /**
     * prepare, write and store in one activity: what runs recorded before the writer moved to the
     * providers queue replay (workflows/strategist.ts, patch strategist-writer-queue).
     */
    async proposeCampaign(ref: OpportunityRef): Promise<ProposalOutcome> {
      const prepared = await activities.prepareProposal(ref);
      if ('done' in prepared) return prepared.done;
      const written = await activities.writeProposal({ organizationId: ref.organizationId, input: prepared.writerInput });
      return activities.storeProposal({ ref, prepared, written });
    },

    /** The pipeline's drafting stage: the brief of the signal's open opportunity. */
    async draftSignalBrief(ref: SignalRef): Promise<StageOutcome> {
      return asOrganization(db, ref.organizationId, async (tx) => {
        const { signal, opportunity } = await signalOpportunity(tx, ref.signalId);
        if (!signal) throw ApplicationFailure.nonRetryable(`signal ${ref.signalId} not found`, 'SignalNotFound');
        if (signal.status !== 'ready' || !opportunity) return { status: signal.status, detail: { opportunityId: null } };
        const loaded = await opportunityForStrategist(tx, opportunity.id);
        const brief = await draftBrief(tx, loaded!, ref.organizationId);
        return { status: signal.status, detail: { opportunityId: opportunity.id, facts: brief.facts.length } };
      });
    },

    /**
     * The pipeline's strategist stage: whether the signal's opportunity should get a proposal (ready,
     * with a company, never had a campaign); the workflow then starts strategistWorkflow, which waits
     * for a running enrichment to end. A dismissed proposal is not proposed again automatically.
     */
    async strategistSignalStage(ref: SignalRef): Promise<StageOutcome> {
      return asOrganization(db, ref.organizationId, async (tx) => {
        const { signal, opportunity } = await signalOpportunity(tx, ref.signalId);
        if (!signal) throw ApplicationFailure.nonRetryable(`signal ${ref.signalId} not found`, 'SignalNotFound');
        const none = (why: string) => ({ status: signal.status, detail: { startStrategist: false, opportunityId: opportunity?.id ?? null, reason: why } });
        if (signal.status !== 'ready' || !opportunity) return none('no open opportunity');
        if (opportunity.status !== 'ready') return none(`the opportunity is ${opportunity.status}`);
        if (!opportunity.company_id) return none('the opportunity has no company');
        if (await hasAnyCampaign(tx, ref.organizationId, opportunity.id)) return none('the opportunity already has a campaign');
        return { status: signal.status, detail: { startStrategist: true, opportunityId: opportunity.id, companyId: opportunity.company_id } };
      });
    },
  };
  return activities;
}
