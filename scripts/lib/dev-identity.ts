import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { exportJWK, generateKeyPair, importJWK, JWK, SignJWT } from 'jose';

/**
 * The development identity provider: an ES256 key kept under DATA_DIR/dev-identity, its JWKS served
 * over HTTP, and tokens signed with it. The API knows nothing of it: it verifies these tokens
 * through AUTH_JWKS_URL exactly as it would an external OIDC issuer's.
 */
export const DEV_AUDIENCE = 'outreach-api';

export interface DevIdentity {
  issuer: string;
  jwksUrl: string;
  publicJwk: JWK;
  privateJwk: JWK;
}

export async function loadOrCreateDevKey(dir: string): Promise<{ publicJwk: JWK; privateJwk: JWK }> {
  const file = path.join(dir, 'signing-key.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  mkdirSync(dir, { recursive: true });
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const kid = `dev-${Date.now().toString(36)}`;
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'ES256', use: 'sig' };
  writeFileSync(file, JSON.stringify({ publicJwk, privateJwk }, null, 2), { mode: 0o600 });
  return { publicJwk, privateJwk };
}

export function devIssuer(port: number): string {
  return `http://127.0.0.1:${port}`;
}

/** Serves {issuer}/.well-known/jwks.json for the given public keys. */
export function serveJwks(port: number, keys: JWK[]): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    if (req.url === '/.well-known/jwks.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys }));
      return;
    }
    res.writeHead(404).end();
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

export async function signDevToken(opts: {
  privateJwk: JWK;
  issuer: string;
  audience?: string;
  userId: string;
  expiresIn?: string;
  email?: string;
}): Promise<string> {
  const key = await importJWK(opts.privateJwk, 'ES256');
  return new SignJWT(opts.email ? { email: opts.email } : {})
    .setProtectedHeader({ alg: 'ES256', kid: opts.privateJwk.kid })
    .setIssuer(opts.issuer)
    .setAudience(opts.audience ?? DEV_AUDIENCE)
    .setSubject(opts.userId)
    .setIssuedAt()
    .setExpirationTime(opts.expiresIn ?? '12h')
    .sign(key);
}
