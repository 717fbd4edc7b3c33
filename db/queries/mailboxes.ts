import { sql } from 'kysely';
import type { Reader, Tx } from '../tenancy';

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
}

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
      'mailboxes.created_at',
      'mailboxes.updated_at',
    ]);
}

type MailboxRow = Awaited<ReturnType<ReturnType<typeof selectMailboxes>['executeTakeFirstOrThrow']>>;

function server(v: unknown): ServerConfig {
  const c = (v ?? {}) as Partial<ServerConfig>;
  return { host: c.host ?? '', port: c.port ?? 0, secure: c.secure ?? false, username: c.username ?? null };
}

/** A row as the Mailbox record of the API. */
export function toMailbox(row: MailboxRow) {
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
  return rows.map(toMailbox);
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
  };
}

export async function insertMailbox(
  tx: Tx,
  m: { id: string; organizationId: string; address: string; domain: string; secret: Buffer } & MailboxValues,
): Promise<Mailbox> {
  await tx
    .insertInto('mailboxes')
    .values({ ...columns(m), id: m.id, organization_id: m.organizationId, address: m.address, domain: m.domain, holiday_country: m.holidayCountry, secret_ciphertext: m.secret })
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
