import { createHash, randomBytes } from 'node:crypto';
import type { RequestHandler } from 'express';
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, JWTVerifyGetKey } from 'jose';
import type { AuthConfig } from '../shared/config';
import { sendProblem } from './errors';
import { cacheVerifiedTokens, type TokenVerifier } from './token-cache';

/**
 * Bearer JWT verification with jose: a JWKS URL (any OIDC issuer) or an HS256 shared secret
 * (Supabase-style). Issuer, audience, expiry and the algorithm allowlist are always checked, so
 * `alg: none` and tokens signed for someone else never pass. Roles are not read from the token:
 * they come from memberships in the database.
 */
export interface AuthenticatedUser {
  userId: string;
  subject: string;
  email?: string;
  /** Set when the caller is an API key: its id is the user id of its membership (migration 0019). */
  apiKey?: ApiKeyIdentity;
}

export interface ApiKeyIdentity {
  keyId: string;
  organizationId: string;
  role: string;
}

/** Looks up a live key by its SHA-256 (app.api_key_identity), or null. */
export type ApiKeyLookup = (keyHash: Buffer) => Promise<ApiKeyIdentity | null>;

/** API keys: `osk_` and 43 base64url characters (32 random bytes); stored as SHA-256 only. */
export const API_KEY = /^osk_[A-Za-z0-9_-]{43}$/;
export const hashApiKey = (key: string): Buffer => createHash('sha256').update(key).digest();

/** A new key: the secret (answered once), the prefix shown in lists, and the hash that is stored. */
export function newApiKey(): { key: string; prefix: string; keyHash: Buffer } {
  const key = `osk_${randomBytes(32).toString('base64url')}`;
  return { key, prefix: key.slice(0, 12), keyHash: hashApiKey(key) };
}

declare module 'express-serve-static-core' {
  interface Request {
    user?: AuthenticatedUser;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// A fixed namespace for users whose issuer does not use UUID subjects.
const USER_NAMESPACE = '6d3f9a52-4f1e-4c36-9a7e-2b8f0e1c5a47';

/** The user id is the subject when it is a UUID (Supabase and many IdPs), else a UUIDv5 of issuer and subject. */
export function userIdFor(issuer: string, subject: string): string {
  if (UUID.test(subject)) return subject.toLowerCase();
  const ns = Buffer.from(USER_NAMESPACE.replace(/-/g, ''), 'hex');
  const hash = createHash('sha1').update(ns).update(`${issuer}|${subject}`).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const h = hash.subarray(0, 16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export function createTokenVerifier(config: AuthConfig): TokenVerifier {
  const key: JWTVerifyGetKey | Uint8Array =
    config.mode === 'jwks'
      ? createRemoteJWKSet(new URL(config.jwksUrl!), { timeoutDuration: 5000, cooldownDuration: 30000 })
      : new TextEncoder().encode(config.hs256Secret!);
  return cacheVerifiedTokens(async (token) => {
    const { payload } = await jwtVerify(token, key as JWTVerifyGetKey, {
      issuer: config.issuer,
      audience: config.audience,
      algorithms: config.algorithms,
      clockTolerance: config.clockToleranceSeconds,
      requiredClaims: ['sub', 'exp'],
    });
    return payload;
  });
}

function reasonOf(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return 'The token has expired';
  if (err instanceof joseErrors.JWTClaimValidationFailed) return `The token's ${err.claim} claim is not accepted`;
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return "The token's algorithm is not allowed";
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return "The token's signature is not valid";
  if (err instanceof joseErrors.JWKSNoMatchingKey) return 'The token was not signed by a known key';
  if (err instanceof joseErrors.JWSInvalid || err instanceof joseErrors.JWTInvalid) return 'The token is malformed';
  return 'The token could not be verified';
}

export function authenticate(verify: TokenVerifier, issuer: string, lookupApiKey?: ApiKeyLookup): RequestHandler {
  return async (req, res, next) => {
    const header = req.headers.authorization;
    // RFC 7235: the scheme is case-insensitive ("bearer", "BEARER"); the token is token68.
    const match = header ? /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i.exec(header) : null;
    if (!match) {
      res.setHeader('WWW-Authenticate', header ? 'Bearer error="invalid_request"' : 'Bearer');
      return sendProblem(res, 'UNAUTHENTICATED', header ? 'The Authorization header is not a bearer token' : 'A bearer token is required');
    }
    if (match[1]!.startsWith('osk_') && lookupApiKey) {
      // An API key: acts as its own membership in its organization. A deleted key is refused at once.
      const key = API_KEY.test(match[1]!) ? await lookupApiKey(hashApiKey(match[1]!)) : null;
      if (!key) {
        res.setHeader('WWW-Authenticate', 'Bearer error="invalid_token", error_description="The API key is not valid"');
        return sendProblem(res, 'UNAUTHENTICATED', 'The API key is not valid');
      }
      req.user = { userId: key.keyId, subject: `api-key:${key.keyId}`, apiKey: key };
      req.log?.setBindings?.({ user_id: key.keyId, api_key_id: key.keyId });
      return next();
    }
    try {
      const payload = await verify(match[1]!);
      req.user = {
        userId: userIdFor(issuer, payload.sub!),
        subject: payload.sub!,
        email: typeof payload.email === 'string' ? payload.email : undefined,
      };
      req.log?.setBindings?.({ user_id: req.user.userId });
      return next();
    } catch (err) {
      const detail = reasonOf(err);
      if (!(err instanceof joseErrors.JOSEError)) req.log?.warn({ err }, 'token verification failed unexpectedly');
      res.setHeader('WWW-Authenticate', `Bearer error="invalid_token", error_description="${detail}"`);
      return sendProblem(res, 'UNAUTHENTICATED', detail);
    }
  };
}

/**
 * What a key may not do whatever its role: create organizations, manage members or keys. A key is
 * a machine client of one organization, never a way to mint more access. Put on the routes themselves
 * (organizations.ts, api-keys.ts), so it holds for every spelling of the path the router matches
 * (any case, a trailing slash): the route decides, not the path's text.
 */
export const refuseApiKey: RequestHandler = (req, res, next) => {
  if (req.user?.apiKey) return sendProblem(res, 'FORBIDDEN', 'An API key cannot create organizations, members or API keys');
  next();
};
