import { sql } from 'kysely';
import type { Tx } from '../tenancy';
import { recordEvent } from './webhook-events';
import { healthTransition, MailboxStatus, PausedReason, protectionVerdict, SevenDayCounts } from '../../domain/sending/protection';

/**
 * A mailbox's protection (shared/api-contract.md, "Protection"): its seven-day sends, hard bounces and
 * complaints, and its pauses. The rules are domain/sending/protection.ts; the status and its reason
 * are columns whose consistency the database checks (mailboxes_paused_check, migration 0020).
 */

/**
 * A mailbox's last seven days: messages sent (a recipient refused at RCPT TO was never sent, but was
 * an attempt: it counts, or a mailbox of only refusals would never reach the sample), hard bounces
 * (bounced_at) and complaints (complained_at). Used by the answers and the judge alike.
 */
export function sevenDayCountsSql(mailboxRef: { org: string; id: string }) {
  const org = sql.ref(mailboxRef.org);
  const id = sql.ref(mailboxRef.id);
  return {
    sent: sql<number>`(SELECT count(*)::int FROM messages x WHERE x.organization_id = ${org} AND x.mailbox_id = ${id} AND (x.sent_at >= now() - interval '7 days' OR (x.sent_at IS NULL AND x.bounced_at >= now() - interval '7 days')))`,
    hardBounces: sql<number>`(SELECT count(*)::int FROM messages x WHERE x.organization_id = ${org} AND x.mailbox_id = ${id} AND x.bounced_at >= now() - interval '7 days')`,
    complaints: sql<number>`(SELECT count(*)::int FROM messages x WHERE x.organization_id = ${org} AND x.mailbox_id = ${id} AND x.complained_at >= now() - interval '7 days')`,
  };
}

/** Pauses an active mailbox (a paused one keeps its first reason). Answers whether it paused now. */
export async function pauseMailbox(tx: Tx, mailboxId: string, reason: PausedReason, note: string | null = null): Promise<boolean> {
  const r = await tx
    .updateTable('mailboxes')
    .set({ status: 'paused', paused_reason: reason, paused_at: sql`now()`, paused_note: note, updated_at: sql`now()` })
    .where('id', '=', mailboxId)
    .where('status', '=', 'active')
    .returning('organization_id')
    .executeTakeFirst();
  if (!r) return false;
  await recordEvent(tx, 'mailbox.paused', { organizationId: r.organization_id, id: mailboxId });
  return true;
}

/** Resumes a paused mailbox (only one paused for `onlyReason`, when given). Answers whether it resumed. */
export async function resumeMailbox(tx: Tx, mailboxId: string, onlyReason?: PausedReason): Promise<boolean> {
  let q = tx
    .updateTable('mailboxes')
    .set({ status: 'active', paused_reason: null, paused_at: null, paused_note: null, updated_at: sql`now()` })
    .where('id', '=', mailboxId)
    .where('status', '=', 'paused');
  if (onlyReason) q = q.where('paused_reason', '=', onlyReason);
  const r = await q.executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/**
 * Judges the mailbox right after a hard bounce or complaint of one of its messages was recorded (in
 * the same transaction): over the limit with enough sends, it pauses. Locks the mailbox row, so that
 * two bounces recorded at once are judged one after the other. Answers the reason it paused for, or null.
 */
export async function judgeMailboxProtection(tx: Tx, mailboxId: string, event: 'bounce' | 'complaint'): Promise<PausedReason | null> {
  const counts = sevenDayCountsSql({ org: 'mailboxes.organization_id', id: 'mailboxes.id' });
  const row = await tx
    .selectFrom('mailboxes')
    .select(['status', 'max_bounce_rate', 'max_complaint_rate', 'min_sample', counts.sent.as('sent'), counts.hardBounces.as('hard_bounces'), counts.complaints.as('complaints')])
    .where('id', '=', mailboxId)
    .forNoKeyUpdate()
    .executeTakeFirst();
  if (!row || row.status !== 'active') return null;
  const c: SevenDayCounts = { sent: row.sent, hardBounces: row.hard_bounces, complaints: row.complaints };
  const verdict = protectionVerdict(event, c, { maxBounceRate: Number(row.max_bounce_rate), maxComplaintRate: Number(row.max_complaint_rate), minSample: row.min_sample });
  return verdict && (await pauseMailbox(tx, mailboxId, verdict)) ? verdict : null;
}

/** A health check's effect: unsendable pauses an active mailbox (`health`); sendable resumes one paused for `health` only. */
export async function applyHealthToStatus(tx: Tx, mailboxId: string, sendable: boolean): Promise<'pause' | 'resume' | null> {
  const row = await tx.selectFrom('mailboxes').select(['status', 'paused_reason']).where('id', '=', mailboxId).forNoKeyUpdate().executeTakeFirst();
  if (!row) return null;
  const move = healthTransition(row.status as MailboxStatus, row.paused_reason as PausedReason | null, sendable);
  if (move === 'pause') return (await pauseMailbox(tx, mailboxId, 'health')) ? move : null;
  if (move === 'resume') return (await resumeMailbox(tx, mailboxId, 'health')) ? move : null;
  return null;
}
