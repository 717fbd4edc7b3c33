/**
 * Compliance queries, one file per concern: suppressions, lawful basis, the gate, erasure and
 * retention, settings and their audit log. The decisions themselves are pure, in domain/compliance.
 */
export { addSuppression, findSuppressions, getSuppression, listSuppressions, removeSuppression, SUPPRESSION_COLUMNS } from './suppressions';
export { ContactErasedError, currentLawfulBasis, LAWFUL_BASIS_COLUMNS, recordLawfulBasis } from './lawful-basis';
export { complianceGate, complianceGates, type GateResult } from './gate';
export { eraseContact, staleContactIds, wasErased } from './erasure';
export { changeComplianceSettings, complianceSettings, listAudit, SETTINGS_COLUMNS, type SettingsPatch } from './settings';
