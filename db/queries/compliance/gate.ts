import { decideGate, suppressionKeys, type GateCompany, type GateContact, type GateDecision, type LawfulBasisRecord } from '../../../domain/compliance/gate';
import type { RecipientKind } from '../../../domain/companies/identity';
import type { Tx } from '../../tenancy';
import { currentLawfulBasis } from './lawful-basis';
import { complianceSettings } from './settings';
import { findSuppressions } from './suppressions';

export type GateResult = GateDecision;

/**
 * The one gate every outbound path goes through: loads the contact, its company, the suppressions
 * that could match either, the current lawful basis and the organization's default country, and
 * lets domain/compliance/gate.ts decide. Undefined when the contact is not visible to the caller.
 */
export async function complianceGate(tx: Tx, contactId: string): Promise<GateResult | undefined> {
  const row = await tx
    .selectFrom('contacts')
    .innerJoin('companies', 'companies.id', 'contacts.company_id')
    .select([
      'contacts.id', 'contacts.organization_id', 'contacts.company_id', 'contacts.full_name', 'contacts.email', 'contacts.erased_at',
      'companies.kvk_number', 'companies.domain', 'companies.website', 'companies.generic_email', 'companies.recipient_kind', 'companies.country_code',
    ])
    .where('contacts.id', '=', contactId)
    .executeTakeFirst();
  if (!row) return undefined;
  const contact: GateContact = { id: row.id, companyId: row.company_id, fullName: row.full_name, email: row.email, erased: row.erased_at !== null };
  const company: GateCompany = {
    id: row.company_id,
    domain: row.domain,
    website: row.website,
    kvkNumber: row.kvk_number,
    genericEmail: row.generic_email,
    recipientKind: row.recipient_kind as RecipientKind,
    countryCode: row.country_code,
  };
  const [suppressions, basis, settings] = await Promise.all([
    findSuppressions(tx, row.organization_id, suppressionKeys(contact, company)),
    currentLawfulBasis(tx, contactId),
    complianceSettings(tx, row.organization_id),
  ]);
  return decideGate({
    contact,
    company,
    suppressions,
    lawfulBasis: basis ? { basis: basis.basis as LawfulBasisRecord['basis'], recipient_kind: basis.recipient_kind as RecipientKind, country: basis.country } : null,
    defaultCountry: settings?.default_country ?? 'NL',
  });
}
