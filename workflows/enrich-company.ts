import { ActivityFailure, isCancellation, log, patched, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { dbActivityOptions, NON_RETRYABLE_STAGE_ERRORS, providerActivityOptions } from './retry';
import type { PlannedRun, ProviderOutcome, StepRef } from '../activities/enrichment';
import { addressIsGoodEnough } from '../domain/contacts/email-verification';
import { verifyUnchecked } from './verify-contacts';

export interface EnrichCompanyInput {
  organizationId: string;
  companyId: string;
  /** Stop the waterfall once the company has this many contacts. */
  minContacts?: number;
  retryInitialIntervalMs?: number;
  /** How long a batch provider is given between two polls (default the worker's ENRICHMENT_BATCH_POLL_SECONDS, else 30 s, Dropcontact's advice), and how many polls (default 20). */
  batchPollMs?: number;
  batchPolls?: number;
}

export interface EnrichCompanyResult {
  status: 'done' | 'failed';
  providers: ProviderOutcome[];
  errors: string[];
  /** The run listed by GET /companies/{companyId}/enrichment-runs (absent in runs begun before the waterfall). */
  runId?: string;
  /** The step whose address stopped the waterfall; null when every step was tried. */
  stoppedAtStep?: number | null;
}

/**
 * The enrichment waterfall: each provider in turn until the company has enough contacts. A
 * provider that fails is recorded and the next one tried; the run ends `done`, or `failed` with
 * the reasons when no provider succeeded. A done run starts the check of the company's addresses
 * never checked.
 */
export async function enrichCompanyWorkflow(input: EnrichCompanyInput): Promise<EnrichCompanyResult> {
  const db = proxyActivities<Activities>(dbActivityOptions(input.retryInitialIntervalMs ?? 5000));
  // A provider call runs on the rate-limited providers queue. Its attempts stay bounded: the waterfall
  // moves on to the next provider rather than waiting hours for one that is down.
  const providers = proxyActivities<Activities>({
    ...providerActivityOptions(workflowInfo().taskQueue, input.retryInitialIntervalMs ?? 5000),
    startToCloseTimeout: '5 minutes',
    scheduleToCloseTimeout: '30 minutes',
    retry: {
      initialInterval: input.retryInitialIntervalMs ?? 5000,
      backoffCoefficient: 2,
      maximumInterval: '1 minute',
      maximumAttempts: 5,
      nonRetryableErrorTypes: NON_RETRYABLE_STAGE_ERRORS,
    },
  });
  const ref = { organizationId: input.organizationId, companyId: input.companyId };
  if (patched('enrichment-waterfall')) return waterfall(input, db, providers);
  const a = { enrichmentPlan: db.enrichmentPlan, finishEnrichment: db.finishEnrichment, enrichFromProvider: providers.enrichFromProvider };
  const minContacts = input.minContacts ?? 3;
  const result: EnrichCompanyResult = { status: 'done', providers: [], errors: [] };
  let plan: string[] = [];
  try {
    plan = await a.enrichmentPlan(ref);
  } catch (err) {
    result.errors.push(messageOf(err));
  }
  for (const provider of plan) {
    try {
      const outcome = await a.enrichFromProvider({ ...ref, provider });
      result.providers.push(outcome);
      if (outcome.contacts >= minContacts) break;
    } catch (err) {
      result.errors.push(`${provider}: ${messageOf(err)}`);
      log.warn('enrichment provider failed', { provider });
    }
  }
  if (plan.length === 0 && result.errors.length === 0)
    result.errors.push('no enrichment provider applies: the company has no website or domain and no enrichment integration is configured');
  result.status = result.providers.length > 0 ? 'done' : 'failed';
  await a.finishEnrichment({ ...ref, status: result.status, error: result.status === 'failed' ? result.errors.join('; ') : null });
  // The addresses found are checked in a run of their own (histories recorded before this patch did not).
  if (result.status === 'done' && patched('verify-found-addresses'))
    await verifyUnchecked(input.organizationId, `enrich-${workflowInfo().runId}`, input.retryInitialIntervalMs, input.companyId);
  return result;
}

type Proxied = ReturnType<typeof proxyActivities<Activities>>;

/**
 * The waterfall with a recorded run: the company's website, then the organization's providers in its
 * order. Each step's new addresses are checked at once (verifyContactEmail); the first step that
 * brings an address at the organization's `stopAt` or better ends the run, and the steps not reached
 * are recorded as skipped. A batch provider (Dropcontact) is polled with durable sleeps between polls.
 */
async function waterfall(input: EnrichCompanyInput, db: Proxied, providers: Proxied): Promise<EnrichCompanyResult> {
  const ref = { organizationId: input.organizationId, companyId: input.companyId };
  const result: EnrichCompanyResult = { status: 'done', providers: [], errors: [], stoppedAtStep: null };
  let run: PlannedRun;
  try {
    run = await db.startEnrichmentRun({ ...ref, workflowRunId: workflowInfo().runId });
  } catch (err) {
    result.status = 'failed';
    result.errors.push(messageOf(err));
    await db.finishEnrichment({ ...ref, status: 'failed', error: result.errors.join('; ') });
    return result;
  }
  result.runId = run.runId;
  for (const planned of run.steps) {
    const step: StepRef = { ...ref, runId: run.runId, position: planned.position, provider: planned.provider, integrationId: planned.integrationId };
    let outcome: ProviderOutcome;
    try {
      outcome = planned.batch
        ? await batchStep(step, providers, { ...input, batchPollMs: input.batchPollMs ?? run.batchPollMs })
        : await providers.enrichFromProvider({ ...ref, provider: step.provider, step });
    } catch (err) {
      if (isCancellation(err)) throw err;
      const message = messageOf(err);
      result.errors.push(`${step.provider}: ${message}`);
      log.warn('enrichment provider failed', { provider: step.provider });
      await db.finishEnrichmentStep({ ...step, status: 'failed', error: message });
      continue;
    }
    result.providers.push(outcome);
    let verified = 0;
    let goodEnough = false;
    for (const contactId of outcome.found ?? []) {
      // A check that fails (the verifier refuses, or is down past its retries) leaves that address unchecked,
      // as verifyContactsWorkflow does: the run goes on, and the run after it checks what is left.
      try {
        const checked = await providers.verifyContactEmail({ organizationId: input.organizationId, contactId });
        if (checked.status === 'valid') verified++;
        if (addressIsGoodEnough(checked.status, run.stopAt)) goodEnough = true;
      } catch (err) {
        if (isCancellation(err)) throw err;
        log.warn('address check failed during enrichment', { contactId, error: messageOf(err) });
      }
    }
    await db.finishEnrichmentStep({ ...step, status: 'done', verified });
    if (goodEnough) {
      result.stoppedAtStep = step.position;
      break;
    }
  }
  if (run.steps.length === 0)
    result.errors.push('no enrichment provider applies: the company has no website or domain and no enrichment integration is configured');
  result.status = result.providers.length > 0 ? 'done' : 'failed';
  await db.finishEnrichmentRun({ ...ref, runId: run.runId, status: result.status, stoppedAtStep: result.stoppedAtStep ?? null });
  await db.finishEnrichment({ ...ref, status: result.status, error: result.status === 'failed' ? result.errors.join('; ') : null });
  // The other addresses (the company's generic one, steps that were not checked) are checked in a run of their own.
  if (result.status === 'done') await verifyUnchecked(input.organizationId, `enrich-${workflowInfo().runId}`, input.retryInitialIntervalMs, input.companyId);
  return result;
}

/** A batch provider's step: the request, then polls with a durable sleep between them, until its result or the last poll. */
async function batchStep(step: StepRef, providers: Proxied, input: EnrichCompanyInput): Promise<ProviderOutcome> {
  const submitted = await providers.submitEnrichmentBatch(step);
  if ('outcome' in submitted) return submitted.outcome;
  const polls = input.batchPolls ?? 20;
  const pollMs = input.batchPollMs ?? 30_000;
  for (let i = 0; i < polls; i++) {
    await sleep(pollMs);
    const outcome = await providers.pollEnrichmentBatch({ ...step, requestId: submitted.requestId });
    if (outcome) return outcome;
  }
  throw new Error(`no result after ${polls} polls, ${Math.round((polls * pollMs) / 1000)} s (request ${submitted.requestId})`);
}

function messageOf(err: unknown): string {
  const cause = err instanceof ActivityFailure && err.cause ? err.cause : err;
  return cause instanceof Error ? cause.message : String(cause);
}
