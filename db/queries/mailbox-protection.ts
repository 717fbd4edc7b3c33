import { sql } from 'kysely';
import type { Tx } from '../tenancy';
import { getMailbox } from './mailboxes';
import { sevenDayCountsSql } from './mailbox-stats';
import { recordEvent } from './webhook-events';
import { addSuppression } from './compliance/suppressions';
import { SENDER_REFUSED, type BounceReason } from '../../domain/replies/bounce-reasons';
import { healthTransition, MailboxStatus, PausedReason, ProtectionEvent, protectionVerdict, SevenDayCounts } from '../../domain/sending/protection';

/**
 * A mailbox's protection: its pauses when its seven-day rates (mailbox-stats.ts) cross their limits. The rules are domain/sending/protection.ts; the status and its reason
 * are columns whose consistency the database checks (mailboxes_paused_check, migration 0020).
 */

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
  await recordEvent(tx, 'mailbox.paused', { organizationId: r.organization_id, id: mailboxId }, getMailbox);
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
 * Judges the mailbox right after a hard bounce, complaint or block of one of its messages was recorded
 * (in the same transaction): over the limit with enough sends, it pauses. The mailbox row is locked
 * first and the counts read in a second statement, whose snapshot (READ COMMITTED) sees what another
 * transaction committed while this one waited for the lock: two bounces recorded at once are judged
 * one after the other, the second counting the first. Answers the reason it paused for, or null.
 */
export async function judgeMailboxProtection(tx: Tx, mailboxId: string, event: ProtectionEvent): Promise<PausedReason | null> {
  const row = await tx
    .selectFrom('mailboxes')
    .select(['status', 'max_bounce_rate', 'max_complaint_rate', 'max_block_rate', 'min_sample'])
    .where('id', '=', mailboxId)
    .forNoKeyUpdate()
    .executeTakeFirst();
  if (!row || row.status !== 'active') return null;
  const counts = sevenDayCountsSql({ org: 'mailboxes.organization_id', id: 'mailboxes.id' });
  const c: SevenDayCounts = await tx
    .selectFrom('mailboxes')
    .select([counts.sent.as('sent'), counts.hardBounces.as('hardBounces'), counts.complaints.as('complaints'), counts.blocks.as('blocks')])
    .where('id', '=', mailboxId)
    .executeTakeFirstOrThrow();
  const verdict = protectionVerdict(event, c, {
    maxBounceRate: Number(row.max_bounce_rate),
    maxComplaintRate: Number(row.max_complaint_rate),
    maxBlockRate: Number(row.max_block_rate),
    minSample: row.min_sample,
  });
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

/** Soft bounces of one address within 30 days that suppress it. */
export const SOFT_BOUNCES_TO_SUPPRESS = 3;

/**
 * A soft bounce of a sent message, from a delivery report or a refusal during our own SMTP
 * conversation: the message is marked (soft_bounced_at, bounce_reason; once), the third soft bounce of
 * one address within 30 days suppresses it (reason bounce), and one that says the receiver refused the
 * sender counts as a block against the mailbox that sent it (judged at once). Answers the triage lines.
 */
export async function recordSoftBounce(tx: Tx, messageId: string, reason: BounceReason): Promise<string[]> {
  const marked = await tx
    .updateTable('messages')
    .set({ soft_bounced_at: sql`now()`, bounce_reason: reason })
    .where('id', '=', messageId)
    .where('soft_bounced_at', 'is', null)
    .returning(['organization_id', 'mailbox_id', 'to_address'])
    .executeTakeFirst();
  if (!marked) return [];
  const lines: string[] = [];
  if (marked.to_address) {
    const address = marked.to_address.toLowerCase();
    const { n } = await tx
      .selectFrom('messages')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('organization_id', '=', marked.organization_id)
      .where(sql`lower(to_address)`, '=', address)
      .where('soft_bounced_at', 'is not', null)
      .where('soft_bounced_at', '>=', sql<Date>`now() - interval '30 days'`)
      .executeTakeFirstOrThrow();
    if (n >= SOFT_BOUNCES_TO_SUPPRESS) {
      await addSuppression(tx, {
        organizationId: marked.organization_id,
        scope: 'email',
        value: address,
        reason: 'bounce',
        note: `${n} soft bounces within 30 days, the last ${reason}`,
        createdBy: null,
      });
      lines.push(`${address} soft-bounced ${n} times within 30 days: suppressed (bounce).`);
    }
  }
  if (marked.mailbox_id && SENDER_REFUSED.has(reason)) {
    const paused = await judgeMailboxProtection(tx, marked.mailbox_id, 'block');
    if (paused) lines.push(`The mailbox's block rate is over its limit: paused (${paused}).`);
  }
  return lines;
}
