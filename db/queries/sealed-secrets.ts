import { sql } from 'kysely';
import type { DB } from '../pool';
import { mailboxSecretContext, secretContext, sourceSecretContext, SecretBox, webhookSecretContext } from '../secrets';

/**
 * Every sealed column, with the context its values were sealed under (db/secrets.ts): the one list
 * `npm run secrets:reseal` walks.
 */
const SEALED = [
  { table: 'integrations', column: 'secret_ciphertext', context: (r: SealedRow) => secretContext(r.organization_id, r.id) },
  { table: 'mailboxes', column: 'secret_ciphertext', context: (r: SealedRow) => mailboxSecretContext(r.organization_id, r.id) },
  { table: 'sources', column: 'secret_headers', context: (r: SealedRow) => sourceSecretContext(r.organization_id, r.id, r.url ?? '') },
  // A webhook endpoint's signing secret, and the previous one while it still signs after a rotation.
  { table: 'webhook_endpoints', column: 'secret_ciphertext', context: (r: SealedRow) => webhookSecretContext(r.organization_id, r.id) },
  { table: 'webhook_endpoints', column: 'previous_secret_ciphertext', context: (r: SealedRow) => webhookSecretContext(r.organization_id, r.id) },
] as const;

interface SealedRow {
  id: string;
  organization_id: string;
  sealed: Buffer;
  url: string | null;
}

export interface ResealCount {
  table: string;
  resealed: number;
  current: number;
  /** Values no configured key opens (or sealed for another origin): left as they are. */
  unreadable: number;
  /** Values written meanwhile by someone else (perhaps still under the old key): a second run reads them again. */
  changed: number;
}

/**
 * Seals every value that another key sealed again with the current key. Rows are read in batches of
 * `batch` and each value is written back in a transaction of its own, only if it is still the value read
 * (a row changed meanwhile is left to the change). One row lock at a time: the running service's
 * transactions that lock several mailboxes (pool bookings) can never deadlock with this.
 * Row security is off in each transaction (as the owner): a role subject to it fails instead of seeing no rows.
 */
export async function resealAll(ownerDb: DB, box: SecretBox, batch = 500): Promise<ResealCount[]> {
  const counts: ResealCount[] = [];
  for (const s of SEALED) {
    const count: ResealCount = { table: s.table, resealed: 0, current: 0, unreadable: 0, changed: 0 };
    for await (const rows of sealedRows(ownerDb, s, batch)) {
      for (const r of rows) {
        let plain: string;
        try {
          if (!box.needsReseal(r.sealed)) {
            count.current++;
            continue;
          }
          plain = box.open(r.sealed, s.context(r));
        } catch {
          // No configured key opens it, or it is no sealed value at all (an unknown layout).
          count.unreadable++;
          continue;
        }
        const resealed = box.seal(plain, s.context(r));
        const updated = await ownerDb.transaction().execute(async (tx) => {
          await sql`SET LOCAL row_security = off`.execute(tx);
          const res = await sql`UPDATE ${sql.table(s.table)} SET ${sql.ref(s.column)} = ${resealed}
            WHERE id = ${r.id} AND ${sql.ref(s.column)} = ${r.sealed}`.execute(tx);
          return Number(res.numAffectedRows ?? 0);
        });
        if (updated === 1) count.resealed++;
        else count.changed++;
      }
    }
    counts.push(count);
  }
  return counts;
}

/**
 * The values still sealed with a configured key other than the current one, per sealed column, read afresh: a
 * pass of resealAll cannot see a row written behind it (a new id below its place, or a row it had
 * passed, sealed again by a process still on the old key), so the old key may go only when this finds none.
 */
export async function valuesUnderOldKeys(ownerDb: DB, box: SecretBox, batch = 500): Promise<Array<{ table: string; column: string; count: number }>> {
  const left: Array<{ table: string; column: string; count: number }> = [];
  for (const s of SEALED) {
    let count = 0;
    for await (const rows of sealedRows(ownerDb, s, batch)) {
      for (const r of rows) {
        try {
          // Opened, so under a configured old key: one no key opens is resealAll's unreadable, not counted here.
          if (box.needsReseal(r.sealed) && box.open(r.sealed, s.context(r)) !== undefined) count++;
        } catch {
          // No configured key opens it, or an unknown layout: resealAll counts it as unreadable.
        }
      }
    }
    left.push({ table: s.table, column: s.column, count });
  }
  return left;
}

/** A sealed column's non-empty values in batches, in id order, each batch read as the owner with row security off. */
async function* sealedRows(ownerDb: DB, s: (typeof SEALED)[number], batch: number): AsyncGenerator<SealedRow[]> {
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows = await ownerDb.transaction().execute(async (tx) => {
      await sql`SET LOCAL row_security = off`.execute(tx);
      const { rows } = await sql<SealedRow>`
        SELECT id, organization_id, ${sql.ref(s.column)} AS sealed, ${s.table === 'sources' ? sql`config->>'url'` : sql`NULL`} AS url
        FROM ${sql.table(s.table)}
        WHERE ${sql.ref(s.column)} IS NOT NULL AND id > ${after}
        ORDER BY id LIMIT ${batch}`.execute(tx);
      return rows;
    });
    if (rows.length) yield rows;
    if (rows.length < batch) return;
    after = rows[rows.length - 1]!.id;
  }
}
