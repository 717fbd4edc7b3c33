import { Router } from 'express';
import { getOpportunity, listOpportunities, openOpportunity, openOpportunityForProject, setOutcome } from '../../../db/queries/opportunities';
import { getSignal } from '../../../db/queries/signals';
import { crmIntegrationLink } from '../../../db/queries/integrations';
import { outcomeSyncsToCrm } from '../../../domain/crm/opportunity-stage';
import { liveProposal } from '../../../db/queries/campaigns';
import { asCaller, requireRole, userOf, visibleOr404, withRecordRole, withRole } from '../access';
import { conflict, notFound } from '../errors';
import type { ApiDeps } from '../deps';
import { bind } from '../bind';
import { operations } from './opportunities.schemas';
import { pathId } from '../validate';

export function opportunityRoutes({ db, workflows }: ApiDeps): Router {
  const r = Router();
  const serve = bind(r, operations);

  /** From a signal (its project, score and title) or manual (a summary). One open opportunity per project. */
  serve('createOpportunity', async (req, res, call) => {
    const body = call.body;
    const opportunity = await asCaller(db, req, async (tx) => {
      await requireRole(tx, req, body.organizationId, call.role);
      let signal;
      if (body.signalId) {
        signal = await getSignal(tx, body.signalId);
        if (!signal || signal.organization_id !== body.organizationId) throw notFound('signal');
      }
      const { opportunity, created } = await openOpportunity(tx, {
        organizationId: body.organizationId,
        projectId: signal?.project_id ?? null,
        signalId: signal?.id ?? null,
        score: body.score ?? signal?.current_score ?? null,
        summary: body.summary ?? signal?.title ?? null,
        createdBy: userOf(req),
      });
      if (!created) throw conflict('The project already has an open opportunity', { opportunity_id: opportunity.id });
      return opportunity;
    });
    res.status(201).json(opportunity);
  });

  serve('listOpportunities', async (req, res, call) => {
    const q = call.query;
    const rows = await withRole(db, req, q.organizationId, call.role, (tx) => listOpportunities(tx, q));
    res.json(rows);
  });

  serve('getOpportunity', async (req, res) => {
    const id = pathId(req, 'opportunityId', 'opportunity');
    res.json(await visibleOr404(db, req, 'opportunity', (tx) => getOpportunity(tx, id)));
  });

  serve('recordOpportunityOutcome', async (req, res, call) => {
    const id = pathId(req, 'opportunityId', 'opportunity');
    const body = call.body;
    const opportunity = await withRecordRole(db, req, { what: 'opportunity', load: (tx) => getOpportunity(tx, id) }, call.role, async (tx, existing) => {
      if (body.outcome === 'open' && existing.status === 'closed' && existing.project_id) {
        const other = await openOpportunityForProject(tx, existing.organization_id, existing.project_id);
        if (other) throw conflict('The project has another open opportunity', { opportunity_id: other.id });
      }
      const updated = (await setOutcome(tx, id, body.outcome, body.value ?? null))!;
      // A won or lost outcome of an opportunity linked in the Salesforce integration's mapping goes to its Opportunity's stage.
      const crm = body.outcome === 'open' ? undefined : await crmIntegrationLink(tx, existing.organization_id);
      const toCrm = outcomeSyncsToCrm(crm, id);
      return { updated, toCrm };
    });
    // After the commit: the run `crm-outcome/<id>` starts, or the one that runs reads the outcome again.
    // A start that fails (Temporal unreachable) is logged, not answered as an error: the outcome is
    // stored, and the scheduled reconcile/outreach starts its sync.
    if (opportunity.toCrm) {
      await workflows
        .syncOutcomeToCrm(opportunity.updated)
        .catch((err) => req.log?.warn({ err, opportunityId: id }, 'CRM outcome sync start failed; reconcile/outreach will start it'));
    }
    res.json(opportunity.updated);
  });

  /**
   * Starts strategistWorkflow (opportunity/<id>/strategist): 202 with the run; 409 with campaign_id
   * while the opportunity has a live proposal (accept or dismiss it first).
   */
  serve('askStrategist', async (req, res, call) => {
    const id = pathId(req, 'opportunityId', 'opportunity');
    void call.body;
    const opportunity = await withRecordRole(db, req, { what: 'opportunity', load: (tx) => getOpportunity(tx, id) }, call.role, async (tx, existing) => {
      const live = await liveProposal(tx, existing.organization_id, id);
      if (live) throw conflict('The opportunity has a live proposal; accept or dismiss it first', { campaign_id: live.id });
      return existing;
    });
    const run = await workflows.startStrategist(opportunity.organization_id, opportunity.id, opportunity.company_id);
    res.status(202).json({ workflow_id: run.workflowId, run_id: run.runId });
  });

  return r;
}
