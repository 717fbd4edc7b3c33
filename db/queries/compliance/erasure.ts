import { sql } from 'kysely';
import { erasureMarkers } from '../../../domain/compliance/erasure';
import type { Tx } from '../../tenancy';
import { writeAudit } from '../audit';
import { stopContactEnrollments } from '../enrollments';
import { complianceSettings } from './settings';
import { findSuppressions, getSuppression } from './suppressions';
import { deleteContactEvents, recordEvent } from '../webhook-events';

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
      .values(
        markers.map((m) => ({
          organization_id: contact.organization_id,
          scope: m.scope,
          value: m.value,
          reason: 'erasure',
          note: `erased on ${reason}`,
          created_by: actorId,
        })),
      )
      .onConflict((oc) => oc.columns(['organization_id', 'scope', 'value']).doNothing())
      .returning('id')
      .execute();
    for (const s of made) await recordEvent(tx, 'suppression.created', { organizationId: contact.organization_id, id: s.id }, getSuppression);
  }
  await tx
    .updateTable('contacts')
    .set({
      full_name: 'erased',
      title: null,
      email: null,
      // The checks name the address's domain and what its server said of it.
      email_check: null,
      email_checked_at: null,
      email_status: 'unknown',
      phone: null,
      linkedin_url: null,
      source_description: null,
      found_by: '{}',
      timezone: null,
      erased_at: sql`now()`,
      updated_at: sql`now()`,
    })
    .where('id', '=', contactId)
    .execute();
  await tx
    .updateTable('messages')
    .set({
      subject: '[redacted]',
      body: '[redacted]',
      original_body: null,
      to_address: null,
      from_address: null,
      why: JSON.stringify({ redacted: true }),
      // A bounce's or a refusal's text quotes the address; a kept raw message is the person's mail.
      error: sql`CASE WHEN error IS NULL THEN NULL ELSE '[redacted]' END`,
      processing_error: sql`CASE WHEN processing_error IS NULL THEN NULL ELSE '[redacted]' END`,
      inbound_source: null,
      updated_at: sql`now()`,
    })
    .where('contact_id', '=', contactId)
    .execute();
  // Mail of the person that matched no contact: by its address, or (kept unprocessed, raw) by the address in its source.
  if (contact.email) {
    const address = contact.email.trim().toLowerCase();
    await tx
      .updateTable('messages')
      .set({
        subject: '[redacted]',
        body: '[redacted]',
        to_address: null,
        from_address: null,
        error: sql`CASE WHEN error IS NULL THEN NULL ELSE '[redacted]' END`,
        processing_error: sql`CASE WHEN processing_error IS NULL THEN NULL ELSE '[redacted]' END`,
        inbound_source: null,
        updated_at: sql`now()`,
      })
      .where('organization_id', '=', contact.organization_id)
      .where((eb) =>
        eb.or([
          eb(sql`lower(from_address)`, '=', address),
          eb(sql`lower(to_address)`, '=', address),
          eb.and([eb('inbound_source', 'is not', null), sql<boolean>`strpos(lower(encode(inbound_source, 'escape')), ${address}) > 0`]),
        ]),
      )
      .execute();
  }
  await tx
    .updateTable('threads')
    .set({ subject: '[redacted]', updated_at: sql`now()` })
    .where('contact_id', '=', contactId)
    .execute();
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
  // The outbox: events about the person go, with their deliveries (a pending one would send the
  // person's data after the erasure). A suppression of the address in clear gives way to its hashed
  // marker (written above), which blocks the address as well.
  await deleteContactEvents(tx, contact.organization_id, contactId, contact.email);
  if (contact.email) {
    await tx
      .deleteFrom('suppressions')
      .where('organization_id', '=', contact.organization_id)
      .where('scope', '=', 'email')
      .where('value', '=', contact.email.trim().toLowerCase())
      .execute();
  }
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
