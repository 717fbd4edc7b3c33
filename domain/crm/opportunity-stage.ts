/**
 * A won or lost outcome in the CRM: the stage the linked Salesforce Opportunity
 * moves to. Pure: the integration's mapping in, a decision out.
 */
export const SALESFORCE_DEFAULT_STAGES = { won: 'Closed Won', lost: 'Closed Lost' } as const;

export interface OutcomeMapping {
  opportunities?: Record<string, string>;
  stages?: { won?: string; lost?: string };
}

/** The Salesforce Opportunity the mapping links this opportunity to, else null. */
export function linkedCrmOpportunity(mapping: unknown, opportunityId: string): string | null {
  const links = (mapping as OutcomeMapping | null)?.opportunities;
  if (!links || typeof links !== 'object') return null;
  // Our ids are UUIDs, which PostgreSQL answers in lower case; a mapping written by hand may use upper case.
  const id = opportunityId.toLowerCase();
  const key = Object.keys(links).find((k) => k.toLowerCase() === id);
  const linked = key === undefined ? undefined : links[key];
  return typeof linked === 'string' && linked ? linked : null;
}

/** The StageName of an outcome (the mapping's names, else Salesforce's standard closed stages); null for `open` (nothing to set). */
export function salesforceStageFor(outcome: string, mapping: unknown): string | null {
  if (outcome !== 'won' && outcome !== 'lost') return null;
  return (mapping as OutcomeMapping | null)?.stages?.[outcome] ?? SALESFORCE_DEFAULT_STAGES[outcome];
}

/**
 * Whether an opportunity's won or lost outcome goes to the CRM: the organization's CRM integration is
 * Salesforce, has config.autoSync, and its mapping links the opportunity. The outcome route and
 * reconcile/outreach decide with this (the sync activity checks the same again when it runs).
 */
export function outcomeSyncsToCrm(crm: { provider_key: string; config: unknown; mapping: unknown } | null | undefined, opportunityId: string): boolean {
  return (
    crm?.provider_key === 'salesforce' &&
    (crm.config as { autoSync?: boolean } | null)?.autoSync === true &&
    linkedCrmOpportunity(crm.mapping, opportunityId) !== null
  );
}
