import { Router } from 'express';
import { siteDomain } from '../../../domain/companies/domains';
import { normalizeKvk, checkEmail } from '../../../domain/companies/identity';
import { CHANNEL_POLICY, CHANNEL_POLICY_VERSION, policyCountry } from '../../../domain/compliance/channel-policy';
import { isErasureScope } from '../../../domain/compliance/erasure';
import {
  addSuppression, changeComplianceSettings, complianceSettings, getSuppression, listAudit, listSuppressions, removeSuppression,
} from '../../../db/queries/compliance';
import { userOf, withRecordRole, withRole, WRITE } from '../access';
import { notFound, validationFailed } from '../errors';
import type { ApiDeps } from '../app';
import { auditQuery, channelPolicyQuery, createSuppressionBody, listSuppressionsQuery, organizationQuery, patchComplianceSettingsBody } from '../schemas';
import { parseBody, parseQuery, pathId } from '../validate';

/** Suppression values are stored normalized, so one address, domain or KvK number is one record. */
function normalizeSuppressionValue(scope: string, value: string): string {
  const fail = (message: string) => validationFailed([{ path: 'body.value', message }]);
  if (scope === 'email') {
    const r = checkEmail(value);
    if (!r.ok) throw fail(r.reason);
    return r.email;
  }
  if (scope === 'domain') {
    // A hosting subdomain (foo.wixsite.com) is suppressed as itself, never as the whole host (wixsite.com).
    const d = siteDomain(value);
    if (!d) throw fail('is not a registrable domain');
    return d;
  }
  const kvk = normalizeKvk(value);
  if (!kvk) throw fail('must be a KvK number of 8 digits');
  return kvk;
}

export function complianceRoutes({ db }: ApiDeps): Router {
  const r = Router();

  r.post('/compliance/suppressions', async (req, res) => {
    const body = parseBody(createSuppressionBody, req);
    const value = normalizeSuppressionValue(body.scope, body.value);
    const { suppression, created } = await withRole(db, req, body.organizationId, WRITE, (tx) =>
      addSuppression(tx, { organizationId: body.organizationId, scope: body.scope, value, reason: body.reason ?? 'manual', note: body.note, createdBy: userOf(req) }),
    );
    res.status(created ? 201 : 200).json(suppression);
  });

  r.get('/compliance/suppressions', async (req, res) => {
    const q = parseQuery(listSuppressionsQuery, req);
    const rows = await withRole(db, req, q.organizationId, 'viewer', (tx) => listSuppressions(tx, q));
    res.json(rows);
  });

  r.delete('/compliance/suppressions/:suppressionId', async (req, res) => {
    const id = pathId(req, 'suppressionId', 'suppression');
    const removed = await withRecordRole(db, req, { what: 'suppression', load: (tx) => getSuppression(tx, id) }, 'admin', async (tx, s) => {
      if (isErasureScope(s.scope)) throw validationFailed([{ path: 'suppressionId', message: 'an erasure suppression cannot be removed' }]);
      return removeSuppression(tx, id, userOf(req));
    });
    res.json(removed);
  });

  r.get('/compliance/settings', async (req, res) => {
    const q = parseQuery(organizationQuery, req);
    const settings = await withRole(db, req, q.organizationId, 'viewer', (tx) => complianceSettings(tx, q.organizationId));
    if (!settings) throw notFound('compliance settings');
    res.json(settings);
  });

  r.patch('/compliance/settings', async (req, res) => {
    const body = parseBody(patchComplianceSettingsBody, req);
    const settings = await withRole(db, req, body.organizationId, 'admin', (tx) => changeComplianceSettings(tx, body.organizationId, userOf(req), {
        default_country: body.defaultCountry,
        default_locale: body.defaultLocale,
        default_formality: body.defaultFormality,
        retention_months: body.retentionMonths,
        ai_disclosure: body.aiDisclosure,
        sender_legal_name: body.senderLegalName,
        sender_address: body.senderAddress,
        privacy_url: body.privacyUrl,
        unsubscribe_mailto: body.unsubscribeMailto,
      }));
    if (!settings) throw notFound('compliance settings');
    res.json(settings);
  });

  r.get('/compliance/audit', async (req, res) => {
    const q = parseQuery(auditQuery, req);
    const rows = await withRole(db, req, q.organizationId, 'viewer', (tx) => listAudit(tx, q));
    res.json(rows);
  });

  /** The channel policy table itself (public rules, no tenant data), optionally for one country and recipient kind. */
  r.get('/compliance/channel-policy', (req, res) => {
    const q = parseQuery(channelPolicyQuery, req);
    const country = q.country ? policyCountry(q.country) : undefined;
    const rules = CHANNEL_POLICY.filter((p) => (!country || p.country === country) && (!q.recipientKind || p.recipientKind === q.recipientKind || p.recipientKind === 'any'));
    // Responses are snake_case (api-contract); the domain table keeps its TypeScript names.
    res.json({ version: CHANNEL_POLICY_VERSION, rules: rules.map(({ recipientKind, ...rest }) => ({ ...rest, recipient_kind: recipientKind })) });
  });

  return r;
}
