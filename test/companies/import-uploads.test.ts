import http from 'node:http';
import { API_DB_ROLE } from '../../db/roles';
import { poolOf } from '../../db/pool';
import { expectProblem, newOrganization, startApi } from '../helpers/api';
import { assertMatchesContract } from '../helpers/contract';
import { until } from '../helpers/outreach';
import { useStack } from '../helpers/stack';

/**
 * How POST /imports reads its upload: outside any database transaction, cut off when the client
 * stalls (IMPORT_IDLE_TIMEOUT_MS), and decoded from the encodings spreadsheets write.
 */
const IDLE_MS = 3000;
const { api, owners } = useStack({ api: { imports: { idleTimeoutMs: IDLE_MS } }, owners: true });

interface Stalled {
  req: http.ClientRequest;
  /** The answer, if the server sends one before it closes the connection. */
  answer: Promise<{ status: number; contentType: string | null; body: unknown } | undefined>;
  /** When the connection closed (ms since the epoch). */
  closed: Promise<number>;
  sentAt: number;
}

/** A POST /imports that sends its header row and a few bytes of the next, then nothing (chunked, no end). */
function stalledUpload(token: string, orgId: string, base = api.url): Stalled {
  const url = new URL(`/imports?organizationId=${orgId}&sourceDescription=slow`, base);
  const req = http.request(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv' } });
  const answer = new Promise<Stalled['answer'] extends Promise<infer T> ? T : never>((resolve) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON
        }
        resolve({ status: res.statusCode!, contentType: res.headers['content-type'] ?? null, body });
      });
      res.on('error', () => resolve(undefined));
    });
    req.on('error', () => resolve(undefined));
  });
  const closed = new Promise<number>((resolve) => req.on('socket', (s) => s.once('close', () => resolve(Date.now()))));
  req.write('full_name,email,company\nAnna de V');
  return { req, answer, closed, sentAt: Date.now() };
}

test('fourteen stalled uploads of one tenant, its id spelled in either case: four are received and ten refused at once (429); another tenant lists in under two seconds, no API connection is held, each of the four is cut off by the idle timeout with 408 and nothing is stored', async () => {
  const slow = await newOrganization(api, 'Trage Upload B.V.');
  const other = await newOrganization(api, 'Andere Huurder B.V.');
  const stalled: Stalled[] = [];
  try {
    for (let i = 0; i < 14; i++) {
      // The id in upper case is the same organization, with the same four places.
      stalled.push(stalledUpload(slow.owner.token, i % 2 ? slow.orgId.toUpperCase() : slow.orgId));
      // In order: the first four reach the route's body read before the next is sent.
      await new Promise((r) => setTimeout(r, 60));
    }
    // Every upload has reached the route (its role checked) and waits on its body, or was refused.
    await new Promise((r) => setTimeout(r, 800));

    const started = Date.now();
    const listed = await Promise.race([
      api.call('GET', `/contacts?organizationId=${other.orgId}`, { token: other.owner.token }),
      new Promise<undefined>((r) => setTimeout(() => r(undefined), 2500)),
    ]);
    const took = Date.now() - started;
    expect(listed?.status).toBe(200);
    expect(took).toBeLessThan(2000);
    // Another tenant's upload is received while this one's four are held.
    const theirs = await api.call('POST', `/imports?organizationId=${other.orgId}&sourceDescription=ok`, {
      token: other.owner.token,
      rawBody: 'full_name,email,company\nBea Bakker,bea@bakker.nl,Bakker BV\n',
      headers: { 'content-type': 'text/csv' },
    });
    expect(theirs.status).toBe(202);

    // No connection of the API's pool is checked out, and PostgreSQL sees no API session at work or in a transaction.
    const pool = poolOf(api.db)!;
    expect(pool.totalCount - pool.idleCount).toBe(0);
    const { rows } = await owners.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = $1 AND state <> 'idle'`, [API_DB_ROLE]);
    expect(rows[0].n).toBe(0);

    const answers = await Promise.all(
      stalled.map((s) => Promise.race([s.answer, new Promise<undefined>((r) => setTimeout(() => r(undefined), IDLE_MS + 5000))])),
    );
    const closedAt = await Promise.all(stalled.map((s) => Promise.race([s.closed, new Promise<number>((r) => setTimeout(() => r(Infinity), 2000))])));
    expect(answers.map((a) => a?.status)).toEqual([...Array(4).fill(408), ...Array(10).fill(429)]);
    stalled.forEach((s, i) => {
      const a = answers[i]!;
      assertMatchesContract('POST', `/imports?organizationId=${slow.orgId}&sourceDescription=slow`, a.status, a.contentType, a.body);
      if (i >= 4) {
        expect(a).toMatchObject({ body: { code: 'RATE_LIMITED', scope: 'organization' } });
        expect(closedAt[i]! - s.sentAt).toBeLessThan(IDLE_MS); // at once, not after the idle time
        return;
      }
      expect(a).toMatchObject({
        status: 408,
        contentType: expect.stringMatching(/^application\/problem\+json/),
        body: { code: 'REQUEST_TIMEOUT', status: 408 },
      });
      // Cut off after the idle timeout, not before, and the connection closed by the server.
      expect(closedAt[i]! - s.sentAt).toBeGreaterThanOrEqual(IDLE_MS - 50);
      expect(closedAt[i]! - s.sentAt).toBeLessThan(IDLE_MS + 3000);
    });
  } finally {
    for (const s of stalled) s.req.destroy();
  }
  expect((await api.call('GET', `/imports?organizationId=${slow.orgId}`, { token: slow.owner.token })).body).toEqual([]);
  const staged = await owners.query('SELECT count(*)::int AS n FROM import_rows WHERE organization_id = $1', [slow.orgId]);
  expect(staged.rows[0].n).toBe(0);
  // The API is whole afterwards: the slots are free again and an upload that does not stall is taken.
  const good = await api.call('POST', `/imports?organizationId=${slow.orgId}&sourceDescription=ok`, {
    token: slow.owner.token,
    rawBody: 'full_name,email,company\nAnna de Vries,anna@devries.nl,De Vries BV\n',
    headers: { 'content-type': 'text/csv' },
  });
  expect(good.status).toBe(202);
}, 60_000);

test('received files are stored a few at a time per API process, whatever their organizations: the next waits its turn without a database connection', async () => {
  const own = await startApi({ imports: { maxConcurrentStores: 1 } });
  const holder = await owners.connect();
  try {
    const tenants = [await newOrganization(own, 'Eerste Import B.V.'), await newOrganization(own, 'Tweede Import B.V.')];
    // Rows cannot be copied while the table is held: the first store waits inside its transaction.
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE import_rows IN EXCLUSIVE MODE');
    const uploads = tenants.map((t, i) =>
      own.call('POST', `/imports?organizationId=${t.orgId}&sourceDescription=turns`, {
        token: t.owner.token,
        rawBody: `full_name,email,company\nAnna ${i},anna${i}@beurt.nl,Beurt BV\n`,
        headers: { 'content-type': 'text/csv' },
      }),
    );
    // Read on the pool, not the holder: a transaction sees the activity view as it was at its first read.
    const inTransaction = async () =>
      (
        await owners.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = $1 AND datname = current_database() AND xact_start IS NOT NULL`, [
          API_DB_ROLE,
        ])
      ).rows[0].n as number;
    await until('one store waits on the table', async () => (await inTransaction()) === 1);
    // Both files arrived long ago; the second still holds no connection.
    await new Promise((r) => setTimeout(r, 1000));
    expect(await inTransaction()).toBe(1);
    await holder.query('COMMIT');
    expect((await Promise.all(uploads)).map((u) => u.status)).toEqual([202, 202]);
  } finally {
    await holder.query('ROLLBACK').catch(() => undefined);
    holder.release();
    await own.close();
  }
});

test('an upload that keeps sending a byte now and then is cut off when its whole time is up (408), not only when it stalls', async () => {
  const own = await startApi({ imports: { idleTimeoutMs: 1000, uploadTimeoutMs: 2500 } });
  try {
    const o = await newOrganization(own, 'Druppel Upload B.V.');
    const s = stalledUpload(o.owner.token, o.orgId, own.url);
    const drip = setInterval(() => s.req.write('a'), 300); // never idle for 1 s
    try {
      const a = await Promise.race([s.answer, new Promise<undefined>((r) => setTimeout(() => r(undefined), 8000))]);
      expect(a).toMatchObject({ status: 408, body: { code: 'REQUEST_TIMEOUT', detail: expect.stringContaining('in all') } });
      expect((await s.closed) - s.sentAt).toBeGreaterThanOrEqual(2400);
    } finally {
      clearInterval(drip);
      s.req.destroy();
    }
  } finally {
    await own.close();
  }
});

test('an upload that stalls before the role check is answered: a stranger to the organization gets 404 at once, without sending the file', async () => {
  const slow = await newOrganization(api, 'Rolcheck Eerst B.V.');
  const stranger = await newOrganization(api, 'Vreemde B.V.');
  const s = stalledUpload(stranger.owner.token, slow.orgId);
  try {
    const a = await Promise.race([s.answer, new Promise<undefined>((r) => setTimeout(() => r(undefined), IDLE_MS - 500))]);
    expect(a).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
  } finally {
    s.req.destroy();
  }
});

test('a stalled upload with an Idempotency-Key is cut off the same way and leaves the key free', async () => {
  const slow = await newOrganization(api, 'Trage Sleutel B.V.');
  const url = new URL(`/imports?organizationId=${slow.orgId}&sourceDescription=slow`, api.url);
  const req = http.request(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${slow.owner.token}`, 'content-type': 'text/csv', 'idempotency-key': 'slow-1' },
  });
  const status = new Promise<number | undefined>((resolve) => {
    req.on('response', (res) => (res.resume(), resolve(res.statusCode)));
    req.on('error', () => resolve(undefined));
  });
  req.write('full_name,email\n');
  try {
    expect(await Promise.race([status, new Promise<undefined>((r) => setTimeout(() => r(undefined), IDLE_MS + 5000))])).toBe(408);
  } finally {
    req.destroy();
  }
  const again = await api.call('POST', `/imports?organizationId=${slow.orgId}&sourceDescription=slow`, {
    token: slow.owner.token,
    rawBody: 'full_name,email,company\nAnna de Vries,anna@devries.nl,De Vries BV\n',
    headers: { 'content-type': 'text/csv', 'idempotency-key': 'slow-1' },
  });
  expect(again.status).toBe(202);
}, 30_000);

const NAMES = ['Jörg Müller', 'Zoë Ångström', 'François Lefèvre'];
const csvText = () =>
  ['full_name;email;title;company', ...NAMES.map((n, i) => `${n};p${i}@voorbeeld.de;Einkäufer für Bäder – Süd;Müller & Söhne GmbH`)].join('\r\n') + '\r\n';

const ENCODINGS: Array<[string, (text: string) => Buffer]> = [
  ['UTF-8', (t) => Buffer.from(t, 'utf8')],
  ['UTF-8 with a BOM', (t) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(t, 'utf8')])],
  ['UTF-16LE with a BOM', (t) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(t, 'utf16le')])],
  ['UTF-16BE with a BOM', (t) => Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(t, 'utf16le').swap16()])],
  ['Windows-1252', (t) => windows1252(t)],
];

/** Windows-1252 bytes of a text of Latin-1 letters and the en dash (0x96). */
function windows1252(text: string): Buffer {
  return Buffer.from([...text].map((ch) => (ch === '–' ? 0x96 : ch === '€' ? 0x80 : ch.charCodeAt(0))));
}

test.each(ENCODINGS)(
  'a file in %s: names, titles and companies read right',
  async (_name, encode) => {
    const { owner, orgId } = await newOrganization(api, 'Kodierung GmbH');
    const res = await fetch(`${api.url}/imports?organizationId=${orgId}&sourceDescription=Messe`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'text/csv' },
      body: encode(csvText()),
    });
    const accepted = (await res.json()) as { id: string };
    assertMatchesContract('POST', `/imports?organizationId=${orgId}&sourceDescription=Messe`, res.status, res.headers.get('content-type'), accepted);
    expect(res.status).toBe(202);
    expect(accepted).toMatchObject({ total_rows: 3, errors: [] });
    const done = await until(
      'the import to finish',
      async () => {
        const got = await api.call('GET', `/imports/${accepted.id}`, { token: owner.token });
        return got.body.status !== 'running' ? got.body : undefined;
      },
      60_000,
    );
    expect(done).toMatchObject({ status: 'completed', created_contacts: 3, created_companies: 1, skipped: [], errors: [] });
    const { rows } = await owners.query(
      `SELECT c.full_name, c.title, co.name AS company FROM contacts c JOIN companies co ON co.id = c.company_id WHERE c.organization_id = $1 ORDER BY c.email`,
      [orgId],
    );
    expect(rows).toEqual(NAMES.map((n) => ({ full_name: n, title: 'Einkäufer für Bäder – Süd', company: 'Müller & Söhne GmbH' })));
  },
  90_000,
);

test('a body that is not text in any of those encodings: 400, nothing stored', async () => {
  const { owner, orgId } = await newOrganization(api, 'Binair B.V.');
  // UTF-16 without a BOM: NUL bytes between the letters, refused naming the row.
  const res = await fetch(`${api.url}/imports?organizationId=${orgId}&sourceDescription=x`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'text/csv' },
    body: Buffer.from('full_name,email\nAnna,anna@devries.nl\n', 'utf16le'),
  });
  const body = (await res.json()) as { code: string };
  assertMatchesContract('POST', `/imports?organizationId=${orgId}&sourceDescription=x`, res.status, res.headers.get('content-type'), body);
  expect({ status: res.status, code: body.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
  expect((await api.call('GET', `/imports?organizationId=${orgId}`, { token: owner.token })).body).toEqual([]);
  expectProblem(
    await api.call('POST', `/imports?organizationId=${orgId}&sourceDescription=x`, {
      token: owner.token,
      rawBody: 'x',
      headers: { 'content-type': 'application/json' },
    }),
    415,
    'UNSUPPORTED_MEDIA_TYPE',
  );
});
