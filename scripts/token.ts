/**
 * npm run token -- --user <uuid> [--expires 12h]
 * Prints a bearer token signed by the development identity provider of `npm run dev`.
 * Development only: production verifies tokens from a real issuer and has no signing key here.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { devIssuer, loadOrCreateDevKey, signDevToken } from './lib/dev-identity';
import { DEMO_USER_ID, DEV_IDENTITY_DIR, DEV_IDP_PORT } from './lib/dev-env';

async function main() {
  if (process.env.NODE_ENV === 'production') throw new Error('npm run token is for development only');
  const { values } = parseArgs({ options: { user: { type: 'string' }, expires: { type: 'string', default: '12h' } } });
  const user = values.user ?? DEMO_USER_ID;
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(user)) throw new Error('--user must be a UUID');
  if (!existsSync(path.join(DEV_IDENTITY_DIR, 'signing-key.json'))) {
    throw new Error('No development signing key yet: start the stack once with `npm run dev`');
  }
  const { privateJwk } = await loadOrCreateDevKey(DEV_IDENTITY_DIR);
  console.log(await signDevToken({ privateJwk, issuer: devIssuer(DEV_IDP_PORT), userId: user, expiresIn: values.expires }));
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
