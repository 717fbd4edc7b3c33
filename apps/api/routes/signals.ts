import { Router } from 'express';
import { getSignal, getSignalDetail, ignoreSignal, listSignalsJson, markSignalReprocessing } from '../../../db/queries/signals';
import { WorkflowRunningError } from '../../shared/temporal';
import { readJsonWithRole, userOf, visibleOr404, withRecordRole } from '../access';
import { conflict } from '../errors';
import type { ApiDeps } from '../deps';
import { bind } from '../bind';
import { sendJsonText } from '../json-text';
import { operations } from './signals.schemas';
import { pathId } from '../validate';

export function signalRoutes({ db, workflows }: ApiDeps): Router {
  const r = Router();
  const serve = bind(r, operations);

  serve('listSignals', async (req, res, call) => {
    const q = call.query;
    // The JSON array as PostgreSQL builds it, passed through (db/json-answers.ts).
    sendJsonText(req, res, await readJsonWithRole(db, req, q.organizationId, call.role, (qb) => listSignalsJson(qb, q)));
  });

  serve('getSignal', async (req, res) => {
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

  serve('ignoreSignal', async (req, res, call) => {
    const id = pathId(req, 'signalId', 'signal');
    void call.body;
    // A person's ignore (who and when are kept): the one decision that stops the signal's pipeline.
    const signal = await withRecordRole(db, req, { what: 'signal', load: (tx) => getSignal(tx, id) }, call.role, (tx) => ignoreSignal(tx, id, userOf(req)));
    res.json(signal);
  });

  serve('reprocessSignal', async (req, res, call) => {
    const id = pathId(req, 'signalId', 'signal');
    const body = call.body;
    const fromStage = body.fromStage ?? 'classification';
    const run = await withRecordRole(db, req, { what: 'signal', load: (tx) => getSignal(tx, id) }, call.role, async (tx, signal) => {
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
