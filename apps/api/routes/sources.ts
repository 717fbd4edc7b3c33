import { Router } from 'express';
import { getSource, insertSource, listSources, updateSource } from '../../../db/queries/sources';
import { asCaller, requireRole, withRecordRole, withRole, WRITE } from '../access';
import { conflict, notFound, validationFailed, zodToFieldErrors } from '../errors';
import type { ApiDeps } from '../app';
import { createSourceBody, emptyBody, listSourcesQuery, patchSourceBody, sourceConfigByProvider } from '../schemas';
import { parseBody, parseQuery, pathId } from '../validate';

export function sourceRoutes({ db, workflows }: ApiDeps): Router {
  const r = Router();

  r.post('/sources', async (req, res) => {
    const body = parseBody(createSourceBody, req);
    const source = await asCaller(db, req, async (tx) => {
      await requireRole(tx, req, body.organizationId, WRITE);
      const created = await insertSource(tx, {
        organization_id: body.organizationId,
        provider_key: body.providerKey,
        name: body.name,
        config: body.config,
        enabled: body.enabled,
        schedule: body.schedule ?? null,
        country_code: body.countryCode,
        language: body.language,
      });
      // Inside the transaction: when Temporal refuses the schedule, the source is not created either.
      if (created.schedule) await workflows.syncSourceSchedule(created);
      return created;
    });
    res.status(201).json(source);
  });

  r.get('/sources', async (req, res) => {
    const q = parseQuery(listSourcesQuery, req);
    const rows = await withRole(db, req, q.organizationId, 'viewer', (tx) => listSources(tx, q.organizationId, q));
    res.json(rows);
  });

  r.get('/sources/:sourceId', async (req, res) => {
    const id = pathId(req, 'sourceId', 'source');
    const source = await asCaller(db, req, (tx) => getSource(tx, id));
    if (!source) throw notFound('source');
    res.json(source);
  });

  r.patch('/sources/:sourceId', async (req, res) => {
    const id = pathId(req, 'sourceId', 'source');
    const body = parseBody(patchSourceBody, req);
    const source = await withRecordRole(db, req, { what: 'source', load: (tx) => getSource(tx, id) }, WRITE, async (tx, existing) => {
      if (body.config) {
        const schema = sourceConfigByProvider[existing.provider_key as keyof typeof sourceConfigByProvider];
        const parsed = schema.safeParse(body.config);
        if (!parsed.success) throw validationFailed(zodToFieldErrors(parsed.error, 'body.config'));
      }
      const updated = (await updateSource(tx, id, body))!;
      if (body.schedule !== undefined || body.enabled !== undefined || body.name !== undefined) {
        if (updated.schedule || existing.schedule) await workflows.syncSourceSchedule(updated);
      }
      return updated;
    });
    res.json(source);
  });

  r.post('/sources/:sourceId/run', async (req, res) => {
    const id = pathId(req, 'sourceId', 'source');
    parseBody(emptyBody, req);
    const source = await withRecordRole(db, req, { what: 'source', load: (tx) => getSource(tx, id) }, WRITE, async (_tx, existing) => {
      if (!existing.enabled) throw conflict('The source is disabled; enable it before running it');
      return existing;
    });
    const run = await workflows.startIngest(source.organization_id, source.id);
    res.status(202).json({ ...source, workflow_id: run.workflowId, run_id: run.runId });
  });

  return r;
}
