import { sql } from 'kysely';
import type { Tx } from '../tenancy';
import type { EmailCheck, EmailStatus } from '../../domain/contacts/email-verification';

/**
 * Stores a check, fenced on the address and on time: a contact whose address changed (or was erased)
 * while the check ran keeps what it has, so a check never describes an address it was not made on;
 * and a slow check never replaces one that ended after it started.
 */
export async function recordEmailCheck(
  tx: Tx,
  contactId: string,
  checkedAddress: string,
  startedAt: Date,
  status: EmailStatus,
  check: EmailCheck,
): Promise<boolean> {
  const r = await tx
    .updateTable('contacts')
    .set({ email_status: status, email_checked_at: sql`now()`, email_check: JSON.stringify(check), updated_at: sql`now()` })
    .where('id', '=', contactId)
    .where('email', '=', checkedAddress)
    .where('erased_at', 'is', null)
    .where((eb) => eb.or([eb('email_checked_at', 'is', null), eb('email_checked_at', '<=', startedAt)]))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** A page of an organization's contacts with an address (of a company, of a status), in id order after `after`. */
export function contactsToVerify(
  tx: Tx,
  f: { organizationId: string; companyId?: string; status?: EmailStatus; uncheckedOnly?: boolean; after?: string; limit: number },
): Promise<string[]> {
  let q = tx.selectFrom('contacts').select('id').where('organization_id', '=', f.organizationId).where('email', 'is not', null).where('erased_at', 'is', null);
  if (f.companyId) q = q.where('company_id', '=', f.companyId);
  if (f.status) q = q.where('email_status', '=', f.status);
  if (f.uncheckedOnly) q = q.where('email_checked_at', 'is', null);
  if (f.after) q = q.where('id', '>', f.after);
  return q
    .orderBy('id')
    .limit(f.limit)
    .execute()
    .then((rows) => rows.map((r) => r.id));
}
