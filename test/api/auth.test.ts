import { randomUUID } from 'node:crypto';
import { generateKeyPair, importJWK, SignJWT, UnsecuredJWT } from 'jose';
import { createTokenVerifier, userIdFor } from '../../apps/api/auth';
import { loadAuthConfig, loadConfig } from '../../apps/shared/config';
import { expectProblem } from '../helpers/api';
import { privateJwk, testEnv, tokenFor } from '../helpers/tokens';
import { useStack } from '../helpers/stack';

type SigningKey = Parameters<SignJWT['sign']>[0];

const { api } = useStack({ api: true });
afterAll(() => api.close());

async function sign(claims: Record<string, unknown>, opts: { alg?: string; key?: SigningKey; kid?: string } = {}) {
  const key = opts.key ?? ((await importJWK(privateJwk(), 'ES256')) as SigningKey);
  return new SignJWT(claims).setProtectedHeader({ alg: opts.alg ?? 'ES256', kid: opts.kid ?? privateJwk().kid }).sign(key);
}

const now = () => Math.floor(Date.now() / 1000);
const good = () => ({ iss: testEnv('TEST_ISSUER'), aud: testEnv('TEST_AUDIENCE'), sub: randomUUID(), iat: now(), exp: now() + 600 });

async function expect401(authorization: string | undefined) {
  const res = await api.call('GET', '/organizations', { headers: authorization === undefined ? {} : { authorization } });
  expectProblem(res, 401, 'UNAUTHENTICATED');
  expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
  return res;
}

test('a valid token passes', async () => {
  const res = await api.call('GET', '/organizations', { token: await tokenFor(randomUUID()) });
  expect(res.status).toBe(200);
  expect(res.body).toEqual([]);
});

test('a missing token is 401', async () => {
  await expect401(undefined);
});

test('a header that is not a bearer token is 401', async () => {
  await expect401('Basic dXNlcjpwYXNz');
  await expect401('Bearer');
});

test('a malformed token is 401', async () => {
  const res = await expect401('Bearer not.a.jwt');
  expect(res.body.detail).toMatch(/malformed|verified/);
});

test('an expired token is 401', async () => {
  const res = await expect401(`Bearer ${await sign({ ...good(), iat: now() - 7200, exp: now() - 3600 })}`);
  expect(res.body.detail).toBe('The token has expired');
});

test('a token for another audience is 401', async () => {
  const res = await expect401(`Bearer ${await sign({ ...good(), aud: 'someone-else' })}`);
  expect(res.body.detail).toContain('aud');
});

test('a token from another issuer is 401', async () => {
  const res = await expect401(`Bearer ${await sign({ ...good(), iss: 'https://evil.example' })}`);
  expect(res.body.detail).toContain('iss');
});

test('an unsigned token (alg: none) is 401', async () => {
  await expect401(`Bearer ${new UnsecuredJWT(good()).encode()}`);
});

test('a token signed by an unknown key is 401', async () => {
  const { privateKey } = await generateKeyPair('ES256');
  await expect401(`Bearer ${await sign(good(), { key: privateKey })}`);
  // Same kid as the real key, different key material: the signature check fails.
  const other = await generateKeyPair('ES256', { extractable: true });
  await expect401(`Bearer ${await sign(good(), { key: other.privateKey, kid: privateJwk().kid })}`);
});

test('an HMAC token made with the public key as secret (algorithm confusion) is 401', async () => {
  const { x, y } = privateJwk();
  const secret = new TextEncoder().encode(JSON.stringify({ x, y }));
  await expect401(`Bearer ${await sign(good(), { alg: 'HS256', key: secret })}`);
});

test('a token without a subject is 401', async () => {
  const { sub: _sub, ...claims } = good();
  await expect401(`Bearer ${await sign(claims)}`);
});

test('roles come from memberships, never from the token', async () => {
  const user = randomUUID();
  const token = await sign({ ...good(), sub: user, role: 'owner', app_metadata: { role: 'owner' } });
  const org = await api.call('POST', '/organizations', { token: await tokenFor(randomUUID()), body: { name: 'Not yours' } });
  const res = await api.call('GET', `/organizations/${org.body.id}`, { token });
  expectProblem(res, 404, 'NOT_FOUND');
});

describe('HS256 shared secret (Supabase-style)', () => {
  const secret = 'a-shared-secret-of-at-least-32-characters!!';
  const verify = createTokenVerifier({
    mode: 'hs256',
    hs256Secret: secret,
    issuer: 'https://proj.supabase.co/auth/v1',
    audience: 'authenticated',
    algorithms: ['HS256'],
    clockToleranceSeconds: 5,
  });
  const hs = (claims: Record<string, unknown>, key = secret) => new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(key));
  const claims = () => ({ iss: 'https://proj.supabase.co/auth/v1', aud: 'authenticated', sub: randomUUID(), exp: now() + 60 });

  test('accepts a token signed with the secret', async () => {
    const c = claims();
    await expect(verify(await hs(c))).resolves.toMatchObject({ sub: c.sub });
  });
  test('rejects a token signed with another secret, and an expired one', async () => {
    await expect(verify(await hs(claims(), 'another-secret-that-is-long-enough-to-use'))).rejects.toThrow();
    await expect(verify(await hs({ ...claims(), exp: now() - 60 }))).rejects.toThrow();
  });
  test('rejects an asymmetric token in HMAC mode', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const t = await new SignJWT(claims()).setProtectedHeader({ alg: 'ES256' }).sign(privateKey);
    await expect(verify(t)).rejects.toThrow();
  });
});

describe('configuration', () => {
  const base = { AUTH_ISSUER: 'https://idp.example', AUTH_AUDIENCE: 'api' };
  test('refuses alg none, HMAC in JWKS mode, and a missing issuer', () => {
    expect(() => loadAuthConfig(loadConfig({ ...base, AUTH_JWKS_URL: 'https://idp.example/jwks', AUTH_ALGORITHMS: 'none' }))).toThrow(/none/);
    expect(() => loadAuthConfig(loadConfig({ ...base, AUTH_JWKS_URL: 'https://idp.example/jwks', AUTH_ALGORITHMS: 'HS256' }))).toThrow(/HMAC/);
    expect(() => loadAuthConfig(loadConfig({ AUTH_JWKS_URL: 'https://idp.example/jwks' }))).toThrow(/AUTH_ISSUER/);
    expect(() => loadAuthConfig(loadConfig({ ...base, AUTH_MODE: 'hs256', AUTH_HS256_SECRET: 'short' }))).toThrow(/AUTH_HS256_SECRET/);
  });
  test('defaults to RS256/ES256 for JWKS and HS256 for a secret', () => {
    expect(loadAuthConfig(loadConfig({ ...base, AUTH_JWKS_URL: 'https://idp.example/jwks' })).algorithms).toEqual(['RS256', 'ES256']);
    expect(loadAuthConfig(loadConfig({ ...base, AUTH_MODE: 'hs256', AUTH_HS256_SECRET: 'x'.repeat(32) })).algorithms).toEqual(['HS256']);
  });
});

test('a non-UUID subject maps to a stable UUID per issuer', () => {
  const a = userIdFor('https://idp.example', 'auth0|12345');
  expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(userIdFor('https://idp.example', 'auth0|12345')).toBe(a);
  expect(userIdFor('https://other.example', 'auth0|12345')).not.toBe(a);
  const id = randomUUID();
  expect(userIdFor('https://idp.example', id.toUpperCase())).toBe(id);
});

test('the Bearer scheme is matched case-insensitively (RFC 7235)', async () => {
  const token = await tokenFor(randomUUID());
  for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
    const res = await api.call('GET', '/organizations', { headers: { authorization: `${scheme} ${token}` } });
    expect({ scheme, status: res.status }).toEqual({ scheme, status: 200 });
  }
  await expect401(`Bearerx ${token}`);
});
