import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { z } from 'zod';
import { defaultHolidayCountry, getMailbox, insertMailbox, listMailboxes, mailboxByAddress, MailboxValues, ServerConfig, updateMailbox } from '../../../db/queries/mailboxes';
import { holidayRegions, isHolidayRegion } from '../../../domain/sending/holidays';
import { checkEmail } from '../../../domain/companies/identity';
import { mailboxSecretContext } from '../../../db/secrets';
import { recordHealthCheck } from '../../../db/queries/mailbox-health';
import { mailDomainProblem } from '../../../domain/deliverability/mail-domain';
import { checkDomainHealth } from '../../../activities/providers/dns/health-facts';
import { dnsResolverFrom } from '../../../activities/providers/dns/resolver';
import { withRecordRole, withRole, WRITE } from '../access';
import { conflict, ProblemError, validationFailed } from '../errors';
import type { ApiDeps } from '../app';
import type { Tx } from '../../../db/tenancy';
import { createMailboxBody, emptyBody, listMailboxesQuery, patchMailboxBody } from '../schemas';
import { parseBody, parseQuery, pathId } from '../validate';

/** Contract defaults (shared/api-contract.md, Mailboxes); the holiday country defaults to the organization's default country. */
const DEFAULTS = { timezone: 'Europe/Amsterdam', sendingWindow: { start: '09:00', end: '17:00' }, sendingDays: [1, 2, 3, 4, 5], dailyCap: 30, minGapSeconds: 120 };

type ServerInput = z.infer<typeof createMailboxBody>['smtp'];
/** secure defaults to implicit TLS on the protocol's TLS port (SMTP 465, IMAP 993). */
/** The fields of a mail server that decide where its password is sent, and differ. */
function serverChanges(before: ServerConfig | null, after: ServerConfig): string[] {
  if (!before) return ['host'];
  return (['host', 'port', 'secure', 'username'] as const).filter((f) => (f === 'host' ? before.host.toLowerCase() !== after.host.toLowerCase() : before[f] !== after[f]));
}
const server = (s: ServerInput, tlsPort: number): ServerConfig => ({ host: s.host, port: s.port, secure: s.secure ?? s.port === tlsPort, username: s.username ?? null });

function requireRegionOf(country: string, region: string | null | undefined): void {
  if (region && !isHolidayRegion(country, region)) {
    const known = Object.keys(holidayRegions(country));
    throw validationFailed([
      { path: 'body.holidayRegion', message: known.length ? `is not a region of ${country} (one of ${known.join(', ')})` : `${country} has no holiday regions` },
    ]);
  }
}

/**
 * Mailboxes: members and above add and change them (a sales rep connects their own mailbox, as in
 * Outreach or lemlist), any member reads them. The secret (SMTP/IMAP password) is write-only, sealed
 * with AES-256-GCM bound to the row, never answered or logged.
 */
export function mailboxRoutes({ db, secrets, workflows, dns }: ApiDeps): Router {
  const r = Router();
  const resolver = dns ?? dnsResolverFrom({});
  const mailboxOf = (id: string) => ({ what: 'mailbox', load: (tx: Tx) => getMailbox(tx, id) });
  const box = () => {
    if (!secrets) throw new ProblemError('SERVICE_UNAVAILABLE', 'Mailboxes are not available: INTEGRATION_SECRET_KEY is not configured');
    return secrets;
  };

  r.post('/mailboxes', async (req, res) => {
    const body = parseBody(createMailboxBody, req);
    const sealer = box();
    const address = (checkEmail(body.address) as { email: string }).email;
    const id = randomUUID();
    const mailbox = await withRole(db, req, body.organizationId, WRITE, async (tx) => {
      const holidayCountry = body.holidayCountry ?? (await defaultHolidayCountry(tx, body.organizationId));
      requireRegionOf(holidayCountry, body.holidayRegion);
      const existing = await mailboxByAddress(tx, body.organizationId, address);
      if (existing) throw conflict('The organization already has a mailbox with this address', { mailbox_id: existing.id });
      const created = await insertMailbox(tx, {
        id,
        organizationId: body.organizationId,
        address,
        domain: address.split('@')[1]!,
        secret: sealer.seal(body.secret, mailboxSecretContext(body.organizationId, id)),
        displayName: body.displayName ?? null,
        smtp: server(body.smtp, 465),
        imap: body.imap ? server(body.imap, 993) : null,
        timezone: body.timezone ?? DEFAULTS.timezone,
        sendingWindow: body.sendingWindow ?? DEFAULTS.sendingWindow,
        sendingDays: body.sendingDays ?? DEFAULTS.sendingDays,
        holidayCountry,
        holidayRegion: body.holidayRegion ?? null,
        dailyCap: body.dailyCap ?? DEFAULTS.dailyCap,
        minGapSeconds: body.minGapSeconds ?? DEFAULTS.minGapSeconds,
        dkimSelector: body.dkimSelector ?? null,
      });
      // The daily deliverability re-check (mailbox/<id>/health); its first check is POST .../health or the first send.
      await workflows.ensureMailboxHealthSchedule(body.organizationId, id);
      return created;
    });
    await workflows.syncMailboxInboxSchedule(mailbox);
    res.status(201).json(mailbox);
  });

  r.get('/mailboxes', async (req, res) => {
    const q = parseQuery(listMailboxesQuery, req);
    res.json(await withRole(db, req, q.organizationId, 'viewer', (tx) => listMailboxes(tx, q)));
  });

  r.get('/mailboxes/:mailboxId', async (req, res) => {
    const id = pathId(req, 'mailboxId', 'mailbox');
    res.json(await withRecordRole(db, req, { what: 'mailbox', load: (tx) => getMailbox(tx, id) }, 'viewer', async (_tx, found) => found));
  });

  r.patch('/mailboxes/:mailboxId', async (req, res) => {
    const id = pathId(req, 'mailboxId', 'mailbox');
    const body = parseBody(patchMailboxBody, req);
    const sealer = body.secret !== undefined ? box() : undefined;
    const mailbox = await withRecordRole(db, req, { what: 'mailbox', load: (tx) => getMailbox(tx, id) }, WRITE, async (tx, existing) => {
      // A region must belong to the country the mailbox will have.
      const country = body.holidayCountry ?? existing.holiday_country;
      const region = body.holidayRegion !== undefined ? body.holidayRegion : existing.holiday_region;
      if (body.holidayCountry !== undefined && body.holidayRegion === undefined && region && !isHolidayRegion(country, region)) {
        throw validationFailed([{ path: 'body.holidayRegion', message: `the mailbox's region ${region} is not a region of ${country}: give holidayRegion (or null) with the new country` }]);
      }
      requireRegionOf(country, body.holidayRegion);
      // Where the stored password goes (host, port, username, TLS) changes only with the password given
      // again: otherwise a member could point the mailbox at their own server and collect it.
      if (body.secret === undefined) {
        const moved = [
          ...(body.smtp ? serverChanges(existing.smtp, server(body.smtp, 465)).map((f) => `smtp.${f}`) : []),
          ...(body.imap ? serverChanges(existing.imap, server(body.imap, 993)).map((f) => `imap.${f}`) : []),
        ];
        if (moved.length) {
          throw validationFailed([{ path: 'body.secret', message: `changing ${moved.join(', ')} requires the mailbox's secret again` }]);
        }
      }
      const patch: Partial<MailboxValues> & { secret?: Buffer } = {
        displayName: body.displayName,
        smtp: body.smtp && server(body.smtp, 465),
        imap: body.imap === null ? null : body.imap && server(body.imap, 993),
        timezone: body.timezone,
        sendingWindow: body.sendingWindow,
        sendingDays: body.sendingDays,
        holidayCountry: body.holidayCountry,
        holidayRegion: body.holidayRegion,
        dailyCap: body.dailyCap,
        minGapSeconds: body.minGapSeconds,
        dkimSelector: body.dkimSelector,
        secret: sealer && body.secret !== undefined ? sealer.seal(body.secret, mailboxSecretContext(existing.organization_id, id)) : undefined,
      };
      return (await updateMailbox(tx, id, patch))!;
    });
    if (body.imap !== undefined) await workflows.syncMailboxInboxSchedule(mailbox);
    res.json(mailbox);
  });

  /**
   * The deliverability check, now: SPF, DKIM, DMARC and MX of the mailbox's domain, stored as its
   * health. DNS failures are results (failed checks); a domain that cannot be looked up is a 400.
   * The lookups run outside a transaction; a passing check wakes the sequences the mailbox held.
   */
  r.post('/mailboxes/:mailboxId/health', async (req, res) => {
    const id = pathId(req, 'mailboxId', 'mailbox');
    parseBody(emptyBody, req);
    const mailbox = await withRecordRole(db, req, mailboxOf(id), WRITE, async (_tx, found) => found);
    const problem = mailDomainProblem(mailbox.domain);
    if (problem) throw validationFailed([{ path: 'mailbox.domain', message: problem }]);
    const result = await checkDomainHealth(resolver, mailbox.domain, mailbox.dkim_selector);
    const { waitingEnrollmentIds } = await withRecordRole(db, req, mailboxOf(id), WRITE, (tx) =>
      recordHealthCheck(tx, { id: randomUUID(), organizationId: mailbox.organization_id, mailboxId: id, result }),
    );
    await workflows.notifyEnrollments(waitingEnrollmentIds);
    res.json(result);
  });

  return r;
}
