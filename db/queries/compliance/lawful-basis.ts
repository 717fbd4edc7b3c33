import { sql } from 'kysely';
import { lockFor } from '../../locks';
import type { Tx } from '../../tenancy';
import { diff, writeAudit } from '../audit';

export const LAWFUL_BASIS_COLUMNS = [
  'id',
  'organization_id',
  'contact_id',
  'basis',
  'recipient_kind',
  'country',
  'source_description',
  'assessment',
  'consent_evidence',
  'recorded_by',
  'created_at',
  'updated_at',
] as const;

/** The contact was erased (or is gone): no lawful basis may be recorded for it. */
export class ContactErasedError extends Error {
  constructor() {
    super('The contact was erased');
  }
}

/**
 * One current record per contact: the previous one is kept (not current) for the history. Audited.
 * The contact's row is locked first, so an erasure committing meanwhile cannot leave a fresh record
 * (with its source text) on an erased contact: whichever comes second sees the other.
 */
export async function recordLawfulBasis(
  tx: Tx,
  r: {
    organizationId: string;
    contactId: string;
    basis: string;
    recipientKind: string;
    country: string;
    sourceDescription?: string | null;
    assessment?: string | null;
    consentEvidence?: string | null;
    recordedBy: string;
  },
) {
  // Concurrent records for one contact take turns, so each replaces the one committed before it.
  await lockFor(tx, `lawful_basis_records:${r.contactId}`);
  const contact = await tx.selectFrom('contacts').select('erased_at').where('id', '=', r.contactId).forUpdate().executeTakeFirst();
  if (!contact || contact.erased_at) throw new ContactErasedError();
  const previous = await currentLawfulBasis(tx, r.contactId);
  await tx
    .updateTable('lawful_basis_records')
    .set({ is_current: false, updated_at: sql`now()` })
    .where('contact_id', '=', r.contactId)
    .where('is_current', '=', true)
    .execute();
  const record = await tx
    .insertInto('lawful_basis_records')
    .values({
      organization_id: r.organizationId,
      contact_id: r.contactId,
      basis: r.basis,
      recipient_kind: r.recipientKind,
      country: r.country,
      source_description: r.sourceDescription ?? null,
      assessment: r.assessment ?? null,
      consent_evidence: r.consentEvidence ?? null,
      recorded_by: r.recordedBy,
      is_current: true,
    })
    .returning(LAWFUL_BASIS_COLUMNS)
    .executeTakeFirstOrThrow();
  await writeAudit(tx, {
    organizationId: r.organizationId,
    actorId: r.recordedBy,
    entity: 'lawful_basis',
    entityId: r.contactId,
    action: previous ? 'update' : 'create',
    changes: diff(
      (previous ?? {}) as Record<string, unknown>,
      { basis: record.basis, recipient_kind: record.recipient_kind, country: record.country } as Record<string, unknown>,
    ),
  });
  return record;
}

export function currentLawfulBasis(tx: Tx, contactId: string) {
  return tx
    .selectFrom('lawful_basis_records')
    .select(LAWFUL_BASIS_COLUMNS)
    .where('contact_id', '=', contactId)
    .where('is_current', '=', true)
    .executeTakeFirst();
}
