import { Router } from 'express';
import { completeTask, getTask, listTasks } from '../../../db/queries/meetings';
import type { Tx } from '../../../db/tenancy';
import { readWithRole, withRecordRole, WRITE } from '../access';
import { conflict } from '../errors';
import type { ApiDeps } from '../app';
import { emptyBody, listTasksQuery } from '../schemas';
import { parseBody, parseQuery, pathId } from '../validate';

/** Tasks for people (the reminder to prepare a meeting), newest first; filter by assignee, meeting or status; complete one. */
export function taskRoutes({ db }: ApiDeps): Router {
  const r = Router();
  r.get('/tasks', async (req, res) => {
    const q = parseQuery(listTasksQuery, req);
    res.json(await readWithRole(db, req, q.organizationId, 'viewer', (qb) => listTasks(qb, q)));
  });
  /** Done: an open task only (409 when it is done or was cancelled, e.g. with its meeting). */
  r.post('/tasks/:taskId/complete', async (req, res) => {
    const id = pathId(req, 'taskId', 'task');
    parseBody(emptyBody, req);
    const loader = { what: 'task', load: (tx: Tx) => getTask(tx, id) };
    res.json(
      await withRecordRole(db, req, loader, WRITE, async (tx, existing) => {
        const done = await completeTask(tx, id);
        if (!done) throw conflict(`The task is ${existing.status}; only an open task can be completed`);
        return done;
      }),
    );
  });

  return r;
}
