import { Router } from 'express';
import { getSignal, getSignalDetail, ignoreSignal, listSignalsJson, markSignalReprocessing } from '../../../db/queries/signals';
import { WorkflowRunningError } from '../../shared/temporal';
import { readJsonWithRole, userOf, visibleOr404, withRecordRole, WRITE } from '../access';
import { conflict } from '../errors';
import type { ApiDeps } from '../app';
import { sendJsonText } from '../json-text';
import { emptyBody, listSignalsQuery, reprocessBody } from '../schemas';
import { parseBody, parseQuery, pathId } from '../validate';

export function signalRoutes({ db, workflows }: ApiDeps): Router {
  const r = Router();

  r.get('/signals', async (req, res) => {
    const q = parseQuery(listSignalsQuery, req);
    // The JSON array as PostgreSQL builds it, passed through (db/json-answers.ts).
    sendJsonText(req, res, await readJsonWithRole(db, req, q.organizationId, 'viewer', (qb) => listSignalsJson(qb, q)));
  });

  r.get('/signals/:signalId', async (req, res) => {
    const id = pathId(req, 'signalId', 'signal');
    const detail = await visibleOr404(db, req, 'signal', (tx) => getSignalDetail(tx, id));
    const { signal, classification, score, components } = detail;
    // classification, score and components appear only when they exist (spec part 4).
    res.json({
      signal,
      ...(classification ? { classification } : {}),
      ...(score ? { score, components, breakdown: { total: score.total, decision: score.decision, components } } : {}),
    });
  });

  r.post('/signals/:signalId/ignore', async (req, res) => {
    const id = pathId(req, 'signalId', 'signal');
    parseBody(emptyBody, req);
    // A person's ignore (who and when are kept): the one decision that stops the signal's pipeline.
    const signal = await withRecordRole(db, req, { what: 'signal', load: (tx) => getSignal(tx, id) }, WRITE, (tx) => ignoreSignal(tx, id, userOf(req)));
    res.json(signal);
  });

  r.post('/signals/:signalId/reprocess', async (req, res) => {
    const id = pathId(req, 'signalId', 'signal');
    const body = parseBody(reprocessBody, req);
    const fromStage = body.fromStage ?? 'classification';
    const run = await withRecordRole(db, req, { what: 'signal', load: (tx) => getSignal(tx, id) }, WRITE, async (tx, signal) => {
      await markSignalReprocessing(tx, id);
      // Inside the transaction: when Temporal refuses the run, the signal does not claim one.
      return workflows.startSignalProcessing(signal.organization_id, signal.source_id, signal.id, fromStage).catch((err) => {
        if (err instanceof WorkflowRunningError) throw conflict('A run for this signal is in progress; try again when it ends');
        throw err;
      });
    });
    res.status(202).json({ workflow_id: run.workflowId, run_id: run.runId, from_stage: fromStage });
  });

  return r;
}
