import { sql } from 'kysely';
import type { Tx } from '../tenancy';
import { BULK_SENDER_THRESHOLDS, countsTowardThresholds, pastNear, passesBulkSenderAuth, type ReceivingProvider } from '../../domain/sending/bulk-senders';
import { recordEvent } from './webhook-events';

/**
 * The daily e-mail counts of the bulk-sender rules (bulk_sender_volume, migration 0043): per
 * organizational sending domain, receiving provider and UTC day. countSent runs only in the
 * transaction that first records a message as sent (recordSent), so a retried send adds nothing.
 */
export interface SenderKey {
  /** The sender's organizational domain. */
  orgDomain: string;
  /** The recipient's receiving provider. */
  provider: ReceivingProvider;
}
export interface VolumeKey extends SenderKey {
  /** The UTC day, YYYY-MM-DD. */
  day: string;
}

/** The `domain.bulk_threshold_near` event's data. */
export interface BulkThresholdNear {
  organization_id: string;
  domain: string;
  provider: ReceivingProvider;
  day: string;
  sent: number;
  thresholds: { near: number; hold: number };
}

/**
 * One more e-mail sent on the key's day. When the count goes above the `near` threshold for a provider
 * that counts, the `domain.bulk_threshold_near` event is written once for the day (near_notified_at is
 * set by the one update that finds it empty). Answers the day's count.
 */
export async function countSent(tx: Tx, organizationId: string, k: VolumeKey): Promise<number> {
  const row = await tx
    .insertInto('bulk_sender_volume')
    .values({ organization_id: organizationId, org_domain: k.orgDomain, provider: k.provider, day: k.day, sent: 1 })
    .onConflict((oc) =>
      oc.columns(['organization_id', 'org_domain', 'provider', 'day']).doUpdateSet({ sent: sql`bulk_sender_volume.sent + 1`, updated_at: sql`now()` }),
    )
    .returning('sent')
    .executeTakeFirstOrThrow();
  if (countsTowardThresholds(k.provider) && pastNear(row.sent)) {
    const first = await tx
      .updateTable('bulk_sender_volume')
      .set({ near_notified_at: sql`now()` })
      .where('organization_id', '=', organizationId)
      .where('org_domain', '=', k.orgDomain)
      .where('provider', '=', k.provider)
      .where('day', '=', sql<Date>`${k.day}::date`)
      .where('near_notified_at', 'is', null)
      .returning('sent')
      .executeTakeFirst();
    if (first) {
      const data: BulkThresholdNear = {
        organization_id: organizationId,
        domain: k.orgDomain,
        provider: k.provider,
        day: k.day,
        sent: first.sent,
        thresholds: { ...BULK_SENDER_THRESHOLDS },
      };
      await recordEvent(tx, 'domain.bulk_threshold_near', { organizationId, id: k.orgDomain }, async () => data);
    }
  }
  return row.sent;
}

/** The key's count so far (0 when nothing was sent). */
export async function sentOnDay(tx: Tx, organizationId: string, k: VolumeKey): Promise<number> {
  const row = await tx
    .selectFrom('bulk_sender_volume')
    .select('sent')
    .where('organization_id', '=', organizationId)
    .where('org_domain', '=', k.orgDomain)
    .where('provider', '=', k.provider)
    .where('day', '=', sql<Date>`${k.day}::date`)
    .executeTakeFirst();
  return row?.sent ?? 0;
}

/** Whether the mailbox's newest health check passes SPF, DKIM and DMARC as the bulk-sender rules ask. */
export async function mailboxPassesBulkSenderAuth(tx: Tx, mailboxId: string): Promise<boolean> {
  const row = await tx
    .selectFrom('mailbox_health_checks')
    .select([sql<string>`spf->>'status'`.as('spf'), sql<string>`dkim->>'status'`.as('dkim'), sql<string>`dmarc->>'status'`.as('dmarc')])
    .where('mailbox_id', '=', mailboxId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return passesBulkSenderAuth(row ?? null);
}

/** The organizational domain's counts of the last `days` UTC days up to `today`, per day and provider, newest day first. */
export async function domainVolume(tx: Tx, r: { organizationId: string; orgDomain: string; today: string; days: number }) {
  const rows = await tx
    .selectFrom('bulk_sender_volume')
    .select([sql<string>`day::text`.as('day'), 'provider', 'sent'])
    .where('organization_id', '=', r.organizationId)
    .where('org_domain', '=', r.orgDomain)
    .where('day', '>', sql<Date>`${r.today}::date - ${r.days}::int`)
    .where('day', '<=', sql<Date>`${r.today}::date`)
    .orderBy('day', 'desc')
    .orderBy('provider')
    .execute();
  return rows.map((x) => ({ day: x.day, provider: x.provider as ReceivingProvider, sent: x.sent }));
}
