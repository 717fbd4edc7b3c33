import { Router } from 'express';
import { getOpportunity, listOpportunities, openOpportunity, openOpportunityForProject, setOutcome } from '../../../db/queries/opportunities';
import { getSignal } from '../../../db/queries/signals';
import { crmIntegrationLink } from '../../../db/queries/integrations';
import { outcomeSyncsToCrm } from '../../../domain/crm/opportunity-stage';
import { liveProposal } from '../../../db/queries/campaigns';
import { asCaller, requireRole, userOf, visibleOr404, withRecordRole, withRole, WRITE } from '../access';
import { conflict, notFound } from '../errors';
import type { ApiDeps } from '../app';
import { createOpportunityBody, emptyBody, listOpportunitiesQuery, outcomeBody } from '../schemas';
import { parseBody, parseQuery, pathId } from '../validate';

export function opportunityRoutes({ db, workflows }: ApiDeps): Router {
  const r = Router();

  /** From a signal (its project, score and title) or manual (a summary). One open opportunity per project. */
  r.post('/opportunities', async (req, res) => {
    const body = parseBody(createOpportunityBody, req);
    const opportunity = await asCaller(db, req, async (tx) => {
      await requireRole(tx, req, body.organizationId, WRITE);
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

  r.get('/opportunities', async (req, res) => {
    const q = parseQuery(listOpportunitiesQuery, req);
    const rows = await withRole(db, req, q.organizationId, 'viewer', (tx) => listOpportunities(tx, q));
    res.json(rows);
  });

  r.get('/opportunities/:opportunityId', async (req, res) => {
    const id = pathId(req, 'opportunityId', 'opportunity');
    res.json(await visibleOr404(db, req, 'opportunity', (tx) => getOpportunity(tx, id)));
  });

  r.post('/opportunities/:opportunityId/outcome', async (req, res) => {
    const id = pathId(req, 'opportunityId', 'opportunity');
    const body = parseBody(outcomeBody, req);
    const opportunity = await withRecordRole(db, req, { what: 'opportunity', load: (tx) => getOpportunity(tx, id) }, WRITE, async (tx, existing) => {
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
  r.post('/opportunities/:opportunityId/strategist', async (req, res) => {
    const id = pathId(req, 'opportunityId', 'opportunity');
    parseBody(emptyBody, req);
    const opportunity = await withRecordRole(db, req, { what: 'opportunity', load: (tx) => getOpportunity(tx, id) }, WRITE, async (tx, existing) => {
      const live = await liveProposal(tx, existing.organization_id, id);
      if (live) throw conflict('The opportunity has a live proposal; accept or dismiss it first', { campaign_id: live.id });
      return existing;
    });
    const run = await workflows.startStrategist(opportunity.organization_id, opportunity.id, opportunity.company_id);
    res.status(202).json({ workflow_id: run.workflowId, run_id: run.runId });
  });

  return r;
}
