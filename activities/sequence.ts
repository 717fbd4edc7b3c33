import { ApplicationFailure } from '@temporalio/activity';
import type { DB } from '../db/pool';
import { asOrganization, type Tx } from '../db/tenancy';
import { complianceGate } from '../db/queries/compliance/gate';
import { lockEnrollment, recordEnrollmentProgress, skipWaitingMessages, transitionEnrollment } from '../db/queries/enrollments';
import { recipientSendPolicy } from '../db/queries/send-slots';
import {
  draftByKey,
  draftContext,
  emailedBefore,
  enrollmentEmailedBefore,
  insertDraft,
  rejectedDraft,
  resumeWhenDue,
  routeTakenByAnother,
  sequenceOf,
  stepMessage,
} from '../db/queries/sequence';
import type { OutreachBrief } from '../domain/outreach/brief';
import { draftWhy, templateDraft, type DraftInput, type MessageWhy, type WrittenDraft } from '../domain/outreach/draft';
import { contactChannels, ENROLLMENT_TRANSITIONS, type StepChannel } from '../domain/outreach/enrollments';
import { checkGrounding, draftEvidence, unsupportedClaimRisk } from '../domain/outreach/grounding';
import { draftKey, initialDraftStatus, stepOutcome, writtenDraftStatus, type StepOutcome } from '../domain/outreach/messages';
import { chooseVariant, type StepVariant } from '../domain/outreach/variants';
import { addBusinessDays } from '../domain/sending/business-days';
import type { DraftWriter } from './draft-writer';
import { ProviderError } from './providers/llm/chat-json';
import { InvalidModelOutputError } from '../domain/classification/types';

/**
 * The sequence workflow's activities (workflows/sequence.ts): where the enrollment stands, when a
 * step is due (business days of the mailbox), the step's draft (prepared with the compliance gate
 * checked again, written by the organization's model or the template writer, stored once), what
 * became of it, and the enrollment's end. Each is idempotent: a retry finds what the first attempt did.
 */
export interface SequenceRef {
  organizationId: string;
  enrollmentId: string;
}

export interface SequenceState {
  status: string;
  pauseReason: string | null;
  resumeAtMs: number | null;
  currentStep: number;
  steps: Array<{ position: number; channel: string; delayDays: number }>;
}

export type PreparedDraft =
  | { existing: string }
  | { stop: string }
  | { skip: string }
  | {
      input: DraftInput;
      context: {
        stepId: string;
        campaignId: string;
        contactId: string;
        mailboxId: string | null;
        channel: StepChannel;
        status: string;
        fromAddress: string | null;
        toAddress: string | null;
        why: Omit<Parameters<typeof draftWhy>[0], 'risks'>;
        redraftOf: string | null;
        /** The step variant the draft is written from (absent: the step has none). */
        variantKey?: string | null;
      };
    };

export interface SequenceDeps {
  db: DB;
  /** The organization's model writer (its LLM, or LLM_*); null: the template writer. With tx: read in that transaction. */
  draftWriterFor?: (organizationId: string, tx?: Tx) => Promise<DraftWriter | null>;
}

const missing = (ref: SequenceRef) => ApplicationFailure.nonRetryable(`enrollment ${ref.enrollmentId} not found`, 'StagePrecondition');

async function loadSequence(tx: Tx, ref: SequenceRef) {
  const s = await sequenceOf(tx, ref.enrollmentId);
  if (!s) throw missing(ref);
  return s;
}

type DraftToStore = SequenceRef & { position: number; attempt: number; prepared: Extract<PreparedDraft, { input: DraftInput }>; written: WrittenDraft };

/** prepareDraft's reading and deciding, in the caller's transaction. */
async function prepare(tx: Tx, r: SequenceRef & { position: number; attempt: number }): Promise<PreparedDraft> {
  const key = draftKey(r.enrollmentId, r.position, r.attempt);
  const stored = await draftByKey(tx, r.organizationId, key);
  if (stored) return { existing: stored.id };
  const s = await loadSequence(tx, r);
  const e = s.enrollment;
  const step = s.steps.find((x) => x.position === r.position)!;
  const gate = await complianceGate(tx, e.contact_id);
  if (!gate || !gate.contactable) {
    const reason = `compliance: ${gate?.reasons.join(', ') || 'contact gone'}`;
    if (await transitionEnrollment(tx, r.enrollmentId, 'stop', ENROLLMENT_TRANSITIONS.stop.to, { reason })) await skipWaitingMessages(tx, r.enrollmentId);
    return { stop: reason };
  }
  const ctx = await draftContext(tx, {
    contactId: e.contact_id,
    opportunityId: e.opportunity_id,
    mailboxId: e.sender_mailbox_id,
    organizationId: r.organizationId,
  });
  const c = ctx.contact!;
  const channels = contactChannels(gate, { email: c.email, phone: c.phone }, { generic_email: c.generic_email, phone: c.company_phone });
  const channel = step.channel as StepChannel;
  if (!channels.usable.includes(channel))
    return { skip: `the ${channel} step cannot reach the contact now (${gate.reasons.join(', ') || 'channel not allowed'})` };
  const policyChannel = channel === 'email' ? (channels.email === 'personal' ? 'email_personal' : 'email_generic') : channel;
  const decision = gate.channels.find((x) => x.channel === policyChannel);
  const toAddress = channel === 'email' ? (channels.email === 'personal' ? c.email : c.generic_email) : null;
  if (toAddress && (await routeTakenByAnother(tx, r.enrollmentId, toAddress))) {
    return {
      skip: `the e-mail step's address (${channels.email === 'generic' ? "the company's generic address" : "the contact's address"}) is mailed by another running enrollment`,
    };
  }
  const locale = c.locale ?? ctx.settings?.default_locale ?? 'nl-NL';
  const previous = r.attempt > 1 ? await rejectedDraft(tx, r.organizationId, draftKey(r.enrollmentId, r.position, r.attempt - 1)) : undefined;
  const brief = (ctx.brief ?? null) as OutreachBrief | null;
  // One variant per enrollment and step, from the enrollment id alone: a retry or a redraft chooses the same.
  const variant = chooseVariant(r.enrollmentId, r.position, step.variants as unknown as StepVariant[]);
  const input: DraftInput = {
    channel,
    position: r.position,
    followUp: channel === 'email' && (await enrollmentEmailedBefore(tx, r.enrollmentId)),
    instructions: variant?.instructions ?? step.instructions,
    ...(variant ? { variant: { key: variant.key, subject: variant.subject ?? null } } : {}),
    brief,
    campaign: { name: e.campaign_name, goal: e.goal },
    contact: { fullName: c.full_name, title: c.title },
    company: { name: c.company_name },
    locale,
    formality: ctx.settings?.default_formality ?? 'formal',
    sender: { name: ctx.mailbox?.display_name ?? null },
    rejection: previous ? { reason: previous.rejected_reason, subject: previous.subject, body: previous.body } : null,
  };
  return {
    input,
    context: {
      stepId: step.id,
      campaignId: e.campaign_id,
      contactId: e.contact_id,
      mailboxId: channel === 'email' ? e.sender_mailbox_id : null,
      channel,
      status: initialDraftStatus(channel, e.mode),
      fromAddress: channel === 'email' ? (ctx.mailbox?.address ?? null) : null,
      toAddress,
      redraftOf: previous?.id ?? null,
      ...(variant ? { variantKey: variant.key } : {}),
      why: {
        brief,
        compliance: { country: gate.country, locale, rule: decision?.rule_id ?? policyChannel, requirements: decision?.requirements ?? [] },
        channel,
        firstToPerson: channel === 'email' && !(await emailedBefore(tx, e.contact_id, toAddress)),
        mode: e.mode,
        ...(previous ? { rejectionReason: previous.rejected_reason } : {}),
      },
    },
  };
}

/** storeDraft's writing, in the caller's transaction. */
async function store(tx: Tx, r: DraftToStore): Promise<string> {
  const { input } = r.prepared;
  const enrollment = await lockEnrollment(tx, r.enrollmentId);
  const running = enrollment?.status === 'active' || enrollment?.status === 'paused';
  // A draft with an unsupported claim waits for a person even in auto mode.
  const context = running
    ? { ...r.prepared.context, status: writtenDraftStatus(r.prepared.context.status, r.written.risks) }
    : { ...r.prepared.context, status: 'skipped' };
  const why: MessageWhy = draftWhy({ ...context.why, risks: r.written.risks });
  const id = await insertDraft(tx, {
    organizationId: r.organizationId,
    enrollmentId: r.enrollmentId,
    campaignId: context.campaignId,
    contactId: context.contactId,
    stepId: context.stepId,
    mailboxId: context.mailboxId,
    channel: input.channel,
    status: context.status,
    subject: r.written.subject,
    body: r.written.body,
    fromAddress: context.fromAddress,
    toAddress: context.toAddress,
    why,
    model: r.written.model,
    promptKey: r.written.promptKey,
    promptVersion: r.written.promptVersion,
    confidence: r.written.confidence,
    draftKey: draftKey(r.enrollmentId, r.position, r.attempt),
    redraftOf: context.redraftOf,
    variantKey: context.variantKey ?? null,
  });
  if (running) await recordEnrollmentProgress(tx, r.enrollmentId, { currentStep: r.position, nextActionAt: context.status === 'approved' ? new Date() : null });
  return id;
}

/** One call of the model writer; a provider's refusal is final, an outage, a 429 or invalid output is retried. */
async function write(writer: DraftWriter, input: DraftInput): Promise<WrittenDraft> {
  try {
    return await writer.write(input);
  } catch (err) {
    if (err instanceof InvalidModelOutputError) throw ApplicationFailure.retryable(err.message, 'InvalidModelOutput');
    if (err instanceof ProviderError) {
      throw err.retryable ? ApplicationFailure.retryable(err.message, 'WriterUnavailable') : ApplicationFailure.nonRetryable(err.message, 'WriterRejected');
    }
    throw err;
  }
}

export function createSequenceActivities(deps: SequenceDeps) {
  const { db } = deps;
  const inOrg = <T>(ref: { organizationId: string }, fn: (tx: Tx) => Promise<T>) => asOrganization(db, ref.organizationId, fn);

  return {
    /** Where the enrollment stands (null when it is gone); an out-of-office pause whose resume_at passed is resumed first. */
    async sequenceState(ref: SequenceRef): Promise<SequenceState | null> {
      return inOrg(ref, async (tx) => {
        await resumeWhenDue(tx, ref.enrollmentId);
        const s = await sequenceOf(tx, ref.enrollmentId);
        if (!s) return null;
        return {
          status: s.enrollment.status,
          pauseReason: s.enrollment.pause_reason,
          resumeAtMs: s.enrollment.resume_at ? s.enrollment.resume_at.getTime() : null,
          currentStep: s.enrollment.current_step,
          steps: s.steps.map((x) => ({ position: x.position, channel: x.channel, delayDays: x.delay_days })),
        };
      });
    },

    /**
     * When step `position` is due: its delay in business days of the contact's mailbox (its pin, else the campaign's; sending days
     * less public holidays; with send_in "recipient" the recipient's: db/queries/send-slots.ts
     * recipientSendPolicy) after `fromMs`; shown on the enrollment as next_action_at.
     */
    async planStep(r: SequenceRef & { position: number; fromMs: number }): Promise<{ dueMs: number }> {
      return inOrg(r, async (tx) => {
        const s = await loadSequence(tx, r);
        const step = s.steps.find((x) => x.position === r.position);
        if (!step) throw ApplicationFailure.nonRetryable(`step ${r.position} not found`, 'StagePrecondition');
        // A step whose first draft is stored already was due then (a run started again where it stood).
        const drafted = await draftByKey(tx, r.organizationId, draftKey(r.enrollmentId, r.position, 1));
        if (drafted) return { dueMs: drafted.created_at.getTime() };
        const from = new Date(r.fromMs);
        // Business days of the mailbox, or of the recipient (its zone's sending days, its country's holidays) when the campaign sends in the recipient's time.
        const policy = s.enrollment.sender_mailbox_id
          ? await recipientSendPolicy(tx, {
              mailboxId: s.enrollment.sender_mailbox_id,
              campaignId: s.enrollment.campaign_id,
              contactId: s.enrollment.contact_id,
              now: from,
            })
          : undefined;
        const due = step.delay_days === 0 ? from : policy ? addBusinessDays(from, step.delay_days, policy) : new Date(r.fromMs + step.delay_days * 86_400_000);
        await recordEnrollmentProgress(tx, r.enrollmentId, { currentStep: r.position - 1, nextActionAt: due });
        return { dueMs: due.getTime() };
      });
    },

    /**
     * Everything the step's draft needs, with the compliance gate asked again: a contact the gate
     * closed to everything stops the enrollment (its waiting drafts skipped); a step whose channel
     * cannot reach the contact now is skipped. A draft already stored for this attempt is answered as it is.
     * An organization without a model writer gets its draft from the template writer (pure code, no
     * provider) stored here in the same transaction, answered as `existing`: no trip through the
     * providers queue's rate limit and two activities fewer per step.
     */
    async prepareDraft(r: SequenceRef & { position: number; attempt: number }): Promise<PreparedDraft> {
      return inOrg(r, async (tx) => {
        const prepared = await prepare(tx, r);
        if (!('input' in prepared) || (deps.draftWriterFor && (await deps.draftWriterFor(r.organizationId, tx)))) return prepared;
        return { existing: await store(tx, { ...r, prepared, written: templateDraft(prepared.input) }) };
      });
    },

    /**
     * The words of a draft: the organization's model when it has one, else the template writer. On the
     * providers queue. A provider's refusal (a revoked key: 401, 403, 400) is final (non-retryable, so
     * the run ends the enrollment `failed` with the reason at once instead of retrying for hours);
     * an outage or a 429 and invalid model output are retried.
     * A model's draft is checked against the brief's facts and the names it may use (domain/outreach/grounding.ts):
     * one with a claim no fact supports is written once more with those claims named; a second draft
     * that still has one carries `unsupported_claim: <text>` risks, so it waits for a person (storeDraft).
     * A retried activity writes and checks again; storeDraft keeps the first draft stored for the attempt.
     */
    async writeDraft(r: { organizationId: string; input: DraftInput }): Promise<WrittenDraft> {
      const writer = deps.draftWriterFor ? await deps.draftWriterFor(r.organizationId) : null;
      if (!writer) return templateDraft(r.input);
      const evidence = draftEvidence(r.input);
      const first = await write(writer, r.input);
      const unsupported = checkGrounding(first, evidence).unsupported;
      if (unsupported.length === 0) return first;
      const second = await write(writer, { ...r.input, avoid: unsupported });
      const still = checkGrounding(second, evidence).unsupported;
      return still.length === 0 ? second : { ...second, risks: [...second.risks, ...still.slice(0, 10).map(unsupportedClaimRisk)] };
    },

    /**
     * Stores the draft once per (enrollment, step, attempt); the enrollment shows the step. The
     * enrollment's row is locked first: one that stopped (or ended otherwise) while the model wrote
     * gets the draft as `skipped` (kept for the record, never in the approval inbox) and no
     * next_action_at; the run then sees the enrollment ended.
     */
    async storeDraft(r: DraftToStore): Promise<string> {
      return inOrg(r, (tx) => store(tx, r));
    },

    /**
     * What became of a step's message (null while it waits), and whether its enrollment still runs;
     * an out-of-office pause whose resume_at passed is resumed first (resumed: true), so a pause ends
     * by itself whatever stage the step is at (pending, approved, scheduled). resumeAtMs: when a
     * paused enrollment resumes by itself (null: a person resumes it).
     */
    async stepMessageState(r: { organizationId: string; messageId: string }): Promise<{
      status: string;
      outcome: StepOutcome | null;
      enrollmentStatus: string | null;
      resumeAtMs?: number | null;
      resumed?: boolean;
    }> {
      return inOrg(r, async (tx) => {
        const before = await stepMessage(tx, r.messageId);
        if (!before) throw ApplicationFailure.nonRetryable(`message ${r.messageId} not found`, 'StagePrecondition');
        const resumed = before.enrollment_id ? await resumeWhenDue(tx, before.enrollment_id) : false;
        const m = resumed ? (await stepMessage(tx, r.messageId))! : before;
        return {
          status: m.status,
          outcome: stepOutcome(m),
          enrollmentStatus: m.enrollment_status,
          resumeAtMs: m.resume_at ? m.resume_at.getTime() : null,
          resumed,
        };
      });
    },

    /** The last step is done (complete), or the run cannot go on (fail with the reason, or stop). */
    async finishEnrollment(r: SequenceRef & { action: 'complete' | 'fail' | 'stop'; reason?: string }): Promise<void> {
      await inOrg(r, async (tx) => {
        const moved = await transitionEnrollment(tx, r.enrollmentId, r.action, ENROLLMENT_TRANSITIONS[r.action].to, { reason: r.reason });
        if (moved && r.action !== 'complete') await skipWaitingMessages(tx, r.enrollmentId);
      });
    },
  };
}
