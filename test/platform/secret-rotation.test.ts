import { spawnSync } from 'node:child_process';
import { createCipheriv, randomBytes } from 'node:crypto';
import path from 'node:path';
import { Pool } from 'pg';
import { mailboxSecretContext, secretContext, SecretBox, webhookSecretContext } from '../../db/secrets';
import { newOrganization, startApi, TestApi } from '../helpers/api';
import { testEnv } from '../helpers/tokens';

const ROOT = path.resolve(__dirname, '../..');

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
      body: {
        organizationId: b.orgId,
        address: 'verkoop@rotate-b.nl',
        smtp: { host: 'smtp.example.nl', port: 587, username: 'verkoop@rotate-b.nl' },
        secret: 'smtp-pass-b',
      },
    });
    expect(mailbox.status).toBe(201);

    const hook = await api.call('POST', '/webhook-endpoints', {
      token: a.owner.token,
      body: { organizationId: a.orgId, url: 'http://127.0.0.1:9/hooks', events: ['*'] },
    });
    expect(hook.status).toBe(201);

    // A value no key opens, and one that is no sealed value at all (the suite's database also holds other
    // tests' made-up values): the command counts them, leaves them be and exits 2; the rest is re-sealed.
    await owners.query(
      "UPDATE webhook_endpoints SET previous_secret_ciphertext = '\\x00ff'::bytea, previous_secret_expires_at = now() + interval '1 hour' WHERE id = $1",
      [hook.body.id],
    );
    const first = reseal({ INTEGRATION_SECRET_KEY: newKey, INTEGRATION_SECRET_KEYS: oldKey });
    expect({ status: first.status, out: first.out }).toMatchObject({ status: 2 });
    expect(first.out).toMatch(/webhook_endpoints: \d+ resealed, \d+ already under key \S+, [1-9]\d* unreadable/);
    expect((await owners.query('SELECT previous_secret_ciphertext p FROM webhook_endpoints WHERE id = $1', [hook.body.id])).rows[0].p).toEqual(
      Buffer.from([0, 255]),
    );
    expect(first.out).toMatch(/integrations: [1-9]\d* resealed/);
    expect(first.out).toMatch(/mailboxes: [1-9]\d* resealed/);

    const newOnly = new SecretBox(newKey);
    const row = async (table: string, id: string) =>
      (await owners.query(`SELECT organization_id, secret_ciphertext FROM ${table} WHERE id = $1`, [id])).rows[0] as {
        organization_id: string;
        secret_ciphertext: Buffer;
      };
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
    expect({ status: [0, 2].includes(second.status ?? -1) ? 'ok' : second.status, out: second.out }).toMatchObject({ status: 'ok' });
    expect(second.out).toMatch(/integrations: 0 resealed, [1-9]\d* already under key/);
    expect(second.out).toMatch(/mailboxes: 0 resealed, [1-9]\d* already under key/);
  });

  test('a value written by someone else between its read and its re-seal is not counted as re-sealed: the run says so and exits 2', async () => {
    const a = await newOrganization(api, 'Rotate C B.V.');
    const hook = await api.call('POST', '/webhook-endpoints', {
      token: a.owner.token,
      body: { organizationId: a.orgId, url: 'http://127.0.0.1:9/hooks', events: ['*'] },
    });
    expect(hook.status).toBe(201);
    // The concurrent writer, stood in for by a trigger that keeps this row's value as it was (the fenced UPDATE then matches nothing).
    await owners.query(
      `CREATE OR REPLACE FUNCTION public.test_keep_hook_secret() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF OLD.id = '${hook.body.id}' THEN RETURN NULL; END IF; RETURN NEW; END $$`,
    );
    await owners.query(`CREATE TRIGGER test_keep_hook_secret BEFORE UPDATE ON webhook_endpoints FOR EACH ROW EXECUTE FUNCTION public.test_keep_hook_secret()`);
    try {
      const run = reseal({
        INTEGRATION_SECRET_KEY: `c${Date.now().toString(36)}:${randomBytes(32).toString('hex')}`,
        INTEGRATION_SECRET_KEYS: testEnv('INTEGRATION_SECRET_KEY'),
      });
      expect({ status: run.status, out: run.out }).toMatchObject({ status: 2 });
      expect(run.out).toMatch(/webhook_endpoints: \d+ resealed, \d+ already under key \S+, \d+ unreadable, [1-9]\d* changed meanwhile/);
      expect(run.out).toContain('run it again before dropping the old key');
    } finally {
      await owners.query('DROP TRIGGER IF EXISTS test_keep_hook_secret ON webhook_endpoints');
      await owners.query('DROP FUNCTION IF EXISTS public.test_keep_hook_secret()');
    }
  });

  test('a value sealed again with the old key behind the pass (a process not yet on the new key) is found by the last look: the run names it and exits 2', async () => {
    const a = await newOrganization(api, 'Rotate D B.V.');
    const hooks = [];
    for (let i = 0; i < 2; i++) {
      const hook = await api.call('POST', '/webhook-endpoints', {
        token: a.owner.token,
        body: { organizationId: a.orgId, url: `http://127.0.0.1:9/hooks/${i}`, events: ['*'] },
      });
      expect(hook.status).toBe(201);
      hooks.push(hook.body.id as string);
    }
    // The pass goes in id order: once it re-seals the later endpoint, the earlier one (already passed) gets its old value back.
    const [passed, later] = hooks.sort();
    const { rows } = await owners.query<{ sealed: Buffer }>('SELECT secret_ciphertext AS sealed FROM webhook_endpoints WHERE id = $1', [passed]);
    const old = `\\x${rows[0]!.sealed.toString('hex')}`;
    await owners.query(
      `CREATE OR REPLACE FUNCTION public.test_old_key_writer() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
         IF NEW.id = '${later}' THEN UPDATE webhook_endpoints SET secret_ciphertext = '${old}'::bytea WHERE id = '${passed}'; END IF;
         RETURN NULL; END $$`,
    );
    await owners.query(`CREATE TRIGGER test_old_key_writer AFTER UPDATE ON webhook_endpoints FOR EACH ROW EXECUTE FUNCTION public.test_old_key_writer()`);
    try {
      const run = reseal({
        INTEGRATION_SECRET_KEY: `d${Date.now().toString(36)}:${randomBytes(32).toString('hex')}`,
        INTEGRATION_SECRET_KEYS: testEnv('INTEGRATION_SECRET_KEY'),
      });
      expect({ status: run.status, out: run.out }).toMatchObject({ status: 2 });
      expect(run.out).toMatch(/still sealed with an old key: webhook_endpoints\.secret_ciphertext 1;/);
    } finally {
      await owners.query('DROP TRIGGER IF EXISTS test_old_key_writer ON webhook_endpoints');
      await owners.query('DROP FUNCTION IF EXISTS public.test_old_key_writer()');
    }
  });
});
