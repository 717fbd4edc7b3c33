import { Router } from 'express';
import { getEnrollment, listEnrollments, skipWaitingMessages, transitionEnrollment } from '../../../db/queries/enrollments';
import type { Tx } from '../../../db/tenancy';
import { ENROLLMENT_TRANSITIONS } from '../../../domain/outreach/enrollments';
import { readWithRole, visibleOr404, withRecordRole } from '../access';
import { conflict } from '../errors';
import type { ApiDeps } from '../deps';
import { bind } from '../bind';
import { operations } from './enrollments.schemas';
import { pathId } from '../validate';

export function enrollmentRoutes({ db, workflows }: ApiDeps): Router {
  const r = Router();
  const serve = bind(r, operations);
  const loader = (id: string) => ({ what: 'enrollment', load: (tx: Tx) => getEnrollment(tx, id) });

  serve('listEnrollments', async (req, res, call) => {
    const q = call.query;
    res.json(await readWithRole(db, req, q.organizationId, call.role, (qb) => listEnrollments(qb, q)));
  });

  serve('getEnrollment', async (req, res) => {
    const id = pathId(req, 'enrollmentId', 'enrollment');
    res.json(await visibleOr404(db, req, 'enrollment', (tx) => getEnrollment(tx, id)));
  });

  /** stopped, with the reason; its drafts and tasks still waiting (pending_approval, approved, scheduled, task_open) are skipped. */
  serve('stopEnrollment', async (req, res, call) => {
    const id = pathId(req, 'enrollmentId', 'enrollment');
    const body = call.body;
    const enrollment = await withRecordRole(db, req, loader(id), call.role, async (tx, existing) => {
      const stopped = await transitionEnrollment(tx, id, 'stop', ENROLLMENT_TRANSITIONS.stop.to, { reason: body.reason ?? 'stopped by a person' });
      if (!stopped) throw conflict(`The enrollment is ${existing.status}; only an active or paused enrollment can be stopped`);
      await skipWaitingMessages(tx, id);
      return stopped;
    });
    await workflows.notifyEnrollments([id]);
    res.json(enrollment);
  });

  /** A paused enrollment (out of office, or someone at the company replied) acts again now. */
  serve('resumeEnrollment', async (req, res, call) => {
    const id = pathId(req, 'enrollmentId', 'enrollment');
    void call.body;
    const enrollment = await withRecordRole(db, req, loader(id), call.role, async (tx, existing) => {
      const resumed = await transitionEnrollment(tx, id, 'resume', ENROLLMENT_TRANSITIONS.resume.to);
      if (!resumed) throw conflict(`The enrollment is ${existing.status}; only a paused enrollment can be resumed`);
      return resumed;
    });
    await workflows.notifyEnrollments([id]);
    res.json(enrollment);
  });

  return r;
}
