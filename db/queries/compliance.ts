import { sql } from 'kysely';
import { emailHash, registrableDomain } from '../../domain/companies/identity';
import { channelsFor, ChannelDecision, CHANNEL_POLICY_VERSION } from '../../domain/compliance/channel-policy';
import type { Tx } from '../tenancy';
import { diff, writeAudit } from './audit';
import { newestFirst } from './pagination';

// Suppressions ------------------------------------------------------------------------------------

export const SUPPRESSION_COLUMNS = ['id', 'organization_id', 'scope', 'value', 'reason', 'note', 'created_by', 'created_at'] as const;

/** Idempotent on (scope, value): a repeat answers the existing record with created = false. */
export async function addSuppression(
  tx: Tx,
  s: { organizationId: string; scope: string; value: string; reason: string; note?: string | null; createdBy: string | null },
) {
  const inserted = await tx
    .insertInto('suppressions')
    .values({ organization_id: s.organizationId, scope: s.scope, value: s.value, reason: s.reason, note: s.note ?? null, created_by: s.createdBy })
    .onConflict((oc) => oc.columns(['organization_id', 'scope', 'value']).doNothing())
    .returning(SUPPRESSION_COLUMNS)
    .executeTakeFirst();
  if (inserted) return { suppression: inserted, created: true };
  const existing = await tx
    .selectFrom('suppressions')
    .select(SUPPRESSION_COLUMNS)
    .where('organization_id', '=', s.organizationId)
    .where('scope', '=', s.scope)
    .where('value', '=', s.value)
    .executeTakeFirstOrThrow();
  return { suppression: existing, created: false };
}

export function listSuppressions(tx: Tx, f: { organizationId: string; scope?: string; limit: number; before?: string }) {
  let q = tx.selectFrom('suppressions').select(SUPPRESSION_COLUMNS).where('organization_id', '=', f.organizationId);
  if (f.scope) q = q.where('scope', '=', f.scope);
  return newestFirst(q, 'suppressions', f).execute();
}

export function getSuppression(tx: Tx, id: string) {
  return tx.selectFrom('suppressions').select(SUPPRESSION_COLUMNS).where('id', '=', id).executeTakeFirst();
}

export async function removeSuppression(tx: Tx, id: string, actorId: string) {
  const removed = await tx.deleteFrom('suppressions').where('id', '=', id).returning(SUPPRESSION_COLUMNS).executeTakeFirst();
  if (removed) {
    await writeAudit(tx, {
      organizationId: removed.organization_id,
      actorId,
      entity: 'suppression',
      entityId: removed.id,
      action: 'delete',
      changes: [{ field: removed.scope, before: removed.value, after: null }],
    });
  }
  return removed;
}

/**
 * THE suppression check: is anything about this recipient suppressed? Its e-mail address, the
 * address's registrable domain, the company's KvK number, or the hash an erasure left behind.
 * Every outreach path asks this (through complianceGate), so there is one answer.
 */
export async function findSuppression(tx: Tx, organizationId: string, r: { email?: string | null; kvkNumber?: string | null; domain?: string | null }) {
  const candidates: Array<[string, string]> = [];
  if (r.email) {
    const email = r.email.trim().toLowerCase();
    candidates.push(['email', email], ['email_hash', emailHash(email)]);
    const d = registrableDomain(email);
    if (d) candidates.push(['domain', d]);
  }
  if (r.domain) candidates.push(['domain', r.domain.toLowerCase()]);
  if (r.kvkNumber) candidates.push(['kvk_number', r.kvkNumber]);
  if (!candidates.length) return undefined;
  return tx
    .selectFrom('suppressions')
    .select(SUPPRESSION_COLUMNS)
    .where('organization_id', '=', organizationId)
    .where((eb) => eb.or(candidates.map(([scope, value]) => eb.and([eb('scope', '=', scope), eb('value', '=', value)]))))
    .orderBy('created_at')
    .executeTakeFirst();
}

// Lawful basis -------------------------------------------------------------------------------------

export const LAWFUL_BASIS_COLUMNS = [
  'id', 'organization_id', 'contact_id', 'basis', 'recipient_kind', 'country', 'source_description', 'assessment', 'consent_evidence',
  'recorded_by', 'created_at', 'updated_at',
] as const;

/** One current record per contact: the previous one is kept (not current) for the history. Audited. */
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
  const previous = await currentLawfulBasis(tx, r.contactId);
  await tx.updateTable('lawful_basis_records').set({ is_current: false, updated_at: sql`now()` }).where('contact_id', '=', r.contactId).where('is_current', '=', true).execute();
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
  return tx.selectFrom('lawful_basis_records').select(LAWFUL_BASIS_COLUMNS).where('contact_id', '=', contactId).where('is_current', '=', true).executeTakeFirst();
}

// Compliance settings --------------------------------------------------------------------------------

export const SETTINGS_COLUMNS = [
  'organization_id', 'default_country', 'default_locale', 'default_formality', 'retention_months', 'ai_disclosure', 'sender_legal_name',
  'sender_address', 'privacy_url', 'unsubscribe_mailto', 'created_at', 'updated_at',
] as const;

export function complianceSettings(tx: Tx, organizationId: string) {
  return tx.selectFrom('compliance_settings').select(SETTINGS_COLUMNS).where('organization_id', '=', organizationId).executeTakeFirst();
}

export type SettingsPatch = Partial<{
  default_country: string;
  default_locale: string;
  default_formality: string;
  retention_months: number;
  ai_disclosure: string;
  sender_legal_name: string | null;
  sender_address: string | null;
  privacy_url: string | null;
  unsubscribe_mailto: string | null;
}>;

/** The change and one audit row per changed field (actor, time, before, after) commit together. */
export async function changeComplianceSettings(tx: Tx, organizationId: string, actorId: string, patch: SettingsPatch) {
  const current = await tx.selectFrom('compliance_settings').select(SETTINGS_COLUMNS).where('organization_id', '=', organizationId).forUpdate().executeTakeFirst();
  if (!current) return undefined;
  const changes = diff(current as unknown as Record<string, unknown>, patch);
  if (!changes.length) return current;
  const updated = await tx
    .updateTable('compliance_settings')
    .set({ ...Object.fromEntries(changes.map((c) => [c.field, c.after])), updated_at: sql`now()` })
    .where('organization_id', '=', organizationId)
    .returning(SETTINGS_COLUMNS)
    .executeTakeFirstOrThrow();
  await writeAudit(tx, { organizationId, actorId, entity: 'compliance_settings', entityId: organizationId, action: 'update', changes });
  return updated;
}

export function listAudit(tx: Tx, f: { organizationId: string; entity?: string; limit: number; before?: string }) {
  let q = tx
    .selectFrom('compliance_audit_log')
    .select(['id', 'organization_id', 'actor_id', 'entity', 'entity_id', 'action', 'field', 'before', 'after', 'created_at'])
    .where('organization_id', '=', f.organizationId);
  if (f.entity) q = q.where('entity', '=', f.entity);
  return newestFirst(q, 'compliance_audit_log', f).execute();
}

// The compliance gate ---------------------------------------------------------------------------

export interface GateResult {
  contact_id: string;
  contactable: boolean;
  reasons: string[];
  suppression: { id: string; scope: string; reason: string } | null;
  lawful_basis: { basis: string; recipient_kind: string; country: string } | null;
  policy_version: string;
  channels: ChannelDecision[];
  requirements: string[];
}

/**
 * The one gate every outbound path goes through: may this contact be contacted, on which channels,
 * by which rule? No lawful basis, a suppression, or an erased contact closes every channel.
 */
export async function complianceGate(tx: Tx, contactId: string): Promise<GateResult | undefined> {
  const contact = await tx
    .selectFrom('contacts')
    .innerJoin('companies', 'companies.id', 'contacts.company_id')
    .select([
      'contacts.id', 'contacts.organization_id', 'contacts.email', 'contacts.erased_at', 'companies.kvk_number', 'companies.domain',
      'companies.generic_email', 'companies.recipient_kind', 'companies.country_code',
    ])
    .where('contacts.id', '=', contactId)
    .executeTakeFirst();
  if (!contact) return undefined;
  const [suppression, basis, settings] = await Promise.all([
    findSuppression(tx, contact.organization_id, { email: contact.email, kvkNumber: contact.kvk_number }),
    currentLawfulBasis(tx, contactId),
    complianceSettings(tx, contact.organization_id),
  ]);
  const reasons: string[] = [];
  if (contact.erased_at) reasons.push('erased');
  if (suppression) reasons.push(`suppressed (${suppression.scope}: ${suppression.reason})`);
  if (!basis) reasons.push('no_lawful_basis');
  const country = basis?.country ?? contact.country_code ?? settings?.default_country ?? 'NL';
  const recipientKind = (basis?.recipient_kind ?? contact.recipient_kind) as 'legal_person' | 'natural_person';
  const blocked = reasons.length > 0;
  const channels = channelsFor({
    country,
    recipientKind,
    basis: blocked ? null : (basis!.basis as 'legitimate_interest' | 'consent'),
    publishedBusinessAddress: !!contact.generic_email,
  }).map((c) => (blocked ? { ...c, allowed: false, requirements: [], reason: reasons.join('; ') } : c));
  // Data not obtained from the person: the GDPR Art. 14 notice is due with the first message.
  const requirements = blocked ? [] : ['art14_notice', 'sender_identification', 'free_opt_out'];
  return {
    contact_id: contact.id,
    contactable: !blocked && channels.some((c) => c.allowed),
    reasons,
    suppression: suppression ? { id: suppression.id, scope: suppression.scope, reason: suppression.reason } : null,
    lawful_basis: basis ? { basis: basis.basis, recipient_kind: basis.recipient_kind, country: basis.country } : null,
    policy_version: CHANNEL_POLICY_VERSION,
    channels,
    requirements,
  };
}

// Erasure ----------------------------------------------------------------------------------------

/**
 * GDPR Art. 17 erasure of one contact: personal fields anonymized, message bodies and addresses
 * redacted, lawful-basis free text cleared, and the e-mail kept only as a hash suppression so the
 * person is never contacted again. Idempotent.
 */
export async function eraseContact(tx: Tx, contactId: string, actorId: string | null, reason: 'request' | 'retention') {
  const contact = await tx.selectFrom('contacts').select(['id', 'organization_id', 'email', 'erased_at']).where('id', '=', contactId).forUpdate().executeTakeFirst();
  if (!contact) return undefined;
  if (contact.erased_at) return { id: contact.id, alreadyErased: true };
  if (contact.email) {
    await tx
      .insertInto('suppressions')
      .values({ organization_id: contact.organization_id, scope: 'email_hash', value: emailHash(contact.email), reason: 'erasure', note: `erased on ${reason}`, created_by: actorId })
      .onConflict((oc) => oc.columns(['organization_id', 'scope', 'value']).doNothing())
      .execute();
  }
  await tx
    .updateTable('contacts')
    .set({ full_name: 'erased', title: null, email: null, phone: null, linkedin_url: null, source_description: null, erased_at: sql`now()`, updated_at: sql`now()` })
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
    .set({ attendee_email: null, title: '[redacted]', updated_at: sql`now()` })
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
  return { id: contact.id, alreadyErased: false };
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
