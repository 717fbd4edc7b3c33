import { z } from 'zod';
import { minutesOf } from '../../../domain/sending/business-days';
import { isIP } from 'node:net';
import { checkEmail } from '../../../domain/companies/identity';
import { ianaTimezone, optionalText } from '../../../domain/companies/fields';
import { isHolidayCountry } from '../../../domain/sending/holidays';
import { emptyBody, id, listBase, nullable, record, stamps, timestamp, uuid, type Agrees, type Operation, type Row } from '../contract';
import type { getMailbox } from '../../../db/queries/mailboxes';
import type { HealthResult } from '../../../domain/deliverability/score';

/**
 * The HTTP contract of apps/api/routes/mailboxes.ts: sending mailboxes: server, window, days, holidays
 * and limits. Its request schemas, the records it answers (registered with `record`) and its
 * operations, which apps/api/openapi.ts assembles into the OpenAPI document.
 */

/** "HH:MM", 00:00 to 24:00 (24:00 only as a window's end). */
const timeOfDay = z.string().refine((v) => minutesOf(v) !== null, 'must be a time of day as HH:MM (00:00 to 24:00)');

const host = z
  .string()
  .trim()
  .min(1)
  .max(253)
  .refine(
    (v) => isIP(v) !== 0 || /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/.test(v),
    'must be a host name or an IP address',
  );

const mailServer = z
  .object({
    host,
    port: z.number().int().min(1, 'must be a port 1..65535').max(65535, 'must be a port 1..65535'),
    secure: z.boolean().optional(),
    username: z.string().trim().min(1).max(320).optional(),
  })
  .strict();

/** A sending address: valid (checkEmail), ASCII only; an internationalized domain (IDN, also as xn--) is refused. */
export const mailboxAddress = z
  .string()
  .trim()
  .max(254)
  .superRefine((v, ctx) => {
    // eslint-disable-next-line no-control-regex
    if (/[^\x00-\x7f]/.test(v) || /(^|[@.])xn--/i.test(v)) {
      ctx.addIssue({ code: 'custom', message: 'internationalized (IDN) addresses and domains are not supported: use an ASCII address' });
      return;
    }
    const r = checkEmail(v);
    if (!r.ok) ctx.addIssue({ code: 'custom', message: r.reason });
  });

const timezone = ianaTimezone;

const sendingWindow = z
  .object({ start: timeOfDay, end: timeOfDay })
  .strict()
  .superRefine((w, ctx) => {
    const start = minutesOf(w.start);
    const end = minutesOf(w.end);
    if (start === null || end === null) return;
    if (start >= 24 * 60) ctx.addIssue({ code: 'custom', path: ['start'], message: 'the window cannot start at 24:00' });
    else if (end <= start) ctx.addIssue({ code: 'custom', path: ['end'], message: 'the window must end after it starts' });
  });

const sendingDays = z
  .array(z.number().int().min(1, 'must be an ISO weekday 1 (Monday) to 7 (Sunday)').max(7, 'must be an ISO weekday 1 (Monday) to 7 (Sunday)'))
  .min(1, 'must name at least one day')
  .max(7)
  .refine((days) => new Set(days).size === days.length, 'must not name a day twice');

const holidayCountry = z.string().refine(isHolidayCountry, 'is not a country with known public holidays (ISO 3166-1 alpha-2, such as NL)');

const holidayRegion = z.string().regex(/^[A-Za-z0-9]{1,10}$/, 'must be a region code such as BY or CA');

const mailboxSettings = {
  smtp: mailServer,
  imap: mailServer.optional(),
  secret: z.string().min(1).max(4096),
  timezone: timezone.optional(),
  sendingWindow: sendingWindow.optional(),
  sendingDays: sendingDays.optional(),
  holidayCountry: holidayCountry.optional(),
  dailyCap: z.number().int().min(1, 'must be between 1 and 500').max(500, 'must be between 1 and 500').optional(),
  minGapSeconds: z.number().int().min(0, 'must be between 0 and 3600').max(3600, 'must be between 0 and 3600').optional(),
  // Sending at scale: ramp-up (null removes it), protection limits, gap jitter.
  rampUp: z
    .object({
      startCap: z.number().int().min(1, 'must be between 1 and 500').max(500, 'must be between 1 and 500'),
      dailyIncrease: z.number().int().min(0, 'must be between 0 and 100').max(100, 'must be between 0 and 100'),
      startsOn: z.iso.date('must be a date (YYYY-MM-DD)').optional(),
    })
    .strict()
    .nullable()
    .optional(),
  protection: z
    .object({
      maxBounceRate: z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1').optional(),
      maxComplaintRate: z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1').optional(),
      maxBlockRate: z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1').optional(),
      minSample: z.number().int().min(1, 'must be between 1 and 100000').max(100000, 'must be between 1 and 100000').optional(),
    })
    .strict()
    .optional(),
  gapJitterSeconds: z.number().int().min(0, 'must be between 0 and 900').max(900, 'must be between 0 and 900').optional(),
};

export const mailboxAuth = z.discriminatedUnion('type', [
  z.object({ type: z.literal('password') }).strict(),
  z.object({ type: z.literal('oauth2'), provider: z.enum(['google', 'microsoft']) }).strict(),
]);

/** POST /mailboxes/{id}/pause. */
export const pauseMailboxBody = z.object({ reason: z.string().trim().min(1).max(500).optional() }).strict();

const dkimSelector = z.string().regex(/^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,62})$/, 'must be a DKIM selector (letters, digits, dots, dashes)');

export const createMailboxBody = z
  .object({
    organizationId: uuid,
    address: mailboxAddress,
    displayName: optionalText(200),
    ...mailboxSettings,
    smtp: mailServer.optional(),
    auth: mailboxAuth.optional(),
    holidayRegion: holidayRegion.optional(),
    dkimSelector: dkimSelector.optional(),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (!b.smtp && b.auth?.type !== 'oauth2') ctx.addIssue({ code: 'custom', path: ['smtp'], message: 'is required for a password mailbox' });
  });

/** Any field of POST but organizationId and address; null clears an optional one. */
export const patchMailboxBody = z
  .object({
    displayName: z.string().trim().min(1).max(200).nullable().optional(),
    ...mailboxSettings,
    smtp: mailServer.optional(),
    imap: mailServer.nullable().optional(),
    secret: mailboxSettings.secret.optional(),
    holidayRegion: holidayRegion.nullable().optional(),
    dkimSelector: dkimSelector.nullable().optional(),
  })
  .strict();

export const listMailboxesQuery = z.object(listBase).strict();

/** Sending at scale: status and pauses, protection, ramp-up, jitter, auth, seven-day stats. */
const mailboxScaleFields = {
  status: z.enum(['active', 'paused']).describe('A paused mailbox sends nothing, not even what is booked'),
  paused_reason: nullable(z.enum(['bounce_rate', 'complaint_rate', 'block_rate', 'health', 'auth', 'manual'])),
  paused_at: nullable(timestamp),
  protection: z
    .object({ maxBounceRate: z.number(), maxComplaintRate: z.number(), maxBlockRate: z.number(), minSample: z.number().int() })
    .describe('Pause limits over the last 7 days'),
  ramp_up: nullable(z.object({ startCap: z.number().int(), dailyIncrease: z.number().int(), startsOn: z.string() })),
  cap_today: z.number().int().describe("The cap in force today in the mailbox's zone: min(daily_cap, startCap + dailyIncrease × sending days since startsOn)"),
  gap_jitter_seconds: z.number().int().describe('A random extra wait (0..this) on top of min_gap_seconds'),
  auth: z.object({ type: z.enum(['password', 'oauth2']), provider: nullable(z.enum(['google', 'microsoft'])) }).describe('How it logs in; never a token'),
  stats_7d: z.object({
    sent: z.number().int(),
    hard_bounces: z.number().int(),
    complaints: z.number().int(),
    bounce_rate: z.number(),
    complaint_rate: z.number(),
    blocks: z.number().int().describe('Soft bounces that refused the sender (blocked, spam, policy, auth_failure)'),
    block_rate: z.number(),
  }),
};

/** The SMTP/IMAP server as answered: never its secret. */
const answeredMailServer = z.object({ host: z.string(), port: z.number().int(), secure: z.boolean(), username: nullable(z.string()) });

export const Mailbox = record(
  'Mailbox',
  'A sending mailbox: its SMTP (and IMAP) server, sending calendar and limits; the secret is write-only and never answered',
  z.object({
    id,
    organization_id: id,
    address: z.string(),
    domain: z.string().describe('The domain of the address'),
    display_name: nullable(z.string()),
    smtp: answeredMailServer,
    imap: nullable(answeredMailServer),
    timezone: z.string().describe('IANA time zone of the window and the sending days'),
    sending_window: z.object({ start: z.string(), end: z.string() }).describe('Local HH:MM; end may be 24:00'),
    sending_days: z.array(z.number().int()).describe('ISO weekdays, Monday 1'),
    holiday_country: z.string(),
    holiday_region: nullable(z.string()),
    daily_cap: z.number().int(),
    min_gap_seconds: z.number().int(),
    dkim_selector: nullable(z.string()),
    sent_today: z.number().int().describe('Messages of this mailbox sent (sent_at) since the start of its local day'),
    health: nullable(z.object({ score: z.number(), sendable: z.boolean(), checked_at: timestamp })).describe(
      'The newest health check, or null before the first',
    ),
    last_error: nullable(z.string()).describe('Why its inbox could not be read last time (wrong IMAP credentials, server unreachable), null when it could'),
    ...mailboxScaleFields,
    ...stamps,
  }),
);

const healthCheck = z
  .object({
    status: z.enum(['pass', 'warn', 'fail']),
    record: z.string().describe('The DNS record read; empty when there is none'),
    detail: z.string().describe('Why this status'),
  })
  .describe('One deliverability check');

export const MailboxHealth = record(
  'MailboxHealth',
  'The deliverability of a mailbox\'s domain (docs/features/deliverability.md, "How deliverability is scored"): SPF, DKIM, DMARC and MX, a score out of 100 and whether it may send',
  z.object({
    domain: z.string(),
    spf: healthCheck,
    dkim: healthCheck,
    dmarc: healthCheck,
    mx: healthCheck,
    score: z.number().min(0).max(100),
    sendable: z.boolean().describe('False: the mailbox sends nothing, its approved messages wait, until a check passes'),
  }),
);

/** Fails to compile, naming the fields, when a query's column list and its response schema drift apart. */
export const ROWS_MATCH: {
  Mailbox: Agrees<Row<typeof getMailbox>, typeof Mailbox>;
  MailboxHealth: Agrees<HealthResult, typeof MailboxHealth>;
} = { Mailbox: true, MailboxHealth: true };

export const operations = [
  {
    id: 'createMailbox',
    mcp: 'hidden',
    method: 'post',
    path: '/mailboxes',
    tag: 'Mailboxes',
    summary: 'Add a mailbox (secret write-only; 409 when the address exists in the organization; 503 without INTEGRATION_SECRET_KEY)',
    role: 'member',
    body: createMailboxBody,
    status: 201,
    answer: Mailbox,
    problems: [409, 503],
  },
  {
    id: 'listMailboxes',
    method: 'get',
    path: '/mailboxes',
    tag: 'Mailboxes',
    summary: 'List mailboxes',
    role: 'viewer',
    query: listMailboxesQuery,
    answer: z.array(Mailbox),
  },
  { id: 'getMailbox', method: 'get', path: '/mailboxes/{mailboxId}', tag: 'Mailboxes', summary: 'One mailbox', role: 'viewer', answer: Mailbox },
  {
    id: 'checkMailboxHealth',
    method: 'post',
    path: '/mailboxes/{mailboxId}/health',
    tag: 'Mailboxes',
    summary: "Check the deliverability of the mailbox's domain now (SPF, DKIM, DMARC, MX) and store it as its health; 400 for an IDN or invalid domain",
    role: 'member',
    body: emptyBody,
    answer: MailboxHealth,
  },
  {
    id: 'pauseMailbox',
    method: 'post',
    path: '/mailboxes/{mailboxId}/pause',
    tag: 'Mailboxes',
    summary: 'Pause the mailbox by hand (paused_reason manual): it sends nothing, not even what is booked',
    role: 'member',
    body: pauseMailboxBody,
    answer: Mailbox,
  },
  {
    id: 'resumeMailbox',
    mcp: 'hidden',
    method: 'post',
    path: '/mailboxes/{mailboxId}/resume',
    tag: 'Mailboxes',
    summary: 'Resume a paused mailbox: its held e-mails go out again (409 unless paused)',
    role: 'member',
    body: emptyBody,
    answer: Mailbox,
    problems: [409],
  },
  {
    id: 'updateMailbox',
    mcp: 'hidden',
    method: 'patch',
    path: '/mailboxes/{mailboxId}',
    tag: 'Mailboxes',
    summary: 'Change a mailbox (any field but organizationId and address; 503 for a secret without INTEGRATION_SECRET_KEY)',
    role: 'member',
    body: patchMailboxBody,
    answer: Mailbox,
    problems: [503],
  },
] as const satisfies readonly Operation[];
