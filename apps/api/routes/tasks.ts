import { Router } from 'express';
import { listTasks } from '../../../db/queries/meetings';
import { readWithRole } from '../access';
import type { ApiDeps } from '../app';
import { listTasksQuery } from '../schemas';
import { parseQuery } from '../validate';

/** Tasks for people (the reminder to prepare a meeting), newest first; filter by assignee, meeting or status. */
export function taskRoutes({ db }: ApiDeps): Router {
  const r = Router();
  r.get('/tasks', async (req, res) => {
    const q = parseQuery(listTasksQuery, req);
    res.json(await readWithRole(db, req, q.organizationId, 'viewer', (qb) => listTasks(qb, q)));
  });
  return r;
}
