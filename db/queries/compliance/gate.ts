import { decideGate, suppressionKeys, type GateCompany, type GateContact, type GateDecision, type LawfulBasisRecord } from '../../../domain/compliance/gate';
import type { RecipientKind } from '../../../domain/companies/identity';
import { sql } from 'kysely';
import type { Tx } from '../../tenancy';
import { currentLawfulBasis, LAWFUL_BASIS_COLUMNS } from './lawful-basis';
import { complianceSettings } from './settings';
import { findSuppressions, SUPPRESSION_COLUMNS } from './suppressions';

export type GateResult = GateDecision;

/**
 * The one gate every outbound path goes through: loads the contact, its company, the suppressions
 * that could match either, the current lawful basis and the organization's default country, and
 * lets domain/compliance/gate.ts decide. Undefined when the contact is not visible to the caller.
 */
const GATE_COLUMNS = [
  'contacts.id',
  'contacts.organization_id',
  'contacts.company_id',
  'contacts.full_name',
  'contacts.email',
  'contacts.erased_at',
  'companies.kvk_number',
  'companies.domain',
  'companies.website',
  'companies.generic_email',
  'companies.recipient_kind',
  'companies.country_code',
] as const;

function gateSubjects(row: {
  id: string;
  company_id: string;
  full_name: string;
  email: string | null;
  erased_at: Date | null;
  kvk_number: string | null;
  domain: string | null;
  website: string | null;
  generic_email: string | null;
  recipient_kind: string;
  country_code: string | null;
}): { contact: GateContact; company: GateCompany } {
  return {
    contact: { id: row.id, companyId: row.company_id, fullName: row.full_name, email: row.email, erased: row.erased_at !== null },
    company: {
      id: row.company_id,
      domain: row.domain,
      website: row.website,
      kvkNumber: row.kvk_number,
      genericEmail: row.generic_email,
      recipientKind: row.recipient_kind as RecipientKind,
      countryCode: row.country_code,
    },
  };
}

export async function complianceGate(tx: Tx, contactId: string): Promise<GateResult | undefined> {
  const row = await tx
    .selectFrom('contacts')
    .innerJoin('companies', 'companies.id', 'contacts.company_id')
    .select(GATE_COLUMNS)
    .where('contacts.id', '=', contactId)
    .executeTakeFirst();
  if (!row) return undefined;
  const { contact, company } = gateSubjects(row);
  const [suppressions, basis, settings] = await Promise.all([
    findSuppressions(tx, row.organization_id, suppressionKeys(contact, company)),
    currentLawfulBasis(tx, contactId),
    complianceSettings(tx, row.organization_id),
  ]);
  return decideGate({
    contact,
    company,
    suppressions,
    lawfulBasis: basis
      ? { basis: basis.basis as LawfulBasisRecord['basis'], recipient_kind: basis.recipient_kind as RecipientKind, country: basis.country }
      : null,
    defaultCountry: settings?.default_country ?? 'NL',
  });
}

/**
 * The same gate for many contacts of one organization at once (an accept of thousands): four queries
 * in all instead of four per contact, the same decision (domain/compliance/gate.ts) for each. A
 * contact the caller cannot see is missing from the answer.
 */
export async function complianceGates(tx: Tx, organizationId: string, contactIds: string[]): Promise<Map<string, GateResult>> {
  const gates = new Map<string, GateResult>();
  if (contactIds.length === 0) return gates;
  const rows = await tx
    .selectFrom('contacts')
    .innerJoin('companies', 'companies.id', 'contacts.company_id')
    .select(GATE_COLUMNS)
    .where('contacts.organization_id', '=', organizationId)
    .where(sql<boolean>`contacts.id = any(${contactIds}::uuid[])`)
    .execute();
  const subjects = rows.map(gateSubjects);
  const keys = subjects.map((x) => suppressionKeys(x.contact, x.company));
  const wanted = new Map(keys.flat().map((k) => [`${k.scope}\u0000${k.value}`, k]));
  const scopes = [...wanted.values()].map((k) => k.scope);
  const values = [...wanted.values()].map((k) => k.value);
  const [suppressions, bases, settings] = await Promise.all([
    wanted.size === 0
      ? Promise.resolve([])
      : tx
          .selectFrom('suppressions')
          .select(SUPPRESSION_COLUMNS)
          .where('organization_id', '=', organizationId)
          .where(sql<boolean>`(scope, value) IN (SELECT * FROM unnest(${scopes}::text[], ${values}::text[]))`)
          .orderBy('created_at')
          .execute(),
    tx
      .selectFrom('lawful_basis_records')
      .select(LAWFUL_BASIS_COLUMNS)
      .where(sql<boolean>`contact_id = any(${contactIds}::uuid[])`)
      .where('is_current', '=', true)
      .execute(),
    complianceSettings(tx, organizationId),
  ]);
  const suppressionsByKey = new Map<string, typeof suppressions>();
  for (const s of suppressions) {
    const key = `${s.scope}\u0000${s.value}`;
    suppressionsByKey.set(key, [...(suppressionsByKey.get(key) ?? []), s]);
  }
  const basisOf = new Map(bases.map((b) => [b.contact_id, b]));
  subjects.forEach(({ contact, company }, i) => {
    const basis = basisOf.get(contact.id);
    const own = keys[i]!.flatMap((k) => suppressionsByKey.get(`${k.scope}\u0000${k.value}`) ?? []);
    gates.set(
      contact.id,
      decideGate({
        contact,
        company,
        suppressions: own,
        lawfulBasis: basis
          ? { basis: basis.basis as LawfulBasisRecord['basis'], recipient_kind: basis.recipient_kind as RecipientKind, country: basis.country }
          : null,
        defaultCountry: settings?.default_country ?? 'NL',
      }),
    );
  });
  return gates;
}
