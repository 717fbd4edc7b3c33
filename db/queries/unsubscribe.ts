import { sql } from 'kysely';
import type { DB } from '../pool';

export interface UnsubscribeResult {
  organizationId: string;
  /** False on a repeat (or when the address was already suppressed). */
  suppressionCreated: boolean;
  skippedMessageIds: string[];
  /** Enrollments stopped now: their sequence workflows (`enrollment/<id>`) should be told to stop. */
  stoppedEnrollmentIds: string[];
}

/**
 * The one-click unsubscribe of one outbound message, through app.unsubscribe_message (migration
 * 0008_unsubscribe): the request has no user, so the function (SECURITY DEFINER, the API role only)
 * finds the message in any organization and acts within that organization alone. Null for an
 * unknown message.
 */
export async function unsubscribeMessage(db: DB, messageId: string): Promise<UnsubscribeResult | null> {
  const { rows } = await sql<{ organization_id: string; suppression_created: boolean; skipped_message_ids: string[]; stopped_enrollment_ids: string[] }>`
    SELECT organization_id, suppression_created, skipped_message_ids, stopped_enrollment_ids FROM app.unsubscribe_message(${messageId}::uuid)`.execute(db);
  const row = rows[0];
  if (!row) return null;
  return {
    organizationId: row.organization_id,
    suppressionCreated: row.suppression_created,
    skippedMessageIds: row.skipped_message_ids,
    stoppedEnrollmentIds: row.stopped_enrollment_ids,
  };
}
