import { Router } from 'express';
import { siteDomain } from '../../../domain/companies/domains';
import { normalizeKvk, checkEmail } from '../../../domain/companies/identity';
import { CHANNEL_POLICY, CHANNEL_POLICY_VERSION, policyCountry } from '../../../domain/compliance/channel-policy';
import { isErasureScope } from '../../../domain/compliance/erasure';
import {
  addSuppression,
  changeComplianceSettings,
  complianceSettings,
  getSuppression,
  listAudit,
  listSuppressions,
  removeSuppression,
} from '../../../db/queries/compliance';
import { userOf, withRecordRole, withRole } from '../access';
import { notFound, validationFailed } from '../errors';
import type { ApiDeps } from '../deps';
import { bind } from '../bind';
import { operations } from './compliance.schemas';
import { pathId } from '../validate';

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
  const serve = bind(r, operations);

  serve('addSuppression', async (req, res, call) => {
    const body = call.body;
    const value = normalizeSuppressionValue(body.scope, body.value);
    const { suppression, created } = await withRole(db, req, body.organizationId, call.role, (tx) =>
      addSuppression(tx, {
        organizationId: body.organizationId,
        scope: body.scope,
        value,
        reason: body.reason ?? 'manual',
        note: body.note,
        createdBy: userOf(req),
      }),
    );
    res.status(created ? 201 : 200).json(suppression);
  });

  serve('listSuppressions', async (req, res, call) => {
    const q = call.query;
    const rows = await withRole(db, req, q.organizationId, call.role, (tx) => listSuppressions(tx, q));
    res.json(rows);
  });

  serve('removeSuppression', async (req, res, call) => {
    const id = pathId(req, 'suppressionId', 'suppression');
    const removed = await withRecordRole(db, req, { what: 'suppression', load: (tx) => getSuppression(tx, id) }, call.role, async (tx, s) => {
      if (isErasureScope(s.scope)) throw validationFailed([{ path: 'suppressionId', message: 'an erasure suppression cannot be removed' }]);
      return removeSuppression(tx, id, userOf(req));
    });
    res.json(removed);
  });

  serve('getComplianceSettings', async (req, res, call) => {
    const q = call.query;
    const settings = await withRole(db, req, q.organizationId, call.role, (tx) => complianceSettings(tx, q.organizationId));
    if (!settings) throw notFound('compliance settings');
    res.json(settings);
  });

  serve('updateComplianceSettings', async (req, res, call) => {
    const body = call.body;
    const settings = await withRole(db, req, body.organizationId, call.role, (tx) =>
      changeComplianceSettings(tx, body.organizationId, userOf(req), {
        default_country: body.defaultCountry,
        default_locale: body.defaultLocale,
        default_formality: body.defaultFormality,
        retention_months: body.retentionMonths,
        ai_disclosure: body.aiDisclosure,
        sender_legal_name: body.senderLegalName,
        sender_address: body.senderAddress,
        privacy_url: body.privacyUrl,
        unsubscribe_mailto: body.unsubscribeMailto,
        feedback_loop_senders: body.feedbackLoopSenders,
      }),
    );
    if (!settings) throw notFound('compliance settings');
    res.json(settings);
  });

  serve('listComplianceAudit', async (req, res, call) => {
    const q = call.query;
    const rows = await withRole(db, req, q.organizationId, call.role, (tx) => listAudit(tx, q));
    res.json(rows);
  });

  /** The channel policy table itself (public rules, no tenant data), optionally for one country and recipient kind. */
  serve('getChannelPolicy', (req, res, call) => {
    const q = call.query;
    const country = q.country ? policyCountry(q.country) : undefined;
    const rules = CHANNEL_POLICY.filter(
      (p) => (!country || p.country === country) && (!q.recipientKind || p.recipientKind === q.recipientKind || p.recipientKind === 'any'),
    );
    // Responses are snake_case; the domain table keeps its TypeScript names.
    res.json({ version: CHANNEL_POLICY_VERSION, rules: rules.map(({ recipientKind, ...rest }) => ({ ...rest, recipient_kind: recipientKind })) });
  });

  return r;
}
