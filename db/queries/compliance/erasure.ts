import { sql } from 'kysely';
import { erasureMarkers } from '../../../domain/compliance/erasure';
import type { Tx } from '../../tenancy';
import { writeAudit } from '../audit';
import { stopContactEnrollments } from '../enrollments';
import { complianceSettings } from './settings';
import { findSuppressions } from './suppressions';
import { recordEvent } from '../webhook-events';

/**
 * GDPR Art. 17 erasure of one contact: personal fields anonymized, message bodies and addresses
 * redacted, lawful-basis free text cleared. What is kept are hashed markers (suppressions of scope
 * `email_hash` for the address and `person_hash` for the name within the company), so the person is
 * never contacted again nor re-created by enrichment, with or without an address. The contact's
 * running enrollments are stopped ('erased') and their drafts waiting in the inbox skipped first;
 * stoppedEnrollments names them, so the caller wakes their runs once this has committed. Idempotent.
 */
export async function eraseContact(tx: Tx, contactId: string, actorId: string | null, reason: 'request' | 'retention') {
  const contact = await tx
    .selectFrom('contacts')
    .select(['id', 'organization_id', 'company_id', 'full_name', 'email', 'erased_at'])
    .where('id', '=', contactId)
    .forUpdate()
    .executeTakeFirst();
  if (!contact) return undefined;
  if (contact.erased_at) return { id: contact.id, alreadyErased: true, stoppedEnrollments: [] as string[] };
  const stoppedEnrollments = await stopContactEnrollments(tx, contactId, 'erased');
  const markers = erasureMarkers({ companyId: contact.company_id, fullName: contact.full_name, email: contact.email });
  if (markers.length) {
    const made = await tx
      .insertInto('suppressions')
      .values(markers.map((m) => ({ organization_id: contact.organization_id, scope: m.scope, value: m.value, reason: 'erasure', note: `erased on ${reason}`, created_by: actorId })))
      .onConflict((oc) => oc.columns(['organization_id', 'scope', 'value']).doNothing())
      .returning('id')
      .execute();
    for (const s of made) await recordEvent(tx, 'suppression.created', { organizationId: contact.organization_id, id: s.id });
  }
  await tx
    .updateTable('contacts')
    .set({ full_name: 'erased', title: null, email: null, phone: null, linkedin_url: null, source_description: null, timezone: null, erased_at: sql`now()`, updated_at: sql`now()` })
    .where('id', '=', contactId)
    .execute();
  await tx
    .updateTable('messages')
    .set({ subject: '[redacted]', body: '[redacted]', original_body: null, to_address: null, from_address: null, why: JSON.stringify({ redacted: true }), updated_at: sql`now()` })
    .where('contact_id', '=', contactId)
    .execute();
  await tx.updateTable('threads').set({ subject: '[redacted]', updated_at: sql`now()` }).where('contact_id', '=', contactId).execute();
  await tx
    .updateTable('meetings')
    .set({ attendee_email: null, title: '[redacted]', join_url: null, updated_at: sql`now()` })
    .where('contact_id', '=', contactId)
    .execute();
  // A meeting's reminder task names the person and the meeting: redacted, and withdrawn when still open.
  await tx
    .updateTable('tasks')
    .set({ title: '[redacted]', body: null, status: sql`CASE WHEN status = 'open' THEN 'cancelled' ELSE status END`, updated_at: sql`now()` })
    .where('contact_id', '=', contactId)
    .execute();
  await tx
    .updateTable('lawful_basis_records')
    // Redacted, not emptied: the basis stays provable (its CHECKs require the texts to exist).
    .set({
      source_description: null,
      assessment: sql`CASE WHEN assessment IS NULL THEN NULL ELSE '[redacted]' END`,
      consent_evidence: sql`CASE WHEN consent_evidence IS NULL THEN NULL ELSE '[redacted]' END`,
      updated_at: sql`now()`,
    })
    .where('contact_id', '=', contactId)
    .execute();
  await writeAudit(tx, { organizationId: contact.organization_id, actorId, entity: 'contact', entityId: contactId, action: `erase_${reason}`, changes: [] });
  return { id: contact.id, alreadyErased: false, stoppedEnrollments };
}

/** Whether a person (by address, or by name within the company) was erased: enrichment skips them. */
export async function wasErased(tx: Tx, organizationId: string, p: { companyId: string; fullName: string | null; email: string | null }): Promise<boolean> {
  return (await findSuppressions(tx, organizationId, erasureMarkers(p))).length > 0;
}

/** Contacts not engaged (nor created) within the organization's retention period. */
export async function staleContactIds(tx: Tx, organizationId: string, now: Date): Promise<string[]> {
  const settings = await complianceSettings(tx, organizationId);
  const months = settings?.retention_months ?? 24;
  const rows = await tx
    .selectFrom('contacts')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('erased_at', 'is', null)
    .where(sql`coalesce(last_engaged_at, created_at)`, '<', sql`${now}::timestamptz - make_interval(months => ${months})`)
    .execute();
  return rows.map((r) => r.id);
}
