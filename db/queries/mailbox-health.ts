import { sql } from 'kysely';
import { notSendableReason, type CheckResult, type HealthResult } from '../../domain/deliverability/score';
import { applyHealthToStatus } from './mailbox-protection';
import type { Tx } from '../tenancy';

/** What a health check needs of its mailbox. */
export function mailboxForHealthCheck(tx: Tx, mailboxId: string) {
  return tx.selectFrom('mailboxes').select(['id', 'organization_id', 'domain', 'dkim_selector']).where('id', '=', mailboxId).executeTakeFirst();
}

/**
 * Stores a check (mailbox_health_checks) and makes it the mailbox's current health
 * (mailboxes.health_score, sendable). Idempotent on the check's id: a repeat stores no second row.
 * Answers, when the mailbox is sendable, the enrollments whose sends it held: the caller wakes them
 * after the commit.
 */
export async function recordHealthCheck(
  tx: Tx,
  check: { id: string; organizationId: string; mailboxId: string; result: HealthResult },
): Promise<{ waitingEnrollmentIds: string[] }> {
  const { result } = check;
  // The mailbox's row first (FOR NO KEY UPDATE, which the check's foreign key does not wait for): checks
  // recorded at once queue here instead of deadlocking between the insert's key share and the update.
  await tx.selectFrom('mailboxes').select('id').where('id', '=', check.mailboxId).forNoKeyUpdate().execute();
  await tx
    .insertInto('mailbox_health_checks')
    .values({
      id: check.id,
      organization_id: check.organizationId,
      mailbox_id: check.mailboxId,
      domain: result.domain,
      spf: JSON.stringify(result.spf),
      dkim: JSON.stringify(result.dkim),
      dmarc: JSON.stringify(result.dmarc),
      mx: JSON.stringify(result.mx),
      score: result.score,
      sendable: result.sendable,
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  await tx
    .updateTable('mailboxes')
    .set({ health_score: result.score, sendable: result.sendable, updated_at: sql`now()` })
    .where('id', '=', check.mailboxId)
    .execute();
  // Unsendable pauses the mailbox (`health`); a passing check resumes one paused for health only.
  await applyHealthToStatus(tx, check.mailboxId, result.sendable);
  return { waitingEnrollmentIds: result.sendable ? await enrollmentsWaitingOnMailbox(tx, check.mailboxId) : [] };
}

/**
 * The enrollments whose sends this mailbox holds: the distinct enrollments of its outbound messages
 * approved but not sent. Whoever records a passing check wakes them (API: starter.notifyEnrollments
 * after commit; a workflow: notifySequences).
 */
export async function enrollmentsWaitingOnMailbox(tx: Tx, mailboxId: string): Promise<string[]> {
  const rows = await tx
    .selectFrom('messages')
    .select('enrollment_id')
    .distinct()
    .where('mailbox_id', '=', mailboxId)
    .where('direction', '=', 'outbound')
    .where('status', '=', 'approved')
    .where('enrollment_id', 'is not', null)
    .orderBy('enrollment_id')
    .execute();
  return rows.map((r) => r.enrollment_id!);
}

/**
 * Whether the mailbox may send, from its newest check: `checked: false` before the first (the first
 * send runs one: checkMailboxHealth), else `sendable` and, when it is not, the reason to write on
 * each message it holds.
 */
export async function mailboxSendability(tx: Tx, mailboxId: string): Promise<{ checked: false } | { checked: true; sendable: boolean; reason: string | null }> {
  const row = await tx
    .selectFrom('mailbox_health_checks')
    .select(['score', 'sendable', 'spf', 'dkim', 'dmarc', 'mx'])
    .where('mailbox_id', '=', mailboxId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  if (!row) return { checked: false };
  const check = (v: unknown) => v as CheckResult;
  const reason = notSendableReason({
    score: Number(row.score),
    sendable: row.sendable,
    spf: check(row.spf),
    dkim: check(row.dkim),
    dmarc: check(row.dmarc),
    mx: check(row.mx),
  });
  return { checked: true, sendable: row.sendable, reason };
}
