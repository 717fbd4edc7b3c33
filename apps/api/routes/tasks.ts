import { Router } from 'express';
import { completeTask, getTask, listTasks } from '../../../db/queries/meetings';
import type { Tx } from '../../../db/tenancy';
import { readWithRole, withRecordRole } from '../access';
import { conflict } from '../errors';
import type { ApiDeps } from '../deps';
import { bind } from '../bind';
import { operations } from './tasks.schemas';
import { pathId } from '../validate';

/** Tasks for people (the reminder to prepare a meeting), newest first; filter by assignee, meeting or status; complete one. */
export function taskRoutes({ db }: ApiDeps): Router {
  const r = Router();
  const serve = bind(r, operations);
  serve('listTasks', async (req, res, call) => {
    const q = call.query;
    res.json(await readWithRole(db, req, q.organizationId, call.role, (qb) => listTasks(qb, q)));
  });
  /** Done: an open task only (409 when it is done or was cancelled, e.g. with its meeting). */
  serve('completeTask', async (req, res, call) => {
    const id = pathId(req, 'taskId', 'task');
    void call.body;
    const loader = { what: 'task', load: (tx: Tx) => getTask(tx, id) };
    res.json(
      await withRecordRole(db, req, loader, call.role, async (tx, existing) => {
        const done = await completeTask(tx, id);
        if (!done) throw conflict(`The task is ${existing.status}; only an open task can be completed`);
        return done;
      }),
    );
  });

  return r;
}
