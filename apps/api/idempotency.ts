import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { sql } from 'kysely';
import type { DB } from '../../db/pool';
import { asUser } from '../../db/tenancy';
import { sendProblem } from './errors';

/**
 * Idempotent POSTs (issue 17): a POST with `Idempotency-Key` (1..255 visible ASCII characters) has
 * its first answer (status, type and body) kept for 24 hours per (caller, key) in PostgreSQL, so every
 * API process sees it. A repeat with the same method, path (with its query) and body gets that answer
 * again with `Idempotent-Replayed: true`; another request under the same key is 422
 * IDEMPOTENCY_KEY_REUSED; a repeat while the first still runs is 409 IDEMPOTENCY_IN_PROGRESS. A first
 * answer of 5xx is not kept (the key is free again), so a retry after a failure runs.
 *
 * The claim is an INSERT ... ON CONFLICT DO NOTHING on the (user_id, key) primary key, so two
 * concurrent first requests cannot both run. A claim left `running` by a process that died is taken
 * over after STALE_RUNNING_SECONDS. The answer is stored before it is sent.
 *
 * The body compared is the parsed JSON (idempotentPosts, after the JSON body rule), or for the POSTs
 * whose body is not JSON (POST /mailboxes/{id}/inbound, message/rfc822; POST /imports, text/csv) the
 * raw bytes (idempotentRawPosts, after the body is read into req.body as a Buffer: withRawBody).
 */
const KEY = /^[\x21-\x7e]{1,255}$/;
const STALE_RUNNING_SECONDS = 300;

export function idempotentPosts(db: DB): RequestHandler {
  return idempotent(db, (req) => createHash('sha256').update(JSON.stringify(req.body ?? null)).digest());
}

/** The same for a raw body: req.body is the Buffer of the bytes received (hashed as they are). */
export function idempotentRawPosts(db: DB): RequestHandler {
  return idempotent(db, (req) => createHash('sha256').update(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0)).digest());
}

/**
 * Reads the whole body with `parser` (express.raw with its type and limit) only when the POST carries
 * an Idempotency-Key: its hash is compared before anything runs. Without the header the route reads
 * the body as it does (a CSV import streams).
 */
export function withRawBody(parser: RequestHandler): RequestHandler {
  return (req, res, next) => (req.method === 'POST' && req.headers['idempotency-key'] !== undefined ? parser(req, res, next) : next());
}

function idempotent(db: DB, hashOf: (req: Request) => Buffer): RequestHandler {
  return async (req, res, next) => {
    if (req.method !== 'POST') return next();
    const header = req.headers['idempotency-key'];
    if (header === undefined) return next();
    if (typeof header !== 'string' || !KEY.test(header)) {
      return sendProblem(res, 'VALIDATION_FAILED', 'The request has invalid fields', {
        errors: [{ path: 'headers.Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters' }],
      });
    }
    const userId = req.user?.userId;
    if (!userId) return next();
    const key = header;
    const path = req.originalUrl;
    const bodyHash = hashOf(req);

    const existing = await asUser(db, userId, async (tx) => {
      await tx
        .deleteFrom('idempotency_keys')
        .where('user_id', '=', userId)
        .where('key', '=', key)
        .where((eb) => eb.or([eb('expires_at', '<', sql<Date>`now()`), eb.and([eb('status', '=', 'running'), eb('created_at', '<', sql<Date>`now() - make_interval(secs => ${STALE_RUNNING_SECONDS})`)])]))
        .execute();
      const claimed = await tx
        .insertInto('idempotency_keys')
        .values({ user_id: userId, key, method: req.method, path, body_hash: bodyHash })
        .onConflict((oc) => oc.columns(['user_id', 'key']).doNothing())
        .returning('key')
        .executeTakeFirst();
      if (claimed) return null;
      return tx.selectFrom('idempotency_keys').selectAll().where('user_id', '=', userId).where('key', '=', key).executeTakeFirstOrThrow();
    });

    if (existing) {
      if (existing.method !== req.method || existing.path !== path || !existing.body_hash.equals(bodyHash)) {
        return sendProblem(res, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used for another request (method, path or body) within 24 hours');
      }
      if (existing.status !== 'done') return sendProblem(res, 'IDEMPOTENCY_IN_PROGRESS', 'A request with this Idempotency-Key is still running; try again when it has answered');
      res.setHeader('Idempotent-Replayed', 'true');
      if (existing.response_type) res.setHeader('Content-Type', existing.response_type);
      res.status(existing.response_status!);
      return res.end(existing.response_body ?? undefined);
    }

    keepAnswer(res, async (status, type, body) => {
      await asUser(db, userId, async (tx) => {
        const q = tx.updateTable('idempotency_keys').set({ status: 'done', response_status: status, response_type: type, response_body: body });
        if (status >= 500) await tx.deleteFrom('idempotency_keys').where('user_id', '=', userId).where('key', '=', key).execute();
        else await q.where('user_id', '=', userId).where('key', '=', key).execute();
      });
    });
    next();
  };
}

/** Calls store with the answer before it goes out (res.send and res.json end in res.end with the whole body). */
function keepAnswer(res: Response, store: (status: number, type: string | null, body: string | null) => Promise<void>): void {
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  let done = false;
  (res as unknown as { end: (...args: unknown[]) => Response }).end = (...args: unknown[]) => {
    if (done) return end(...args);
    done = true;
    const chunk = args[0];
    const body = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : null;
    const type = res.getHeader('content-type');
    store(res.statusCode, typeof type === 'string' ? type : null, body)
      .catch((err) => res.req.log?.error({ err }, 'the idempotent answer could not be kept'))
      .finally(() => end(...args));
    return res;
  };
}
