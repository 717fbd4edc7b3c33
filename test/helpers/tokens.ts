import { randomUUID } from 'node:crypto';
import { JWK } from 'jose';
import { signDevToken } from '../../scripts/lib/dev-identity';

export function testEnv(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run the tests through jest (test/setup/global-setup.ts)`);
  return v;
}

export const privateJwk = (): JWK => JSON.parse(testEnv('TEST_PRIVATE_JWK'));

/** A valid token for the user, signed by the run's JWKS issuer. */
export function tokenFor(userId: string, expiresIn = '10m'): Promise<string> {
  return signDevToken({ privateJwk: privateJwk(), issuer: testEnv('TEST_ISSUER'), audience: testEnv('TEST_AUDIENCE'), userId, expiresIn });
}

export interface TestUser {
  id: string;
  token: string;
}

export async function newUser(): Promise<TestUser> {
  const id = randomUUID();
  return { id, token: await tokenFor(id) };
}
