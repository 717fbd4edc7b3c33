import { spawnSync } from 'node:child_process';
import { createCipheriv, randomBytes } from 'node:crypto';
import path from 'node:path';
import { Pool } from 'pg';
import { mailboxSecretContext, secretContext, SecretBox, webhookSecretContext } from '../db/secrets';
import { newOrganization, startApi, TestApi } from './helpers/api';
import { testEnv } from './helpers/tokens';

const ROOT = path.resolve(__dirname, '..');

test('every sealed value names its key; a previous key still opens its values, a key not configured is named, layout 1 values open too', () => {
  const [k1, k2] = [randomBytes(32).toString('hex'), randomBytes(32).toString('hex')];
  const old = new SecretBox(`k1:${k1}`);
  const sealed = old.seal('s3cret', 'ctx');
  expect(SecretBox.keyIdOf(sealed)).toBe('k1');

  const rotated = new SecretBox(`k2:${k2}`, `k1:${k1}`);
  expect(rotated.currentKeyId).toBe('k2');
  expect(rotated.open(sealed, 'ctx')).toBe('s3cret');
  expect(rotated.needsReseal(sealed)).toBe(true);
  const resealed = rotated.seal('s3cret', 'ctx');
  expect({ id: SecretBox.keyIdOf(resealed), needs: rotated.needsReseal(resealed) }).toEqual({ id: 'k2', needs: false });
  expect(() => new SecretBox(`k2:${k2}`).open(sealed, 'ctx')).toThrow(/key k1, which is not configured/);
  expect(() => rotated.open(sealed, 'another row')).toThrow(); // the context is still bound

  // Layout 1 (no key id), sealed before rotation existed: tried with every configured key.
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', Buffer.from(k1, 'hex'), iv);
  c.setAAD(Buffer.from('ctx'));
  const ct = Buffer.concat([c.update('legacy', 'utf8'), c.final()]);
  const legacy = Buffer.concat([Buffer.from([1]), iv, c.getAuthTag(), ct]);
  expect(SecretBox.keyIdOf(legacy)).toBeNull();
  expect(rotated.open(legacy, 'ctx')).toBe('legacy');
  expect(rotated.needsReseal(legacy)).toBe(true);

  // Without an id a key is named by its fingerprint; one id for two keys is refused.
  expect(new SecretBox(k1).currentKeyId).toMatch(/^[0-9a-f]{8}$/);
  expect(() => new SecretBox(`a:${k1}`, `a:${k2}`)).toThrow(/key id a names two different keys/);
});

describe('npm run secrets:reseal', () => {
  let api: TestApi;
  let owners: Pool;
  beforeAll(async () => {
    api = await startApi();
    owners = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 1 });
  });
  afterAll(async () => {
    await owners.end();
    await api.close();
  });

  const reseal = (env: Record<string, string>) => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/reseal-secrets.ts')], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, DATABASE_URL: testEnv('TEST_OWNER_DB_URL'), LOG_LEVEL: 'silent', ...env },
    });
    return { status: r.status, out: r.stdout + r.stderr };
  };

  test('re-seals the integrations and mailboxes of every organization with the new key; the old key can then go; a second run changes nothing', async () => {
    const oldKey = testEnv('INTEGRATION_SECRET_KEY'); // what the API sealed with
    const newKey = `n${Date.now().toString(36)}:${randomBytes(32).toString('hex')}`;
    const a = await newOrganization(api, 'Rotate A B.V.');
    const b = await newOrganization(api, 'Rotate B B.V.');
    const integration = await api.call('POST', '/integrations', {
      token: a.owner.token,
      body: { organizationId: a.orgId, providerKey: 'hubspot', kind: 'crm', config: { baseUrl: 'http://127.0.0.1:9' }, secret: 'hubspot-token-a' },
    });
    expect(integration.status).toBe(201);
    const mailbox = await api.call('POST', '/mailboxes', {
      token: b.owner.token,
      body: { organizationId: b.orgId, address: 'verkoop@rotate-b.nl', smtp: { host: 'smtp.example.nl', port: 587, username: 'verkoop@rotate-b.nl' }, secret: 'smtp-pass-b' },
    });
    expect(mailbox.status).toBe(201);

    const hook = await api.call('POST', '/webhook-endpoints', { token: a.owner.token, body: { organizationId: a.orgId, url: 'http://127.0.0.1:9/hooks', events: ['*'] } });
    expect(hook.status).toBe(201);

    // The suite's database also holds other tests' made-up sealed values, which no key opens: the command
    // then says so and exits 2, leaving them be; what the API sealed here must all be re-sealed.
    const first = reseal({ INTEGRATION_SECRET_KEY: newKey, INTEGRATION_SECRET_KEYS: oldKey });
    expect([0, 2]).toContain(first.status);
    expect(first.out).toMatch(/integrations: [1-9]\d* resealed/);
    expect(first.out).toMatch(/mailboxes: [1-9]\d* resealed/);

    const newOnly = new SecretBox(newKey);
    const row = async (table: string, id: string) =>
      (await owners.query(`SELECT organization_id, secret_ciphertext FROM ${table} WHERE id = $1`, [id])).rows[0] as { organization_id: string; secret_ciphertext: Buffer };
    const i = await row('integrations', integration.body.id);
    expect(SecretBox.keyIdOf(i.secret_ciphertext)).toBe(newOnly.currentKeyId);
    expect(newOnly.open(i.secret_ciphertext, secretContext(a.orgId, integration.body.id))).toBe('hubspot-token-a');
    const m = await row('mailboxes', mailbox.body.id);
    expect(newOnly.open(m.secret_ciphertext, mailboxSecretContext(b.orgId, mailbox.body.id))).toBe('smtp-pass-b');
    const w = (await owners.query('SELECT secret_ciphertext FROM webhook_endpoints WHERE id = $1', [hook.body.id])).rows[0] as { secret_ciphertext: Buffer };
    expect(newOnly.open(w.secret_ciphertext, webhookSecretContext(a.orgId, hook.body.id))).toBe(hook.body.secret);
    const { rows: stale } = await owners.query(
      `SELECT count(*)::int AS n FROM (SELECT organization_id o, secret_ciphertext s FROM integrations UNION ALL SELECT organization_id, secret_ciphertext FROM mailboxes
                                        UNION ALL SELECT organization_id, secret_headers FROM sources UNION ALL SELECT organization_id, secret_ciphertext FROM webhook_endpoints) x
        WHERE o = ANY($2) AND s IS NOT NULL AND (get_byte(s, 0) <> 2 OR convert_from(substring(s from 3 for get_byte(s, 1)), 'SQL_ASCII') <> $1)`,
      [newOnly.currentKeyId, [a.orgId, b.orgId]],
    );
    expect(stale).toEqual([{ n: 0 }]);

    const second = reseal({ INTEGRATION_SECRET_KEY: newKey });
    expect([0, 2]).toContain(second.status);
    expect(second.out).toMatch(/integrations: 0 resealed, [1-9]\d* already under key/);
    expect(second.out).toMatch(/mailboxes: 0 resealed, [1-9]\d* already under key/);
  });
});
