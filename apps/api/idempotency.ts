import { createHash, createHmac, hkdfSync } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { sql } from 'kysely';
import type { DB } from '../../db/pool';
import type { SecretBox } from '../../db/secrets';
import { asUser } from '../../db/tenancy';
import { sendProblem } from './errors';

/**
 * Idempotent POSTs: a POST with `Idempotency-Key` (1..255 visible ASCII characters) has
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
 *
 * Nothing kept is in clear. The body's fingerprint is an HMAC-SHA256 under a key derived from
 * INTEGRATION_SECRET_KEY (a body that holds a password cannot be guessed from it offline); the answer
 * is sealed with the SecretBox, bound to the caller and the key. Without a SecretBox the fingerprint is
 * a plain SHA-256 and an answer that carries a secret (an API key, a signing secret: markSecretAnswer)
 * is not kept at all, as a 5xx is not. Expired records are deleted by the workers' sweep
 * (app.purge_idempotency_keys).
 */
const KEY = /^[\x21-\x7e]{1,255}$/;
const STALE_RUNNING_SECONDS = 300;

const boxes = new WeakMap<DB, SecretBox>();

/** The SecretBox that seals the answers kept for requests served through `db` (createApp sets it once). */
export function sealIdempotentAnswersWith(db: DB, secrets: SecretBox | null): void {
  if (secrets) boxes.set(db, secrets);
  else boxes.delete(db);
}

/** An answer that carries a secret (`key`, `secret`): kept sealed, or not at all without a SecretBox. */
export function markSecretAnswer(res: Response): void {
  res.locals.answerHoldsSecret = true;
}

const FINGERPRINT_INFO = 'outreach idempotency body fingerprint v1';
const fingerprintKeys = new WeakMap<SecretBox, Buffer[]>();

/** The fingerprints a body may have been kept under: the current key's first, then the previous keys'. */
function fingerprints(db: DB, data: Buffer): Buffer[] {
  const box = boxes.get(db);
  if (!box) return [createHash('sha256').update(data).digest()];
  let keys = fingerprintKeys.get(box);
  if (!keys) {
    keys = box.keyMaterial().map((k) => Buffer.from(hkdfSync('sha256', k, Buffer.alloc(0), FINGERPRINT_INFO, 32)));
    fingerprintKeys.set(box, keys);
  }
  return keys.map((k) => createHmac('sha256', k).update(data).digest());
}

/** The fingerprint a JSON body is kept under now (the tests' hand-made claims). */
export function jsonBodyFingerprint(db: DB, body: unknown): Buffer {
  return fingerprints(db, Buffer.from(JSON.stringify(body ?? null)))[0]!;
}

export function idempotentPosts(db: DB): RequestHandler {
  return idempotent(db, (req) => Buffer.from(JSON.stringify(req.body ?? null)));
}

/** The same for a raw body: req.body is the Buffer of the bytes received (fingerprinted as they are). */
export function idempotentRawPosts(db: DB): RequestHandler {
  return idempotent(db, (req) => (Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0)));
}

const answerContext = (userId: string, key: string) => `idempotency:${userId}:${key}`;

/**
 * Reads the whole body with `parser` (express.raw with its type and limit) only when the POST carries
 * an Idempotency-Key: its hash is compared before anything runs. Without the header the route reads
 * the body as it does (a CSV import streams).
 */
export function withRawBody(parser: RequestHandler): RequestHandler {
  return (req, res, next) => (req.method === 'POST' && req.headers['idempotency-key'] !== undefined ? parser(req, res, next) : next());
}

function idempotent(db: DB, bodyOf: (req: Request) => Buffer): RequestHandler {
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
    const [bodyHash, ...previousHashes] = fingerprints(db, bodyOf(req));

    const existing = await asUser(db, userId, async (tx) => {
      await tx
        .deleteFrom('idempotency_keys')
        .where('user_id', '=', userId)
        .where('key', '=', key)
        .where((eb) =>
          eb.or([
            eb('expires_at', '<', sql<Date>`now()`),
            eb.and([eb('status', '=', 'running'), eb('created_at', '<', sql<Date>`now() - make_interval(secs => ${STALE_RUNNING_SECONDS})`)]),
          ]),
        )
        .execute();
      const claimed = await tx
        .insertInto('idempotency_keys')
        .values({ user_id: userId, key, method: req.method, path, body_hash: bodyHash! })
        .onConflict((oc) => oc.columns(['user_id', 'key']).doNothing())
        .returning('key')
        .executeTakeFirst();
      if (claimed) return null;
      return tx.selectFrom('idempotency_keys').selectAll().where('user_id', '=', userId).where('key', '=', key).executeTakeFirstOrThrow();
    });

    if (existing) {
      if (existing.method !== req.method || existing.path !== path || ![bodyHash!, ...previousHashes].some((h) => existing.body_hash.equals(h))) {
        return sendProblem(res, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used for another request (method, path or body) within 24 hours');
      }
      if (existing.status !== 'done')
        return sendProblem(res, 'IDEMPOTENCY_IN_PROGRESS', 'A request with this Idempotency-Key is still running; try again when it has answered');
      let body = existing.response_body;
      if (existing.response_sealed) {
        const box = boxes.get(db);
        try {
          if (!box) throw new Error('no SecretBox');
          body = box.open(existing.response_sealed, answerContext(userId, key));
        } catch {
          return sendProblem(
            res,
            'IDEMPOTENCY_KEY_REUSED',
            'The first answer under this Idempotency-Key cannot be read back (the secret key changed); use a new key',
          );
        }
      }
      res.setHeader('Idempotent-Replayed', 'true');
      if (existing.response_type) res.setHeader('Content-Type', existing.response_type);
      res.status(existing.response_status!);
      return res.end(body ?? undefined);
    }

    keepAnswer(res, async (status, type, body) => {
      const box = boxes.get(db);
      // A 5xx is not kept (the key is free again), nor an answer with a secret that cannot be sealed.
      const keep = status < 500 && (box !== undefined || !res.locals.answerHoldsSecret);
      await asUser(db, userId, async (tx) => {
        if (!keep) {
          await tx.deleteFrom('idempotency_keys').where('user_id', '=', userId).where('key', '=', key).execute();
          return;
        }
        const sealed = box && body !== null ? box.seal(body, answerContext(userId, key)) : null;
        await tx
          .updateTable('idempotency_keys')
          .set({ status: 'done', response_status: status, response_type: type, response_body: box ? null : body, response_sealed: sealed })
          .where('user_id', '=', userId)
          .where('key', '=', key)
          .execute();
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
