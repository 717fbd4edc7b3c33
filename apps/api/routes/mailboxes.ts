import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { z } from 'zod';
import {
  defaultHolidayCountry,
  getMailbox,
  insertMailbox,
  listMailboxes,
  mailboxByAddress,
  MailboxValues,
  ServerConfig,
  updateMailbox,
} from '../../../db/queries/mailboxes';
import { holidayRegions, isHolidayRegion } from '../../../domain/sending/holidays';
import { checkEmail } from '../../../domain/companies/identity';
import { mailboxSecretContext } from '../../../db/secrets';
import { enrollmentsWaitingOnMailbox, recordHealthCheck } from '../../../db/queries/mailbox-health';
import { mailDomainProblem } from '../../../domain/deliverability/mail-domain';
import { checkDomainHealth } from '../../../activities/providers/dns/health-facts';
import { dnsResolverFrom } from '../../../activities/providers/dns/resolver';
import { withRecordRole, withRole } from '../access';
import { conflict, ProblemError, validationFailed } from '../errors';
import type { ApiDeps } from '../deps';
import { bind } from '../bind';
import type { Tx } from '../../../db/tenancy';
import { createMailboxBody, patchMailboxBody, operations } from './mailboxes.schemas';
import { pauseMailbox, resumeMailbox } from '../../../db/queries/mailbox-protection';
import { localDay } from '../../../domain/sending/business-days';
import { DEFAULT_PROTECTION, Protection } from '../../../domain/sending/protection';
import type { RampUp } from '../../../domain/sending/ramp-up';
import { OAUTH_PROVIDER_SERVERS } from '../../../activities/providers/mail/oauth-providers';
import { pathId } from '../validate';

/** Contract defaults; the holiday country defaults to the organization's default country. */
export const MAILBOX_DEFAULTS = {
  timezone: 'Europe/Amsterdam',
  sendingWindow: { start: '09:00', end: '17:00' },
  sendingDays: [1, 2, 3, 4, 5],
  dailyCap: 30,
  minGapSeconds: 120,
};

type ServerInput = NonNullable<z.infer<typeof createMailboxBody>['smtp']>;
/** secure defaults to implicit TLS on the protocol's TLS port (SMTP 465, IMAP 993). */
/** The fields of a mail server that decide where its password is sent, and differ. */
function serverChanges(before: ServerConfig | null, after: ServerConfig): string[] {
  if (!before) return ['host'];
  return (['host', 'port', 'secure', 'username'] as const).filter((f) =>
    f === 'host' ? before.host.toLowerCase() !== after.host.toLowerCase() : before[f] !== after[f],
  );
}
const server = (s: ServerInput, tlsPort: number): ServerConfig => ({
  host: s.host,
  port: s.port,
  secure: s.secure ?? s.port === tlsPort,
  username: s.username ?? null,
});

type Body = z.infer<typeof createMailboxBody> | z.infer<typeof patchMailboxBody>;
/** The ramp as stored: startsOn defaults to the day it is set, in the mailbox's zone; null removes it. */
const rampOf = (ramp: Body['rampUp'], timezone: string): RampUp | null | undefined =>
  ramp === undefined
    ? undefined
    : ramp === null
      ? null
      : { startCap: ramp.startCap, dailyIncrease: ramp.dailyIncrease, startsOn: ramp.startsOn ?? localDay(new Date(), timezone) };
/** The protection limits as stored: the given ones over the current (or default) ones. */
const protectionOf = (p: Body['protection'], current: Protection): Protection | undefined => (p === undefined ? undefined : { ...current, ...p });

function requireRegionOf(country: string, region: string | null | undefined): void {
  if (region && !isHolidayRegion(country, region)) {
    const known = Object.keys(holidayRegions(country));
    throw validationFailed([
      {
        path: 'body.holidayRegion',
        message: known.length ? `is not a region of ${country} (one of ${known.join(', ')})` : `${country} has no holiday regions`,
      },
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
  const serve = bind(r, operations);
  const resolver = dns ?? dnsResolverFrom({});
  const mailboxOf = (id: string) => ({ what: 'mailbox', load: (tx: Tx) => getMailbox(tx, id) });
  const box = () => {
    if (!secrets) throw new ProblemError('SERVICE_UNAVAILABLE', 'Mailboxes are not available: INTEGRATION_SECRET_KEY is not configured');
    return secrets;
  };

  serve('createMailbox', async (req, res, call) => {
    const body = call.body;
    const sealer = box();
    const address = (checkEmail(body.address) as { email: string }).email;
    const id = randomUUID();
    const mailbox = await withRole(db, req, body.organizationId, call.role, async (tx) => {
      const holidayCountry = body.holidayCountry ?? (await defaultHolidayCountry(tx, body.organizationId));
      // An OAuth mailbox logs in as its address, on its provider's servers unless the body names others.
      const oauth = body.auth?.type === 'oauth2' ? OAUTH_PROVIDER_SERVERS[body.auth.provider] : null;
      const smtpInput = body.smtp ?? (oauth && { ...oauth.smtp, username: address });
      if (!smtpInput) throw validationFailed([{ path: 'body.smtp', message: 'is required for a password mailbox' }]);
      const imapInput = body.imap ?? (oauth && { ...oauth.imap, username: address });
      const timezone = body.timezone ?? MAILBOX_DEFAULTS.timezone;
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
        smtp: server(smtpInput, 465),
        imap: imapInput ? server(imapInput, 993) : null,
        timezone,
        sendingWindow: body.sendingWindow ?? MAILBOX_DEFAULTS.sendingWindow,
        sendingDays: body.sendingDays ?? MAILBOX_DEFAULTS.sendingDays,
        holidayCountry,
        holidayRegion: body.holidayRegion ?? null,
        dailyCap: body.dailyCap ?? MAILBOX_DEFAULTS.dailyCap,
        minGapSeconds: body.minGapSeconds ?? MAILBOX_DEFAULTS.minGapSeconds,
        dkimSelector: body.dkimSelector ?? null,
        rampUp: rampOf(body.rampUp, timezone) ?? null,
        protection: protectionOf(body.protection, DEFAULT_PROTECTION),
        gapJitterSeconds: body.gapJitterSeconds,
        auth: body.auth?.type === 'oauth2' ? { type: 'oauth2', provider: body.auth.provider } : { type: 'password', provider: null },
      });
      return created;
    });
    // The daily deliverability re-check (mailbox/<id>/health), once the mailbox is committed; its first
    // check is POST .../health or the first send.
    await workflows.ensureMailboxHealthSchedule(body.organizationId, id);
    await workflows.syncMailboxInboxSchedule(mailbox);
    res.status(201).json(mailbox);
  });

  serve('listMailboxes', async (req, res, call) => {
    const q = call.query;
    res.json(await withRole(db, req, q.organizationId, call.role, (tx) => listMailboxes(tx, q)));
  });

  serve('getMailbox', async (req, res, call) => {
    const id = pathId(req, 'mailboxId', 'mailbox');
    res.json(await withRecordRole(db, req, { what: 'mailbox', load: (tx) => getMailbox(tx, id) }, call.role, async (_tx, found) => found));
  });

  serve('updateMailbox', async (req, res, call) => {
    const id = pathId(req, 'mailboxId', 'mailbox');
    const body = call.body;
    const sealer = body.secret !== undefined ? box() : undefined;
    const mailbox = await withRecordRole(db, req, { what: 'mailbox', load: (tx) => getMailbox(tx, id) }, call.role, async (tx, existing) => {
      // A region must belong to the country the mailbox will have.
      const country = body.holidayCountry ?? existing.holiday_country;
      const region = body.holidayRegion !== undefined ? body.holidayRegion : existing.holiday_region;
      if (body.holidayCountry !== undefined && body.holidayRegion === undefined && region && !isHolidayRegion(country, region)) {
        throw validationFailed([
          {
            path: 'body.holidayRegion',
            message: `the mailbox's region ${region} is not a region of ${country}: give holidayRegion (or null) with the new country`,
          },
        ]);
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
        rampUp: rampOf(body.rampUp, body.timezone ?? existing.timezone),
        protection: protectionOf(body.protection, existing.protection),
        gapJitterSeconds: body.gapJitterSeconds,
        secret: sealer && body.secret !== undefined ? sealer.seal(body.secret, mailboxSecretContext(existing.organization_id, id)) : undefined,
      };
      return (await updateMailbox(tx, id, patch))!;
    });
    if (body.imap !== undefined) await workflows.syncMailboxInboxSchedule(mailbox);
    res.json(mailbox);
  });

  /** Pauses the mailbox by hand (`manual`): it sends nothing, not even what is booked. A paused mailbox stays paused with its first reason. */
  serve('pauseMailbox', async (req, res, call) => {
    const id = pathId(req, 'mailboxId', 'mailbox');
    const body = call.body;
    res.json(
      await withRecordRole(db, req, mailboxOf(id), call.role, async (tx) => {
        await pauseMailbox(tx, id, 'manual', body.reason ?? null);
        return (await getMailbox(tx, id))!;
      }),
    );
  });

  /** Resumes a paused mailbox (409 unless paused); its held e-mails go out again, and the next bounce or complaint is judged afresh. */
  serve('resumeMailbox', async (req, res, call) => {
    const id = pathId(req, 'mailboxId', 'mailbox');
    void call.body;
    const { mailbox, waiting } = await withRecordRole(db, req, mailboxOf(id), call.role, async (tx, found) => {
      if (!(await resumeMailbox(tx, id))) throw conflict(`The mailbox is ${found.status}, not paused`, { mailbox_status: found.status });
      return { mailbox: (await getMailbox(tx, id))!, waiting: await enrollmentsWaitingOnMailbox(tx, id) };
    });
    await workflows.notifyEnrollments(waiting);
    res.json(mailbox);
  });

  /**
   * The deliverability check, now: SPF, DKIM, DMARC and MX of the mailbox's domain, stored as its
   * health. DNS failures are results (failed checks); a domain that cannot be looked up is a 400.
   * The lookups run outside a transaction; a passing check wakes the sequences the mailbox held.
   */
  serve('checkMailboxHealth', async (req, res, call) => {
    const id = pathId(req, 'mailboxId', 'mailbox');
    void call.body;
    const mailbox = await withRecordRole(db, req, mailboxOf(id), call.role, async (_tx, found) => found);
    const problem = mailDomainProblem(mailbox.domain);
    if (problem) throw validationFailed([{ path: 'mailbox.domain', message: problem }]);
    const result = await checkDomainHealth(resolver, mailbox.domain, mailbox.dkim_selector);
    const { waitingEnrollmentIds } = await withRecordRole(db, req, mailboxOf(id), call.role, (tx) =>
      recordHealthCheck(tx, { id: randomUUID(), organizationId: mailbox.organization_id, mailboxId: id, result }),
    );
    await workflows.notifyEnrollments(waitingEnrollmentIds);
    res.json(result);
  });

  return r;
}
