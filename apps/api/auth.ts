import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, JWTPayload, JWTVerifyGetKey } from 'jose';
import type { AuthConfig } from '../shared/config';
import { sendProblem } from './errors';
import { cacheVerifiedTokens } from './token-cache';

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

export type TokenVerifier = (token: string) => Promise<JWTPayload>;

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

export function authenticate(verify: TokenVerifier, issuer: string): RequestHandler {
  return async (req, res, next) => {
    const header = req.headers.authorization;
    // RFC 7235: the scheme is case-insensitive ("bearer", "BEARER"); the token is token68.
    const match = header ? /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i.exec(header) : null;
    if (!match) {
      res.setHeader('WWW-Authenticate', header ? 'Bearer error="invalid_request"' : 'Bearer');
      return sendProblem(res, 'UNAUTHENTICATED', header ? 'The Authorization header is not a bearer token' : 'A bearer token is required');
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
