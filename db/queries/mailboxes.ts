import { sql } from 'kysely';
import type { Reader, Tx } from '../tenancy';
import { localDay } from '../../domain/sending/business-days';
import { publicHolidays } from '../../domain/sending/holidays';
import { MailboxStatus, PausedReason, Protection, sevenDayStats } from '../../domain/sending/protection';
import { capOn, RampUp } from '../../domain/sending/ramp-up';
import { sevenDayCountsSql } from './mailbox-stats';

/**
 * Mailboxes: the sending identity of an organization, its SMTP (and IMAP) server, its sending
 * calendar and limits. The secret (the SMTP/IMAP password) is sealed by the caller (SecretBox,
 * mailboxSecretContext) and never read back here but by mailboxSecret, for the sending activity.
 */
export interface ServerConfig {
  host: string;
  port: number;
  secure: boolean;
  username: string | null;
}

/** What POST /mailboxes stores (defaults already applied) and PATCH changes (any subset but the address). */
export interface MailboxValues {
  displayName: string | null;
  smtp: ServerConfig;
  imap: ServerConfig | null;
  timezone: string;
  sendingWindow: { start: string; end: string };
  sendingDays: number[];
  holidayCountry: string;
  holidayRegion: string | null;
  dailyCap: number;
  minGapSeconds: number;
  dkimSelector: string | null;
  /** Sending at scale (migration 0020): the ramp (null: none), the protection limits, the random extra gap. */
  rampUp?: RampUp | null;
  protection?: Protection;
  gapJitterSeconds?: number;
}

export const mailboxAuthTypes = ['password', 'oauth2'] as const;
export const oauthProviders = ['google', 'microsoft'] as const;
export type OAuthProvider = (typeof oauthProviders)[number];
export type MailboxAuth = { type: 'password'; provider: null } | { type: 'oauth2'; provider: OAuthProvider };

/** The mailbox as the API answers it (health: its newest check; sent_today: sent in its local day). */
export function selectMailboxes(qb: Reader | Tx) {
  return qb
    .selectFrom('mailboxes')
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('mailbox_health_checks as h')
          .select(['h.score', 'h.sendable', 'h.created_at'])
          .whereRef('h.organization_id', '=', 'mailboxes.organization_id')
          .whereRef('h.mailbox_id', '=', 'mailboxes.id')
          .orderBy('h.created_at', 'desc')
          .limit(1)
          .as('h'),
      (join) => join.onTrue(),
    )
    .select([
      'mailboxes.id',
      'mailboxes.organization_id',
      'mailboxes.address',
      'mailboxes.domain',
      'mailboxes.display_name',
      'mailboxes.smtp_config',
      'mailboxes.imap_config',
      'mailboxes.timezone',
      sql<string>`to_char(mailboxes.window_start, 'HH24:MI')`.as('window_start'),
      sql<string>`to_char(mailboxes.window_end, 'HH24:MI')`.as('window_end'),
      'mailboxes.sending_days',
      'mailboxes.holiday_country',
      'mailboxes.holiday_region',
      'mailboxes.daily_cap',
      'mailboxes.min_gap_seconds',
      'mailboxes.dkim_selector',
      // Messages of this mailbox sent since the start of its local day (its time zone, DST included).
      sql<number>`(SELECT count(*)::int FROM messages x
         WHERE x.organization_id = mailboxes.organization_id AND x.mailbox_id = mailboxes.id
           AND x.sent_at >= (date_trunc('day', now() AT TIME ZONE mailboxes.timezone) AT TIME ZONE mailboxes.timezone)
           AND x.sent_at < ((date_trunc('day', now() AT TIME ZONE mailboxes.timezone) + interval '1 day') AT TIME ZONE mailboxes.timezone))`.as('sent_today'),
      'h.score as health_score',
      'h.sendable as health_sendable',
      'h.created_at as health_checked_at',
      'mailboxes.last_error',
      'mailboxes.status',
      'mailboxes.paused_reason',
      'mailboxes.paused_at',
      'mailboxes.max_bounce_rate',
      'mailboxes.max_complaint_rate',
      'mailboxes.max_block_rate',
      'mailboxes.min_sample',
      'mailboxes.ramp_start_cap',
      'mailboxes.ramp_daily_increase',
      sql<string | null>`to_char(mailboxes.ramp_starts_on, 'YYYY-MM-DD')`.as('ramp_starts_on'),
      'mailboxes.gap_jitter_seconds',
      'mailboxes.auth_type',
      'mailboxes.auth_provider',
      sevenDayCountsSql({ org: 'mailboxes.organization_id', id: 'mailboxes.id' }).sent.as('sent_7d'),
      sevenDayCountsSql({ org: 'mailboxes.organization_id', id: 'mailboxes.id' }).hardBounces.as('hard_bounces_7d'),
      sevenDayCountsSql({ org: 'mailboxes.organization_id', id: 'mailboxes.id' }).complaints.as('complaints_7d'),
      sevenDayCountsSql({ org: 'mailboxes.organization_id', id: 'mailboxes.id' }).blocks.as('blocks_7d'),
      'mailboxes.created_at',
      'mailboxes.updated_at',
    ]);
}

type MailboxRow = Awaited<ReturnType<ReturnType<typeof selectMailboxes>['executeTakeFirstOrThrow']>>;

function server(v: unknown): ServerConfig {
  const c = (v ?? {}) as Partial<ServerConfig>;
  return { host: c.host ?? '', port: c.port ?? 0, secure: c.secure ?? false, username: c.username ?? null };
}

/** The ramp of a row, or null. */
export function rampOf(row: { ramp_start_cap: number | null; ramp_daily_increase: number | null; ramp_starts_on: string | null }): RampUp | null {
  return row.ramp_start_cap === null || row.ramp_daily_increase === null || row.ramp_starts_on === null
    ? null
    : { startCap: row.ramp_start_cap, dailyIncrease: row.ramp_daily_increase, startsOn: row.ramp_starts_on };
}

/** The cap in force on the mailbox's local day of `now` (ramp-up applied, its sending days and holidays counted). */
export function capToday(
  m: {
    timezone: string;
    sending_days: number[];
    holiday_country: string;
    holiday_region: string | null;
    daily_cap: number;
    window_start: string;
    window_end: string;
  },
  ramp: RampUp | null,
  now: Date,
): number {
  const today = localDay(now, m.timezone);
  if (!ramp) return m.daily_cap;
  const from = Math.max(Number(ramp.startsOn.slice(0, 4)), Number(today.slice(0, 4)) - 3);
  const to = Number(today.slice(0, 4));
  const holidays = from <= to ? publicHolidays(m.holiday_country, m.holiday_region, { from, to }) : new Set<string>();
  return capOn(today, m.daily_cap, ramp, { timezone: m.timezone, window: { start: m.window_start, end: m.window_end }, sendingDays: m.sending_days, holidays });
}

/** A row as the Mailbox record of the API. */
export function toMailbox(row: MailboxRow, now = new Date()) {
  const ramp = rampOf(row);
  return {
    id: row.id,
    organization_id: row.organization_id,
    address: row.address,
    domain: row.domain,
    display_name: row.display_name,
    smtp: server(row.smtp_config),
    imap: row.imap_config ? server(row.imap_config) : null,
    timezone: row.timezone,
    sending_window: { start: row.window_start, end: row.window_end },
    sending_days: row.sending_days,
    holiday_country: row.holiday_country,
    holiday_region: row.holiday_region,
    daily_cap: row.daily_cap,
    min_gap_seconds: row.min_gap_seconds,
    dkim_selector: row.dkim_selector,
    sent_today: row.sent_today,
    health:
      row.health_checked_at === null
        ? null
        : { score: Number(row.health_score), sendable: Boolean(row.health_sendable), checked_at: row.health_checked_at as Date },
    last_error: row.last_error,
    status: row.status as MailboxStatus,
    paused_reason: row.paused_reason as PausedReason | null,
    paused_at: row.paused_at,
    protection: {
      maxBounceRate: Number(row.max_bounce_rate),
      maxComplaintRate: Number(row.max_complaint_rate),
      maxBlockRate: Number(row.max_block_rate),
      minSample: row.min_sample,
    },
    ramp_up: ramp,
    cap_today: capToday(row, ramp, now),
    gap_jitter_seconds: row.gap_jitter_seconds,
    auth: { type: row.auth_type, provider: row.auth_provider } as MailboxAuth,
    stats_7d: sevenDayStats({ sent: row.sent_7d, hardBounces: row.hard_bounces_7d, complaints: row.complaints_7d, blocks: row.blocks_7d }),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
export type Mailbox = ReturnType<typeof toMailbox>;

export async function getMailbox(tx: Tx, id: string): Promise<Mailbox | undefined> {
  const row = await selectMailboxes(tx).where('mailboxes.id', '=', id).executeTakeFirst();
  return row && toMailbox(row);
}

export async function listMailboxes(tx: Tx, f: { organizationId: string; limit: number; before?: string }): Promise<Mailbox[]> {
  // newestFirst's keyset (pagination.ts), written out: its helper does not take the lateral join's row type.
  let q = selectMailboxes(tx).where('mailboxes.organization_id', '=', f.organizationId);
  if (f.before) q = q.where(sql<boolean>`(mailboxes.created_at, mailboxes.id) < (SELECT b.created_at, b.id FROM mailboxes b WHERE b.id = ${f.before})`);
  const rows = await q.orderBy('mailboxes.created_at', 'desc').orderBy('mailboxes.id', 'desc').limit(f.limit).execute();
  return rows.map((row) => toMailbox(row));
}

/** The mailbox of this address in the organization, if any (addresses are unique per organization). */
export function mailboxByAddress(tx: Tx, organizationId: string, address: string) {
  return tx.selectFrom('mailboxes').select(['id']).where('organization_id', '=', organizationId).where('address', '=', address).executeTakeFirst();
}

function columns(v: Partial<MailboxValues>) {
  return {
    ...(v.displayName !== undefined && { display_name: v.displayName }),
    ...(v.smtp !== undefined && { smtp_config: JSON.stringify(v.smtp) }),
    ...(v.imap !== undefined && { imap_config: v.imap === null ? null : JSON.stringify(v.imap) }),
    ...(v.timezone !== undefined && { timezone: v.timezone }),
    ...(v.sendingWindow !== undefined && { window_start: v.sendingWindow.start, window_end: v.sendingWindow.end }),
    ...(v.sendingDays !== undefined && { sending_days: v.sendingDays }),
    ...(v.holidayCountry !== undefined && { holiday_country: v.holidayCountry }),
    ...(v.holidayRegion !== undefined && { holiday_region: v.holidayRegion }),
    ...(v.dailyCap !== undefined && { daily_cap: v.dailyCap }),
    ...(v.minGapSeconds !== undefined && { min_gap_seconds: v.minGapSeconds }),
    ...(v.dkimSelector !== undefined && { dkim_selector: v.dkimSelector }),
    ...(v.rampUp !== undefined && {
      ramp_start_cap: v.rampUp?.startCap ?? null,
      ramp_daily_increase: v.rampUp?.dailyIncrease ?? null,
      ramp_starts_on: v.rampUp?.startsOn ?? null,
    }),
    ...(v.protection !== undefined && {
      max_bounce_rate: v.protection.maxBounceRate,
      max_complaint_rate: v.protection.maxComplaintRate,
      max_block_rate: v.protection.maxBlockRate,
      min_sample: v.protection.minSample,
    }),
    ...(v.gapJitterSeconds !== undefined && { gap_jitter_seconds: v.gapJitterSeconds }),
  };
}

export async function insertMailbox(
  tx: Tx,
  m: { id: string; organizationId: string; address: string; domain: string; secret: Buffer; auth?: MailboxAuth } & MailboxValues,
): Promise<Mailbox> {
  await tx
    .insertInto('mailboxes')
    .values({
      ...columns(m),
      id: m.id,
      organization_id: m.organizationId,
      address: m.address,
      domain: m.domain,
      holiday_country: m.holidayCountry,
      secret_ciphertext: m.secret,
      ...(m.auth && { auth_type: m.auth.type, auth_provider: m.auth.provider }),
    })
    .execute();
  return (await getMailbox(tx, m.id))!;
}

export async function updateMailbox(tx: Tx, id: string, patch: Partial<MailboxValues> & { secret?: Buffer }): Promise<Mailbox | undefined> {
  await tx
    .updateTable('mailboxes')
    .set({
      ...columns(patch),
      ...(patch.secret && { secret_ciphertext: patch.secret }),
      // New SMTP settings or a new secret end a hold a setup error put on the mailbox's sends (db/queries/sending.ts holdSend).
      ...((patch.secret || patch.smtp) && { send_hold_reason: null }),
      updated_at: sql`now()`,
    })
    .where('id', '=', id)
    .execute();
  return getMailbox(tx, id);
}

/** The sealed secret, for the sending activity only (open it with SecretBox and mailboxSecretContext). */
export function mailboxSecret(tx: Tx, id: string) {
  return tx.selectFrom('mailboxes').select(['id', 'organization_id', 'secret_ciphertext']).where('id', '=', id).executeTakeFirst();
}

/** The organization's default country (compliance settings), the mailbox's default holiday country. */
export async function defaultHolidayCountry(tx: Tx, organizationId: string): Promise<string> {
  const row = await tx.selectFrom('compliance_settings').select('default_country').where('organization_id', '=', organizationId).executeTakeFirst();
  return row?.default_country ?? 'NL';
}
