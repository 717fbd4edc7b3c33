import { createHash } from 'node:crypto';
import { emailHash } from '../companies/identity';
import { normalizePersonName } from '../companies/people';

/**
 * What an erasure leaves behind: hashed markers only, so the erased person is recognised (and never
 * contacted or re-created) without keeping who they were. One marker per way a person is found again:
 * the e-mail address, and the name within the company (a person without an address is found by name).
 */
export const ERASURE_SCOPES = ['email_hash', 'person_hash'] as const;
export type ErasureScope = (typeof ERASURE_SCOPES)[number];

export function isErasureScope(scope: string): scope is ErasureScope {
  return (ERASURE_SCOPES as readonly string[]).includes(scope);
}

/** The marker of a person by name within one company: sha256 of the company id and the normalized name. */
export function personHash(companyId: string, fullName: string): string {
  return createHash('sha256')
    .update(`${companyId}\n${normalizePersonName(fullName)}`)
    .digest('hex');
}

export interface ErasureMarker {
  scope: ErasureScope;
  value: string;
}

/** The markers that identify a person: by e-mail (when known) and by name within the company. */
export function erasureMarkers(p: { companyId: string; fullName: string | null; email: string | null }): ErasureMarker[] {
  const markers: ErasureMarker[] = [];
  if (p.email) markers.push({ scope: 'email_hash', value: emailHash(p.email) });
  if (p.fullName && normalizePersonName(p.fullName)) markers.push({ scope: 'person_hash', value: personHash(p.companyId, p.fullName) });
  return markers;
}

/** How an audit row names a suppression value: its sha256 (as emailHash for addresses), never the value itself. */
export function suppressionValueHash(scope: string, value: string): string {
  return isErasureScope(scope) ? value : emailHash(value);
}
