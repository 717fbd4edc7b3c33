import { sql } from 'kysely';
import type { Tx } from '../tenancy';

/**
 * Where the IMAP poll of a mailbox stands: the folder's UIDVALIDITY and the highest UID already
 * stored. Saved only after the messages up to it are stored, so a crash reads them again (stored
 * once: inbound messages are de-duplicated by Message-ID) and nothing is lost.
 */
export async function getInboxState(tx: Tx, mailboxId: string): Promise<{ uidValidity: string | null; lastUid: number }> {
  const row = await tx.selectFrom('mailbox_inbox_states').select(['uidvalidity', 'last_uid']).where('mailbox_id', '=', mailboxId).executeTakeFirst();
  return { uidValidity: row?.uidvalidity == null ? null : String(row.uidvalidity), lastUid: Number(row?.last_uid ?? 0) };
}

export async function saveInboxState(tx: Tx, s: { organizationId: string; mailboxId: string; uidValidity: string; lastUid: number }): Promise<void> {
  await tx
    .insertInto('mailbox_inbox_states')
    .values({ organization_id: s.organizationId, mailbox_id: s.mailboxId, uidvalidity: s.uidValidity, last_uid: s.lastUid, last_checked_at: sql`now()` })
    .onConflict((oc) =>
      oc
        .columns(['organization_id', 'mailbox_id'])
        .doUpdateSet({ uidvalidity: s.uidValidity, last_uid: s.lastUid, last_checked_at: sql`now()`, updated_at: sql`now()` }),
    )
    .execute();
}

/** The mailbox's last error (null clears it, when set): what a person sees when its inbox cannot be read. */
export async function setMailboxError(tx: Tx, mailboxId: string, error: string | null): Promise<void> {
  let q = tx
    .updateTable('mailboxes')
    .set({ last_error: error, updated_at: sql`now()` })
    .where('id', '=', mailboxId);
  if (error === null) q = q.where('last_error', 'is not', null);
  await q.execute();
}

/** What the inbox reader needs of a mailbox: its IMAP server and its sealed secret. */
export function mailboxInbox(tx: Tx, mailboxId: string) {
  return tx
    .selectFrom('mailboxes')
    .select(['id', 'organization_id', 'address', 'imap_config', 'secret_ciphertext', 'auth_type', 'auth_provider'])
    .where('id', '=', mailboxId)
    .executeTakeFirst();
}

/** The sending calendar of a mailbox (business days for an out-of-office hold, the window for a proposed time). */
export function mailboxCalendar(tx: Tx, mailboxId: string) {
  return tx
    .selectFrom('mailboxes')

    .select([
      'id',
      'organization_id',
      'timezone',
      sql<string>`to_char(window_start, 'HH24:MI')`.as('window_start'),
      sql<string>`to_char(window_end, 'HH24:MI')`.as('window_end'),
      'sending_days',
      'holiday_country',
      'holiday_region',
    ])
    .where('id', '=', mailboxId)
    .executeTakeFirst();
}
