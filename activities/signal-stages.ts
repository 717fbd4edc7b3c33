import { ApplicationFailure } from '@temporalio/activity';
import {
  activeScoringConfig,
  currentClassification,
  industryProfile,
  insertClassification,
  insertScore,
  lockSignal,
  markProcessedQuery,
  setSignalState,
  signalForPipeline,
  signalForPipelineQuery,
} from '../db/queries/pipeline';
import { matchOrCreateCompany, setEnrichmentStatus } from '../db/queries/companies';
import { openOpportunity } from '../db/queries/opportunities';
import { asOrganization, asOrganizationInOneTrip } from '../db/tenancy';
import type { DB } from '../db/pool';
import type { CompanyHint } from '../domain/companies/extract';
import { DEFAULT_PROFILE } from '../domain/classification/default-profile';
import { ProviderError } from './providers/llm/chat-json';
import { Classifier, IndustryProfileInput, InvalidModelOutputError } from '../domain/classification/types';
import { Dimension, scoreSignal } from '../domain/scoring/engine';

export interface SignalRef {
  organizationId: string;
  signalId: string;
}

export interface StageOutcome {
  /** The signal's status after the stage. */
  status: string;
  detail?: Record<string, unknown>;
}

export interface SignalStageDeps {
  db: DB;
  /** The classifier for an organization: its LLM integration when configured, else the built-in rules. */
  classifierFor(organizationId: string): Promise<Classifier>;
  now?: () => Date;
}

/**
 * One idempotent activity per pipeline stage. Re-running a stage writes a new version and moves
 * is_current; it never duplicates. The signal row is locked while a stage writes, so two runs of a
 * stage for one signal take versions one after the other.
 */
export function createSignalStageActivities(deps: SignalStageDeps) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());
  const notFound = (ref: SignalRef) => ApplicationFailure.nonRetryable(`signal ${ref.signalId} not found`, 'SignalNotFound');

  /** The signal as the pipeline reads it, in one round trip (the gate before every stage reads it so). */
  const readInOneTrip = async (ref: SignalRef) => (await asOrganizationInOneTrip(db, ref.organizationId, (qb) => signalForPipelineQuery(qb, ref.signalId)))[0];

  return {
    /** Kept for runs recorded before the gate (their history replays it). */
    async readSignalStatus(ref: SignalRef): Promise<string | null> {
      return (await readInOneTrip(ref))?.status ?? null;
    },

    /** Read before every stage (one round trip): the pipeline stops only when the signal is gone or a person ignored it. */
    async signalGate(ref: SignalRef): Promise<{ status: string | null; stop: boolean }> {
      const s = await readInOneTrip(ref);
      return { status: s?.status ?? null, stop: !s || s.ignored_at !== null };
    },

    /** The pipeline ran to its end: the reconcile no longer looks at the signal. */
    async completeSignalPipeline(ref: SignalRef): Promise<void> {
      await asOrganizationInOneTrip(db, ref.organizationId, (qb) => markProcessedQuery(qb, ref.signalId));
    },

    async classifySignal(ref: SignalRef): Promise<StageOutcome> {
      const loaded = await asOrganization(db, ref.organizationId, async (tx) => ({
        signal: await signalForPipeline(tx, ref.signalId),
        profile: await industryProfile(tx, ref.organizationId),
      }));
      if (!loaded.signal) throw notFound(ref);
      const profile: IndustryProfileInput = loaded.profile
        ? {
            name: loaded.profile.profile.name,
            propositionText: loaded.profile.profile.proposition_text,
            products: loaded.profile.products.map((p) => ({ key: p.key, name: p.name, fitKeywords: p.fit_keywords })),
            personas: loaded.profile.personas.map((p) => ({ segment: p.segment, titleKeywords: p.title_keywords })),
          }
        : DEFAULT_PROFILE;
      const classifier = await deps.classifierFor(ref.organizationId);
      let result;
      try {
        result = await classifier.classify({
          title: loaded.signal.title,
          summary: loaded.signal.summary,
          signalType: loaded.signal.signal_type,
          language: loaded.signal.language,
          profile,
        });
      } catch (err) {
        // Invalid model output is retried by the activity's policy; nothing has been written.
        if (err instanceof InvalidModelOutputError) throw ApplicationFailure.retryable(err.message, 'InvalidModelOutput');
        if (err instanceof ProviderError) {
          throw err.retryable
            ? ApplicationFailure.retryable(err.message, 'ClassifierUnavailable')
            : ApplicationFailure.nonRetryable(err.message, 'ClassifierRejected');
        }
        throw err;
      }
      return asOrganization(db, ref.organizationId, async (tx) => {
        const locked = await lockSignal(tx, ref.signalId);
        if (!locked) throw notFound(ref);
        const row = await insertClassification(tx, {
          organizationId: ref.organizationId,
          signalId: ref.signalId,
          model: result.model,
          promptKey: result.promptKey,
          promptVersion: result.promptVersion,
          promptHash: result.promptHash,
          output: { ...result.output, fit_matches: result.fitMatches },
          confidence: result.confidence,
          commercialRelevance: result.commercialRelevance,
          relevanceReasons: result.relevanceReasons,
          projectCategory: result.projectCategory,
          projectStage: result.projectStage,
          estimatedSize: result.estimatedSize,
        });
        // Only a person's ignore outlasts a stage; an ignore by an earlier score is scored again.
        const status = locked.ignored_at ? 'ignored' : 'classified';
        await setSignalState(tx, ref.signalId, { status, failure_reason: null });
        return { status, detail: { classificationVersion: row.version, model: result.model, relevant: result.commercialRelevance } };
      });
    },

    async scoreSignal(ref: SignalRef): Promise<StageOutcome> {
      return asOrganization(db, ref.organizationId, async (tx) => {
        const locked = await lockSignal(tx, ref.signalId);
        const signal = locked && (await signalForPipeline(tx, ref.signalId));
        if (!signal) throw notFound(ref);
        const classification = await currentClassification(tx, ref.signalId);
        if (!classification) throw ApplicationFailure.nonRetryable('the signal has no classification: reprocess from classification', 'StagePrecondition');
        const active = await activeScoringConfig(tx, ref.organizationId);
        if (!active) throw ApplicationFailure.nonRetryable('the organization has no active scoring config', 'StagePrecondition');
        const { config, rules } = active;
        const thresholds = {
          ignoreBelow: config.ignore_below,
          qualifyAt: config.qualify_at,
          opportunityAt: config.opportunity_at,
          homeLat: config.home_lat,
          homeLng: config.home_lng,
        };
        const result = scoreSignal(
          thresholds,
          rules.map((r) => ({
            dimension: r.dimension as Dimension,
            ruleKey: r.rule_key,
            weight: r.weight,
            maxPoints: r.max_points,
            params: (r.params ?? {}) as Record<string, unknown>,
          })),
          {
            commercialRelevance: classification.commercial_relevance,
            confidence: classification.confidence ?? 0,
            relevanceReasons: classification.relevance_reasons,
            projectStage: classification.project_stage,
            estimatedSize: classification.estimated_size,
            fitMatches: ((classification.output as { fit_matches?: string[] }).fit_matches ?? []) as string[],
            publishedAt: signal.published_at,
            lat: signal.lat,
            lng: signal.lng,
            sourceKind: signal.source_kind,
            now: now(),
          },
        );
        const score = await insertScore(tx, {
          organizationId: ref.organizationId,
          signalId: ref.signalId,
          scoringConfigId: config.id,
          total: result.total,
          decision: result.decision,
          components: result.components,
        });
        // Below ignore_below: ignored. Between ignore_below and qualify_at: scored, kept for review.
        const status = locked.ignored_at
          ? 'ignored'
          : result.decision === 'opportunity'
            ? 'ready'
            : result.decision === 'qualify'
              ? 'qualified'
              : result.total < config.ignore_below
                ? 'ignored'
                : 'scored';
        await setSignalState(tx, ref.signalId, { status, current_score: result.total });
        return { status, detail: { scoreVersion: score.version, total: result.total, decision: result.decision, scoringConfigVersion: config.version } };
      });
    },

    async openSignalOpportunity(ref: SignalRef): Promise<StageOutcome> {
      return asOrganization(db, ref.organizationId, async (tx) => {
        await lockSignal(tx, ref.signalId);
        const signal = await signalForPipeline(tx, ref.signalId);
        if (!signal) throw notFound(ref);
        if (signal.status !== 'ready') return { status: signal.status, detail: { opened: false } };
        const { opportunity, created } = await openOpportunity(tx, {
          organizationId: ref.organizationId,
          projectId: signal.project_id,
          signalId: signal.id,
          score: signal.current_score,
          summary: signal.title,
        });
        return { status: signal.status, detail: { opportunityId: opportunity.id, created } };
      });
    },

    /**
     * The enrichment stage: the company a ready signal names (by KvK, domain, then name; created when
     * new) is linked to the signal and its open opportunity. Whether to enrich it is returned; the
     * workflow starts that enrichment.
     */
    async enrichSignalCompany(ref: SignalRef): Promise<StageOutcome> {
      return asOrganization(db, ref.organizationId, async (tx) => {
        await lockSignal(tx, ref.signalId);
        const signal = await tx.selectFrom('signals').select(['id', 'status', 'company_hint', 'project_id']).where('id', '=', ref.signalId).executeTakeFirst();
        if (!signal) throw notFound(ref);
        const hint = signal.company_hint as CompanyHint | null;
        if (signal.status !== 'ready' || !hint?.name) return { status: signal.status, detail: { companyId: null } };
        const { company, created, matchedBy } = await matchOrCreateCompany(tx, ref.organizationId, {
          name: hint.name,
          kvkNumber: hint.kvkNumber ?? null,
          website: hint.website ?? null,
          countryCode: 'NL',
        });
        await tx.updateTable('signals').set({ company_id: company.id }).where('id', '=', ref.signalId).execute();
        if (signal.project_id) {
          await tx
            .updateTable('opportunities')
            .set({ company_id: company.id })
            .where('organization_id', '=', ref.organizationId)
            .where('project_id', '=', signal.project_id)
            .where('status', '<>', 'closed')
            .where('company_id', 'is', null)
            .execute();
        }
        const enrich = company.enrichment_status === 'idle';
        if (enrich) await setEnrichmentStatus(tx, company.id, 'running');
        return { status: signal.status, detail: { companyId: company.id, created, matchedBy, enrich } };
      });
    },

    async markSignalFailed(ref: SignalRef & { stage: string; reason: string }): Promise<void> {
      await asOrganization(db, ref.organizationId, (tx) =>
        setSignalState(tx, ref.signalId, { status: 'failed', failure_reason: `${ref.stage}: ${ref.reason}`.slice(0, 2000) }),
      );
    },
  };
}
