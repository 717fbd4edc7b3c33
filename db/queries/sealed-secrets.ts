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
}

/**
 * Seals every value that another key sealed again with the current key, in batches of `batch` rows,
 * each batch one transaction as the owner with row security off (a role subject to it fails instead of
 * seeing no rows). A row changed meanwhile (its value is no longer the one read) is left to the change.
 */
export async function resealAll(ownerDb: DB, box: SecretBox, batch = 500): Promise<ResealCount[]> {
  const counts: ResealCount[] = [];
  for (const s of SEALED) {
    const count: ResealCount = { table: s.table, resealed: 0, current: 0, unreadable: 0 };
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const rows = await ownerDb.transaction().execute(async (tx) => {
        await sql`SET LOCAL row_security = off`.execute(tx);
        const { rows } = await sql<SealedRow>`
          SELECT id, organization_id, ${sql.ref(s.column)} AS sealed, ${s.table === 'sources' ? sql`config->>'url'` : sql`NULL`} AS url
          FROM ${sql.table(s.table)}
          WHERE ${sql.ref(s.column)} IS NOT NULL AND id > ${after}
          ORDER BY id LIMIT ${batch}
          FOR UPDATE`.execute(tx);
        for (const r of rows) {
          if (!box.needsReseal(r.sealed)) {
            count.current++;
            continue;
          }
          let plain: string;
          try {
            plain = box.open(r.sealed, s.context(r));
          } catch {
            count.unreadable++;
            continue;
          }
          await sql`UPDATE ${sql.table(s.table)} SET ${sql.ref(s.column)} = ${box.seal(plain, s.context(r))}
            WHERE id = ${r.id} AND ${sql.ref(s.column)} = ${r.sealed}`.execute(tx);
          count.resealed++;
        }
        return rows;
      });
      if (rows.length < batch) break;
      after = rows[rows.length - 1]!.id;
    }
    counts.push(count);
  }
  return counts;
}
