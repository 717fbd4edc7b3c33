import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { sourceHeadersSchema } from '../../../activities/providers/sources/json-api';
import { getSource, insertSource, listSources, SealedHeaders, updateSource } from '../../../db/queries/sources';
import { SecretBox, sourceSecretContext } from '../../../db/secrets';
import { visibleOr404, withRecordRole, withRole } from '../access';
import { conflict, ProblemError, validationFailed, zodToFieldErrors } from '../errors';
import type { ApiDeps } from '../deps';
import { bind } from '../bind';
import { sourceConfigByProvider, operations } from './sources.schemas';
import { pathId } from '../validate';

/**
 * A source's request headers (json_api) may carry credentials: they leave the readable config and are
 * sealed like integration secrets, bound to the source's row. Only their names are answered.
 */
function splitHeaders(providerKey: string, input: Record<string, unknown>, at: string): { config: Record<string, unknown>; headers?: Record<string, string> } {
  const { headers, ...config } = input;
  if (headers === undefined) return { config };
  if (providerKey !== 'json_api') throw validationFailed([{ path: `${at}.headers`, message: 'request headers are supported for json_api sources only' }]);
  const parsed = sourceHeadersSchema.safeParse(headers);
  if (!parsed.success) throw validationFailed(zodToFieldErrors(parsed.error, `${at}.headers`));
  return { config, headers: parsed.data };
}

function sealHeaders(box: () => SecretBox, organizationId: string, sourceId: string, url: string, headers: Record<string, string>): SealedHeaders {
  const names = Object.keys(headers);
  return { names, sealed: names.length ? box().seal(JSON.stringify(headers), sourceSecretContext(organizationId, sourceId, url)) : null };
}

export function sourceRoutes({ db, workflows, secrets }: ApiDeps): Router {
  const r = Router();
  const serve = bind(r, operations);
  const box = () => {
    if (!secrets) throw new ProblemError('SERVICE_UNAVAILABLE', 'Source request headers are not available: INTEGRATION_SECRET_KEY is not configured');
    return secrets;
  };

  serve('createSource', async (req, res, call) => {
    const body = call.body;
    const { config, headers } = splitHeaders(body.providerKey, body.config, 'body.config');
    const id = randomUUID();
    const sealed = headers ? sealHeaders(box, body.organizationId, id, String(config.url), headers) : undefined;
    const source = await withRole(db, req, body.organizationId, call.role, async (tx) => {
      const created = await insertSource(
        tx,
        {
          id,
          organization_id: body.organizationId,
          provider_key: body.providerKey,
          name: body.name,
          config,
          enabled: body.enabled,
          schedule: body.schedule ?? null,
          country_code: body.countryCode,
          language: body.language,
        },
        sealed,
      );
      // Inside the transaction: when Temporal refuses the schedule, the source is not created either.
      if (created.schedule) await workflows.syncSourceSchedule(created);
      return created;
    });
    res.status(201).json(source);
  });

  serve('listSources', async (req, res, call) => {
    const q = call.query;
    const rows = await withRole(db, req, q.organizationId, call.role, (tx) => listSources(tx, q.organizationId, q));
    res.json(rows);
  });

  serve('getSource', async (req, res) => {
    const id = pathId(req, 'sourceId', 'source');
    res.json(await visibleOr404(db, req, 'source', (tx) => getSource(tx, id)));
  });

  serve('updateSource', async (req, res, call) => {
    const id = pathId(req, 'sourceId', 'source');
    const body = call.body;
    const source = await withRecordRole(db, req, { what: 'source', load: (tx) => getSource(tx, id) }, call.role, async (tx, existing) => {
      if (body.config) {
        const schema = sourceConfigByProvider[existing.provider_key as keyof typeof sourceConfigByProvider];
        const parsed = schema.safeParse(body.config);
        if (!parsed.success) throw validationFailed(zodToFieldErrors(parsed.error, 'body.config'));
      }
      // Headers are replaced only when the new config names them ({} removes them): a client that
      // sends back the config it read (which never shows them) keeps them, as long as the URL keeps its
      // origin. A new origin drops them (they are sealed for the old one and would never be sent there).
      const split = body.config ? splitHeaders(existing.provider_key, body.config, 'body.config') : undefined;
      const url = String(split?.config.url ?? (existing.config as { url?: unknown }).url ?? '');
      const originChanged = split !== undefined && originOf(url) !== originOf(String((existing.config as { url?: unknown }).url ?? ''));
      const headers = split?.headers ?? (originChanged ? {} : undefined);
      const sealed = headers ? sealHeaders(box, existing.organization_id, id, url, headers) : undefined;
      const updated = (await updateSource(tx, id, split ? { ...body, config: split.config } : body, sealed))!;
      if (body.schedule !== undefined || body.enabled !== undefined || body.name !== undefined) {
        if (updated.schedule || existing.schedule) await workflows.syncSourceSchedule(updated);
      }
      return updated;
    });
    res.json(source);
  });

  serve('runSource', async (req, res, call) => {
    const id = pathId(req, 'sourceId', 'source');
    void call.body;
    const source = await withRecordRole(db, req, { what: 'source', load: (tx) => getSource(tx, id) }, call.role, async (_tx, existing) => {
      if (!existing.enabled) throw conflict('The source is disabled; enable it before running it');
      return existing;
    });
    const run = await workflows.startIngest(source.organization_id, source.id);
    res.status(202).json({ ...source, workflow_id: run.workflowId, run_id: run.runId });
  });

  return r;
}

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}
