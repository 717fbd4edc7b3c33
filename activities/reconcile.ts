import { stuckSignalIds, unfinishedSignals } from '../db/queries/pipeline';
import { asOrganization } from '../db/tenancy';
import type { DB } from '../db/pool';

export interface StuckSignal {
  organizationId: string;
  sourceId: string;
  signalId: string;
  status: string;
}

/** The scheduled reconcile's activity: which signals were left unfinished, in every organization. */
export function createReconcileActivities(deps: { db: DB }) {
  return {
    async findStuckSignals(input: { stuckAfterSeconds: number; limit: number }): Promise<StuckSignal[]> {
      const ids = await stuckSignalIds(deps.db, input.stuckAfterSeconds, input.limit);
      const byOrganization = new Map<string, string[]>();
      for (const r of ids) byOrganization.set(r.organization_id, [...(byOrganization.get(r.organization_id) ?? []), r.signal_id]);
      const stuck: StuckSignal[] = [];
      // Each organization's signals are read as that organization, under row-level security.
      for (const [organizationId, signalIds] of byOrganization) {
        const rows = await asOrganization(deps.db, organizationId, (tx) => unfinishedSignals(tx, signalIds));
        for (const r of rows) stuck.push({ organizationId: r.organization_id, sourceId: r.source_id, signalId: r.id, status: r.status });
      }
      return stuck;
    },
  };
}
