import { Router } from 'express';
import { getCompany, insertCompany, listCompaniesJson, setEnrichmentStatus, updateCompany } from '../../../db/queries/companies';
import { toE164 } from '../../../domain/companies/identity';
import { readJsonWithRole, visibleOr404, withRecordRole, withRole, WRITE } from '../access';
import { sendJsonText } from '../json-text';
import { conflict, validationFailed } from '../errors';
import type { ApiDeps } from '../app';
import { createCompanyBody, emptyBody, listCompaniesQuery, patchCompanyBody } from '../schemas';
import { parseBody, parseQuery, pathId } from '../validate';

export function companyRoutes({ db, workflows }: ApiDeps): Router {
  const r = Router();

  r.post('/companies', async (req, res) => {
    const body = parseBody(createCompanyBody, req);
    const phone = body.phone ? toE164(body.phone, body.countryCode ?? 'NL') : null;
    if (body.phone && !phone) throw validationFailed([{ path: 'body.phone', message: 'is not a valid phone number' }]);
    const company = await withRole(db, req, body.organizationId, WRITE, async (tx) => {
      if (body.kvkNumber) {
        const same = await tx.selectFrom('companies').select('id').where('organization_id', '=', body.organizationId).where('kvk_number', '=', body.kvkNumber).executeTakeFirst();
        if (same) throw conflict('A company with this KvK number exists', { company_id: same.id });
      }
      return insertCompany(tx, body.organizationId, { ...body, phone, genericEmail: body.genericEmail?.toLowerCase() });
    });
    res.status(201).json(company);
  });

  r.get('/companies', async (req, res) => {
    const q = parseQuery(listCompaniesQuery, req);
    // The JSON array as PostgreSQL builds it, passed through (db/json-answers.ts).
    sendJsonText(req, res, await readJsonWithRole(db, req, q.organizationId, 'viewer', (qb) => listCompaniesJson(qb, q)));
  });

  r.get('/companies/:companyId', async (req, res) => {
    const id = pathId(req, 'companyId', 'company');
    res.json(await visibleOr404(db, req, 'company', (tx) => getCompany(tx, id)));
  });

  /** Name, address, website, phone, country, locale and time zone (recipient time); the identity keys (domain, KvK number) stay. */
  r.patch('/companies/:companyId', async (req, res) => {
    const id = pathId(req, 'companyId', 'company');
    const body = parseBody(patchCompanyBody, req);
    const company = await withRecordRole(db, req, { what: 'company', load: (tx) => getCompany(tx, id) }, WRITE, async (tx, existing) => {
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
  r.post('/companies/:companyId/enrich', async (req, res) => {
    const id = pathId(req, 'companyId', 'company');
    parseBody(emptyBody, req);
    const company = await withRecordRole(db, req, { what: 'company', load: (tx) => getCompany(tx, id) }, WRITE, async (tx, existing) => {
      const running = await setEnrichmentStatus(tx, id, 'running');
      // Inside the transaction: if Temporal refuses, the status does not claim a run.
      await workflows.startEnrichment(existing.organization_id, id);
      return running;
    });
    res.status(202).json(company);
  });

  return r;
}
