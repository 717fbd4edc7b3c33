import { Router } from 'express';
import { getCompany, insertCompany, listCompaniesJson, setEnrichmentStatus, updateCompany } from '../../../db/queries/companies';
import { listEnrichmentRuns } from '../../../db/queries/enrichment';
import { toE164 } from '../../../domain/companies/identity';
import { readJsonWithRole, visibleOr404, withRecordRole, withRole } from '../access';
import { sendJsonText } from '../json-text';
import { conflict, validationFailed } from '../errors';
import type { ApiDeps } from '../deps';
import { bind } from '../bind';
import { operations } from './companies.schemas';
import { pathId } from '../validate';

export function companyRoutes({ db, workflows }: ApiDeps): Router {
  const r = Router();
  const serve = bind(r, operations);

  serve('createCompany', async (req, res, call) => {
    const body = call.body;
    const phone = body.phone ? toE164(body.phone, body.countryCode ?? 'NL') : null;
    if (body.phone && !phone) throw validationFailed([{ path: 'body.phone', message: 'is not a valid phone number' }]);
    const company = await withRole(db, req, body.organizationId, call.role, async (tx) => {
      if (body.kvkNumber) {
        const same = await tx
          .selectFrom('companies')
          .select('id')
          .where('organization_id', '=', body.organizationId)
          .where('kvk_number', '=', body.kvkNumber)
          .executeTakeFirst();
        if (same) throw conflict('A company with this KvK number exists', { company_id: same.id });
      }
      return insertCompany(tx, body.organizationId, { ...body, phone, genericEmail: body.genericEmail?.toLowerCase() });
    });
    res.status(201).json(company);
  });

  serve('listCompanies', async (req, res, call) => {
    const q = call.query;
    // The JSON array as PostgreSQL builds it, passed through (db/json-answers.ts).
    sendJsonText(req, res, await readJsonWithRole(db, req, q.organizationId, call.role, (qb) => listCompaniesJson(qb, q)));
  });

  serve('getCompany', async (req, res) => {
    const id = pathId(req, 'companyId', 'company');
    res.json(await visibleOr404(db, req, 'company', (tx) => getCompany(tx, id)));
  });

  serve('listEnrichmentRuns', async (req, res, call) => {
    const id = pathId(req, 'companyId', 'company');
    const runs = await visibleOr404(db, req, 'company', async (tx) => ((await getCompany(tx, id)) ? listEnrichmentRuns(tx, id, call.query.limit) : undefined));
    res.json(runs);
  });

  /** Name, address, website, phone, country, locale and time zone (recipient time); the identity keys (domain, KvK number) stay. */
  serve('patchCompany', async (req, res, call) => {
    const id = pathId(req, 'companyId', 'company');
    const body = call.body;
    const company = await withRecordRole(db, req, { what: 'company', load: (tx) => getCompany(tx, id) }, call.role, async (tx, existing) => {
      let phone = body.phone;
      if (body.phone) {
        phone = toE164(body.phone, (body.countryCode === undefined ? existing.country_code : body.countryCode) ?? 'NL');
        if (!phone) throw validationFailed([{ path: 'body.phone', message: 'is not a valid phone number' }]);
      }
      return (await updateCompany(tx, id, { ...body, phone }))!;
    });
    res.json(company);
  });

  /** Answers the Company with enrichment_status running; the enrichment workflow does the rest. */
  serve('enrichCompany', async (req, res, call) => {
    const id = pathId(req, 'companyId', 'company');
    void call.body;
    const company = await withRecordRole(db, req, { what: 'company', load: (tx) => getCompany(tx, id) }, call.role, async (tx, existing) => {
      const running = await setEnrichmentStatus(tx, id, 'running');
      // Inside the transaction: if Temporal refuses, the status does not claim a run.
      await workflows.startEnrichment(existing.organization_id, id);
      return running;
    });
    res.status(202).json(company);
  });

  return r;
}
