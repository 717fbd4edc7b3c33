import { sql } from 'kysely';
import type { Tx } from '../tenancy';
import { wasErased } from './compliance/erasure';
import { newestFirst } from './pagination';
import type { EmailCheck } from '../../domain/contacts/email-verification';

export const CONTACT_COLUMNS = [
  'id',
  'organization_id',
  'company_id',
  'full_name',
  'title',
  'email',
  'email_status',
  'email_checked_at',
  // jsonb reads as any JSON; the column holds an object of checks or null (migration 0044's CHECK).
  sql<EmailCheck | null>`email_check`.as('email_check'),
  'phone',
  'linkedin_url',
  'source_description',
  'data_source',
  // jsonb: an object of the values enrichment found, each with its provider, run and step (migration 0046's CHECK).
  sql<Record<string, FoundBy>>`found_by`.as('found_by'),
  'last_engaged_at',
  'erased_at',
  'timezone',
  'created_at',
  'updated_at',
] as const;

export interface ContactInput {
  companyId: string;
  fullName: string;
  title?: string | null;
  email?: string | null;
  phone?: string | null;
  linkedinUrl?: string | null;
  sourceDescription?: string | null;
  dataSource?: string;
  timezone?: string | null;
  /** Which enrichment provider, run and step found the person (kept per value in contacts.found_by). */
  foundBy?: FoundBy;
}

export interface FoundBy {
  provider: string;
  run_id: string;
  step: number;
}

/** The values a find fills: the person (when created), and each of address and phone it brought. */
function foundByOf(f: FoundBy, fields: { contact: boolean; email: boolean; phone: boolean }): Record<string, FoundBy> {
  return Object.fromEntries(Object.entries(fields).flatMap(([k, on]) => (on ? [[k, f]] : [])));
}

export function getContact(tx: Tx, id: string) {
  return tx.selectFrom('contacts').select(CONTACT_COLUMNS).where('id', '=', id).executeTakeFirst();
}

export function listContacts(tx: Tx, f: { organizationId: string; companyId?: string; limit: number; before?: string }) {
  let q = tx.selectFrom('contacts').select(CONTACT_COLUMNS).where('organization_id', '=', f.organizationId);
  if (f.companyId) q = q.where('company_id', '=', f.companyId);
  return newestFirst(q, 'contacts', f).execute();
}

/** PATCH /contacts/{id}: the given fields (undefined: unchanged, null: cleared). */
export function updateContact(
  tx: Tx,
  id: string,
  patch: { fullName?: string; title?: string | null; phone?: string | null; linkedinUrl?: string | null; timezone?: string | null },
) {
  return tx
    .updateTable('contacts')
    .set({
      full_name: patch.fullName,
      title: patch.title,
      phone: patch.phone,
      linkedin_url: patch.linkedinUrl,
      timezone: patch.timezone,
      updated_at: sql`now()`,
    })
    .where('id', '=', id)
    .returning(CONTACT_COLUMNS)
    .executeTakeFirst();
}

export function insertContact(tx: Tx, organizationId: string, c: ContactInput) {
  return tx
    .insertInto('contacts')
    .values({
      organization_id: organizationId,
      company_id: c.companyId,
      full_name: c.fullName,
      title: c.title ?? null,
      email: c.email ?? null,
      phone: c.phone ?? null,
      linkedin_url: c.linkedinUrl ?? null,
      source_description: c.sourceDescription ?? null,
      data_source: c.dataSource ?? 'manual',
      timezone: c.timezone ?? null,
      found_by: JSON.stringify(c.foundBy ? foundByOf(c.foundBy, { contact: true, email: !!c.email, phone: !!c.phone }) : {}),
    })
    .returning(CONTACT_COLUMNS)
    .executeTakeFirstOrThrow();
}

/**
 * Enrichment's upsert: the same person is found by e-mail, else by name within the company; a
 * found contact only gains the fields it lacked. Run under the company's row lock, so concurrent
 * enrichments of one company cannot both insert. Erased people are never revived nor re-created:
 * null when the person's address or their name within the company carries an erasure marker.
 *
 * Against an erasure committing meanwhile (it locks only the contact's row): the markers are read
 * after the lookup, so an erasure committed before it is seen by one or the other, and the update
 * of a found contact only applies while it is not erased (re-checked on the row it waited for).
 */
export async function upsertContact(tx: Tx, organizationId: string, c: ContactInput): Promise<{ id: string; created: boolean; emailAdded: boolean } | null> {
  const byEmail = c.email
    ? await tx
        .selectFrom('contacts')
        .select(['id', 'erased_at', 'email', 'phone'])
        .where('organization_id', '=', organizationId)
        .where(sql`lower(email)`, '=', c.email.toLowerCase())
        .executeTakeFirst()
    : undefined;
  const existing =
    byEmail ??
    (await tx
      .selectFrom('contacts')
      .select(['id', 'erased_at', 'email', 'phone'])
      .where('organization_id', '=', organizationId)
      .where('company_id', '=', c.companyId)
      .where(sql`lower(full_name)`, '=', c.fullName.toLowerCase())
      .executeTakeFirst());
  if (existing?.erased_at) return null;
  if (await wasErased(tx, organizationId, { companyId: c.companyId, fullName: c.fullName, email: c.email ?? null })) return null;
  if (existing) {
    const emailAdded = !existing.email && !!c.email;
    const filled = c.foundBy ? foundByOf(c.foundBy, { contact: false, email: emailAdded, phone: !existing.phone && !!c.phone }) : {};
    const updated = await tx
      .updateTable('contacts')
      .set((eb) => ({
        title: eb.fn.coalesce('title', sql.val(c.title ?? null)),
        email: eb.fn.coalesce('email', sql.val(c.email ?? null)),
        phone: eb.fn.coalesce('phone', sql.val(c.phone ?? null)),
        linkedin_url: eb.fn.coalesce('linkedin_url', sql.val(c.linkedinUrl ?? null)),
        timezone: eb.fn.coalesce('timezone', sql.val(c.timezone ?? null)),
        ...(Object.keys(filled).length ? { found_by: sql`found_by || ${JSON.stringify(filled)}::jsonb` } : {}),
        updated_at: sql`now()`,
      }))
      .where('id', '=', existing.id)
      .where('erased_at', 'is', null)
      .executeTakeFirst();
    return updated.numUpdatedRows > 0n ? { id: existing.id, created: false, emailAdded } : null;
  }
  const created = await insertContact(tx, organizationId, c);
  return { id: created.id, created: true, emailAdded: !!c.email };
}
