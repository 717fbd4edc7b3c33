import { randomBytes, randomUUID } from 'node:crypto';
import { Router } from 'express';
import { getDomain } from 'tldts';
import {
  deleteDomain,
  domainByName,
  domainLock,
  getDomainRow,
  insertDomain,
  listDomains,
  markDomainVerified,
  toDomain,
  verificationName,
  verificationValue,
} from '../../../db/queries/domains';
import { lockFor } from '../../../db/locks';
import type { Tx } from '../../../db/tenancy';
import { mailDomainProblem } from '../../../domain/deliverability/mail-domain';
import { dnsResolverFrom, lookupFailure } from '../../../activities/providers/dns/resolver';
import { userOf, withRecordRole, withRole } from '../access';
import type { ApiDeps } from '../deps';
import { bind } from '../bind';
import { conflict, validationFailed } from '../errors';
import { pathId } from '../validate';
import { operations } from './domains.schemas';
import { domainVolume } from '../../../db/queries/bulk-volume';
import { BULK_SENDER_THRESHOLDS, organizationalDomain, utcDay } from '../../../domain/sending/bulk-senders';

/**
 * Who may connect which mailbox: an organization's owners and admins add the
 * mail domains it uses and prove each one with a DNS TXT record of a random value. The OAuth callback
 * connects a mailbox only for an address whose domain the organization verified, so a consent link
 * sent to an outsider cannot bring the outsider's mailbox in. Any member reads the list.
 */
export function domainRoutes({ db, dns }: ApiDeps): Router {
  const r = Router();
  const serve = bind(r, operations);
  const resolver = dns ?? dnsResolverFrom({});
  const loader = (id: string) => ({ what: 'domain', load: (tx: Tx) => getDomainRow(tx, id) });

  serve('createDomain', async (req, res, call) => {
    const body = call.body;
    const domain = body.domain.toLowerCase().replace(/\.$/, '');
    const problem =
      mailDomainProblem(domain) ??
      (getDomain(domain, { allowPrivateDomains: true }) === null ? `${JSON.stringify(domain)} is a public suffix, not a domain of its own` : null);
    if (problem) throw validationFailed([{ path: 'body.domain', message: problem }]);
    const created = await withRole(db, req, body.organizationId, call.role, async (tx) => {
      // Two adds of one domain at once: the second finds the first's and answers its 409.
      await lockFor(tx, domainLock(body.organizationId, domain));
      const existing = await domainByName(tx, body.organizationId, domain);
      if (existing) throw conflict('The organization already has this domain', { domain_id: existing.id });
      return insertDomain(tx, {
        id: randomUUID(),
        organizationId: body.organizationId,
        domain,
        token: randomBytes(24).toString('base64url'),
        createdBy: userOf(req),
      });
    });
    res.status(201).json(created);
  });

  serve('listDomains', async (req, res, call) => {
    const q = call.query;
    res.json(await withRole(db, req, q.organizationId, call.role, (tx) => listDomains(tx, q)));
  });

  /**
   * Looks the TXT record up now (outside any transaction) and marks the domain verified when one of
   * the records at its name is exactly its value; otherwise 409 with what was found, and nothing
   * changes. A verified domain is checked again the same way.
   */
  serve('verifyDomain', async (req, res, call) => {
    const id = pathId(req, 'domainId', 'domain');
    void call.body;
    const found = await withRecordRole(db, req, loader(id), call.role, async (_tx, d) => d);
    const name = verificationName(found.domain);
    const expected = verificationValue(found.token);
    let records: string[] = [];
    let failure: string | null = null;
    try {
      records = ((await resolver.resolve(name, 'TXT')) as string[][]).map((chunks) => chunks.join(''));
    } catch (err) {
      const { failure: kind, message } = lookupFailure(err);
      if (kind !== 'nxdomain' && kind !== 'nodata') failure = message;
    }
    if (!records.some((t) => t.trim() === expected)) {
      const what = failure ? `the lookup failed (${failure})` : records.length ? `found ${records.length} other TXT record(s)` : 'found no TXT record';
      throw conflict(`The TXT record ${expected} was not found at ${name}: ${what}`, {
        name,
        expected,
        found: records.slice(0, 20).map((t) => t.slice(0, 512)),
        lookup_error: failure,
      });
    }
    const verified = await withRecordRole(db, req, loader(id), call.role, async (tx) => markDomainVerified(tx, id));
    res.json(verified ?? toDomain(found));
  });

  /** Removes the domain: mailboxes already connected stay; no new OAuth connection for it until it is added and verified again. */
  serve('deleteDomain', async (req, res, call) => {
    const id = pathId(req, 'domainId', 'domain');
    await withRecordRole(db, req, loader(id), call.role, async (tx, d) => {
      // Waits for a connect of this domain under way (it holds the same lock while it reads the domain).
      await lockFor(tx, domainLock(d.organization_id, d.domain));
      await deleteDomain(tx, id);
    });
    res.status(204).end();
  });

  /** The bulk-sender counts of the domain's organizational domain (a subdomain's mailboxes count under it), per UTC day and provider. */
  serve('domainVolume', async (req, res, call) => {
    const id = pathId(req, 'domainId', 'domain');
    const q = call.query;
    const answer = await withRecordRole(db, req, loader(id), call.role, async (tx, d) => {
      const orgDomain = organizationalDomain(d.domain);
      const days = await domainVolume(tx, { organizationId: d.organization_id, orgDomain, today: utcDay(new Date()), days: q.days });
      return { domain_id: d.id, domain: orgDomain, days, thresholds: { ...BULK_SENDER_THRESHOLDS } };
    });
    res.json(answer);
  });

  return r;
}
